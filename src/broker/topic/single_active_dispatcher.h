// single_active_dispatcher: Exclusive and Failover subscriptions, where one consumer
// receives at a time.
//
// Exclusive has one consumer (the subscription refuses a second). Failover orders its
// consumers by priority level, then name, and makes the first active (for a partition,
// the one at partition index modulo the count of top-priority consumers, as upstream so
// that a partitioned topic's partitions spread over the consumers); each consumer is told
// whether it is active (ACTIVE_CONSUMER_CHANGE). On a change, and on a redelivery
// request, the cursor rewinds so the active consumer gets everything unacknowledged, in
// order: a single consumer can't be sent single messages again without reordering them
// (upstream redelivers all for these types too).
#pragma once

#include "broker/topic/dispatcher.h"

namespace magnetar::broker {

class single_active_dispatcher final : public dispatcher {
 public:
  single_active_dispatcher(subscription& sub, proto::CommandSubscribe::SubType type) : dispatcher(sub), _type(type) {}

  result<void> consumer_added(consumer& c, const proto::CommandSubscribe& request) override;
  void consumer_removed(consumer& c) override;
  void entry_acked(mledger::position, consumer*, std::uint16_t) override {}
  void redeliver(consumer& c, const std::vector<mledger::position>& which) override;
  void cursor_moved() override {}
  consumer* active_consumer() const override { return _active; }

 protected:
  read_plan plan_read() override;
  void deliver(std::vector<mledger::entry> entries, bool replayed) override;

 private:
  void choose_active(consumer* newcomer);
  void take_back_unacked(consumer& c);

  const proto::CommandSubscribe::SubType _type;
  consumer* _active = nullptr;
};

}  // namespace magnetar::broker
