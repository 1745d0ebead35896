#include "broker/topic/single_active_dispatcher.h"

#include "broker/topic/consumer.h"
#include "broker/topic/dispatch_fields.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"

#include <algorithm>

namespace magnetar::broker {

result<void> single_active_dispatcher::consumer_added(consumer& c, const proto::CommandSubscribe& /*request*/) {
  choose_active(&c);
  dispatch();
  return success();
}

void single_active_dispatcher::consumer_removed(consumer& c) {
  if (&c == _active) _active = nullptr;
  if (!c.unacked().empty()) {
    take_back_unacked(c);
    _sub.cursor().rewind();
  }
  choose_active(nullptr);
  dispatch();
}

void single_active_dispatcher::take_back_unacked(consumer& c) {
  for (const auto& [pos, what] : c.take_unacked()) _sub.count_redelivery(pos);
}

void single_active_dispatcher::choose_active(consumer* newcomer) {
  consumer* previous = _active;
  const auto& consumers = _sub.consumers();
  if (consumers.empty()) {
    _active = nullptr;
    return;
  }
  std::vector<consumer*> order;
  for (const auto& c : consumers) order.push_back(c.get());
  std::stable_sort(order.begin(), order.end(), [](const consumer* a, const consumer* b) {
    if (a->priority_level() != b->priority_level()) return a->priority_level() < b->priority_level();
    return a->name() < b->name();
  });
  const int top = order.front()->priority_level();
  const auto top_count = static_cast<std::size_t>(
      std::count_if(order.begin(), order.end(), [&](const consumer* c) { return c->priority_level() == top; }));
  const int partition = _sub.owner().name().partition();
  const std::size_t index = partition < 0 ? 0 : static_cast<std::size_t>(partition) % top_count;
  _active = order[index];
  if (_type != proto::CommandSubscribe::Failover) return;
  if (_active != previous) {
    for (const auto& c : consumers) c->send_active_change(c.get() == _active);
    // What the previous active consumer had not acknowledged goes to the new one.
    if (previous != nullptr) {
      for (const auto& c : consumers) {
        if (c.get() != _active) take_back_unacked(*c);
      }
      _sub.cursor().rewind();
    }
  } else if (newcomer != nullptr) {
    // A newcomer that is not active still learns that it is not.
    newcomer->send_active_change(false);
  }
}

void single_active_dispatcher::redeliver(consumer& c, const std::vector<mledger::position>& /*which*/) {
  take_back_unacked(c);
  _sub.cursor().rewind();
  dispatch();
}

dispatcher::read_plan single_active_dispatcher::plan_read() {
  read_plan plan;
  if (_active == nullptr || _active->permits() <= 0) return plan;
  plan.new_entries = std::min<std::size_t>(_sub.owner().config().dispatcher_max_read_batch_size,
                                           static_cast<std::size_t>(_active->permits()));
  return plan;
}

void single_active_dispatcher::deliver(std::vector<mledger::entry> entries, bool /*replayed*/) {
  if (_active == nullptr) {
    // The consumer went while the read ran: read these again for the next one.
    _sub.cursor().rewind();
    return;
  }
  for (const auto& e : entries) {
    auto fields = dispatch_fields_of(e.data);
    _sub.send(*_active, e, pending_entry{fields ? fields.value().messages : 1, 0});
  }
}

}  // namespace magnetar::broker
