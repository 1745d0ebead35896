// topic: a persistent topic served by this broker: its managed ledger, its producers,
// and its subscriptions.
//
// A topic lives on one shard (chosen by its name's hash) and everything about it runs
// there: connections on other shards post their producers' SENDs and their consumers'
// FLOWs and ACKs to it, and it answers them through the connection, which is
// thread-safe to send on. Publishing appends each entry to the managed ledger; the
// receipt goes back once the entry is durable, in order.
//
// Every coroutine the topic starts enters its gate, so close() and remove() can wait for
// them before the managed ledger goes. Owned by the topic_registry's topic map
// (shared_ptr: producers, consumers and coroutines hold it too).
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/api/broker_config.h"
#include "broker/api/topic_admin.h"
#include "broker/namespace/topic_policies.h"
#include "broker/topic/deduplication.h"
#include "broker/topic/rate_meter.h"
#include "broker/topic/served_topic.h"
#include "broker/topic/storage_write_interval.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic_replication.h"
#include "io/asio.h"
#include "io/gate.h"
#include "io/oneshot_signal.h"
#include "io/shard.h"
#include "io/timer.h"
#include "mledger/managed_ledger.h"
#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"
#include "wire/topic_name.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::broker {

class topic_registry;
class client_channel;
class consumer;
class producer;

class topic : public served_topic, public std::enable_shared_from_this<topic> {
 public:
  topic(topic_registry& registry, wire::topic_name name, io::shard& shard,
        std::unique_ptr<mledger::managed_ledger> ledger);
  ~topic();

  const wire::topic_name& name() const override { return _name; }
  const std::string& full_name() const { return _full_name; }
  mledger::managed_ledger& ledger() { return *_ledger; }
  const mledger::managed_ledger& ledger() const { return *_ledger; }
  io::shard& shard() override { return _shard; }
  topic_registry& registry() { return _registry; }
  const broker_config& config() const;
  base::clock& clock();
  result<io::gate::pass> enter() { return _gate.enter(); }

  // Starts the stats tick and the policy checks (topic_policy_tasks.cc).
  void start();

  // Namespace policies (topic_policy_tasks.cc): reads them and applies them: retention,
  // deduplication (recovered before this returns), TTL and backlog quota for the
  // periodic checks. The broker awaits it before a loaded topic serves; afterwards it
  // runs every namespace_policies_refresh_interval and when the admin API changes them.
  // Fails only when deduplication should be on and could not recover (the policies
  // themselves fall back to the broker's defaults when unreadable).
  awaitable<result<void>> refresh_policies();
  const topic_policies& policies() const { return _policies; }
  deduplication& dedup() { return *_dedup; }
  const deduplication& dedup() const { return *_dedup; }

  // Seals the topic for good (upstream's terminate): the managed ledger takes no more
  // adds and records its last position, which this returns; then every producer gets
  // CLOSE_PRODUCER (their clients come back and are refused with TopicTerminatedError),
  // and the consumers of subscriptions with nothing left to acknowledge get
  // REACHED_END_OF_TOPIC (the others when they have acknowledged the rest). Publishes
  // that race it get SEND_ERROR TopicTerminatedError, after the receipts of the entries
  // it let in. Idempotent: a terminated topic answers its last position again.
  awaitable<result<mledger::position>> terminate();
  // terminate() began, or the managed ledger was found terminated at load. Any thread
  // (a connection answers a SEND of a producer the termination closed).
  bool is_terminated() const override { return _terminated.load(std::memory_order_acquire); }

  // Producers, with upstream's access modes and topic epoch. errc::producer_busy for a
  // name in use, a Shared producer while an exclusive one holds the topic, or the
  // max-producers limit; errc::producer_fenced for an exclusive producer that finds
  // others, or that comes back with an epoch older than the topic's (another exclusive
  // producer held it since); errc::topic_terminated once the topic is terminated.
  // ExclusiveWithFencing closes the producers there and fails those waiting. A
  // WaitForExclusive producer that finds others (or others waiting) is queued, not ready:
  // it becomes the topic's only producer, and is told so, once every producer before it
  // has gone. Each exclusive producer that takes the topic moves the epoch on (or keeps
  // the one it asked for) and stores it in the managed ledger before it is answered.
  awaitable<result<std::shared_ptr<producer>>> add_producer(std::shared_ptr<client_channel> conn,
                                                            const proto::CommandProducer& request, std::string name);
  // The epoch of the topic's latest exclusive producer; none before the first.
  std::optional<std::uint64_t> epoch() const { return _epoch; }
  // The managed-ledger property that keeps it (upstream's name).
  static constexpr std::string_view topic_epoch_property = "pulsar.topic.epoch";
  void remove_producer(const producer& p) override;
  // Closes every producer (CLOSE_PRODUCER: clients come back through a lookup), as the
  // backlog quota's producer policies do.
  void disconnect_producers();
  // Appends the entry; the producer gets the receipt or the error. With deduplication
  // on, a duplicate is answered without being stored; `partial_chunk` (a chunk other than
  // its message's last) is never taken for one.
  void publish(std::shared_ptr<producer> p, std::uint64_t sequence_id, std::uint64_t highest_sequence_id, int messages,
               wire::shared_bytes entry, bool partial_chunk = false) override;

  // Consumers and subscriptions.
  awaitable<result<std::shared_ptr<consumer>>> subscribe(std::shared_ptr<client_channel> conn,
                                                         proto::CommandSubscribe request);
  void remove_consumer(const consumer& c) override;
  // To the consumer's subscription (nothing once it left it).
  void flow(consumer& c, std::uint32_t permits) override;
  result<void> ack(consumer& c, const proto::CommandAck& ack) override;
  void redeliver(consumer& c, const std::vector<mledger::position>& which) override;
  // Resets the subscription's cursor; it then closes its consumers (CLOSE_CONSUMER), and
  // clients subscribe again from the new position.
  awaitable<result<void>> seek(consumer& c, const proto::CommandSeek& command) override;
  // Deletes the consumer's subscription; errc::precondition_failed when other consumers
  // are on it, unless `force` (they are closed).
  awaitable<result<void>> unsubscribe(const consumer& c, bool force) override;
  std::shared_ptr<subscription> find_subscription(const std::string& name) const;
  std::vector<std::string> subscription_names() const;
  awaitable<result<void>> create_subscription(std::string name, message_position start);
  awaitable<result<void>> delete_subscription(std::string name, bool force);

  // The first entry published at or after `publish_time_ms` (past the last entry when
  // none is), by binary search over the entries' publish times. Where a seek or a cursor
  // reset by time goes, as upstream's message finder (its newest entry published before
  // the time, then the next).
  awaitable<result<mledger::position>> find_by_publish_time(std::int64_t publish_time_ms);
  // The last message's id: its entry, and in a batch the last index (upstream's answer,
  // which hasMessageAvailable compares against); (-1, -1) while the topic has no entry,
  // so that a reader there is told no message is available.
  awaitable<result<proto::MessageIdData>> last_message_id() override;
  // The id of one of this topic's entries as the protocol carries it: a partition's index
  // goes with it, since clients of a partitioned topic route acks and seeks by it.
  proto::MessageIdData message_id(mledger::position at) const override;

  bool has_clients() const { return !_producers.empty() || !_waiting_exclusive.empty() || consumer_count() > 0; }
  std::size_t producer_count() const { return _producers.size(); }
  std::size_t consumer_count() const;
  std::size_t subscription_count() const { return _subscriptions.size(); }

  // Unload: closes producers and consumers (their clients are told and come back
  // through a lookup), then the managed ledger.
  awaitable<result<void>> close();
  // Deletes the topic and its data; errc::precondition_failed when it has clients and
  // `force` is off (with force they are closed first).
  awaitable<result<void>> remove(bool force);
  bool is_closing() const { return _closing; }

  topic_stats stats() const;
  topic_internal_stats internal_stats() const;

 private:
  // What deduplication checks a SEND under: the producer's name and the SEND's ids, or,
  // for a replicator's, the original producer's from the entry's metadata.
  struct dedup_ticket {
    std::string name;
    std::int64_t sequence_id = 0;
    std::int64_t highest = 0;
  };
  // Whether `p` is another cluster's replicator; records the entry as replication in.
  std::optional<dedup_ticket> replicated_ticket(const producer& p, const wire::shared_bytes& entry, int messages);
  // Answers a publish once the managed ledger stored its entry (or failed to).
  void appended(const std::shared_ptr<producer>& p, std::uint64_t sequence_id, std::uint64_t highest_sequence_id,
                const std::optional<dedup_ticket>& dedup, result<mledger::position> added);
  awaitable<void> tick_loop(std::shared_ptr<io::gate::pass> held);
  awaitable<void> policy_loop(std::shared_ptr<io::gate::pass> held);
  awaitable<result<std::shared_ptr<subscription>>> open_subscription(const proto::CommandSubscribe& request);
  awaitable<void> close_clients(bool notify);
  // A publish the terminated managed ledger refused is answered once the termination
  // completes, so the receipts of the entries it let in go out first.
  awaitable<void> wait_terminated();

  topic_registry& _registry;
  const wire::topic_name _name;
  const std::string _full_name;
  io::shard& _shard;
  std::unique_ptr<mledger::managed_ledger> _ledger;
  io::gate _gate;
  std::unique_ptr<io::timer> _tick_timer;
  std::unique_ptr<io::timer> _policy_timer;
  bool _closing = false;
  std::atomic<bool> _terminated{false};
  // Fired when a terminate() under way completes (successfully or not).
  std::shared_ptr<io::oneshot_signal> _terminate_done;
  topic_policies _policies;
  std::unique_ptr<deduplication> _dedup;
  // Geo-replication to the namespace's other clusters (null where the broker has none).
  std::unique_ptr<topic_replication> _replication;
  // Entries replicated here, by the cluster they came from.
  std::map<std::string, rate_meter> _replicated_in;

  std::vector<std::shared_ptr<producer>> _producers;
  std::vector<std::shared_ptr<producer>> _waiting_exclusive;  // WaitForExclusive, in arrival order
  // Hands the topic to the first waiting producer once it has no producer (not while the
  // topic closes or after it was terminated).
  void promote_waiting();
  // Upstream's access-mode rules for a producer that would take the topic now.
  result<void> check_access_mode(proto::ProducerAccessMode mode, std::optional<std::uint64_t> asked_epoch) const;
  // Fenced when the producer asks for an epoch older than the topic's.
  result<void> check_epoch(std::optional<std::uint64_t> asked_epoch) const;
  // Gives an exclusive producer its epoch and persists it.
  awaitable<result<void>> take_epoch(producer& p);
  std::optional<std::uint64_t> _epoch;
  void fail_waiting_producers(proto::ServerError code, const std::string& message);
  std::map<std::string, std::shared_ptr<subscription>> _subscriptions;
  rate_meter _in;
  storage_write_interval _write_stats;  // fed by tick_loop
};

}  // namespace magnetar::broker
