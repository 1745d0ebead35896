// dispatch_fields: read from the encoding, they agree with a full parse of the metadata.
#include "broker/topic/dispatch_fields.h"

#include "broker/topic/sticky_key.h"
#include "proto/pulsar_api.pb.h"
#include "wire/big_endian.h"
#include "wire/errc.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace magnetar::broker {
namespace {

// An entry as the broker stores it: [metadata size][metadata][payload].
wire::shared_bytes entry_of(const proto::MessageMetadata& metadata, std::string_view payload = "payload") {
  const auto encoded = metadata.SerializeAsString();
  std::string bytes(4, '\0');
  wire::store_be32(reinterpret_cast<std::byte*>(bytes.data()), static_cast<std::uint32_t>(encoded.size()));
  bytes += encoded;
  bytes += payload;
  return wire::shared_bytes::copy_of(std::as_bytes(std::span(bytes)));
}

proto::MessageMetadata typical() {
  proto::MessageMetadata m;
  m.set_producer_name("gateway-7");
  m.set_sequence_id(123456789);
  m.set_publish_time(1'700'000'000'000);
  auto* p = m.add_properties();
  p->set_key("device");
  p->set_value("d-42");
  return m;
}

TEST(dispatch_fields, read_the_keys_count_and_delivery_time_among_other_fields) {
  auto m = typical();
  m.set_partition_key("device-42");
  m.set_ordering_key("order-1");
  m.set_num_messages_in_batch(17);
  m.set_deliver_at_time(1'700'000'005'000);
  const auto fields = dispatch_fields_of(entry_of(m)).value();
  EXPECT_EQ(fields.partition_key, "device-42");
  EXPECT_EQ(fields.ordering_key, "order-1");
  EXPECT_EQ(fields.messages, 17);
  EXPECT_EQ(fields.deliver_at_time, 1'700'000'005'000);
  EXPECT_FALSE(fields.partition_key_b64_encoded);
}

TEST(dispatch_fields, absent_fields_read_as_one_message_no_key_no_delay) {
  const auto fields = dispatch_fields_of(entry_of(typical())).value();
  EXPECT_EQ(fields.messages, 1);
  EXPECT_FALSE(fields.partition_key);
  EXPECT_FALSE(fields.ordering_key);
  EXPECT_FALSE(fields.deliver_at_time);
}

TEST(dispatch_fields, a_batch_count_below_one_counts_one_message) {
  auto m = typical();
  m.set_num_messages_in_batch(-3);
  EXPECT_EQ(dispatch_fields_of(entry_of(m)).value().messages, 1);
}

TEST(dispatch_fields, a_metadata_size_beyond_the_entry_is_bad_metadata) {
  auto entry = entry_of(typical(), "");
  const auto cut = entry.slice(0, entry.size() - 1);
  const auto got = dispatch_fields_of(cut);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), wire::errc::bad_metadata);
}

TEST(dispatch_fields, metadata_cut_inside_a_field_is_bad_metadata) {
  auto m = typical();
  m.set_partition_key("a-key-long-enough-to-cut");
  const auto encoded = m.SerializeAsString();
  // The partition key is the last field written: cut inside its bytes.
  std::string bytes(4, '\0');
  const auto size = encoded.size() - 5;
  wire::store_be32(reinterpret_cast<std::byte*>(bytes.data()), static_cast<std::uint32_t>(size));
  bytes += encoded.substr(0, size);
  const auto got = dispatch_fields_of(wire::shared_bytes::copy_of(std::as_bytes(std::span(bytes))));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), wire::errc::bad_metadata);
}

TEST(dispatch_fields, a_varint_with_bits_past_64_reads_as_protobuf_parses_it) {
  // deliver_at_time (field 19, varint: tag 0x98 0x01) in ten bytes whose last carries
  // bits past the 64th, as a lax encoder may write it: protobuf drops them, and so must
  // dispatch, or an entry the broker stored would lose its key and delay.
  auto encoded = typical().SerializeAsString();
  encoded += std::string("\x98\x01", 2) + std::string(9, '\xff') + "\x7f";
  proto::MessageMetadata parsed;
  ASSERT_TRUE(parsed.ParseFromString(encoded));
  std::string bytes(4, '\0');
  wire::store_be32(reinterpret_cast<std::byte*>(bytes.data()), static_cast<std::uint32_t>(encoded.size()));
  bytes += encoded + "payload";
  const auto got = dispatch_fields_of(wire::shared_bytes::copy_of(std::as_bytes(std::span(bytes))));
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got.value().deliver_at_time, parsed.deliver_at_time());
}

TEST(dispatch_fields, the_sticky_key_hash_agrees_with_the_parsed_metadatas) {
  auto ordering = typical();
  ordering.set_partition_key("p");
  ordering.set_ordering_key("o");
  auto b64 = typical();
  b64.set_partition_key("aGVsbG8=");
  b64.set_partition_key_b64_encoded(true);
  for (const auto& m : {ordering, b64, typical()}) {
    EXPECT_EQ(sticky_key_hash(dispatch_fields_of(entry_of(m)).value()), sticky_key_hash(m)) << m.DebugString();
  }
}

TEST(dispatch_fields, random_metadata_reads_as_a_full_parse_does) {
  std::mt19937_64 random(7);
  auto coin = [&] { return random() % 2 == 0; };
  for (int i = 0; i < 2000; ++i) {
    auto m = typical();
    m.set_sequence_id(random());
    if (coin()) m.set_partition_key(std::string(random() % 300, 'k'));
    if (coin()) m.set_ordering_key(std::string(random() % 40, 'o'));
    if (coin()) m.set_num_messages_in_batch(static_cast<std::int32_t>(random() % 2000));
    if (coin()) m.set_deliver_at_time(static_cast<std::int64_t>(random() >> 1));
    if (coin()) m.set_partition_key_b64_encoded(coin());
    if (coin()) m.set_uncompressed_size(static_cast<std::uint32_t>(random()));
    if (coin()) m.set_event_time(random());
    const auto fields = dispatch_fields_of(entry_of(m)).value();
    EXPECT_EQ(fields.messages, std::max(1, m.num_messages_in_batch()));
    const auto partition_key =
        m.has_partition_key() ? std::optional<std::string_view>(m.partition_key()) : std::nullopt;
    const auto ordering_key = m.has_ordering_key() ? std::optional<std::string_view>(m.ordering_key()) : std::nullopt;
    const auto deliver_at = m.has_deliver_at_time() ? std::optional(m.deliver_at_time()) : std::nullopt;
    EXPECT_EQ(fields.partition_key, partition_key);
    EXPECT_EQ(fields.ordering_key, ordering_key);
    EXPECT_EQ(fields.partition_key_b64_encoded, m.partition_key_b64_encoded());
    EXPECT_EQ(fields.deliver_at_time, deliver_at);
  }
}

}  // namespace
}  // namespace magnetar::broker
