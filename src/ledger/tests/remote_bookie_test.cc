// The ledger client and bookies over real sockets: each bookie of the test
// cluster behind a bookie_server on 127.0.0.1, reached by remote_bookie_clients.
#include "bookie/bookie_server.h"
#include "bookie/errc.h"
#include "io/net.h"
#include "io/oneshot_signal.h"
#include "io/run_on.h"
#include "ledger/errc.h"
#include "ledger/remote_bookie_client.h"
#include "ledger/tests/ledger_test_cluster.h"
#include "proto/bookie_protocol.pb.h"
#include "testing/child_process.h"

#include <gmock/gmock.h>

#include <chrono>
#include <future>
#include <thread>

namespace magnetar::ledger::testing {
namespace {

using ::testing::HasSubstr;

template <int Bookies>
class remote_bookies_of : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < Bookies; ++i) {
      servers.push_back(std::make_unique<bookie::bookie_server>(
          cluster.bookie_at(i), cluster.shards.set(),
          bookie::bookie_server_options{.bind_address = "127.0.0.1", .port = 0}));
      ASSERT_TRUE(servers.back()->start());
      const auto address = fmt::format("127.0.0.1:{}", servers.back()->port());
      addresses.push_back(address);
      directory.add(address, std::make_unique<remote_bookie_client>(
                                 cluster.shards[1].executor(),
                                 remote_bookie_options{.address = address, .timeout = std::chrono::seconds(5)}));
    }
    client = std::make_unique<ledger_client>(*cluster.store, directory, cluster.clock);
  }
  void TearDown() override {
    client.reset();
    for (auto& s : servers) s->stop();
  }

  std::unique_ptr<ledger_writer> create(int e, int w, int a) {
    auto writer = cluster.run(client->create({.ensemble_size = e, .write_quorum = w, .ack_quorum = a}));
    EXPECT_TRUE(writer) << writer.error();
    return writer ? std::move(writer).value() : nullptr;
  }

  std::vector<std::string> read_all(ledger_id id, bool recover = false) {
    auto reader = cluster.run(client->open(id, recover));
    EXPECT_TRUE(reader) << reader.error();
    if (!reader || reader.value()->last_entry().value() < 0) return {};
    auto entries = cluster.run(reader.value()->read(entry_id(0), reader.value()->last_entry()));
    EXPECT_TRUE(entries) << entries.error();
    std::vector<std::string> out;
    if (entries) {
      for (const auto& e : entries.value()) out.push_back(text_of(e));
    }
    return out;
  }

  // Sends raw bytes to bookie 0 and returns its answer and whether it then closed.
  std::pair<bookie_protocol::response, bool> raw_exchange(const std::string& bytes) {
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect({asio::ip::make_address("127.0.0.1"), servers[0]->port()});
    asio::write(socket, asio::buffer(bytes));
    std::uint8_t header[4];
    asio::read(socket, asio::buffer(header));
    std::string body((std::size_t{header[2]} << 8) | header[3], '\0');
    asio::read(socket, asio::buffer(body));
    bookie_protocol::response response;
    EXPECT_TRUE(response.ParseFromString(body));
    boost::system::error_code ec;
    char more;
    asio::read(socket, asio::buffer(&more, 1), ec);
    return {response, ec == asio::error::eof};
  }

  // The index of the bookie (and its server) with this address.
  int index_of(const std::string& address) const {
    return static_cast<int>(std::find(addresses.begin(), addresses.end(), address) - addresses.begin());
  }

  // Whether bookie `index` holds the entry, asked in-process.
  bool holds(int index, ledger_id ledger, std::int64_t entry) {
    return static_cast<bool>(cluster.run(cluster.bookie_at(index).read_entry(ledger, entry_id(entry))));
  }
  // The same, waiting up to 10 s: an add completes at its ack quorum, so a write set's
  // last copy may still be on its way when the writer has closed.
  bool holds_soon(int index, ledger_id ledger, std::int64_t entry) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!holds(index, ledger, entry)) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
  }

  test_cluster cluster{Bookies};
  std::vector<std::string> addresses;
  static_bookie_directory directory;
  std::vector<std::unique_ptr<bookie::bookie_server>> servers;
  std::unique_ptr<ledger_client> client;
};

using remote_bookies = remote_bookies_of<3>;
using four_remote_bookies = remote_bookies_of<4>;

TEST_F(remote_bookies, entries_added_at_3_3_2_read_back_in_order) {
  auto writer = create(3, 3, 2);
  ASSERT_TRUE(writer);
  for (int i = 0; i < 200; ++i) {
    auto added = cluster.run(writer->add(bytes_of("entry-" + std::to_string(i))));
    ASSERT_TRUE(added) << added.error();
    EXPECT_EQ(added.value().value(), i);
  }
  ASSERT_TRUE(cluster.run(writer->close()));
  auto got = read_all(writer->id());
  ASSERT_EQ(got.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(got[i], "entry-" + std::to_string(i));
}

TEST_F(remote_bookies, a_stopped_bookie_leaves_adds_at_the_ack_quorum_and_reads_on_the_others) {
  auto writer = create(3, 3, 2);
  ASSERT_TRUE(writer);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of(std::to_string(i)))));
  servers[0]->stop();
  for (int i = 50; i < 100; ++i) {
    auto added = cluster.run(writer->add(bytes_of(std::to_string(i))));
    ASSERT_TRUE(added) << "entry " << i << ": " << added.error();
  }
  ASSERT_TRUE(cluster.run(writer->close()));
  auto got = read_all(writer->id());
  ASSERT_EQ(got.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], std::to_string(i));
}

TEST_F(remote_bookies, two_stopped_bookies_fail_the_add_at_3_3_2) {
  auto writer = create(3, 3, 2);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("kept"))));
  servers[0]->stop();
  servers[1]->stop();
  auto added = cluster.run(writer->add(bytes_of("lost")));
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error(), errc::write_failed);
}

TEST_F(remote_bookies, recovery_fences_the_old_writer) {
  auto writer = create(3, 2, 2);
  ASSERT_TRUE(writer);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of(std::to_string(i)))));
  auto recovered = read_all(writer->id(), true);
  EXPECT_EQ(recovered.size(), 10u);
  auto late = cluster.run(writer->add(bytes_of("after fencing")));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), errc::ledger_fenced);
}

TEST_F(remote_bookies, a_read_of_a_ledger_the_bookie_lacks_is_ledger_not_found) {
  remote_bookie_client one(cluster.shards[1].executor(), {.address = fmt::format("127.0.0.1:{}", servers[0]->port())});
  auto read = cluster.run(one.read_entry(ledger_id(987654), entry_id(0)));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(), bookie::errc::ledger_not_found);
}

TEST_F(remote_bookies, a_garbage_frame_gets_ebadreq_and_only_its_connection_closes) {
  const std::string garbage = std::string("\x00\x00\x00\x05", 4) + "\xff\xff\xff\xff\xff";
  auto [response, closed] = raw_exchange(garbage);
  EXPECT_EQ(response.status(), bookie_protocol::BK_EBADREQ);
  EXPECT_THAT(response.message(), HasSubstr("not a bookie request"));
  EXPECT_TRUE(closed);
  auto writer = create(3, 3, 3);
  ASSERT_TRUE(writer);
  EXPECT_TRUE(cluster.run(writer->add(bytes_of("still serving"))));
}

TEST_F(remote_bookies, an_oversized_frame_is_refused_before_it_is_read) {
  auto [response, closed] = raw_exchange(std::string("\x7f\x00\x00\x00", 4));
  EXPECT_EQ(response.status(), bookie_protocol::BK_EBADREQ);
  EXPECT_THAT(response.message(), HasSubstr("is larger than the limit"));
  EXPECT_TRUE(closed);
}

TEST_F(remote_bookies, a_bookie_that_is_not_there_fails_the_call_clearly) {
  remote_bookie_client nowhere(cluster.shards[1].executor(),
                               {.address = fmt::format("127.0.0.1:{}", magnetar::testing::free_port()),
                                .connect_timeout = std::chrono::seconds(2)});
  auto read = cluster.run(nowhere.read_last_add_confirmed(ledger_id(1)));
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().detail(), HasSubstr("connect"));
}

// The first bookie of each write set answers nothing (a listening socket that
// never reads): after the speculative timeout the next bookie is asked, and
// the read comes back long before that bookie's own call timeout.
TEST_F(remote_bookies, a_silent_bookie_is_read_around_after_the_speculative_timeout) {
  auto writer = create(3, 3, 2);
  ASSERT_TRUE(writer);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of("s" + std::to_string(i)))));
  ASSERT_TRUE(cluster.run(writer->close()));

  asio::io_context io;
  asio::ip::tcp::acceptor silent(io, {asio::ip::make_address("127.0.0.1"), 0});  // never accepts, never answers
  const auto silent_address = fmt::format("127.0.0.1:{}", silent.local_endpoint().port());
  const auto hung = writer->metadata().write_set(entry_id(3)).front();
  static_bookie_directory slow;
  for (const auto& address : addresses) {
    slow.add(address, std::make_unique<remote_bookie_client>(
                          cluster.shards[1].executor(),
                          remote_bookie_options{.address = address == hung ? silent_address : address,
                                                .timeout = std::chrono::hours(1)}));
  }
  ledger_client reader_client(*cluster.store, slow, cluster.clock,
                              {.speculative_read_timeout = std::chrono::milliseconds(50)});
  auto read = std::async(std::launch::async, [&] {
    auto reader = cluster.run(reader_client.open(writer->id(), false));
    EXPECT_TRUE(reader) << reader.error();
    return cluster.run(reader.value()->read(entry_id(3), entry_id(3)));
  });
  ASSERT_EQ(read.wait_for(std::chrono::seconds(60)), std::future_status::ready)
      << "the read waited on the silent bookie";
  auto entries = read.get();
  ASSERT_TRUE(entries) << entries.error();
  EXPECT_EQ(text_of(entries.value().at(0)), "s3");
}

TEST_F(remote_bookies, a_tailing_reader_long_polls_until_the_writer_confirms_more) {
  auto writer = create(3, 3, 2);
  ASSERT_TRUE(writer);
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("first"))));
  auto reader = cluster.run(client->open(writer->id(), false));
  ASSERT_TRUE(reader) << reader.error();
  const auto known = reader.value()->last_entry();
  auto poll = std::async(std::launch::async,
                         [&] { return cluster.run(reader.value()->wait_for_entries(std::chrono::seconds(3))); });
  // Two more adds: the second carries the first's confirmation to the bookies.
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("second"))));
  ASSERT_TRUE(cluster.run(writer->add(bytes_of("third"))));
  ASSERT_EQ(poll.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  auto last = poll.get();
  ASSERT_TRUE(last) << last.error();
  EXPECT_GT(last.value(), known);
  EXPECT_EQ(text_of(cluster.run(reader.value()->read(last.value(), last.value())).value().at(0)),
            last.value() == entry_id(1) ? "second" : "first");
}

TEST_F(four_remote_bookies, a_failed_bookie_is_replaced_and_later_entries_reach_their_write_quorum) {
  auto writer = create(3, 3, 2);
  ASSERT_TRUE(writer);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(cluster.run(writer->add(bytes_of(std::to_string(i)))));
  const auto first = writer->metadata().ensembles.at(0);
  const auto lost = first[1];
  servers[index_of(lost)]->stop();
  for (int i = 20; i < 60; ++i) {
    auto added = cluster.run(writer->add(bytes_of(std::to_string(i))));
    ASSERT_TRUE(added) << "entry " << i << ": " << added.error();
  }
  ASSERT_TRUE(cluster.run(writer->close()));

  const auto& m = writer->metadata();
  ASSERT_EQ(m.ensembles.size(), 2u);
  const auto& [start, second] = *m.ensembles.rbegin();
  // The change starts at the first entry the lost bookie failed before the others
  // confirmed it: 20, or a little later when the two live bookies' acks (the ack quorum)
  // come in before the lost one's failure does, as under load (those few entries are
  // under-replicated, auto-recovery's business).
  EXPECT_GE(start, 20);
  EXPECT_LT(start, 60);
  EXPECT_EQ(std::count(second.begin(), second.end(), lost), 0);
  // From the change on, every bookie of each entry's write set holds it.
  for (std::int64_t e = start; e < 60; ++e) {
    for (const auto& bookie : m.write_set(entry_id(e))) {
      EXPECT_TRUE(holds_soon(index_of(bookie), m.id, e)) << e << bookie;
    }
  }
  auto got = read_all(writer->id());
  ASSERT_EQ(got.size(), 60u);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(got[i], std::to_string(i));
  // The ensemble change is in the stored metadata too.
  auto stored = cluster.run(client->metadata(writer->id()));
  ASSERT_TRUE(stored && stored.value());
  EXPECT_EQ(stored.value()->ensembles, m.ensembles);
}

TEST_F(four_remote_bookies, adds_in_flight_when_a_bookie_fails_are_resent_to_its_replacement) {
  auto writer = create(3, 3, 3);
  ASSERT_TRUE(writer);
  const auto lost = writer->metadata().ensembles.at(0)[0];
  servers[index_of(lost)]->stop();
  // 100 adds sent at once, all pending when the failures come back: each
  // must be re-sent to the new bookie, since the ack quorum is all three.
  constexpr int count = 100;
  auto results = cluster.run([&]() -> awaitable<std::vector<result<entry_id>>> {
    auto executor = co_await asio::this_coro::executor;
    auto out = std::make_shared<std::vector<result<entry_id>>>();
    auto done = std::make_shared<io::oneshot_signal>(executor);
    for (int i = 0; i < count; ++i) {
      io::spawn(executor, [&, out, done, i]() -> awaitable<void> {
        out->push_back(co_await writer->add(bytes_of(std::to_string(i))));
        if (out->size() == count) done->fire();
      });
    }
    co_await done->wait();
    co_return *out;
  }());
  for (int i = 0; i < count; ++i) {
    ASSERT_TRUE(results[i]) << results[i].error();
    EXPECT_EQ(results[i].value().value(), i);  // confirmed once each, in order
  }
  // Nothing was confirmed before the change, so the new ensemble starts at
  // entry 0 and takes the first one's place.
  const auto& m = writer->metadata();
  ASSERT_EQ(m.ensembles.size(), 1u);
  const auto& replacement = m.ensembles.at(0)[0];
  EXPECT_NE(replacement, lost);
  for (int e = 0; e < count; ++e) EXPECT_TRUE(holds(index_of(replacement), m.id, e)) << e;
}

}  // namespace
}  // namespace magnetar::ledger::testing
