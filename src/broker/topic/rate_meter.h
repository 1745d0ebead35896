// rate_meter: a message and byte counter with the per-second rates of its last window,
// what topic stats report as msgRateIn / msgThroughputIn and the like.
//
// record() counts; roll() closes the window (a topic's tick calls it about every
// second) and computes the rates over it. Lives with what it measures, on that shard.
#pragma once

#include "base/clock.h"

#include <chrono>
#include <cstdint>

namespace magnetar::broker {

class rate_meter {
 public:
  void record(std::uint64_t messages, std::uint64_t bytes) {
    _messages += messages;
    _bytes += bytes;
  }
  void roll(base::clock::time_point now) {
    if (_window_start != base::clock::time_point{}) {
      const double seconds = std::chrono::duration<double>(now - _window_start).count();
      if (seconds > 0) {
        _message_rate = static_cast<double>(_messages - _window_messages) / seconds;
        _byte_rate = static_cast<double>(_bytes - _window_bytes) / seconds;
      }
    }
    _window_start = now;
    _window_messages = _messages;
    _window_bytes = _bytes;
  }

  std::uint64_t messages() const { return _messages; }
  std::uint64_t bytes() const { return _bytes; }
  double message_rate() const { return _message_rate; }
  double byte_rate() const { return _byte_rate; }

 private:
  std::uint64_t _messages = 0;
  std::uint64_t _bytes = 0;
  std::uint64_t _window_messages = 0;
  std::uint64_t _window_bytes = 0;
  base::clock::time_point _window_start{};
  double _message_rate = 0;
  double _byte_rate = 0;
};

}  // namespace magnetar::broker
