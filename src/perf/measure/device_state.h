// device_state: the per-device state files (`*-state.bin`) that the gateways and each
// application write at the end of a run, and their comparison, which decides whether
// any message went missing (src/perf/README.md, "Device state files").
//
// Format: 8 bytes "MGDSTAT1", a little-endian u64 device count, one little-endian u64
// per device. Plain functions without shared state: thread-safe.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace magnetar::perf {

// Writes a temporary file beside `file`, syncs it and renames it over `file`, so that a
// reader (or a run killed half-way) never sees a partial state. io_error naming the file.
result<void> write_device_state(const std::filesystem::path& file, std::span<const std::uint64_t> values);

// io_error when the file cannot be read; invalid_argument naming the file for a bad
// magic, a truncated file or a count that does not match the file's size.
result<std::vector<std::uint64_t>> read_device_state(const std::filesystem::path& file);

struct missing_report {
  // Sum over devices of max(0, gateways - application).
  std::uint64_t missing_messages = 0;
  std::uint64_t devices_missing = 0;
  // The first devices that miss messages (at most max_missing_samples), e.g.
  // "device 17: sent 0..41, received 0..39 (2 missing)".
  std::vector<std::string> samples;
};

inline constexpr std::size_t max_missing_samples = 20;

// invalid_argument when the two states cover a different number of devices. A device
// whose application value is above the gateways' is not missing anything: the broker
// stored a message whose receipt the gateway never saw.
result<missing_report> compare_device_state(std::span<const std::uint64_t> gateways,
                                            std::span<const std::uint64_t> application);

}  // namespace magnetar::perf
