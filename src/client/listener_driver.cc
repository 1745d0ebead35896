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

listener_driver::listener_driver(std::shared_ptr<consumer_base> c, consumer handle, listener fn,
                                 std::shared_ptr<io::shard_set> threads, io::shard& thread)
    : _consumer(std::move(c)), _handle(std::move(handle)), _listener(std::move(fn)), _threads(std::move(threads)),
      _thread(thread) {}

void listener_driver::start(std::shared_ptr<consumer_base> c, consumer handle, listener fn,
                            std::shared_ptr<io::shard_set> threads, io::shard& thread) {
  std::shared_ptr<listener_driver> driver(
      new listener_driver(std::move(c), std::move(handle), std::move(fn), std::move(threads), thread));
  asio::post(thread.executor(), [driver] { driver->take_turn(); });
}

void listener_driver::take_turn() {
  const batch_receive_policy queued_now{.max_messages = batch_messages,
                                        .max_bytes = std::numeric_limits<std::size_t>::max(),
                                        .timeout = std::chrono::milliseconds(0)};
  for (int i = 0; i < batches_per_turn; ++i) {
    auto batch = _consumer->batch_receive(queued_now);
    if (!batch) return;  // closed, or every message of a terminated topic taken
    if (batch.value().empty()) {
      wait_for_next();
      return;
    }
    for (const auto& m : batch.value()) deliver(m);
  }
  asio::post(_thread.executor(), [self = shared_from_this()] { self->take_turn(); });
}

void listener_driver::wait_for_next() {
  // Called back on an io thread when a message comes (or at once, here, when one came
  // meanwhile); the listener runs on the listener thread all the same.
  _consumer->receive_async([self = shared_from_this()](result<message> m) {
    if (!m) return;  // closed
    asio::post(self->_thread.executor(), [self, m = std::move(m).value()] {
      self->deliver(m);
      self->take_turn();
    });
  });
}

void listener_driver::deliver(const message& m) {
  try {
    _listener(_handle, m);
  } catch (const std::exception& e) {
    spdlog::error("client: the message listener of consumer {} on {} threw: {}", _consumer->consumer_name(),
                  _consumer->topic(), e.what());
  } catch (...) {
    spdlog::error("client: the message listener of consumer {} on {} threw", _consumer->consumer_name(),
                  _consumer->topic());
  }
}

}  // namespace magnetar::client_detail
