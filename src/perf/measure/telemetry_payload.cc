#include "perf/measure/telemetry_payload.h"

#include "base/assert.h"

#include <algorithm>
#include <charconv>

namespace magnetar::perf {

namespace {

// Byte by byte so that the format stays little-endian on any host; GCC folds these
// loops into single loads and stores on little-endian machines.
template <class T>
void put_le(std::byte* out, T value) {
  auto v = static_cast<std::uint64_t>(value);
  for (std::size_t i = 0; i < sizeof(T); ++i, v >>= 8) out[i] = static_cast<std::byte>(v & 0xff);
}

template <class T>
T get_le(const std::byte* in) {
  std::uint64_t v = 0;
  for (std::size_t i = sizeof(T); i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(in[i]);
  return static_cast<T>(v);
}

constexpr std::uint32_t warmup_flag = 1;

}  // namespace

void encode_payload(const telemetry_header& header, std::span<std::byte> out) {
  MAGNETAR_ASSERT(out.size() >= telemetry_header_size, "telemetry payload of {} bytes is below the {}-byte header",
                  out.size(), telemetry_header_size);
  std::byte* p = out.data();
  put_le<std::uint32_t>(p, telemetry_magic);
  put_le<std::uint32_t>(p + 4, header.warmup ? warmup_flag : 0);
  put_le<std::uint64_t>(p + 8, header.device);
  put_le<std::uint64_t>(p + 16, header.sequence);
  put_le<std::int64_t>(p + 24, header.intended_send_nanos);
  std::fill(out.begin() + telemetry_header_size, out.end(), std::byte{0});
}

std::optional<telemetry_header> decode_payload(std::span<const std::byte> payload) {
  if (payload.size() < telemetry_header_size) return std::nullopt;
  const std::byte* p = payload.data();
  if (get_le<std::uint32_t>(p) != telemetry_magic) return std::nullopt;
  telemetry_header header;
  header.warmup = (get_le<std::uint32_t>(p + 4) & warmup_flag) != 0;
  header.device = get_le<std::uint64_t>(p + 8);
  header.sequence = get_le<std::uint64_t>(p + 16);
  header.intended_send_nanos = get_le<std::int64_t>(p + 24);
  return header;
}

std::string device_key(std::uint64_t device) { return std::to_string(device); }

bool key_matches(std::string_view key, std::uint64_t device) noexcept {
  char buffer[20];  // 2^64 - 1 has 20 digits
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, device);
  return ec == std::errc{} && key == std::string_view(buffer, static_cast<std::size_t>(end - buffer));
}

}  // namespace magnetar::perf
