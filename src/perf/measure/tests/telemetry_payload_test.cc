#include "perf/measure/telemetry_payload.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace magnetar::perf {
namespace {

TEST(telemetry_payload, round_trips_every_field) {
  std::vector<std::byte> bytes(100, std::byte{0xaa});
  const telemetry_header header{.device = 123456789012, .sequence = 42, .intended_send_nanos = -7, .warmup = true};
  encode_payload(header, bytes);
  EXPECT_EQ(decode_payload(bytes), header);
}

TEST(telemetry_payload, is_little_endian_with_zero_padding) {
  std::vector<std::byte> bytes(40, std::byte{0xff});
  encode_payload({.device = 0x0102, .sequence = 3, .intended_send_nanos = 4, .warmup = false}, bytes);
  const std::array<std::uint8_t, 40> expected{0x31, 0x54, 0x47, 0x4d, 0, 0, 0, 0,   // magic, flags
                                              0x02, 0x01, 0,    0,    0, 0, 0, 0,   // device
                                              3,    0,    0,    0,    0, 0, 0, 0,   // sequence
                                              4,    0,    0,    0,    0, 0, 0, 0,   // intended send time
                                              0,    0,    0,    0,    0, 0, 0, 0};  // padding
  for (std::size_t i = 0; i < expected.size(); ++i)
    EXPECT_EQ(std::to_integer<std::uint8_t>(bytes[i]), expected[i]) << i;
}

TEST(telemetry_payload, decodes_a_payload_of_exactly_the_header_size) {
  std::array<std::byte, telemetry_header_size> bytes{};
  encode_payload({.device = 1, .sequence = 2, .intended_send_nanos = 3, .warmup = false}, bytes);
  ASSERT_TRUE(decode_payload(bytes).has_value());
  EXPECT_FALSE(decode_payload(bytes)->warmup);
}

TEST(telemetry_payload, rejects_a_short_payload) {
  std::array<std::byte, telemetry_header_size> bytes{};
  encode_payload({.device = 1, .sequence = 2, .intended_send_nanos = 3, .warmup = false}, bytes);
  EXPECT_FALSE(decode_payload(std::span<const std::byte>(bytes).first(telemetry_header_size - 1)).has_value());
}

TEST(telemetry_payload, rejects_another_magic) {
  std::array<std::byte, 64> bytes{};
  encode_payload({.device = 1, .sequence = 2, .intended_send_nanos = 3, .warmup = false}, bytes);
  bytes[3] = std::byte{0};
  EXPECT_FALSE(decode_payload(bytes).has_value());
}

TEST(telemetry_payload, ignores_unknown_flag_bits) {
  std::array<std::byte, 32> bytes{};
  encode_payload({.device = 1, .sequence = 2, .intended_send_nanos = 3, .warmup = false}, bytes);
  bytes[4] = std::byte{0x02};
  ASSERT_TRUE(decode_payload(bytes).has_value());
  EXPECT_FALSE(decode_payload(bytes)->warmup);
}

TEST(device_key, is_the_device_id_in_decimal) {
  EXPECT_EQ(device_key(0), "0");
  EXPECT_EQ(device_key(18446744073709551615ULL), "18446744073709551615");
}

TEST(key_matches, accepts_only_the_exact_decimal_id) {
  EXPECT_TRUE(key_matches("17", 17));
  EXPECT_TRUE(key_matches("18446744073709551615", 18446744073709551615ULL));
  EXPECT_FALSE(key_matches("017", 17));
  EXPECT_FALSE(key_matches("17 ", 17));
  EXPECT_FALSE(key_matches("18", 17));
  EXPECT_FALSE(key_matches("", 0));
  EXPECT_FALSE(key_matches("device-17", 17));
}

}  // namespace
}  // namespace magnetar::perf
