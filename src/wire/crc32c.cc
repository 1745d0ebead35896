#include "wire/crc32c.h"

#include "base/assert.h"

#include <array>
#include <bit>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#define MAGNETAR_WIRE_HAVE_SSE42 1
#endif

// Both implementations work on the raw crc register: the public functions invert it on
// the way in and out, which is what makes `seed` continue an earlier crc.

namespace magnetar::wire {
namespace {

constexpr std::uint32_t castagnoli = 0x82F63B78;  // the polynomial, bit-reversed

using byte_table = std::array<std::uint32_t, 256>;

// slicing[k][b]: the register after byte b followed by k zero bytes.
constexpr std::array<byte_table, 8> make_slicing_tables() {
  std::array<byte_table, 8> t{};
  for (std::uint32_t b = 0; b < 256; ++b) {
    std::uint32_t r = b;
    for (int bit = 0; bit < 8; ++bit) r = (r & 1) ? (r >> 1) ^ castagnoli : r >> 1;
    t[0][b] = r;
  }
  for (std::uint32_t b = 0; b < 256; ++b) {
    for (std::size_t k = 1; k < 8; ++k) t[k][b] = t[0][t[k - 1][b] & 0xff] ^ (t[k - 1][b] >> 8);
  }
  return t;
}

constexpr auto slicing = make_slicing_tables();

std::uint64_t load_le64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

std::uint32_t update_portable(std::uint32_t r, const std::byte* p, std::size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    const std::uint64_t w = load_le64(p) ^ r;
    r = slicing[7][w & 0xff] ^ slicing[6][(w >> 8) & 0xff] ^ slicing[5][(w >> 16) & 0xff] ^
        slicing[4][(w >> 24) & 0xff] ^ slicing[3][(w >> 32) & 0xff] ^ slicing[2][(w >> 40) & 0xff] ^
        slicing[1][(w >> 48) & 0xff] ^ slicing[0][w >> 56];
  }
  for (; n > 0; ++p, --n) r = slicing[0][(r ^ std::to_integer<std::uint32_t>(*p)) & 0xff] ^ (r >> 8);
  return r;
}

#if defined(MAGNETAR_WIRE_HAVE_SSE42)

// The crc32 instruction has a latency of three cycles but issues every cycle, so on long
// inputs three independent streams over three adjacent lanes run about three times as
// fast as one. The lanes' registers are then joined: appending n zero bytes to a message
// multiplies its register by x^(8n) modulo the polynomial, hence
//   register(A B) = register(A) * x^(8 |B|) + register_from_zero(B).
// The multiplication by a fixed power is linear, so it is four table look-ups.

// a * b modulo the polynomial, both bit-reversed (bit 31 is x^0).
constexpr std::uint32_t multiply_modulo(std::uint32_t a, std::uint32_t b) {
  std::uint32_t product = 0;
  for (std::uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b & 1) ? (b >> 1) ^ castagnoli : b >> 1;
  }
  return product;
}

constexpr std::uint32_t x_to_the_8n(std::size_t n) {
  std::uint32_t result = 1u << 31;  // x^0
  std::uint32_t square = 1u << 23;  // x^8
  for (; n != 0; n >>= 1) {
    if (n & 1) result = multiply_modulo(square, result);
    square = multiply_modulo(square, square);
  }
  return result;
}

using shift_table = std::array<byte_table, 4>;

// shift[k][b]: register (b << 8k) followed by `bytes` zero bytes.
constexpr shift_table make_shift_table(std::size_t bytes) {
  const std::uint32_t factor = x_to_the_8n(bytes);
  shift_table t{};
  for (std::size_t k = 0; k < 4; ++k) {
    for (std::uint32_t b = 0; b < 256; ++b) t[k][b] = multiply_modulo(factor, b << (8 * k));
  }
  return t;
}

constexpr std::uint32_t shift(const shift_table& t, std::uint32_t r) {
  return t[0][r & 0xff] ^ t[1][(r >> 8) & 0xff] ^ t[2][(r >> 16) & 0xff] ^ t[3][r >> 24];
}

// Lane lengths: the long one amortises the join, the short one still pays off at 1 KiB.
constexpr std::size_t long_lane = 8192;
constexpr std::size_t short_lane = 256;
constexpr shift_table shift_long = make_shift_table(long_lane);
constexpr shift_table shift_short = make_shift_table(short_lane);

__attribute__((target("sse4.2"))) inline std::uint64_t load64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <std::size_t Lane>
__attribute__((target("sse4.2"))) std::uint32_t three_lanes(std::uint32_t r, const std::byte*& p, std::size_t& n,
                                                            const shift_table& join) {
  while (n >= 3 * Lane) {
    std::uint64_t a = r, b = 0, c = 0;
    for (const std::byte* end = p + Lane; p < end; p += 8) {
      a = _mm_crc32_u64(a, load64(p));
      b = _mm_crc32_u64(b, load64(p + Lane));
      c = _mm_crc32_u64(c, load64(p + 2 * Lane));
    }
    r = shift(join, shift(join, static_cast<std::uint32_t>(a)) ^ static_cast<std::uint32_t>(b)) ^
        static_cast<std::uint32_t>(c);
    p += 2 * Lane;
    n -= 3 * Lane;
  }
  return r;
}

__attribute__((target("sse4.2"))) std::uint32_t update_sse42(std::uint32_t r, const std::byte* p, std::size_t n) {
  // Aligned 8-byte loads are a little faster; unaligned ones are still correct.
  for (; n > 0 && (reinterpret_cast<std::uintptr_t>(p) & 7) != 0; ++p, --n) {
    r = _mm_crc32_u8(r, std::to_integer<std::uint8_t>(*p));
  }
  r = three_lanes<long_lane>(r, p, n, shift_long);
  r = three_lanes<short_lane>(r, p, n, shift_short);
  std::uint64_t wide = r;
  for (; n >= 8; p += 8, n -= 8) wide = _mm_crc32_u64(wide, load64(p));
  r = static_cast<std::uint32_t>(wide);
  for (; n > 0; ++p, --n) r = _mm_crc32_u8(r, std::to_integer<std::uint8_t>(*p));
  return r;
}

#endif

}  // namespace

bool crc32c_hardware_available() {
#if defined(MAGNETAR_WIRE_HAVE_SSE42)
  static const bool available = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") != 0;
  }();
  return available;
#else
  return false;
#endif
}

std::uint32_t crc32c_portable(std::span<const std::byte> bytes, std::uint32_t seed) {
  return ~update_portable(~seed, bytes.data(), bytes.size());
}

std::uint32_t crc32c_hardware(std::span<const std::byte> bytes, std::uint32_t seed) {
  MAGNETAR_ASSERT(crc32c_hardware_available(), "crc32c_hardware called on a CPU without SSE4.2");
#if defined(MAGNETAR_WIRE_HAVE_SSE42)
  return ~update_sse42(~seed, bytes.data(), bytes.size());
#else
  return seed;
#endif
}

std::uint32_t crc32c(std::span<const std::byte> bytes, std::uint32_t seed) {
#if defined(MAGNETAR_WIRE_HAVE_SSE42)
  static const bool hardware = crc32c_hardware_available();
  if (hardware) return ~update_sse42(~seed, bytes.data(), bytes.size());
#endif
  return ~update_portable(~seed, bytes.data(), bytes.size());
}

std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t seed) {
  return crc32c(std::span(static_cast<const std::byte*>(data), size), seed);
}

}  // namespace magnetar::wire
