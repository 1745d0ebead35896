// varint: unsigned LEB128 integers, as protobuf's wire format and magnetar's own
// persisted formats (histograms, acknowledged range sets) write them: seven bits a byte,
// low bits first, the top bit set on every byte but the last; at most ten bytes for 64
// bits, the tenth carrying bit 63 only.
//
//   std::string out;
//   base::append_varint(out, 300);                     // "\xac\x02"
//   auto r = base::read_varint(std::span<const char>(out), base::varint_rules::exact);
//   if (r.status == base::varint_status::ok) use(r.value), skip(r.size);
//
// Reads never run past the bytes they are given: untrusted input (a frame, a file) gets
// a status, never a crash. Header-only: the callers are hot loops. Pure functions.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace magnetar::base {

inline constexpr std::size_t max_varint_size = 10;

constexpr std::size_t varint_size(std::uint64_t v) { return (static_cast<std::size_t>(std::bit_width(v | 1)) + 6) / 7; }

// Writes `v` at `out`, which has room for max_varint_size bytes; returns the end.
// Byte: char, unsigned char or std::byte.
template <class Byte>
constexpr Byte* write_varint(Byte* out, std::uint64_t v) {
  for (; v >= 0x80; v >>= 7) *out++ = static_cast<Byte>(static_cast<std::uint8_t>(v) | 0x80);
  *out++ = static_cast<Byte>(v);
  return out;
}

// Appends `v` to a std::string or a std::vector of bytes.
template <class Container>
void append_varint(Container& out, std::uint64_t v) {
  typename Container::value_type buffer[max_varint_size];
  auto* end = write_varint(buffer, v);
  out.insert(out.end(), buffer, end);
}

enum class varint_status {
  ok,
  truncated,  // the bytes end inside the varint
  too_long,   // more than ten bytes, or (exact and canonical) bits past the 64th
  overlong,   // not the shortest form (trailing zero groups): canonical only
};

// How strict a read is:
//   protobuf   as protobuf parses: up to ten bytes, bits past the 64th dropped (what a
//              client's encoder sent is read as the broker's own protobuf parse read it)
//   exact      the value must fit 64 bits (the tenth byte holds bit 63 only)
//   canonical  exact, and only the shortest form, so that a format has one encoding per
//              value (a persisted form that is byte-for-byte what its writer writes)
enum class varint_rules { protobuf, exact, canonical };

struct varint_read {
  std::uint64_t value = 0;
  std::size_t size = 0;  // bytes taken, when ok
  varint_status status = varint_status::truncated;
};

// Reads the varint at the start of `bytes`.
template <class Byte>
constexpr varint_read read_varint(std::span<const Byte> bytes, varint_rules rules) {
  varint_read r;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == max_varint_size) {
      r.status = varint_status::too_long;
      return r;
    }
    const auto b = static_cast<std::uint8_t>(bytes[i]);
    if (i == max_varint_size - 1 && rules != varint_rules::protobuf && b > 1) {
      r.status = varint_status::too_long;
      return r;
    }
    r.value |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      const bool overlong = rules == varint_rules::canonical && b == 0 && i > 0;
      r.status = overlong ? varint_status::overlong : varint_status::ok;
      r.size = i + 1;
      return r;
    }
  }
  return r;  // truncated
}

}  // namespace magnetar::base
