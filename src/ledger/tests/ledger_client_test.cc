#include "ledger/ledger_client.h"

#include "io/run_on.h"
#include "ledger/entry_header.h"
#include "ledger/errc.h"
#include "ledger_test_cluster.h"

#include <gtest/gtest.h>

namespace magnetar::ledger {
namespace {

using testing::bytes_of;
using testing::test_cluster;
using testing::text_of;

// An entry as a writer stores it: the header with the ledger's length through it, then the payload.
wire::shared_bytes stored_entry(std::uint64_t ledger_length, const std::string& payload) {
  return with_entry_header(ledger_length, bytes_of(payload));
}

std::vector<std::string> texts(const std::vector<wire::shared_bytes>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(text_of(e));
  return out;
}

TEST(ledger_client, adds_get_consecutive_ids_and_read_back) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  for (int i = 0; i < 5; ++i) {
    auto id = cluster.run(writer->add(bytes_of("e" + std::to_string(i))));
    ASSERT_TRUE(id) << id.error();
    EXPECT_EQ(id.value(), entry_id(i));
  }
  EXPECT_EQ(writer->last_add_confirmed(), entry_id(4));
  EXPECT_EQ(texts(cluster.run(writer->read(entry_id(1), entry_id(3))).value()),
            (std::vector<std::string>{"e1", "e2", "e3"}));
}

TEST(ledger_client, pipelined_adds_complete_in_entry_order) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  std::vector<std::int64_t> completed;
  constexpr int count = 200;
  cluster.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::oneshot_signal all_done(executor);
    for (int i = 0; i < count; ++i) {
      io::spawn(executor, [&, i]() -> awaitable<void> {
        auto id = co_await writer->add(bytes_of(std::to_string(i)));
        completed.push_back(id ? id.value().value() : -1);
        if (completed.size() == count) all_done.fire();
      });
    }
    co_await all_done.wait();
  }());
  ASSERT_EQ(completed.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) EXPECT_EQ(completed[i], i);
}

TEST(ledger_client, a_closed_ledger_records_its_last_entry_and_refuses_adds) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("a"))));
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("bb"))));
  ASSERT_TRUE(cluster.run(writer->close()));
  auto m = cluster.run(cluster.client->metadata(writer->id())).value();
  ASSERT_TRUE(m);
  EXPECT_EQ(m->state, ledger_state::closed);
  EXPECT_EQ(m->last_entry, entry_id(1));
  EXPECT_EQ(m->length, 3u);
  auto refused = cluster.run(writer->add(bytes_of("late")));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::ledger_closed);
}

TEST(ledger_client, an_opened_closed_ledger_reads_every_entry) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  for (auto text : {"x", "y", "z"}) ASSERT_TRUE(cluster.run(writer->add(bytes_of(text))));
  ASSERT_TRUE(cluster.run(writer->close()));
  auto reader = cluster.run(cluster.client->open(writer->id(), false)).value();
  EXPECT_EQ(reader->last_entry(), entry_id(2));
  EXPECT_EQ(texts(cluster.run(reader->read(entry_id(0), entry_id(2))).value()),
            (std::vector<std::string>{"x", "y", "z"}));
  auto beyond = cluster.run(reader->read(entry_id(0), entry_id(3)));
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.error(), errc::entry_beyond_last);
}

TEST(ledger_client, recovery_fences_the_writer_and_keeps_every_acknowledged_entry) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of(std::to_string(i)))));

  auto reader = cluster.run(cluster.client->open(writer->id(), true));
  ASSERT_TRUE(reader) << reader.error();
  EXPECT_EQ(reader.value()->last_entry(), entry_id(9));
  EXPECT_EQ(reader.value()->metadata().state, ledger_state::closed);

  auto fenced = cluster.run(writer->add(bytes_of("after recovery")));
  ASSERT_FALSE(fenced);
  EXPECT_EQ(fenced.error(), errc::ledger_fenced);
  auto close = cluster.run(writer->close());
  ASSERT_FALSE(close);
  EXPECT_EQ(close.error(), errc::ledger_fenced);
}

TEST(ledger_client, recovery_after_a_bookie_crash_finds_every_acknowledged_entry) {
  test_cluster cluster;
  ledger_id id;
  {
    auto writer = cluster.run(cluster.client->create({})).value();
    id = writer->id();
    for (int i = 0; i < 25; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("entry-" + std::to_string(i)))));
  }
  cluster.crash_and_restart_bookies();
  auto reader = cluster.run(cluster.client->open(id, true));
  ASSERT_TRUE(reader) << reader.error();
  ASSERT_EQ(reader.value()->last_entry(), entry_id(24));
  auto entries = cluster.run(reader.value()->read(entry_id(0), entry_id(24))).value();
  for (int i = 0; i < 25; ++i) EXPECT_EQ(text_of(entries[i]), "entry-" + std::to_string(i));
}

TEST(ledger_client, a_tailing_reader_sees_the_writers_confirmed_entries) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("t"))));
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("carries lac 2"))));
  auto reader = cluster.run(cluster.client->open(writer->id(), false)).value();
  EXPECT_EQ(reader->last_entry(), entry_id(2)) << "the LAC the last add carried";
  EXPECT_EQ(reader->metadata().state, ledger_state::open);
}

TEST(ledger_client, quorum_writes_reach_the_write_set_and_read_back) {
  test_cluster cluster(3);
  auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 2, .ack_quorum = 2})).value();
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("q" + std::to_string(i)))));
  ASSERT_TRUE(cluster.run(writer->close()));
  // Each entry lives on exactly its write set's two bookies.
  const auto& m = writer->metadata();
  for (int i = 0; i < 12; ++i) {
    const auto write_set = m.write_set(entry_id(i));
    int holders = 0;
    for (int b = 0; b < 3; ++b) {
      if (cluster.run(cluster.bookie_at(b).read_entry(writer->id(), entry_id(i)))) ++holders;
    }
    EXPECT_EQ(holders, 2) << "entry " << i;
  }
  auto reader = cluster.run(cluster.client->open(writer->id(), false)).value();
  EXPECT_EQ(text_of(cluster.run(reader->read(entry_id(11), entry_id(11))).value()[0]), "q11");
}

TEST(ledger_client, a_range_of_a_fully_replicated_ledger_reads_back_in_order) {
  test_cluster cluster(3);
  auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2})).value();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("r" + std::to_string(i)))));
  ASSERT_TRUE(cluster.run(writer->close()));
  auto reader = cluster.run(cluster.client->open(writer->id(), false)).value();
  auto entries = cluster.run(reader->read(entry_id(3), entry_id(19)));
  ASSERT_TRUE(entries) << entries.error();
  ASSERT_EQ(entries.value().size(), 17u);
  for (int i = 3; i < 20; ++i) EXPECT_EQ(text_of(entries.value()[i - 3]), "r" + std::to_string(i));
}

TEST(ledger_client, recovery_with_quorum_writes_closes_at_the_last_entry) {
  test_cluster cluster(3);
  auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 2, .ack_quorum = 2})).value();
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("r"))));
  auto reader = cluster.run(cluster.client->open(writer->id(), true));
  ASSERT_TRUE(reader) << reader.error();
  EXPECT_EQ(reader.value()->last_entry(), entry_id(6));
}

TEST(ledger_client, recovery_writes_entries_found_on_part_of_the_write_set_to_all_of_it) {
  test_cluster cluster(3);
  auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2})).value();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("w" + std::to_string(i)))));
  // A writer that crashed after entries 3 and 4 reached two of the three bookies.
  for (int e = 3; e < 5; ++e) {
    for (int b = 0; b < 2; ++b) {
      ASSERT_TRUE(cluster.run(cluster.bookie_at(b).add_entry(writer->id(), entry_id(e), entry_id(2),
                                                             stored_entry(2 * (e + 1), "w" + std::to_string(e)))));
    }
  }
  auto reader = cluster.run(cluster.client->open(writer->id(), true));
  ASSERT_TRUE(reader) << reader.error();
  EXPECT_EQ(reader.value()->last_entry(), entry_id(4));
  for (int e = 3; e < 5; ++e) {
    auto held = cluster.run(cluster.bookie_at(2).read_entry(writer->id(), entry_id(e)));
    ASSERT_TRUE(held) << "entry " << e << ": " << held.error();
    EXPECT_EQ(text_of(payload_of(held.value()).value()), "w" + std::to_string(e));
  }
  EXPECT_EQ(texts(cluster.run(reader.value()->read(entry_id(0), entry_id(4))).value()),
            (std::vector<std::string>{"w0", "w1", "w2", "w3", "w4"}));
}

TEST(ledger_client, recovery_records_the_length_of_every_entry_not_only_those_past_the_lac) {
  test_cluster cluster(3);
  auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2})).value();
  std::uint64_t written = 0;
  for (int i = 0; i < 30; ++i) {
    const auto payload = std::string(static_cast<std::size_t>(i + 1), 'x');
    ASSERT_TRUE(cluster.run(writer->add(bytes_of(payload))));
    written += payload.size();
  }
  auto reader = cluster.run(cluster.client->open(writer->id(), true));
  ASSERT_TRUE(reader) << reader.error();
  ASSERT_EQ(reader.value()->last_entry(), entry_id(29));
  EXPECT_EQ(reader.value()->metadata().length, written);
}

TEST(ledger_client, recovery_with_nothing_past_the_lac_takes_the_length_from_the_lacs_entry) {
  test_cluster cluster(3);
  auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2})).value();
  // Entries 0 and 1 on every bookie; entry 2 reached none, and entry 3 (which
  // tells the LAC 1) only one: recovery stops at 1, with nothing to re-write.
  for (int e = 0; e < 2; ++e) {
    for (int b = 0; b < 3; ++b) {
      ASSERT_TRUE(cluster.run(cluster.bookie_at(b).add_entry(writer->id(), entry_id(e), entry_id(e - 1),
                                                             stored_entry(5 * (e + 1), "abcde"))));
    }
  }
  ASSERT_TRUE(
      cluster.run(cluster.bookie_at(0).add_entry(writer->id(), entry_id(3), entry_id(1), stored_entry(20, "abcde"))));
  auto reader = cluster.run(cluster.client->open(writer->id(), true));
  ASSERT_TRUE(reader) << reader.error();
  EXPECT_EQ(reader.value()->last_entry(), entry_id(1));
  EXPECT_EQ(reader.value()->metadata().length, 10u);
}

TEST(ledger_client, a_ledger_written_before_entry_headers_reads_back_bare) {
  test_cluster cluster;
  ledger_metadata m;
  m.id = ledger_id(777);
  m.ensembles[0] = {cluster.directory->writable_bookies().at(0)};
  ASSERT_EQ(m.entry_format, 0);
  ASSERT_TRUE(cluster.run(cluster.store->put(ledger_path(m.id), to_json(m), -1)));
  ASSERT_TRUE(cluster.run(cluster.bookie_at(0).add_entry(m.id, entry_id(0), entry_id(-1), bytes_of("old"))));
  ASSERT_TRUE(cluster.run(cluster.bookie_at(0).add_entry(m.id, entry_id(1), entry_id(0), bytes_of("older"))));
  auto reader = cluster.run(cluster.client->open(m.id, true));
  ASSERT_TRUE(reader) << reader.error();
  EXPECT_EQ(texts(cluster.run(reader.value()->read(entry_id(0), entry_id(1))).value()),
            (std::vector<std::string>{"old", "older"}));
}

TEST(ledger_client, removed_ledger_has_no_metadata_and_no_entries) {
  test_cluster cluster;
  auto writer = cluster.run(cluster.client->create({})).value();
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("gone"))));
  ASSERT_TRUE(cluster.run(writer->close()));
  ASSERT_TRUE(cluster.run(cluster.client->remove(writer->id())));
  EXPECT_FALSE(cluster.run(cluster.client->metadata(writer->id())).value());
  EXPECT_FALSE(cluster.run(cluster.bookie_at(0).read_entry(writer->id(), entry_id(0))));
  auto open = cluster.run(cluster.client->open(writer->id(), false));
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error(), errc::no_such_ledger);
}

TEST(ledger_client, ledger_ids_are_unique_and_increasing) {
  test_cluster cluster;
  auto a = cluster.run(cluster.client->create({})).value();
  auto b = cluster.run(cluster.client->create({})).value();
  EXPECT_LT(a->id(), b->id());
}

TEST(ledger_client, an_impossible_quorum_is_refused) {
  test_cluster cluster;
  auto bad = cluster.run(cluster.client->create({.ensemble_size = 1, .write_quorum = 2, .ack_quorum = 1}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::invalid_config);
  auto too_big = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
  ASSERT_FALSE(too_big);
  EXPECT_EQ(too_big.error(), errc::not_enough_bookies);
}

}  // namespace
}  // namespace magnetar::ledger
