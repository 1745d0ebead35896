// The auditor and the replication worker over the in-process test cluster:
// four bookies, registered in its metadata store the way `magnetar bookie`
// registers (a cookie each, and a node under /ledgers/available that the tests
// remove to play a bookie's loss). The workers read only from registered
// bookies, so a lost bookie's data is never used. The same with real
// processes and kill -9: tests/e2e/bookie_cluster_test.cc.
#include "autorecovery/auditor.h"
#include "autorecovery/replication_worker.h"
#include "autorecovery/underreplication.h"
#include "ledger/entry_header.h"
#include "ledger/tests/ledger_test_cluster.h"

#include <gtest/gtest.h>

namespace magnetar::autorecovery {
namespace {

using ledger::testing::bytes_of;
using ledger::testing::text_of;

class autorecovery : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 4; ++i) {
      const auto id = fmt::format("bookie-{}", i);
      ASSERT_TRUE(cluster.run(cluster.store->put("/ledgers/cookies/" + id, "{}", -1)));
      ASSERT_TRUE(cluster.run(cluster.store->put("/ledgers/available/" + id, "{}", -1)));
    }
  }

  std::unique_ptr<ledger::ledger_writer> write(int entries, bool close) {
    auto writer = cluster.run(cluster.client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
    EXPECT_TRUE(writer) << writer.error();
    for (int i = 0; i < entries; ++i) EXPECT_TRUE(cluster.run(writer.value()->add(bytes_of(std::to_string(i)))));
    if (close) {
      EXPECT_TRUE(cluster.run(writer.value()->close()));
    }
    return std::move(writer).value();
  }
  void lose(const std::string& bookie) {
    ASSERT_TRUE(cluster.run(cluster.store->remove("/ledgers/available/" + bookie, std::nullopt)));
  }
  ledger::ledger_metadata metadata(ledger_id id) { return cluster.run(cluster.client->metadata(id)).value().value(); }
  std::vector<underreplicated_ledger> listed() { return cluster.run(list_underreplicated(*cluster.store)).value(); }
  int index_of(const std::string& bookie) { return bookie.back() - '0'; }

  ledger::testing::test_cluster cluster{4};
  auditor audit{*cluster.store, "bookie-0", cluster.clock, std::chrono::seconds(0)};
  replication_worker worker{
      *cluster.client, *cluster.store, *cluster.directory, cluster.clock, {.open_ledger_grace = std::chrono::hours(1)}};
};

TEST_F(autorecovery, a_lost_bookies_closed_ledger_is_listed_copied_to_another_and_unlisted) {
  auto writer = write(30, true);
  const auto lost = writer->metadata().ensembles.at(0)[1];
  lose(lost);
  ASSERT_TRUE(cluster.run(audit.round()));
  EXPECT_TRUE(audit.acting());
  auto now_listed = listed();
  ASSERT_EQ(now_listed.size(), 1u);
  EXPECT_EQ(now_listed[0].id, writer->id());
  EXPECT_EQ(now_listed[0].missing, std::set<std::string>{lost});

  auto replicated = cluster.run(worker.round());
  ASSERT_TRUE(replicated) << replicated.error();
  EXPECT_EQ(replicated.value(), 1u);
  EXPECT_TRUE(listed().empty());
  const auto ensemble = metadata(writer->id()).ensembles.at(0);
  EXPECT_EQ(std::count(ensemble.begin(), ensemble.end(), lost), 0);
  const auto& replacement = ensemble[1];
  for (int e = 0; e < 30; ++e) {
    auto held = cluster.run(cluster.bookie_at(index_of(replacement)).read_entry(writer->id(), entry_id(e)));
    ASSERT_TRUE(held) << "entry " << e << ": " << held.error();
    EXPECT_EQ(text_of(ledger::payload_of(held.value()).value()), std::to_string(e));
  }
}

TEST_F(autorecovery, a_stopped_worker_takes_no_further_ledger) {
  auto writer = write(5, true);
  lose(writer->metadata().ensembles.at(0)[1]);
  ASSERT_TRUE(cluster.run(audit.round()));
  ASSERT_EQ(listed().size(), 1u);
  worker.stop();
  auto replicated = cluster.run(worker.round());
  ASSERT_TRUE(replicated) << replicated.error();
  EXPECT_EQ(replicated.value(), 0u);
  EXPECT_EQ(listed().size(), 1u);  // left for a worker that runs on
}

TEST_F(autorecovery, the_periodic_check_lists_a_ledger_a_live_bookie_lost_and_a_worker_copies_it_elsewhere) {
  auto writer = write(30, true);
  const auto emptied = writer->metadata().ensembles.at(0)[2];
  ASSERT_TRUE(cluster.run(cluster.bookie_at(index_of(emptied)).delete_ledger(writer->id())));
  auditor checking{*cluster.store, "bookie-0", cluster.clock, std::chrono::seconds(0),
                   periodic_check{.bookies = cluster.directory.get(), .interval = std::chrono::hours(1)}};
  ASSERT_TRUE(cluster.run(checking.round()));
  EXPECT_TRUE(listed().empty()) << "no check before an interval has passed";

  cluster.clock.advance(std::chrono::hours(1));
  ASSERT_TRUE(cluster.run(checking.round()));
  auto now_listed = listed();
  ASSERT_EQ(now_listed.size(), 1u);
  EXPECT_EQ(now_listed[0].missing, std::set<std::string>{emptied});

  auto replicated = cluster.run(worker.round());
  ASSERT_TRUE(replicated) << replicated.error();
  EXPECT_EQ(replicated.value(), 1u);
  EXPECT_TRUE(listed().empty());
  const auto ensemble = metadata(writer->id()).ensembles.at(0);
  EXPECT_EQ(std::count(ensemble.begin(), ensemble.end(), emptied), 0);
  for (int e = 0; e < 30; ++e) {
    auto held = cluster.run(cluster.bookie_at(index_of(ensemble[2])).read_entry(writer->id(), entry_id(e)));
    ASSERT_TRUE(held) << "entry " << e << ": " << held.error();
    EXPECT_EQ(text_of(ledger::payload_of(held.value()).value()), std::to_string(e));
  }
}

TEST_F(autorecovery, the_periodic_check_lists_nothing_when_every_bookie_holds_its_share) {
  write(30, true);
  auditor checking{*cluster.store, "bookie-0", cluster.clock, std::chrono::seconds(0),
                   periodic_check{.bookies = cluster.directory.get(), .interval = std::chrono::hours(1)}};
  ASSERT_TRUE(cluster.run(checking.round()));
  cluster.clock.advance(std::chrono::hours(1));
  ASSERT_TRUE(cluster.run(checking.round()));
  EXPECT_TRUE(listed().empty());
}

TEST_F(autorecovery, an_open_ledger_waits_out_its_grace_period_then_is_recovered_and_copied) {
  auto writer = write(10, false);
  lose(writer->metadata().ensembles.at(0)[0]);
  ASSERT_TRUE(cluster.run(audit.round()));
  EXPECT_EQ(cluster.run(worker.round()).value(), 0u);
  EXPECT_EQ(listed().size(), 1u) << "within the grace period the writer may still replace the bookie";

  replication_worker impatient{*cluster.client,
                               *cluster.store,
                               *cluster.directory,
                               cluster.clock,
                               {.open_ledger_grace = std::chrono::milliseconds(0)}};
  EXPECT_EQ(cluster.run(impatient.round()).value(), 1u);
  const auto m = metadata(writer->id());
  EXPECT_EQ(m.state, ledger::ledger_state::closed);
  EXPECT_EQ(m.last_entry, entry_id(9));
  EXPECT_FALSE(cluster.run(writer->add(bytes_of("late")))) << "recovery fenced the old writer";
}

TEST_F(autorecovery, a_bookie_back_within_the_delay_is_not_lost) {
  auditor patient{*cluster.store, "bookie-0", cluster.clock, std::chrono::seconds(30)};
  auto writer = write(5, true);
  const auto away = writer->metadata().ensembles.at(0)[2];
  lose(away);
  ASSERT_TRUE(cluster.run(patient.round()));
  EXPECT_TRUE(listed().empty());
  ASSERT_TRUE(cluster.run(cluster.store->put("/ledgers/available/" + away, "{}", -1)));
  cluster.clock.advance(std::chrono::seconds(31));
  ASSERT_TRUE(cluster.run(patient.round()));
  EXPECT_TRUE(listed().empty());
  lose(away);
  ASSERT_TRUE(cluster.run(patient.round()));
  cluster.clock.advance(std::chrono::seconds(31));
  ASSERT_TRUE(cluster.run(patient.round()));
  EXPECT_EQ(listed().size(), 1u);
}

TEST_F(autorecovery, one_auditor_acts_at_a_time) {
  auditor other{*cluster.store, "bookie-1", cluster.clock, std::chrono::seconds(0)};
  ASSERT_TRUE(cluster.run(audit.round()));
  ASSERT_TRUE(cluster.run(other.round()));
  EXPECT_TRUE(audit.acting());
  EXPECT_FALSE(other.acting());
  auto holder = cluster.run(cluster.store->get(auditor_path)).value();
  ASSERT_TRUE(holder);
  EXPECT_EQ(holder->value, "bookie-0");
}

}  // namespace
}  // namespace magnetar::autorecovery
