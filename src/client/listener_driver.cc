#include "client/listener_driver.h"

#include <spdlog/spdlog.h>

#include <exception>
#include <limits>

namespace magnetar::client_detail {
namespace {
// A turn: up to this many batches of what is queued, then the next consumer's turn.
constexpr int batches_per_turn = 4;
constexpr std::size_t batch_messages = 100;
}  // namespace

listener_driver::listener_driver(const std::shared_ptr<consumer_base>& c, listener fn, io::shard& thread)
    : _consumer(c), _listener(std::move(fn)), _thread(thread) {}

void listener_driver::start(const std::shared_ptr<consumer_base>& c, listener fn, io::shard& thread) {
  std::shared_ptr<listener_driver> driver(new listener_driver(c, std::move(fn), thread));
  asio::post(thread.executor(), [driver] { driver->take_turn(); });
}

void listener_driver::take_turn() {
  auto c = _consumer.lock();
  if (!c) return;  // every handle is gone: the consumer closed with the last
  const batch_receive_policy queued_now{.max_messages = batch_messages,
                                        .max_bytes = std::numeric_limits<std::size_t>::max(),
                                        .timeout = std::chrono::milliseconds(0)};
  auto handle = consumer_access::make(c, true);
  for (int i = 0; i < batches_per_turn; ++i) {
    auto batch = c->batch_receive(queued_now);
    if (!batch) return;  // closed, or every message of a terminated topic taken
    if (batch.value().empty()) {
      wait_for_next(*c);
      return;
    }
    for (const auto& m : batch.value()) {
      if (!deliver(*c, handle, m)) return;
    }
  }
  asio::post(_thread.executor(), [self = shared_from_this()] { self->take_turn(); });
}

void listener_driver::wait_for_next(consumer_base& c) {
  // Called back on an io thread when a message comes (or at once, here, when one came
  // meanwhile); the listener runs on the listener thread all the same.
  c.receive_async([self = shared_from_this()](result<message> m) {
    if (!m) return;  // closed
    asio::post(self->_thread.executor(), [self, m = std::move(m).value()] {
      auto c = self->_consumer.lock();
      if (!c) return;
      auto handle = consumer_access::make(c, true);
      if (self->deliver(*c, handle, m)) self->take_turn();
    });
  });
}

bool listener_driver::deliver(const consumer_base& c, consumer& handle, const message& m) {
  if (c.is_closed()) return false;
  try {
    _listener(handle, m);
  } catch (const std::exception& e) {
    spdlog::error("client: the message listener of consumer {} on {} threw: {}", c.consumer_name(), c.topic(),
                  e.what());
  } catch (...) {
    spdlog::error("client: the message listener of consumer {} on {} threw", c.consumer_name(), c.topic());
  }
  return true;
}

}  // namespace magnetar::client_detail
