// telemetry_payload: the bytes an IoT gateway puts in each message and an application
// reads back (src/perf/README.md, "The telemetry payload"), and the message key that
// names the device.
//
// Layout, little-endian, at least 32 bytes: u32 magic "MGT1", u32 flags (bit 0: warmup),
// u64 device, u64 sequence, i64 intended send time (epoch nanoseconds), zero padding.
// Plain functions without state: thread-safe, allocation-free except device_key().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace magnetar::perf {

inline constexpr std::uint32_t telemetry_magic = 0x4d475431;  // "MGT1"
inline constexpr std::size_t telemetry_header_size = 32;

struct telemetry_header {
  std::uint64_t device = 0;
  std::uint64_t sequence = 0;
  std::int64_t intended_send_nanos = 0;
  bool warmup = false;

  friend bool operator==(const telemetry_header&, const telemetry_header&) = default;
};

// Fills all of `out` (the scenario's payload.size): the header, then zeros. Asserts
// out.size() >= telemetry_header_size, which the scenario's validation guarantees.
void encode_payload(const telemetry_header& header, std::span<std::byte> out);

// nullopt for a payload shorter than the header or with another magic. Unknown flag
// bits and the padding are ignored so that a later writer may use them.
std::optional<telemetry_header> decode_payload(std::span<const std::byte> payload);

// The message key of a device: its id in decimal.
std::string device_key(std::uint64_t device);

// True when `key` is exactly device_key(device); checked on every received message,
// so it formats into a stack buffer instead of allocating.
bool key_matches(std::string_view key, std::uint64_t device) noexcept;

}  // namespace magnetar::perf
