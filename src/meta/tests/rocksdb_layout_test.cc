#include "meta/rocksdb_layout.h"

#include "meta/errc.h"

#include <gtest/gtest.h>

namespace magnetar::meta::rocksdb_layout {
namespace {

TEST(rocksdb_layout, record_round_trips) {
  const node_record record{.version = 42,
                           .created_ms = 1'700'000'000'000,
                           .modified_ms = 1'700'000'000'123,
                           .owner = session_id(7),
                           .value = std::string("v\0al", 4)};
  auto decoded = decode_record("/x", encode_record(record));
  ASSERT_TRUE(decoded) << decoded.error();
  EXPECT_EQ(decoded.value().version, 42);
  EXPECT_EQ(decoded.value().created_ms, record.created_ms);
  EXPECT_EQ(decoded.value().modified_ms, record.modified_ms);
  EXPECT_EQ(decoded.value().owner, session_id(7));
  EXPECT_EQ(decoded.value().value, record.value);
}

TEST(rocksdb_layout, record_starts_with_its_format_byte) {
  EXPECT_EQ(encode_record({})[0], static_cast<char>(record_format));
}

TEST(rocksdb_layout, record_of_an_unknown_format_is_corrupt) {
  auto bytes = encode_record({});
  bytes[0] = 2;
  auto decoded = decode_record("/x", bytes);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::corrupt_record);
  EXPECT_EQ(decoded.error().detail(), "node '/x': record format 2 (this build reads 1)");
}

TEST(rocksdb_layout, truncated_record_is_corrupt) {
  auto bytes = encode_record({});
  bytes.resize(10);
  auto decoded = decode_record("/x", bytes);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::corrupt_record);
}

TEST(rocksdb_layout, node_key_round_trips_to_its_path) {
  for (const char* path : {"/a", "/a/b", "/ledgers/00/L1"}) EXPECT_EQ(path_of_node_key(node_key(path)), path);
}

TEST(rocksdb_layout, children_range_holds_direct_children_only) {
  const auto prefix = children_prefix("/a");
  const auto end = prefix_end(prefix);
  auto in_range = [&](const std::string& key) { return key >= prefix && key < end; };
  EXPECT_TRUE(in_range(node_key("/a/b")));
  EXPECT_TRUE(in_range(node_key("/a/zzz")));
  EXPECT_FALSE(in_range(node_key("/a/b/c")));
  EXPECT_FALSE(in_range(node_key("/ab")));
  EXPECT_FALSE(in_range(node_key("/ab/c")));
  EXPECT_FALSE(in_range(node_key("/a")));
}

TEST(rocksdb_layout, deeper_range_holds_grandchildren_but_not_lookalikes) {
  const auto prefix = deeper_prefix("/a");
  const auto end = prefix_end(prefix);
  auto in_range = [&](const std::string& key) { return key >= prefix && key < end; };
  EXPECT_TRUE(in_range(node_key("/a/b/c")));
  EXPECT_TRUE(in_range(node_key("/a/b/c/d")));
  EXPECT_FALSE(in_range(node_key("/a/b")));
  EXPECT_FALSE(in_range(node_key("/ab/c/d")));
}

TEST(rocksdb_layout, ephemeral_key_names_its_owner_and_path) {
  const auto key = ephemeral_key(session_id(0x1'0000'0002), "/brokers/b1");
  EXPECT_EQ(owner_of_ephemeral_key(key), session_id(0x1'0000'0002));
  EXPECT_EQ(path_of_ephemeral_key(key), "/brokers/b1");
  EXPECT_EQ(key.rfind(ephemeral_prefix(session_id(0x1'0000'0002)), 0), 0u);
}

TEST(rocksdb_layout, prefix_end_is_the_first_key_past_the_prefix) {
  EXPECT_EQ(prefix_end("ab"), "ac");
  EXPECT_EQ(prefix_end(std::string("a\xff", 2)), "b");
}

TEST(rocksdb_layout, u64_must_be_eight_bytes) {
  EXPECT_EQ(decode_u64("counter", encode_u64(123)).value(), 123u);
  auto bad = decode_u64("counter", "abc");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().detail(), "counter: 3 bytes where 8 were expected");
}

}  // namespace
}  // namespace magnetar::meta::rocksdb_layout
