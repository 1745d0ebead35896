#include "broker/topic/dispatcher.h"

#include "base/log.h"
#include "broker/topic/key_shared_dispatcher.h"
#include "broker/topic/single_active_dispatcher.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"
#include "io/oneshot_signal.h"
#include "io/run_on.h"

#include <optional>

namespace magnetar::broker {

void dispatcher::dispatch() {
  if (_sub.is_closing() || _reading) return;
  auto plan = plan_read();
  auto& cursor = _sub.cursor();
  if (plan.replay.empty()) {
    if (plan.new_entries == 0) return;
    if (!cursor.has_more_entries()) {
      if (_waiting) return;
      auto pass = _sub.owner().enter();
      if (!pass) return;
      _waiting = true;
      io::spawn(_sub.owner().shard().executor(),
                [self = _sub.shared_from_this(), held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
                  return self->dispatcher_of().wait_for_entries(held);
                });
      return;
    }
  } else {
    plan.new_entries = 0;  // due entries go first, one kind of read at a time
  }
  auto pass = _gate.enter();
  if (!pass) return;
  _reading = true;
  io::spawn(_sub.owner().shard().executor(),
            [self = _sub.shared_from_this(), plan = std::move(plan),
             held = std::make_shared<io::gate::pass>(std::move(pass).value())]() mutable {
              return self->dispatcher_of().read(std::move(plan), held);
            });
}

awaitable<void> dispatcher::wait_for_entries(std::shared_ptr<io::gate::pass> /*held*/) {
  // The managed ledger, not the cursor, is awaited: an unsubscribe may delete the cursor
  // meanwhile (hence the closing check before the cursor is touched). The check runs
  // here, not where the wait was spawned: entries added in between must not be missed.
  auto& ml = _sub.owner().ledger();
  while (!_sub.is_closing() && !_sub.cursor().has_more_entries()) {
    auto woke = co_await ml.wait_for_entries_after(ml.last_confirmed());
    if (!woke) {
      _waiting = false;
      co_return;
    }
  }
  _waiting = false;
  dispatch();
}

awaitable<void> dispatcher::read(read_plan plan, std::shared_ptr<io::gate::pass> /*held*/) {
  const bool replay = !plan.replay.empty();
  // No co_await inside a conditional expression: GCC 12 destroys its temporaries twice.
  result<std::vector<mledger::entry>> entries{std::vector<mledger::entry>{}};
  if (replay) {
    entries = co_await read_replay(plan.replay);
  } else {
    entries =
        co_await _sub.cursor().read_entries(plan.new_entries, _sub.owner().config().dispatcher_max_read_size_bytes);
  }
  _reading = false;
  if (_sub.is_closing()) co_return;
  if (!entries) {
    spdlog::warn("{} subscription {}: read failed: {}", _sub.owner().full_name(), _sub.name(), entries.error());
    // What was due stays due; what the cursor read is read again.
    if (!replay) reread_from_cursor();
    co_return;
  }
  deliver(std::move(entries).value(), replay);
  dispatch();
}

// The replay reads of one dispatch round, gathered as they complete (all on the topic's
// shard, so no lock).
struct dispatcher::replay_reads {
  explicit replay_reads(std::size_t count, asio::any_io_executor executor)
      : reads(count), pending(count), done(std::move(executor)) {}
  std::vector<std::optional<result<std::vector<mledger::entry>>>> reads;
  std::size_t pending;
  io::oneshot_signal done;
};

awaitable<void> dispatcher::read_one_replay(std::shared_ptr<replay_reads> reads, std::size_t index,
                                            mledger::managed_ledger& ml, mledger::position p) {
  reads->reads[index] = co_await ml.read_entries(p, 1);
  if (--reads->pending == 0) reads->done.fire();
}

awaitable<result<std::vector<mledger::entry>>> dispatcher::read_replay(const std::vector<mledger::position>& which) {
  // Replayed entries are scattered (a Key_Shared consumer's hashes), so each is a read of
  // its own; they go out together, since one after another their waits for storage would
  // add up (under load a storage hop takes a millisecond or more: 100 of them in a row
  // capped a lagging subscription at about 1,000 entries a second).
  auto& ml = _sub.owner().ledger();
  std::vector<mledger::entry> out;
  if (which.empty()) co_return out;
  const auto executor = _sub.owner().shard().executor();
  auto reads = std::make_shared<replay_reads>(which.size(), executor);
  for (std::size_t i = 0; i < which.size(); ++i) {
    io::spawn(executor, [reads, i, &ml, p = which[i]]() { return read_one_replay(reads, i, ml, p); });
  }
  co_await reads->done.wait();
  out.reserve(which.size());
  for (std::size_t i = 0; i < which.size(); ++i) {
    auto& one = *reads->reads[i];
    if (!one) co_return one.error();
    // Trimmed or deleted meanwhile: nothing to send.
    if (!one.value().empty() && one.value().front().pos == which[i]) out.push_back(std::move(one.value().front()));
  }
  co_return out;
}

void dispatcher::reread_from_cursor() { _sub.cursor().rewind(); }

awaitable<void> dispatcher::close() {
  closing();
  co_await _gate.close();
}

std::unique_ptr<dispatcher> make_dispatcher(subscription& sub, proto::CommandSubscribe::SubType type) {
  switch (type) {
    case proto::CommandSubscribe::Shared: return std::make_unique<shared_dispatcher>(sub);
    case proto::CommandSubscribe::Key_Shared: return std::make_unique<key_shared_dispatcher>(sub);
    case proto::CommandSubscribe::Exclusive:
    case proto::CommandSubscribe::Failover: break;
  }
  return std::make_unique<single_active_dispatcher>(sub, type);
}

}  // namespace magnetar::broker
