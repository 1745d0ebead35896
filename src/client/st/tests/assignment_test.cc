#include "client/st/assignment.h"

#include "magnetar/errc.h"

#include <gtest/gtest.h>

namespace magnetar::st::detail {
namespace {

assigned_segment seg(std::uint64_t id, std::uint32_t start = 0, std::uint32_t end = 0xFFFF) {
  return {id, start, end, "segment://t/n/x/" + std::to_string(id), {}};
}

assignment at(std::uint64_t epoch, std::vector<assigned_segment> segments) { return {epoch, std::move(segments)}; }

std::vector<std::uint64_t> ids(const std::vector<assigned_segment>& s) {
  std::vector<std::uint64_t> out;
  for (const auto& x : s) out.push_back(x.id);
  return out;
}

TEST(st_assignment, from_proto_reads_and_sorts_the_segments) {
  proto::ScalableConsumerAssignment p;
  p.set_layout_epoch(4);
  for (std::uint64_t id : {5u, 2u}) {
    auto* s = p.add_segments();
    s->set_segment_id(id);
    s->set_hash_start(0x10);
    s->set_hash_end(0x20);
    s->set_segment_topic("segment://t/n/x/0010-0020-" + std::to_string(id));
  }
  auto* r = p.mutable_segments(0)->add_bucket_ranges();
  r->set_start(0);
  r->set_end(0x7FFF);
  auto a = assignment::from_proto(p);
  ASSERT_TRUE(a) << a.error();
  EXPECT_EQ(a.value().layout_epoch, 4u);
  EXPECT_EQ(ids(a.value().segments), (std::vector<std::uint64_t>{2, 5}));
  EXPECT_EQ(a.value().find(5)->bucket_ranges, (std::vector<bucket_range>{{0, 0x7FFF}}));
  EXPECT_TRUE(a.value().has_bucket_ranges());
  EXPECT_EQ(a.value().find(2)->topic, "segment://t/n/x/0010-0020-2");
}

TEST(st_assignment, from_proto_refuses_bad_ranges_and_repeats) {
  auto make = [](std::uint32_t start, std::uint32_t end, int bucket_start, int bucket_end, bool twice) {
    proto::ScalableConsumerAssignment p;
    for (int i = 0; i < (twice ? 2 : 1); ++i) {
      auto* s = p.add_segments();
      s->set_segment_id(1);
      s->set_hash_start(start);
      s->set_hash_end(end);
      s->set_segment_topic("segment://t/n/x/1");
      auto* r = s->add_bucket_ranges();
      r->set_start(bucket_start);
      r->set_end(bucket_end);
    }
    return p;
  };
  EXPECT_TRUE(assignment::from_proto(make(0, 0xFFFF, 0, 0xFFFF, false)));
  for (const auto& p : {make(0, 0x10000, 0, 1, false), make(5, 4, 0, 1, false), make(0, 1, -1, 1, false),
                        make(0, 1, 0, 0x10000, false), make(0, 1, 3, 2, false), make(0, 1, 0, 1, true)}) {
    auto a = assignment::from_proto(p);
    ASSERT_FALSE(a);
    EXPECT_EQ(a.error(), client_errc::protocol_error);
  }
}

TEST(st_assignment, diff_names_segments_to_release_and_to_attach) {
  auto d = diff(at(1, {seg(0), seg(1), seg(2)}), at(2, {seg(1), seg(2), seg(3), seg(4)}));
  EXPECT_EQ(ids(d.release), (std::vector<std::uint64_t>{0}));
  EXPECT_EQ(ids(d.attach), (std::vector<std::uint64_t>{3, 4}));
}

TEST(st_assignment, diff_reattaches_a_segment_whose_buckets_changed) {
  auto before = seg(1);
  auto after = seg(1);
  after.bucket_ranges = {{0, 0x7FFF}};
  auto d = diff(at(1, {before}), at(2, {after}));
  EXPECT_EQ(ids(d.release), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(ids(d.attach), (std::vector<std::uint64_t>{1}));
}

TEST(st_assignment, diff_of_the_same_assignment_is_empty) {
  auto d = diff(at(1, {seg(0), seg(1)}), at(1, {seg(0), seg(1)}));
  EXPECT_TRUE(d.release.empty());
  EXPECT_TRUE(d.attach.empty());
}

TEST(st_assignment_gate, starts_at_epoch_minus_one_with_nothing) {
  assignment_gate g;
  EXPECT_EQ(g.epoch(), -1);
  EXPECT_FALSE(g.current());
}

TEST(st_assignment_gate, applies_newer_and_equal_epochs_and_drops_older) {
  assignment_gate g;
  EXPECT_TRUE(g.offer(at(3, {seg(0)})));
  EXPECT_TRUE(g.offer(at(3, {seg(1)})));
  EXPECT_EQ(ids(g.current()->segments), (std::vector<std::uint64_t>{1}));
  EXPECT_FALSE(g.offer(at(2, {seg(2)})));
  EXPECT_EQ(ids(g.current()->segments), (std::vector<std::uint64_t>{1}));
  EXPECT_TRUE(g.offer(at(5, {seg(3)})));
  EXPECT_EQ(g.epoch(), 5);
}

TEST(st_assignment_gate, the_first_assignment_at_epoch_zero_is_applied) {
  assignment_gate g;
  EXPECT_TRUE(g.offer(at(0, {seg(0)})));
  EXPECT_EQ(g.epoch(), 0);
}

TEST(st_assignment_gate, tells_the_listener_the_new_and_previous_assignment) {
  assignment_gate g;
  std::vector<std::pair<std::uint64_t, std::optional<std::uint64_t>>> calls;
  g.set_listener([&](const assignment& now, const std::optional<assignment>& previous) {
    calls.emplace_back(now.layout_epoch, previous ? std::optional(previous->layout_epoch) : std::nullopt);
  });
  g.offer(at(1, {seg(0)}));
  g.offer(at(0, {seg(1)}));  // dropped
  g.offer(at(2, {seg(1)}));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0], (std::pair<std::uint64_t, std::optional<std::uint64_t>>{1, std::nullopt}));
  EXPECT_EQ(calls[1], (std::pair<std::uint64_t, std::optional<std::uint64_t>>{2, 1}));
}

TEST(st_assignment_gate, a_late_listener_gets_the_current_assignment_replayed) {
  assignment_gate g;
  g.offer(at(1, {seg(0)}));
  g.offer(at(2, {seg(7)}));
  std::vector<std::uint64_t> replayed;
  bool had_previous = true;
  g.set_listener([&](const assignment& now, const std::optional<assignment>& previous) {
    replayed = ids(now.segments);
    had_previous = previous.has_value();
  });
  EXPECT_EQ(replayed, (std::vector<std::uint64_t>{7}));
  EXPECT_FALSE(had_previous);
}

TEST(st_assignment_gate, no_replay_before_the_first_assignment) {
  assignment_gate g;
  int calls = 0;
  g.set_listener([&](const assignment&, const std::optional<assignment>&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(st_assignment_gate, a_cleared_listener_is_not_called) {
  assignment_gate g;
  int calls = 0;
  g.set_listener([&](const assignment&, const std::optional<assignment>&) { ++calls; });
  g.clear_listener();
  g.offer(at(1, {seg(0)}));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(g.epoch(), 1);
}

}  // namespace
}  // namespace magnetar::st::detail
