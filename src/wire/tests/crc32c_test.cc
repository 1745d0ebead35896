#include "wire/crc32c.h"

#include "wire/tests/test_frames.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <functional>
#include <numeric>
#include <ostream>
#include <string>
#include <vector>

namespace magnetar::wire {
namespace {

using test_support::bytes_of;
using test_support::random_bytes;

using crc_function = std::function<std::uint32_t(std::span<const std::byte>, std::uint32_t)>;

struct implementation {
  std::string name;
  crc_function crc;
  bool available;
};

void PrintTo(const implementation& i, std::ostream* out) { *out << i.name; }

std::vector<implementation> implementations() {
  return {
      {"portable", [](auto bytes, auto seed) { return crc32c_portable(bytes, seed); }, true},
      {"hardware", [](auto bytes, auto seed) { return crc32c_hardware(bytes, seed); }, crc32c_hardware_available()},
      {"dispatched", [](auto bytes, auto seed) { return crc32c(bytes, seed); }, true},
  };
}

class crc32c_vectors : public ::testing::TestWithParam<implementation> {
 protected:
  void SetUp() override {
    if (!GetParam().available) GTEST_SKIP() << "this CPU has no SSE4.2";
  }
  std::uint32_t crc(std::span<const std::byte> bytes, std::uint32_t seed = 0) const {
    return GetParam().crc(bytes, seed);
  }
};

std::vector<std::byte> filled(std::size_t size, std::uint8_t value) {
  return std::vector<std::byte>(size, static_cast<std::byte>(value));
}

TEST_P(crc32c_vectors, check_string_123456789_gives_e3069283) { EXPECT_EQ(crc(bytes_of("123456789")), 0xE3069283u); }

TEST_P(crc32c_vectors, thirty_two_zero_bytes_give_8a9136aa) { EXPECT_EQ(crc(filled(32, 0x00)), 0x8A9136AAu); }

TEST_P(crc32c_vectors, thirty_two_ff_bytes_give_62a8ab43) { EXPECT_EQ(crc(filled(32, 0xFF)), 0x62A8AB43u); }

TEST_P(crc32c_vectors, ascending_bytes_0_to_31_give_46dd794e) {
  std::array<std::byte, 32> bytes;
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i);
  EXPECT_EQ(crc(bytes), 0x46DD794Eu);
}

TEST_P(crc32c_vectors, descending_bytes_31_to_0_give_113fdb5c) {
  std::array<std::byte, 32> bytes;
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(31 - i);
  EXPECT_EQ(crc(bytes), 0x113FDB5Cu);
}

TEST_P(crc32c_vectors, empty_input_returns_the_seed) {
  EXPECT_EQ(crc({}), 0u);
  EXPECT_EQ(crc({}, 0xE3069283u), 0xE3069283u);
}

TEST_P(crc32c_vectors, extending_in_pieces_equals_one_pass) {
  const auto bytes = random_bytes(100'000, 7);
  const std::uint32_t whole = crc(bytes);
  for (std::size_t piece : {1u, 3u, 8u, 255u, 1000u, 30'000u}) {
    std::uint32_t running = 0;
    for (std::size_t at = 0; at < bytes.size(); at += piece) {
      running = crc(std::span(bytes).subspan(at, std::min(piece, bytes.size() - at)), running);
    }
    EXPECT_EQ(running, whole) << "pieces of " << piece;
  }
}

INSTANTIATE_TEST_SUITE_P(crc32c, crc32c_vectors, ::testing::ValuesIn(implementations()),
                         [](const auto& info) { return info.param.name; });

class crc32c_hardware_vs_portable : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!crc32c_hardware_available()) GTEST_SKIP() << "this CPU has no SSE4.2";
  }
};

TEST_F(crc32c_hardware_vs_portable, agree_on_every_length_up_to_300) {
  for (std::size_t size = 0; size <= 300; ++size) {
    const auto bytes = random_bytes(size, static_cast<std::uint32_t>(size));
    EXPECT_EQ(crc32c_hardware(bytes), crc32c_portable(bytes)) << "length " << size;
  }
}

TEST_F(crc32c_hardware_vs_portable, agree_at_unaligned_offsets) {
  const auto bytes = random_bytes(4096, 11);
  for (std::size_t offset = 0; offset < 16; ++offset) {
    for (std::size_t size : {0u, 1u, 7u, 8u, 9u, 63u, 300u, 1000u, 4000u}) {
      const auto piece = std::span(bytes).subspan(offset, size);
      EXPECT_EQ(crc32c_hardware(piece, 0x1234u), crc32c_portable(piece, 0x1234u))
          << "offset " << offset << ", length " << size;
    }
  }
}

// The hardware path joins three interleaved streams past 3 x 256 and 3 x 8192 bytes.
TEST_F(crc32c_hardware_vs_portable, agree_around_the_interleaved_stream_sizes) {
  const auto bytes = random_bytes(4 * 3 * 8192 + 64, 13);
  for (std::size_t base : {3u * 256, 2u * 3 * 256, 3u * 8192, 2u * 3 * 8192, 4u * 3 * 8192}) {
    for (std::size_t size = base - 9; size <= base + 9; ++size) {
      const auto piece = std::span(bytes).subspan(3, size);
      EXPECT_EQ(crc32c_hardware(piece), crc32c_portable(piece)) << "length " << size;
    }
  }
}

TEST_F(crc32c_hardware_vs_portable, agree_on_a_megabyte) {
  const auto bytes = random_bytes(1 << 20, 17);
  EXPECT_EQ(crc32c_hardware(bytes), crc32c_portable(bytes));
}

TEST(crc32c, pointer_and_size_form_equals_span_form) {
  const auto bytes = bytes_of("123456789");
  EXPECT_EQ(crc32c(bytes.data(), bytes.size()), crc32c(bytes));
  EXPECT_EQ(crc32c(bytes.data() + 4, 5, crc32c(bytes.data(), 4)), 0xE3069283u);
}

}  // namespace
}  // namespace magnetar::wire
