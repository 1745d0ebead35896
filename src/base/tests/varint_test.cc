// varint: LEB128 round trips at the edges, and every way untrusted bytes can be wrong.
#include "base/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace magnetar::base {
namespace {

varint_read read(const std::string& bytes, varint_rules rules = varint_rules::exact) {
  return read_varint(std::span<const char>(bytes.data(), bytes.size()), rules);
}

TEST(varint, round_trips_values_at_every_size_boundary) {
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{127}, std::uint64_t{128},
                          std::uint64_t{16383}, std::uint64_t{16384}, std::uint64_t{1} << 35, std::uint64_t{1} << 63,
                          std::numeric_limits<std::uint64_t>::max()}) {
    std::string out;
    append_varint(out, v);
    EXPECT_EQ(out.size(), varint_size(v)) << v;
    const auto r = read(out, varint_rules::canonical);
    EXPECT_EQ(r.status, varint_status::ok) << v;
    EXPECT_EQ(r.value, v);
    EXPECT_EQ(r.size, out.size());
  }
}

TEST(varint, writes_protobufs_encoding) {
  std::vector<std::byte> out;
  append_varint(out, 300);
  EXPECT_EQ(out, (std::vector<std::byte>{std::byte{0xac}, std::byte{0x02}}));
}

TEST(varint, reads_only_the_first_varint_of_longer_bytes) {
  const auto r = read(std::string("\x96\x01\x05", 3));
  EXPECT_EQ(r.status, varint_status::ok);
  EXPECT_EQ(r.value, 150u);
  EXPECT_EQ(r.size, 2u);
}

TEST(varint, bytes_that_end_inside_a_varint_are_truncated) {
  EXPECT_EQ(read("").status, varint_status::truncated);
  EXPECT_EQ(read("\x80\x80").status, varint_status::truncated);
}

TEST(varint, a_value_past_64_bits_is_too_long) {
  EXPECT_EQ(read(std::string(9, '\xff') + "\x02").status, varint_status::too_long);
  EXPECT_EQ(read(std::string(10, '\x80') + "\x01").status, varint_status::too_long);
}

TEST(varint, protobuf_rules_drop_the_bits_past_64_as_protobuf_does) {
  const auto r = read(std::string(9, '\xff') + "\x7f", varint_rules::protobuf);
  EXPECT_EQ(r.status, varint_status::ok);
  EXPECT_EQ(r.value, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(r.size, 10u);
  EXPECT_EQ(read(std::string(10, '\x80') + "\x01", varint_rules::protobuf).status, varint_status::too_long);
}

TEST(varint, an_overlong_form_is_refused_only_when_canonical) {
  const std::string padded("\x81\x00", 2);  // 1 with a trailing zero group
  EXPECT_EQ(read(padded, varint_rules::canonical).status, varint_status::overlong);
  const auto lenient = read(padded);
  EXPECT_EQ(lenient.status, varint_status::ok);
  EXPECT_EQ(lenient.value, 1u);
}

}  // namespace
}  // namespace magnetar::base
