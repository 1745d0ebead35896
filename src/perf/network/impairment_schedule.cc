#include "perf/network/impairment_schedule.h"

#include <fmt/format.h>

#include <fstream>

namespace magnetar::perf {

using std::chrono::system_clock;

anchor_times read_anchor_times(const std::filesystem::path& events_csv) {
  anchor_times out;
  std::ifstream in(events_csv);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(',');
    const auto second = first == std::string::npos ? std::string::npos : line.find(',', first + 1);
    if (second == std::string::npos) continue;
    const auto event = line.substr(second + 1);
    auto* slot = event == "gateways-started"      ? &out.gateways_started
                 : event == "measurement-started" ? &out.measurement_started
                                                  : nullptr;
    if (slot == nullptr || *slot) continue;
    try {
      *slot = system_clock::time_point(std::chrono::milliseconds(std::stoll(line.substr(0, first))));
    } catch (const std::exception&) {
    }
  }
  return out;
}

impairment_schedule::impairment_schedule(impairment_engine& engine, std::function<anchor_times()> anchors,
                                         std::function<void(const std::string&)> on_failure)
    : _engine(engine), _anchors(std::move(anchors)), _on_failure(std::move(on_failure)) {}

void impairment_schedule::start() {
  _thread = std::thread([this] {
    while (!_stop.load()) {
      step(system_clock::now());
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

void impairment_schedule::stop() {
  _stop = true;
  if (_thread.joinable()) _thread.join();
}

void impairment_schedule::step(system_clock::time_point now) {
  if (_failed) return;
  if (!_known.gateways_started || !_known.measurement_started) {
    const auto read = _anchors();
    if (!_known.gateways_started) _known.gateways_started = read.gateways_started;
    if (!_known.measurement_started) _known.measurement_started = read.measurement_started;
  }
  const auto records = _engine.records();
  for (std::size_t i = 0; i < _engine.size(); ++i) {
    const auto& s = _engine.planned(i).settings;
    if (!s.start) continue;
    const auto& anchor =
        s.anchor == impairment_anchor::measurement ? _known.measurement_started : _known.gateways_started;
    if (!anchor) continue;
    const auto begin = *anchor + *s.start;
    result<void> acted = success();
    if (records[i].state == impairment_state::pending && now >= begin) {
      acted = _engine.apply(i);
    } else if (records[i].state == impairment_state::active && s.duration && now >= begin + *s.duration) {
      acted = _engine.remove(i);
    }
    if (!acted) {
      _failed = true;
      _on_failure(fmt::format("network impairment {}: {}", s.name, acted.error().message()));
      return;
    }
  }
}

}  // namespace magnetar::perf
