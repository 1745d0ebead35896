// topic::terminate: sealing a topic for good (upstream's PersistentTopic.terminate), what
// a sealed segment of a scalable topic is and what `pulsar-admin topics terminate` asks.
#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/api/protocol_error.h"
#include "broker/topic/topic.h"

#include <fmt/format.h>

namespace magnetar::broker {

awaitable<result<mledger::position>> topic::terminate() {
  if (_closing) co_return fail(errc::service_not_ready, fmt::format("topic {} is closing", _full_name));
  auto pass = _gate.enter();
  if (!pass) co_return fail(errc::service_not_ready, fmt::format("topic {} is closing", _full_name));
  _terminated.store(true, std::memory_order_release);
  // Publishes the managed ledger refuses from now on wait for this before they answer.
  auto done = _terminate_done;
  if (!done) {
    done = std::make_shared<io::oneshot_signal>(_shard.executor());
    _terminate_done = done;
  }
  auto last = co_await _ledger->terminate();
  if (_terminate_done == done) _terminate_done.reset();
  done->fire();
  if (!last) {
    spdlog::warn("{}: terminate failed: {}", _full_name, last.error());
    co_return fail(last.error().code(),
                   fmt::format("topic {}: terminate failed: {}", _full_name, message_of(last.error())));
  }
  // Their clients come back and meet TopicTerminatedError.
  disconnect_producers();
  auto subs = _subscriptions;
  for (const auto& [name, s] : subs) s->tell_end_of_topic_if_drained();
  co_return last;
}

awaitable<void> topic::wait_terminated() {
  while (_terminate_done) {
    auto signal = _terminate_done;
    co_await signal->wait();
  }
}

}  // namespace magnetar::broker
