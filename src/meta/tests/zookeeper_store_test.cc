// zookeeper_store: the behaviour suite against a real ZooKeeper server that
// this test binary starts itself (a free port, a throwaway data directory),
// plus what only ZooKeeper shows: lost connections, expired sessions, watches
// after a reconnect, values past jute.maxbuffer, a server that isn't there.
#include "meta/zookeeper_store.h"

#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/errc.h"
#include "meta/tests/store_suite.h"
#include "testing/tcp_relay.h"
#include "testing/zookeeper_server.h"

#include <fmt/format.h>

#include <gmock/gmock.h>
#include <zookeeper/zookeeper.h>

#include <atomic>
#include <future>

namespace magnetar::meta {

namespace {

// One server for the whole binary: starting a JVM costs seconds. Tests that
// stop or restart a server start one of their own.
class shared_server {
 public:
  static shared_server& get() {
    static shared_server instance;
    return instance;
  }
  // Empty when the server runs; else why not (the test skips).
  const std::string& problem() const { return _problem; }
  std::string address() const { return _server ? _server->address() : ""; }
  // A chroot that no other test uses.
  std::string fresh_chroot() { return "/test-" + std::to_string(_next.fetch_add(1)); }

 private:
  shared_server() {
    _problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!_problem.empty()) return;
    _server = std::make_unique<magnetar::testing::zookeeper_server>(_dir.path());
    if (!_server->start(&_problem)) _server.reset();
  }
  io::temp_directory _dir{"magnetar-zk"};
  std::unique_ptr<magnetar::testing::zookeeper_server> _server;
  std::string _problem;
  std::atomic<int> _next{0};
};

zookeeper_store::options options_for(const std::string& servers, const std::string& chroot) {
  return {.servers = servers,
          .chroot = chroot,
          .session_timeout = std::chrono::seconds(10),
          .connect_timeout = std::chrono::seconds(30),
          .operation_timeout = std::chrono::seconds(30)};
}

}  // namespace

namespace testing {
namespace {

class zookeeper_location final : public store_location {
 public:
  std::unique_ptr<store> open(base::clock&) override {
    return std::make_unique<zookeeper_store>(options_for(shared_server::get().address(), _chroot));
  }

 private:
  std::string _chroot = shared_server::get().fresh_chroot();
};

}  // namespace
}  // namespace testing

namespace {

using ::testing::HasSubstr;

class session_log {
 public:
  void add(session_event e) {
    std::lock_guard lock(_mutex);
    _events.push_back(e);
    _changed.notify_all();
  }
  bool wait_for(session_event e) {
    std::unique_lock lock(_mutex);
    return _changed.wait_for(lock, std::chrono::seconds(60),
                             [&] { return std::find(_events.begin(), _events.end(), e) != _events.end(); });
  }

 private:
  std::mutex _mutex;
  std::condition_variable _changed;
  std::vector<session_event> _events;
};

class zookeeper_store_test : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    std::string why;
    ASSERT_TRUE(server.start(&why)) << why;
  }
  void TearDown() override {
    for (auto& s : stores) run(s->stop());
    stores.clear();
  }

  template <class T>
  T run(awaitable<T> work) {
    return io::block_on(shards[0], std::move(work));
  }
  zookeeper_store& open_store(std::chrono::milliseconds session_timeout = std::chrono::seconds(10)) {
    auto opts = options_for(server.address(), "/t");
    opts.session_timeout = session_timeout;
    stores.push_back(std::make_unique<zookeeper_store>(opts));
    auto started = run(stores.back()->start());
    EXPECT_TRUE(started) << started.error();
    return *stores.back();
  }

  io::temp_directory dir{"magnetar-zk"};
  magnetar::testing::zookeeper_server server{dir.path()};
  testing::notification_log seen;
  session_log sessions;
  io::running_shards shards{2};

  // Freezes the relay until the server has ended the session (its
  // connection leaves the server's list), then thaws it: the client's next
  // packets learn that the session expired.
  void expire_through_relay(std::int64_t session) {
    relay_ref().freeze();
    const auto hex = fmt::format("sid=0x{:x}", session);
    EXPECT_TRUE(magnetar::testing::wait_until([&] {
      return magnetar::testing::four_letter_word(server.port(), "cons").find(hex) == std::string::npos;
    })) << "the server kept session "
        << hex;
    relay_ref().thaw();
  }
  zookeeper_store& open_store_via_relay() {
    auto opts = options_for(relay_address(), "/t");
    opts.session_timeout = std::chrono::seconds(2);
    stores.push_back(std::make_unique<zookeeper_store>(opts));
    auto started = run(stores.back()->start());
    EXPECT_TRUE(started) << started.error();
    return *stores.back();
  }
  std::string relay_address() {
    if (!relay_) relay_ = std::make_unique<magnetar::testing::tcp_relay>(server.port());
    return relay_->address();
  }
  std::unique_ptr<magnetar::testing::tcp_relay> relay_;
  magnetar::testing::tcp_relay& relay_ref() { return *relay_; }
  std::vector<std::unique_ptr<zookeeper_store>> stores;
};

TEST_F(zookeeper_store_test, reads_wait_out_a_server_restart_within_the_session) {
  auto& s = open_store();
  auto listener = s.register_session_listener(shards[1].executor(), [&](session_event e) { sessions.add(e); });
  ASSERT_TRUE(run(s.put("/a", "kept", std::nullopt)));
  server.stop();
  ASSERT_TRUE(sessions.wait_for(session_event::connection_lost));
  auto read = std::async(std::launch::async, [&] { return run(s.get("/a")); });
  std::string why;
  ASSERT_TRUE(server.start(&why)) << why;
  auto got = read.get();
  ASSERT_TRUE(got) << got.error();
  ASSERT_TRUE(got.value().has_value());
  EXPECT_EQ(got.value()->value, "kept");
  EXPECT_TRUE(sessions.wait_for(session_event::reconnected));
}

TEST_F(zookeeper_store_test, ephemeral_nodes_outlive_a_reconnect_within_the_session) {
  auto& s = open_store();
  auto session = run(s.open_session());
  ASSERT_TRUE(session) << session.error();
  ASSERT_TRUE(run(s.put("/owners/me", "", std::nullopt, {.ephemeral = session.value()})));
  server.stop();
  std::string why;
  ASSERT_TRUE(server.start(&why)) << why;
  auto got = run(s.get("/owners/me"));
  ASSERT_TRUE(got) << got.error();
  ASSERT_TRUE(got.value().has_value());
  EXPECT_EQ(got.value()->st.owner, session.value());
}

TEST_F(zookeeper_store_test, watches_fire_after_a_reconnect) {
  auto& watcher = open_store();
  auto& writer = open_store();
  ASSERT_TRUE(run(writer.put("/w", "1", std::nullopt)));
  ASSERT_TRUE(run(watcher.get("/w")));
  auto handle = watcher.register_listener(shards[1].executor(), [&](const notification& n) { seen.add(n); });
  server.stop();
  std::string why;
  ASSERT_TRUE(server.start(&why)) << why;
  ASSERT_TRUE(run(writer.put("/w", "2", std::nullopt)));
  ASSERT_TRUE(seen.wait_for(1));
  EXPECT_EQ(seen.events().front(), (notification{notification_type::modified, "/w"}));
}

TEST_F(zookeeper_store_test, an_expired_main_session_is_replaced_and_its_watches_rearmed) {
  auto& watcher = open_store_via_relay();
  auto& writer = open_store();
  auto listener = watcher.register_session_listener(shards[1].executor(), [&](session_event e) { sessions.add(e); });
  ASSERT_TRUE(run(writer.put("/x", "1", std::nullopt)));
  ASSERT_TRUE(run(watcher.get("/x")));
  const auto before = watcher.session_credentials().value();
  expire_through_relay(before.id);
  ASSERT_TRUE(sessions.wait_for(session_event::session_lost));
  ASSERT_TRUE(sessions.wait_for(session_event::session_reestablished));
  EXPECT_NE(watcher.session_credentials()->id, before.id);
  auto handle = watcher.register_listener(shards[1].executor(), [&](const notification& n) { seen.add(n); });
  ASSERT_TRUE(run(writer.put("/x", "2", std::nullopt)));
  ASSERT_TRUE(seen.wait_for(1));
  EXPECT_EQ(seen.events().front(), (notification{notification_type::modified, "/x"}));
  EXPECT_TRUE(run(watcher.put("/after", "", std::nullopt))) << "the store works on its new session";
}

TEST_F(zookeeper_store_test, an_expired_session_loses_its_ephemeral_nodes_and_says_so) {
  auto& s = open_store_via_relay();
  auto& observer = open_store();
  auto listener = s.register_session_listener(shards[1].executor(), [&](session_event e) { sessions.add(e); });
  auto session = run(s.open_session());
  ASSERT_TRUE(session) << session.error();
  ASSERT_TRUE(run(s.put("/brokers/b1", "", std::nullopt, {.ephemeral = session.value()})));
  expire_through_relay(session.value().value());
  EXPECT_FALSE(run(observer.exists("/brokers/b1")).value());
  ASSERT_TRUE(sessions.wait_for(session_event::session_lost));
  auto late = run(s.put("/brokers/b2", "", std::nullopt, {.ephemeral = session.value()}));
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error(), errc::session_expired);
}

TEST_F(zookeeper_store_test, a_value_past_jute_maxbuffer_is_refused_and_the_store_goes_on) {
  auto& s = open_store();
  auto big = run(s.put("/big", std::string(4 << 20, 'x'), std::nullopt));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error(), errc::value_too_large);
  EXPECT_THAT(big.error().detail(), HasSubstr("jute.maxbuffer"));
  EXPECT_TRUE(run(s.put("/small", std::string(1000, 'y'), std::nullopt)));
  EXPECT_FALSE(run(s.exists("/big")).value());
}

TEST_F(zookeeper_store_test, a_sequential_put_across_a_restart_creates_at_most_one_node) {
  auto& s = open_store();
  ASSERT_TRUE(run(s.put("/queue", "", std::nullopt)));
  server.stop();
  auto put = std::async(std::launch::async,
                        [&] { return run(s.put("/queue/item-", "v", std::nullopt, {.sequential = true})); });
  std::string why;
  ASSERT_TRUE(server.start(&why)) << why;
  auto r = put.get();
  auto children = run(s.children("/queue")).value();
  if (r) {
    EXPECT_EQ(children.size(), 1u);
  } else {
    EXPECT_TRUE(r.error() == errc::connection_lost || r.error() == errc::unavailable) << r.error();
    EXPECT_LE(children.size(), 1u);
  }
}

TEST(zookeeper_store_start, fails_naming_the_servers_when_none_answers) {
  io::running_shards shards{1};
  const auto address = "127.0.0.1:" + std::to_string(magnetar::testing::free_port());
  zookeeper_store s(
      {.servers = address, .session_timeout = std::chrono::seconds(4), .connect_timeout = std::chrono::seconds(1)});
  auto started = io::block_on(shards[0], s.start());
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error(), errc::unavailable);
  EXPECT_THAT(started.error().detail(), HasSubstr(address));
  io::block_on(shards[0], s.stop());
}

}  // namespace

namespace testing {
namespace {

INSTANTIATE_TEST_SUITE_P(zookeeper, store_test,
                         ::testing::Values(store_backend{
                             .name = "zookeeper",
                             .make_location = [] { return std::make_unique<zookeeper_location>(); },
                             .server_clock = true,
                             .crash_keeps_ephemerals = true,
                             .unavailable =
                                 [] {
                                   const auto& problem = shared_server::get().problem();
                                   return problem.empty() ? problem : "no ZooKeeper: " + problem;
                                 }}),
                         backend_name);

}  // namespace
}  // namespace testing

}  // namespace magnetar::meta
