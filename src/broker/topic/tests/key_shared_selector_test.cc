// key_shared_selector: which consumer owns a key hash, by consistent hashing (AUTO_SPLIT)
// and by the ranges consumers name (STICKY). Pure: consumers here have no connection.
#include "broker/topic/key_shared_selector.h"
#include "broker/api/errc.h"
#include "broker/topic/consumer.h"
#include "broker/topic/sticky_key.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

namespace magnetar::broker {
namespace {

std::unique_ptr<consumer> named(const std::string& name) {
  return std::make_unique<consumer>(nullptr, nullptr, consumer_id{1}, name, 0);
}

proto::KeySharedMeta sticky(std::vector<std::pair<int, int>> ranges) {
  proto::KeySharedMeta meta;
  meta.set_keysharedmode(proto::STICKY);
  for (const auto& [start, end] : ranges) {
    auto& r = *meta.add_hashranges();
    r.set_start(start);
    r.set_end(end);
  }
  return meta;
}

// Owners of every hash on the ring.
std::vector<consumer*> owners(const key_shared_selector& s) {
  std::vector<consumer*> out;
  for (std::uint32_t h = 0; h < key_hash_ring_size; ++h) out.push_back(s.select(static_cast<std::uint16_t>(h)));
  return out;
}

TEST(consistent_hash_selector, no_consumer_owns_nothing) {
  auto s = make_consistent_hash_selector(100);
  EXPECT_EQ(s->select(42), nullptr);
}

TEST(consistent_hash_selector, ten_consumers_each_own_a_fair_share) {
  auto s = make_consistent_hash_selector(100);
  std::vector<std::unique_ptr<consumer>> consumers;
  for (int i = 0; i < 10; ++i) {
    consumers.push_back(named("consumer-" + std::to_string(i)));
    ASSERT_TRUE(s->add(*consumers.back(), {}));
  }
  std::map<consumer*, int> share;
  for (auto* c : owners(*s)) ++share[c];
  ASSERT_EQ(share.size(), 10u);
  // 100 marks each keep every share within a factor of two of the fair 6554.
  for (const auto& [c, hashes] : share) {
    EXPECT_GT(hashes, 3277) << c->name();
    EXPECT_LT(hashes, 13107) << c->name();
  }
}

TEST(consistent_hash_selector, a_joining_consumer_takes_hashes_only_from_others_not_between_them) {
  auto s = make_consistent_hash_selector(100);
  auto a = named("a");
  auto b = named("b");
  ASSERT_TRUE(s->add(*a, {}));
  ASSERT_TRUE(s->add(*b, {}));
  const auto before = owners(*s);
  auto c = named("c");
  ASSERT_TRUE(s->add(*c, {}));
  const auto after = owners(*s);
  int moved_to_c = 0;
  for (std::size_t h = 0; h < before.size(); ++h) {
    if (before[h] == after[h]) continue;
    EXPECT_EQ(after[h], c.get()) << "hash " << h << " moved between the old consumers";
    ++moved_to_c;
  }
  EXPECT_GT(moved_to_c, 0);
}

TEST(consistent_hash_selector, a_leaving_consumer_gives_away_only_its_own_hashes) {
  auto s = make_consistent_hash_selector(100);
  auto a = named("a");
  auto b = named("b");
  auto c = named("c");
  for (auto* x : {a.get(), b.get(), c.get()}) ASSERT_TRUE(s->add(*x, {}));
  const auto before = owners(*s);
  s->remove(*b);
  const auto after = owners(*s);
  for (std::size_t h = 0; h < before.size(); ++h) {
    if (before[h] != b.get()) {
      EXPECT_EQ(after[h], before[h]) << "hash " << h;
    }
    EXPECT_NE(after[h], b.get());
  }
}

TEST(consistent_hash_selector, ranges_cover_exactly_the_hashes_selected) {
  auto s = make_consistent_hash_selector(10);
  auto a = named("a");
  auto b = named("b");
  ASSERT_TRUE(s->add(*a, {}));
  ASSERT_TRUE(s->add(*b, {}));
  const auto all = owners(*s);
  for (auto* c : {a.get(), b.get()}) {
    for (const auto& [start, end] : s->ranges_of(*c)) {
      for (int h = start; h <= end; ++h) EXPECT_EQ(all[static_cast<std::size_t>(h)], c) << h;
    }
  }
}

TEST(sticky_range_selector, each_consumer_owns_its_ranges_and_the_rest_belongs_to_nobody) {
  auto s = make_sticky_range_selector();
  auto a = named("a");
  auto b = named("b");
  ASSERT_TRUE(s->add(*a, sticky({{0, 99}, {200, 299}})));
  ASSERT_TRUE(s->add(*b, sticky({{100, 199}})));
  EXPECT_EQ(s->select(0), a.get());
  EXPECT_EQ(s->select(250), a.get());
  EXPECT_EQ(s->select(150), b.get());
  EXPECT_EQ(s->select(300), nullptr);
}

TEST(sticky_range_selector, an_overlapping_range_is_refused_naming_the_owner) {
  auto s = make_sticky_range_selector();
  auto a = named("a");
  auto b = named("b");
  ASSERT_TRUE(s->add(*a, sticky({{100, 199}})));
  auto refused = s->add(*b, sticky({{150, 250}}));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::consumer_assign_error);
  EXPECT_NE(refused.error().message().find("consumer a"), std::string::npos) << refused.error();
  EXPECT_EQ(s->select(220), nullptr) << "a refused consumer must own nothing";
}

TEST(sticky_range_selector, ranges_outside_the_ring_or_reversed_are_refused) {
  auto s = make_sticky_range_selector();
  auto a = named("a");
  EXPECT_FALSE(s->add(*a, sticky({{0, 65536}})));
  EXPECT_FALSE(s->add(*a, sticky({{10, 5}})));
  EXPECT_FALSE(s->add(*a, sticky({})));
}

TEST(sticky_range_selector, a_removed_consumer_frees_its_ranges) {
  auto s = make_sticky_range_selector();
  auto a = named("a");
  auto b = named("b");
  ASSERT_TRUE(s->add(*a, sticky({{0, 65535}})));
  s->remove(*a);
  EXPECT_EQ(s->select(7), nullptr);
  EXPECT_TRUE(s->add(*b, sticky({{0, 65535}})));
}

TEST(sticky_key_hash, ordering_key_wins_over_partition_key) {
  proto::MessageMetadata md;
  md.set_partition_key("p");
  md.set_ordering_key("o");
  EXPECT_EQ(sticky_key_hash(md), sticky_key_hash("o"));
}

TEST(sticky_key_hash, a_base64_partition_key_is_hashed_decoded) {
  proto::MessageMetadata md;
  md.set_partition_key("aGVsbG8=");  // "hello"
  md.set_partition_key_b64_encoded(true);
  EXPECT_EQ(sticky_key_hash(md), sticky_key_hash("hello"));
}

TEST(sticky_key_hash, keyless_messages_share_one_hash) {
  EXPECT_EQ(sticky_key_hash(proto::MessageMetadata{}), sticky_key_hash("NONE_KEY"));
}

TEST(sticky_key_hash, is_murmur3_folded_onto_the_ring) {
  // murmur3_32("hello") = 0x248bfa47: sign bit clear, low 16 bits 0xfa47.
  EXPECT_EQ(sticky_key_hash("hello"), 0xfa47);
}

}  // namespace
}  // namespace magnetar::broker
