// key_sequences: per-key order and completeness of a keyed stream whose payloads carry
// their key's sequence number (0, 1, 2, ... per key), as st-split's do.
//
// A sequence seen before is a duplicate; a first delivery below the key's highest
// sequence so far is out of order (a key's older message after a newer one, which a
// split or merge must never cause). Keys at or above the count given are not tracked.
//
// Thread-safety: none; one consuming thread owns it.
#pragma once

#include <cstdint>
#include <vector>

namespace magnetar::perf {

class key_sequences {
 public:
  explicit key_sequences(unsigned keys);

  void record(std::uint32_t key, std::uint64_t sequence);

  std::uint64_t unique() const { return _unique; }
  std::uint64_t duplicates() const { return _duplicates; }
  std::uint64_t out_of_order() const { return _out_of_order; }

 private:
  std::vector<std::int64_t> _highest;    // per key; -1 before its first message
  std::vector<std::vector<bool>> _seen;  // per key, by sequence
  std::uint64_t _unique = 0;
  std::uint64_t _duplicates = 0;
  std::uint64_t _out_of_order = 0;
};

}  // namespace magnetar::perf
