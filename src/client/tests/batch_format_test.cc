#include "client/batch_format.h"

#include "magnetar/errc.h"
#include "wire/big_endian.h"

#include <gtest/gtest.h>

#include <string>

namespace magnetar::client_detail {
namespace {

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

message_data data_with(std::string_view payload) {
  message_data d;
  d.payload = wire::shared_bytes::copy_of(bytes_of(payload));
  return d;
}

TEST(batch_format, one_message_is_size_metadata_payload_in_big_endian) {
  auto d = data_with("hello");
  d.key = "k";
  const auto md = single_metadata_of(d, 7);
  std::vector<std::byte> out;
  append_to_batch(out, md, d.payload.span());

  const std::string md_bytes = md.SerializeAsString();
  ASSERT_EQ(out.size(), 4 + md_bytes.size() + 5);
  EXPECT_EQ(wire::load_be32(out.data()), md_bytes.size());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.data()) + 4, md_bytes.size()), md_bytes);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.data()) + 4 + md_bytes.size(), 5), "hello");
}

TEST(batch_format, single_metadata_carries_what_upstream_puts_there) {
  auto d = data_with("abc");
  d.key = "key";
  d.ordering_key = "order";
  d.properties = {{"a", "1"}, {"b", "2"}};
  d.event_time = 1234;
  const auto md = single_metadata_of(d, 42);
  EXPECT_EQ(md.payload_size(), 3);
  EXPECT_EQ(md.partition_key(), "key");
  EXPECT_EQ(md.ordering_key(), "order");
  ASSERT_EQ(md.properties_size(), 2);
  EXPECT_EQ(md.properties(0).key(), "a");
  EXPECT_EQ(md.properties(1).value(), "2");
  EXPECT_EQ(md.event_time(), 1234u);
  EXPECT_EQ(md.sequence_id(), 42u);
}

TEST(batch_format, a_message_without_key_or_event_time_leaves_them_unset) {
  const auto md = single_metadata_of(data_with("x"), 0);
  EXPECT_FALSE(md.has_partition_key());
  EXPECT_FALSE(md.has_event_time());
  EXPECT_FALSE(md.has_ordering_key());
}

TEST(batch_format, decode_returns_each_message_in_order) {
  std::vector<std::byte> out;
  for (int i = 0; i < 3; ++i) {
    auto d = data_with(std::string(static_cast<std::size_t>(i), 'x') + std::to_string(i));
    append_to_batch(out, single_metadata_of(d, static_cast<std::uint64_t>(10 + i)), d.payload.span());
  }
  auto decoded = decode_batch(wire::shared_bytes::copy_of(out), 3);
  ASSERT_TRUE(decoded) << decoded.error();
  ASSERT_EQ(decoded.value().size(), 3u);
  EXPECT_EQ(decoded.value()[0].payload.as_chars(), "0");
  EXPECT_EQ(decoded.value()[1].payload.as_chars(), "x1");
  EXPECT_EQ(decoded.value()[2].payload.as_chars(), "xx2");
  EXPECT_EQ(decoded.value()[2].metadata.sequence_id(), 12u);
}

TEST(batch_format, empty_payloads_round_trip) {
  std::vector<std::byte> out;
  auto d = data_with("");
  append_to_batch(out, single_metadata_of(d, 1), d.payload.span());
  append_to_batch(out, single_metadata_of(d, 2), d.payload.span());
  auto decoded = decode_batch(wire::shared_bytes::copy_of(out), 2);
  ASSERT_TRUE(decoded) << decoded.error();
  EXPECT_TRUE(decoded.value()[0].payload.empty());
  EXPECT_TRUE(decoded.value()[1].payload.empty());
}

TEST(batch_format, a_batch_shorter_than_its_count_is_corrupt) {
  std::vector<std::byte> out;
  auto d = data_with("abc");
  append_to_batch(out, single_metadata_of(d, 1), d.payload.span());
  auto decoded = decode_batch(wire::shared_bytes::copy_of(out), 2);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), client_errc::corrupt_message);
}

TEST(batch_format, bytes_after_the_last_message_are_corrupt) {
  std::vector<std::byte> out;
  auto d = data_with("abc");
  append_to_batch(out, single_metadata_of(d, 1), d.payload.span());
  out.push_back(std::byte{0});
  EXPECT_EQ(decode_batch(wire::shared_bytes::copy_of(out), 1).error(), client_errc::corrupt_message);
}

TEST(batch_format, a_payload_size_past_the_end_is_corrupt) {
  std::vector<std::byte> out;
  auto d = data_with("abc");
  auto md = single_metadata_of(d, 1);
  md.set_payload_size(100);
  append_to_batch(out, md, d.payload.span());
  EXPECT_EQ(decode_batch(wire::shared_bytes::copy_of(out), 1).error(), client_errc::corrupt_message);
}

TEST(batch_format, a_metadata_size_past_the_end_is_corrupt) {
  std::vector<std::byte> out(4);
  wire::store_be32(out.data(), 1000);
  EXPECT_EQ(decode_batch(wire::shared_bytes::copy_of(out), 1).error(), client_errc::corrupt_message);
}

}  // namespace
}  // namespace magnetar::client_detail
