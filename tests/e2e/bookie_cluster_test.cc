// End to end: `magnetar bookie` processes registered in a ZooKeeper that the test
// starts, and a ledger client in the test that finds them there and writes
// replicated ledgers (E/W/A 3/3/2) while bookies are killed with SIGKILL.
#include "bookie/errc.h"
#include "http/client.h"
#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "ledger/entry_header.h"
#include "ledger/errc.h"
#include "ledger/ledger_client.h"
#include "ledger/registered_bookie_directory.h"
#include "ledger/remote_bookie_client.h"
#include "meta/zookeeper_store.h"
#include "testing/child_process.h"
#include "testing/zookeeper_server.h"
#include "tests/e2e/bookie_process.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace magnetar::e2e {
namespace {

using ::testing::HasSubstr;
namespace mt = magnetar::testing;

class bookie_cluster : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto problem = mt::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    std::string why;
    ASSERT_TRUE(zookeeper.start(&why)) << why;
    for (int i = 0; i < 3; ++i) {
      bookies.push_back(std::make_unique<bookie_process>(dir / fmt::format("bookie-{}", i), zookeeper.address()));
      ASSERT_TRUE(bookies.back()->start()) << bookies.back()->log();
    }
    store = std::make_unique<meta::zookeeper_store>(
        meta::zookeeper_store::options{.servers = zookeeper.address(), .session_timeout = std::chrono::seconds(10)});
    ASSERT_TRUE(run(store->start()));
    directory = std::make_unique<ledger::registered_bookie_directory>(
        *store, shards[1].executor(), ledger::remote_bookie_options{.timeout = std::chrono::seconds(5)});
    ASSERT_TRUE(run(directory->start()));
    ASSERT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 3; }));
    client = std::make_unique<ledger::ledger_client>(*store, *directory, base::system_clock());
  }
  void TearDown() override {
    client.reset();
    directory.reset();
    if (store) run(store->stop());
  }

  template <class T>
  T run(awaitable<T> work) {
    return io::block_on(shards[0], std::move(work));
  }
  static wire::shared_bytes bytes(const std::string& text) {
    return wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
  }
  // Reads the ledger back through a recovery open, as a new owner would.
  std::vector<std::string> recover_and_read(ledger_id id) {
    auto reader = run(client->open(id, true));
    EXPECT_TRUE(reader) << reader.error();
    std::vector<std::string> out;
    if (!reader || reader.value()->last_entry().value() < 0) return out;
    auto entries = run(reader.value()->read(entry_id(0), reader.value()->last_entry()));
    EXPECT_TRUE(entries) << entries.error();
    if (entries) {
      for (const auto& e : entries.value()) out.emplace_back(e.as_chars());
    }
    return out;
  }

  io::temp_directory dir{"bookie-cluster"};
  mt::zookeeper_server zookeeper{dir / "zookeeper"};
  std::vector<std::unique_ptr<bookie_process>> bookies;
  io::running_shards shards{2};
  std::unique_ptr<meta::zookeeper_store> store;
  std::unique_ptr<ledger::registered_bookie_directory> directory;
  std::unique_ptr<ledger::ledger_client> client;
};

TEST_F(bookie_cluster, bookies_register_and_a_killed_one_leaves_with_its_session) {
  auto listed = run(store->children("/ledgers/available")).value();
  EXPECT_EQ(listed.size(), 3u);
  bookies[2]->kill();
  EXPECT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 2; }));
  EXPECT_TRUE(run(store->exists("/ledgers/cookies/" + bookies[2]->id())).value()) << "its cookie stays";
}

TEST_F(bookie_cluster, a_kill_9_of_one_bookie_at_3_3_2_loses_no_acknowledged_entry) {
  auto writer = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
  ASSERT_TRUE(writer) << writer.error();
  std::vector<std::string> acked;
  for (int i = 0; i < 600; ++i) {
    if (i == 200) bookies[0]->kill();
    const auto text = "entry-" + std::to_string(i);
    auto added = run(writer.value()->add(bytes(text)));
    ASSERT_TRUE(added) << "entry " << i << ": " << added.error();
    acked.push_back(text);
  }
  EXPECT_EQ(recover_and_read(writer.value()->id()), acked);
}

TEST_F(bookie_cluster, a_kill_9_mid_write_with_a_spare_bookie_changes_the_ensemble_and_adds_go_on) {
  bookies.push_back(std::make_unique<bookie_process>(dir / "bookie-3", zookeeper.address()));
  ASSERT_TRUE(bookies.back()->start()) << bookies.back()->log();
  ASSERT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 4; }));
  auto writer = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
  ASSERT_TRUE(writer) << writer.error();
  const auto first = writer.value()->metadata().ensembles.at(0);
  auto victim = std::find_if(bookies.begin(), bookies.end(), [&](const auto& b) { return b->id() == first[2]; });
  ASSERT_NE(victim, bookies.end());
  std::vector<std::string> acked;
  for (int i = 0; i < 600; ++i) {
    if (i == 200) (*victim)->kill();
    const auto text = "entry-" + std::to_string(i);
    auto added = run(writer.value()->add(bytes(text)));
    ASSERT_TRUE(added) << "entry " << i << ": " << added.error();
    acked.push_back(text);
  }
  const auto ensembles = writer.value()->metadata().ensembles;
  ASSERT_EQ(ensembles.size(), 2u);
  EXPECT_EQ(ensembles.begin()->second, first);
  EXPECT_GE(ensembles.rbegin()->first, 200);
  const auto& second = ensembles.rbegin()->second;
  EXPECT_EQ(std::count(second.begin(), second.end(), (*victim)->id()), 0);
  EXPECT_EQ(recover_and_read(writer.value()->id()), acked);
}

TEST_F(bookie_cluster, a_kill_9_of_two_bookies_stops_adds_and_loses_no_acknowledged_entry) {
  auto writer = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
  ASSERT_TRUE(writer) << writer.error();
  std::vector<std::string> acked;
  for (int i = 0; i < 100; ++i) {
    const auto text = "entry-" + std::to_string(i);
    ASSERT_TRUE(run(writer.value()->add(bytes(text))));
    acked.push_back(text);
  }
  bookies[0]->kill();
  bookies[1]->kill();
  auto stalled = run(writer.value()->add(bytes("never acknowledged")));
  ASSERT_FALSE(stalled);
  EXPECT_EQ(stalled.error(), ledger::errc::write_failed);
  ASSERT_TRUE(bookies[1]->start()) << bookies[1]->log();  // same directories, same id: its cookie matches
  // Every acknowledged entry, in order; the failed add may be there too when the
  // surviving bookie took it (recovery keeps what any bookie holds, as BookKeeper's does).
  auto recovered = recover_and_read(writer.value()->id());
  ASSERT_GE(recovered.size(), acked.size());
  EXPECT_LE(recovered.size(), acked.size() + 1);
  EXPECT_TRUE(std::equal(acked.begin(), acked.end(), recovered.begin()));
}

// The paused bookie's session expires (zkTimeout is 4 s) while the writer goes on
// at the ack quorum of the other two; resumed, it learns its session is gone,
// registers again on a new one, and takes the next ledger's entries.
TEST_F(bookie_cluster, a_bookie_whose_session_expired_registers_again_and_no_acknowledged_entry_is_lost) {
  auto writer = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
  ASSERT_TRUE(writer) << writer.error();
  std::vector<std::string> acked;
  const auto add = [&](int i) {
    const auto text = "entry-" + std::to_string(i);
    auto added = run(writer.value()->add(bytes(text)));
    ASSERT_TRUE(added) << "entry " << i << ": " << added.error();
    acked.push_back(text);
  };
  for (int i = 0; i < 100; ++i) add(i);
  bookies[2]->pause();
  const auto gone = [&] { return directory->writable_bookies().size() == 2; };
  for (int i = 100; !gone(); ++i) add(i);  // adds go on while the session runs out
  bookies[2]->resume();
  ASSERT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 3; })) << bookies[2]->log();
  EXPECT_THAT(bookies[2]->log(), HasSubstr("registering again"));
  ASSERT_TRUE(run(writer.value()->close()));
  EXPECT_EQ(recover_and_read(writer.value()->id()), acked);

  auto next = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 3}));
  ASSERT_TRUE(next) << next.error();
  EXPECT_TRUE(run(next.value()->add(bytes("after"))));
}

TEST_F(bookie_cluster, a_bookie_serves_its_metrics_and_health_over_http) {
  auto writer = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 3}));
  ASSERT_TRUE(writer) << writer.error();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(run(writer.value()->add(bytes("entry-" + std::to_string(i)))));
  for (const auto& b : bookies) {
    EXPECT_EQ(b->get("/heartbeat").body, "OK\n");
    const auto metrics = b->get("/metrics").body;
    EXPECT_THAT(metrics, HasSubstr("bookkeeper_server_ADD_ENTRY_REQUEST_count{success=\"true\"} 20\n"));
    EXPECT_THAT(metrics, HasSubstr("bookie_SERVER_STATUS 1\n"));
    EXPECT_THAT(b->get("/api/v1/bookie/state").body, HasSubstr(R"("readOnly":false)"));
  }
}

// A bookie whose journal and ledgers are on a 64 MiB tmpfs, mounted in a mount
// namespace of its own: the mount goes away with the process, whatever happens.
TEST_F(bookie_cluster, a_bookie_on_a_full_disk_turns_read_only_and_still_serves_reads) {
  auto small =
      std::make_unique<bookie_process>(dir / "small", zookeeper.address(), mt::free_port(), "diskCheckInterval=100\n");
  const auto probe = fmt::format("unshare -m --propagation private mount -t tmpfs -o size=1m tmpfs '{}' 2>/dev/null",
                                 small->data_directory());
  if (std::system(probe.c_str()) != 0) GTEST_SKIP() << "can't mount a tmpfs in a mount namespace here (needs root)";
  ASSERT_TRUE(small->start({"/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                            "mount -t tmpfs -o size=64m tmpfs \"$0\" && exec \"$@\"", small->data_directory()}))
      << small->log();
  ASSERT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 4; }));

  ledger::remote_bookie_client direct(shards[1].executor(), {.address = small->id()});
  const ledger_id ledger(424242);
  const std::string payload(256 << 10, 'x');
  int added = 0;
  result<void> last = success();
  while (added < 1000) {  // 64 MiB hold fewer than 256 such entries
    last = run(direct.add_entry(ledger, entry_id(added), entry_id(added - 1), bytes(payload + std::to_string(added)),
                                bookie::add_mode::normal));
    if (!last) break;
    ++added;
  }
  ASSERT_FALSE(last) << "the disk never filled";
  EXPECT_EQ(last.error(), bookie::errc::storage_full) << last.error();
  ASSERT_GT(added, 0);

  EXPECT_TRUE(mt::wait_until([&] { return run(store->exists("/ledgers/available/readonly/" + small->id())).value(); }))
      << small->log();
  EXPECT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 3; }));
  EXPECT_FALSE(run(store->exists("/ledgers/available/" + small->id())).value());
  // Reads still served, adds refused.
  auto first = run(direct.read_entry(ledger, entry_id(0)));
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(std::string(first.value().as_chars()), payload + "0");
  auto refused =
      run(direct.add_entry(ledger, entry_id(added), entry_id(added - 1), bytes("more"), bookie::add_mode::normal));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), bookie::errc::storage_full);
  EXPECT_THAT(small->get("/metrics").body, HasSubstr("bookie_SERVER_STATUS 0\n"));
  EXPECT_THAT(small->get("/api/v1/bookie/state").body, HasSubstr(R"("readOnly":true)"));
}

TEST_F(bookie_cluster, a_bookie_killed_for_good_has_its_entries_copied_to_the_others) {
  bookies.push_back(std::make_unique<bookie_process>(dir / "bookie-3", zookeeper.address()));
  ASSERT_TRUE(bookies.back()->start()) << bookies.back()->log();
  ASSERT_TRUE(mt::wait_until([&] { return directory->writable_bookies().size() == 4; }));
  auto writer = run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
  ASSERT_TRUE(writer) << writer.error();
  constexpr int count = 300;
  for (int i = 0; i < count; ++i) ASSERT_TRUE(run(writer.value()->add(bytes("entry-" + std::to_string(i)))));
  ASSERT_TRUE(run(writer.value()->close()));
  const auto id = writer.value()->id();
  const auto lost = writer.value()->metadata().ensembles.at(0)[0];
  auto victim = std::find_if(bookies.begin(), bookies.end(), [&](const auto& b) { return b->id() == lost; });
  ASSERT_NE(victim, bookies.end());
  (*victim)->kill();

  // Its session ends after zkTimeout; the auditor lists the ledger, a worker copies it.
  ledger::ledger_metadata m;
  ASSERT_TRUE(mt::wait_until([&] {
    m = *run(client->metadata(id)).value();
    const auto& ensemble = m.ensembles.at(0);
    return std::find(ensemble.begin(), ensemble.end(), lost) == ensemble.end();
  })) << "the ledger still names "
      << lost;
  EXPECT_TRUE(
      mt::wait_until([&] { return run(store->children("/ledgers/underreplication/ledgers")).value().empty(); }));
  // Every bookie of the new ensemble holds every entry, asked directly.
  for (const auto& bookie : m.ensembles.at(0)) {
    ledger::remote_bookie_client direct(shards[1].executor(), {.address = bookie});
    auto entries = run(direct.read_range(id, entry_id(0), entry_id(count - 1)));
    ASSERT_TRUE(entries) << bookie << ": " << entries.error();
    ASSERT_EQ(entries.value().size(), static_cast<std::size_t>(count)) << bookie;
    EXPECT_EQ(std::string(ledger::payload_of(entries.value()[count - 1]).value().as_chars()),
              "entry-" + std::to_string(count - 1));
  }
}

TEST_F(bookie_cluster, a_bookie_started_on_another_bookies_directories_refuses) {
  bookies[1]->kill();
  bookie_process impostor(bookies[1]->directory(), zookeeper.address());
  EXPECT_FALSE(impostor.start());
  EXPECT_THAT(impostor.log(), HasSubstr("belongs to bookie " + bookies[1]->id()));
}

}  // namespace
}  // namespace magnetar::e2e
