// dispatcher: sends a subscription's entries to its consumers. One per subscription,
// chosen by the subscription type:
// - single_active_dispatcher (Exclusive, Failover): one consumer receives at a time.
// - shared_dispatcher (Shared): round robin over the consumers that have permits.
// - key_shared_dispatcher (Key_Shared): each key hash to one consumer, in order.
//
// This base runs the dispatch cycle they share: ask the type what to read next (entries
// due again first, then the cursor's next ones, sized by the permits consumers gave),
// read it, hand the entries to the type to send, and go round again; when the cursor has
// nothing more, wait for the managed ledger's next entry. One read at a time. The
// types decide who gets what.
//
// Owned by its subscription, on the topic's shard; not thread-safe. Its coroutines keep
// the subscription alive and enter the dispatcher's gate, which close() awaits.
#pragma once

#include "io/asio.h"
#include "io/gate.h"
#include "mledger/managed_ledger.h"
#include "mledger/position.h"
#include "proto/pulsar_api.pb.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace magnetar::broker {

class consumer;
class subscription;

class dispatcher {
 public:
  explicit dispatcher(subscription& sub) : _sub(sub) {}
  virtual ~dispatcher() = default;
  dispatcher(const dispatcher&) = delete;
  dispatcher& operator=(const dispatcher&) = delete;

  // The consumer is in the subscription's list already; an error refuses it (the
  // subscription takes it out again).
  virtual result<void> consumer_added(consumer& c, const proto::CommandSubscribe& request) = 0;
  // The consumer has left the subscription's list; what it had not acknowledged is
  // sent to the others.
  virtual void consumer_removed(consumer& c) = 0;
  // `c` acknowledged `p`, which `owner` had been sent (null when no consumer had it).
  virtual void entry_acked(mledger::position p, consumer* owner, std::uint16_t key_hash) = 0;
  // `c` asks for these entries again (all it has when `which` is empty).
  virtual void redeliver(consumer& c, const std::vector<mledger::position>& which) = 0;
  // The cursor moved (seek, reset): nothing earlier is due again.
  virtual void cursor_moved() = 0;
  // Every entry up to `p` was acknowledged at once (TTL, backlog eviction); consumers
  // have forgotten them.
  virtual void acked_upto(mledger::position /*p*/) { dispatch(); }
  // Exclusive and Failover: the consumer receiving.
  virtual consumer* active_consumer() const { return nullptr; }
  // Key_Shared: the hash ranges a consumer owns, for stats.
  virtual std::vector<std::pair<int, int>> key_hash_ranges(const consumer&) const { return {}; }
  // Shared, Key_Shared: entries waiting for their deliver time (msgDelayed).
  virtual std::size_t delayed_entries() const { return 0; }
  // Entries waiting to be delivered again (redelivered, or held back from a consumer that
  // could not take them): upstream's msgInReplay.
  virtual std::size_t replay_entries() const { return 0; }
  // Key_Shared: hashes held back until their previous consumer acknowledges them.
  virtual std::size_t draining_hash_count() const { return 0; }

  // Starts a read or a wait when there is something to do and none runs.
  void dispatch();
  // Stops: waits for a read in flight.
  awaitable<void> close();

 protected:
  struct read_plan {
    std::vector<mledger::position> replay;  // entries due again, in order
    std::size_t new_entries = 0;            // entries wanted from the cursor
  };
  virtual read_plan plan_read() = 0;
  // What the read brought (`replayed`: the plan's replay positions that still exist).
  virtual void deliver(std::vector<mledger::entry> entries, bool replayed) = 0;
  // The cursor's read failed or its entries could not go out: read them again.
  virtual void reread_from_cursor();
  // close() has begun (the subscription is closing): wake what the type waits on, so
  // that its coroutines leave the gate.
  virtual void closing() {}
  // For the types' own coroutines, which close() waits for too.
  result<io::gate::pass> enter_gate() { return _gate.enter(); }

  subscription& _sub;

 private:
  awaitable<void> read(read_plan plan, std::shared_ptr<io::gate::pass> held);
  awaitable<void> wait_for_entries(std::shared_ptr<io::gate::pass> held);
  awaitable<result<std::vector<mledger::entry>>> read_replay(const std::vector<mledger::position>& which);
  struct replay_reads;
  static awaitable<void> read_one_replay(std::shared_ptr<replay_reads> reads, std::size_t index,
                                         mledger::managed_ledger& ml, mledger::position p);

  bool _reading = false;
  bool _waiting = false;
  io::gate _gate{"dispatcher"};
};

std::unique_ptr<dispatcher> make_dispatcher(subscription& sub, proto::CommandSubscribe::SubType type);

}  // namespace magnetar::broker
