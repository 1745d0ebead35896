// Readers against an in-process broker: start positions, has_message_available, seek.
#include "client/tests/client_test_fixture.h"

#include <future>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class reader_test : public client_test {
 protected:
  // Publishes "0".."count-1"; unbatched gives one entry each, else one batch.
  std::vector<message_id> publish(int count, bool batched = false) {
    producer_config pc;
    pc.batching_enabled = batched;
    pc.batching_max_delay = 1h;
    auto p = sdk->create_producer(topic(), pc);
    EXPECT_TRUE(p) << p.error();
    std::vector<std::future<result<message_id>>> sent;
    for (int i = 0; i < count; ++i) sent.push_back(p.value().send_future(text(std::to_string(i))));
    EXPECT_TRUE(p.value().flush());
    std::vector<message_id> ids;
    for (auto& f : sent) {
      auto id = f.get();
      EXPECT_TRUE(id) << id.error();
      if (id) ids.push_back(id.value());
    }
    return ids;
  }

  reader make_reader(message_id start, bool inclusive = false) {
    reader_config rc;
    rc.start = start;
    rc.start_inclusive = inclusive;
    auto r = sdk->create_reader(topic(), rc);
    EXPECT_TRUE(r) << r.error();
    return std::move(r).value();
  }

  static std::string next(reader& r) {
    auto m = r.read_next(10s);
    if (!m) return "error: " + m.error().message();
    return std::string(m.value().payload());
  }
};

TEST_F(reader_test, from_earliest_reads_everything) {
  publish(3);
  auto r = make_reader(message_id::earliest());
  EXPECT_EQ(next(r), "0");
  EXPECT_EQ(next(r), "1");
  EXPECT_EQ(next(r), "2");
}

TEST_F(reader_test, from_latest_reads_only_what_comes_after) {
  publish(2);
  auto r = make_reader(message_id::latest());
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("new")));
  EXPECT_EQ(next(r), "new");
}

TEST_F(reader_test, from_an_id_starts_after_it) {
  auto ids = publish(4);
  auto r = make_reader(ids[1]);
  EXPECT_EQ(next(r), "2");
}

TEST_F(reader_test, from_an_id_inclusive_starts_at_it) {
  auto ids = publish(4);
  auto r = make_reader(ids[1], true);
  EXPECT_EQ(next(r), "1");
}

TEST_F(reader_test, from_a_batch_index_starts_inside_the_batch) {
  auto ids = publish(5, true);
  ASSERT_EQ(ids[2].batch_index(), 2);
  auto exclusive = make_reader(ids[2]);
  EXPECT_EQ(next(exclusive), "3");
  auto inclusive = make_reader(ids[2], true);
  EXPECT_EQ(next(inclusive), "2");
}

TEST_F(reader_test, has_message_available_until_the_last_is_read) {
  publish(2);
  auto r = make_reader(message_id::earliest());
  auto before = r.has_message_available();
  ASSERT_TRUE(before) << before.error();
  EXPECT_TRUE(before.value());
  EXPECT_EQ(next(r), "0");
  EXPECT_EQ(next(r), "1");
  auto after = r.has_message_available();
  ASSERT_TRUE(after) << after.error();
  EXPECT_FALSE(after.value());
}

TEST_F(reader_test, an_empty_topic_has_no_message_available) {
  auto r = make_reader(message_id::earliest());
  auto available = r.has_message_available();
  ASSERT_TRUE(available) << available.error();
  EXPECT_FALSE(available.value());
}

TEST_F(reader_test, seek_moves_the_reader_back) {
  auto ids = publish(4);
  auto r = make_reader(message_id::earliest());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(next(r), std::to_string(i));
  ASSERT_TRUE(r.seek(ids[1]));
  EXPECT_EQ(next(r), "1");
  EXPECT_EQ(next(r), "2");
}

TEST_F(reader_test, has_message_available_right_after_a_seek_waits_for_the_resubscribe) {
  auto ids = publish(3);
  auto r = make_reader(message_id::earliest());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(next(r), std::to_string(i));
  ASSERT_TRUE(r.seek(ids[0]));
  auto available = r.has_message_available();
  ASSERT_TRUE(available) << available.error();
  EXPECT_TRUE(available.value());
  EXPECT_EQ(next(r), "0");
}

TEST_F(reader_test, from_latest_inclusive_reads_the_last_message) {
  publish(3);
  auto r = make_reader(message_id::latest(), true);
  EXPECT_EQ(next(r), "2");
}

}  // namespace
}  // namespace magnetar::client_testing
