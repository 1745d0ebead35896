#include "client/producer_batch.h"
#include "client/batch_format.h"
#include "client/commands.h"
#include "client/compression.h"

#include <gtest/gtest.h>

#include <string>

namespace magnetar::client_detail {
namespace {

queued_message queued(std::string payload, std::uint64_t sequence_id, std::optional<std::string> key = {}) {
  auto d = std::make_shared<message_data>();
  d->payload = wire::shared_bytes::copy_of(std::as_bytes(std::span<const char>(payload.data(), payload.size())));
  d->key = std::move(key);
  return queued_message{std::move(d), sequence_id, {}};
}

entry_context context(compression_type c = compression_type::none) { return {"p-1", 1'700'000'000'000, c}; }

TEST(producer_batch, a_batch_metadata_counts_its_messages_and_starts_at_the_first_sequence_id) {
  batch_container b(10, 1024, batching_type::default_batching);
  b.add(queued("a", 5));
  b.add(queued("bb", 6));
  auto built = b.build(context());
  ASSERT_EQ(built.size(), 1u);
  const auto& e = built[0];
  EXPECT_TRUE(e.batched);
  EXPECT_EQ(e.num_messages, 2);
  EXPECT_EQ(e.sequence_id, 5u);
  EXPECT_EQ(e.metadata.num_messages_in_batch(), 2);
  EXPECT_EQ(e.metadata.sequence_id(), 5u);
  EXPECT_EQ(e.metadata.producer_name(), "p-1");
  EXPECT_EQ(e.metadata.publish_time(), 1'700'000'000'000u);
  EXPECT_FALSE(e.metadata.has_compression());
  EXPECT_TRUE(b.empty());
}

TEST(producer_batch, the_batch_payload_is_the_messages_in_upstream_format) {
  batch_container b(10, 1024, batching_type::default_batching);
  b.add(queued("a", 5));
  b.add(queued("bb", 6));
  auto e = std::move(b.build(context())[0]);
  std::vector<std::byte> expected;
  auto first = queued("a", 5);
  auto second = queued("bb", 6);
  append_to_batch(expected, single_metadata_of(*first.data, 5), first.data->payload.span());
  append_to_batch(expected, single_metadata_of(*second.data, 6), second.data->payload.span());
  EXPECT_EQ(e.payload, expected);
}

TEST(producer_batch, is_full_at_the_message_limit) {
  batch_container b(2, 1024, batching_type::default_batching);
  b.add(queued("a", 1));
  EXPECT_FALSE(b.is_full());
  b.add(queued("b", 2));
  EXPECT_TRUE(b.is_full());
}

TEST(producer_batch, has_no_room_for_a_message_past_the_byte_limit) {
  batch_container b(100, 10, batching_type::default_batching);
  b.add(queued("123456", 1));
  auto big = queued("12345", 2);
  EXPECT_FALSE(b.has_room_for(*big.data));
  auto small = queued("1234", 3);
  EXPECT_TRUE(b.has_room_for(*small.data));
}

TEST(producer_batch, an_empty_batch_takes_a_message_of_any_size) {
  batch_container b(100, 10, batching_type::default_batching);
  auto big = queued(std::string(100, 'x'), 1);
  EXPECT_TRUE(b.has_room_for(*big.data));
}

TEST(producer_batch, key_based_batching_makes_a_batch_per_key_in_sequence_order) {
  batch_container b(10, 1024, batching_type::key_based);
  b.add(queued("1", 1, "k2"));
  b.add(queued("2", 2, "k1"));
  b.add(queued("3", 3, "k2"));
  auto built = b.build(context());
  ASSERT_EQ(built.size(), 2u);
  EXPECT_EQ(built[0].sequence_id, 1u);
  EXPECT_EQ(built[0].metadata.partition_key(), "k2");
  EXPECT_EQ(built[0].num_messages, 2);
  EXPECT_EQ(built[1].sequence_id, 2u);
  EXPECT_EQ(built[1].metadata.partition_key(), "k1");
  EXPECT_EQ(built[1].num_messages, 1);
}

TEST(producer_batch, default_batching_mixes_keys_in_one_batch) {
  batch_container b(10, 1024, batching_type::default_batching);
  b.add(queued("1", 1, "k2"));
  b.add(queued("2", 2, "k1"));
  EXPECT_EQ(b.build(context()).size(), 1u);
}

TEST(producer_batch, a_compressed_batch_records_codec_and_uncompressed_size) {
  batch_container b(10, 1 << 20, batching_type::default_batching);
  b.add(queued(std::string(1000, 'a'), 1));
  b.add(queued(std::string(1000, 'b'), 2));
  auto e = std::move(b.build(context(compression_type::lz4))[0]);
  EXPECT_EQ(e.metadata.compression(), proto::LZ4);
  EXPECT_GT(e.metadata.uncompressed_size(), 2000u);
  EXPECT_LT(e.payload.size(), 2000u);
}

TEST(producer_batch, a_single_message_carries_its_own_metadata) {
  auto q = queued("hello", 9, "key");
  auto d = std::const_pointer_cast<message_data>(q.data);
  d->properties = {{"p", "v"}};
  d->event_time = 77;
  d->ordering_key = "ok";
  auto e = build_single(std::move(q), context(compression_type::zstd));
  EXPECT_FALSE(e.batched);
  EXPECT_FALSE(e.metadata.has_num_messages_in_batch());
  EXPECT_EQ(e.metadata.partition_key(), "key");
  EXPECT_EQ(e.metadata.ordering_key(), "ok");
  EXPECT_EQ(e.metadata.event_time(), 77u);
  EXPECT_EQ(e.metadata.sequence_id(), 9u);
  ASSERT_EQ(e.metadata.properties_size(), 1);
  EXPECT_EQ(e.metadata.compression(), proto::ZSTD);
  EXPECT_EQ(e.metadata.uncompressed_size(), 5u);
}

TEST(producer_batch, a_send_frame_of_a_compressed_batch_decodes_back_to_the_messages) {
  batch_container b(10, 1 << 20, batching_type::default_batching);
  b.add(queued("first", 1, "a"));
  b.add(queued("second", 2));
  b.add(queued("", 3));
  auto e = std::move(b.build(context(compression_type::zstd))[0]);
  auto frame_bytes = encode_payload_command(send_command(4, e.sequence_id, e.num_messages, 0), e.metadata, e.payload);

  auto frame = wire::decode_frame(wire::shared_bytes::copy_of(frame_bytes));
  ASSERT_TRUE(frame) << frame.error();
  const auto& f = frame.value();
  EXPECT_EQ(f.command.send().num_messages(), 3);
  EXPECT_EQ(f.command.send().sequence_id(), 1u);
  EXPECT_TRUE(f.has_checksum);
  EXPECT_TRUE(f.checksum_valid);
  auto raw = decompress(f.metadata.compression(), f.payload, f.metadata.uncompressed_size());
  ASSERT_TRUE(raw) << raw.error();
  auto messages = decode_batch(raw.value(), f.metadata.num_messages_in_batch());
  ASSERT_TRUE(messages) << messages.error();
  ASSERT_EQ(messages.value().size(), 3u);
  EXPECT_EQ(messages.value()[0].payload.as_chars(), "first");
  EXPECT_EQ(messages.value()[0].metadata.partition_key(), "a");
  EXPECT_EQ(messages.value()[1].payload.as_chars(), "second");
  EXPECT_EQ(messages.value()[2].metadata.sequence_id(), 3u);
}

TEST(producer_batch, take_all_returns_every_message_in_sequence_order) {
  batch_container b(10, 1024, batching_type::key_based);
  b.add(queued("1", 1, "z"));
  b.add(queued("2", 2, "a"));
  auto all = b.take_all();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].sequence_id, 1u);
  EXPECT_TRUE(b.empty());
}

TEST(commands, connect_announces_protocol_21_and_the_client_version) {
  auto c = connect_command("");
  EXPECT_EQ(c.type(), proto::BaseCommand::CONNECT);
  EXPECT_EQ(c.connect().protocol_version(), 21);
  EXPECT_TRUE(c.connect().client_version().starts_with("magnetar-cpp-"));
  EXPECT_FALSE(c.connect().has_proxy_to_broker_url());
  EXPECT_EQ(connect_command("pulsar://b:6650").connect().proxy_to_broker_url(), "pulsar://b:6650");
}

TEST(commands, a_reader_subscribe_carries_its_start_and_is_not_durable) {
  subscribe_request r;
  r.topic = "persistent://public/default/t";
  r.subscription = "reader-1";
  r.durable = false;
  r.start = message_id(3, 4, -1, 0);
  auto c = subscribe_command(r);
  EXPECT_FALSE(c.subscribe().durable());
  EXPECT_EQ(c.subscribe().start_message_id().ledgerid(), 3u);
  EXPECT_EQ(c.subscribe().start_message_id().batch_index(), 0);
  EXPECT_EQ(c.subscribe().subtype(), proto::CommandSubscribe::Exclusive);
}

TEST(commands, acks_carry_entry_ids) {
  auto c = ack_command(7, proto::CommandAck::Individual, {message_id(1, 2), message_id(1, 3)});
  ASSERT_EQ(c.ack().message_id_size(), 2);
  EXPECT_EQ(c.ack().message_id(1).entryid(), 3u);
  EXPECT_FALSE(c.ack().message_id(1).has_batch_index());
}

}  // namespace
}  // namespace magnetar::client_detail
