#include "magnetar/st/client.h"

#include "client/client_impl.h"
#include "client/service_url.h"
#include "client/st/st_producer.h"
#include "client/st/st_queue_consumer.h"
#include "client/st/st_stream_consumer.h"
#include "magnetar/errc.h"

#include <mutex>
#include <vector>

namespace magnetar::st {

namespace detail {

// The classic client's shared machinery, plus what this st client made (for close()).
class st_client_state {
 public:
  explicit st_client_state(std::shared_ptr<client_detail::client_impl> impl) : impl(std::move(impl)) {}

  template <class T>
  void add(const std::shared_ptr<T>& made) {
    std::lock_guard lock(mutex);
    std::erase_if(closers, [](const auto& c) { return c.first.expired(); });
    closers.emplace_back(made, [weak = std::weak_ptr<T>(made)] {
      if (auto m = weak.lock()) m->shutdown();
    });
  }

  result<void> close() {
    std::vector<std::function<void()>> todo;
    {
      std::lock_guard lock(mutex);
      for (auto& [weak, shut] : closers) todo.push_back(std::move(shut));
      closers.clear();
    }
    for (auto& f : todo) f();
    return impl->close();
  }

  const std::shared_ptr<client_detail::client_impl> impl;
  std::mutex mutex;
  std::vector<std::pair<std::weak_ptr<void>, std::function<void()>>> closers;
};

}  // namespace detail

result<client> client::create(const std::string& service_url, client_config config) {
  MAGNETAR_TRY(addresses, client_detail::parse_service_url(service_url));
  if (config.operation_timeout.count() <= 0 || config.connection_timeout.count() <= 0 ||
      config.keep_alive_interval.count() <= 0) {
    return fail(client_errc::invalid_argument, "timeouts and the keep-alive interval must be positive");
  }
  auto impl = std::make_shared<client_detail::client_impl>(std::move(config), std::move(addresses));
  return client(std::make_shared<detail::st_client_state>(std::move(impl)));
}

client::client(client&&) noexcept = default;
client& client::operator=(client&&) noexcept = default;

client::~client() {
  if (_state) (void)_state->close();
}

result<producer> client::create_producer(const std::string& topic, producer_config config) {
  auto state = _state;
  if (!state) return fail(client_errc::already_closed, "moved-from client");
  return state->impl->block_on<producer>([state, topic, config]() -> awaitable<result<producer>> {
    if (state->impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
    auto p = std::make_shared<detail::st_producer>(state->impl, topic, config);
    MAGNETAR_CO_TRY(co_await p->start());
    state->add(p);
    co_return producer(std::move(p));
  });
}

result<queue_consumer> client::subscribe_queue(const std::string& topic, const std::string& subscription,
                                               queue_consumer_config config) {
  auto state = _state;
  if (!state) return fail(client_errc::already_closed, "moved-from client");
  return state->impl->block_on<queue_consumer>(
      [state, topic, subscription, config]() -> awaitable<result<queue_consumer>> {
        if (state->impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
        auto c = std::make_shared<detail::st_queue_consumer>(state->impl, topic, subscription, config);
        MAGNETAR_CO_TRY(co_await c->start());
        state->add(c);
        co_return queue_consumer(std::move(c));
      });
}

result<stream_consumer> client::subscribe_stream(const std::string& topic, const std::string& subscription,
                                                 stream_consumer_config config) {
  auto state = _state;
  if (!state) return fail(client_errc::already_closed, "moved-from client");
  return state->impl->block_on<stream_consumer>(
      [state, topic, subscription, config]() -> awaitable<result<stream_consumer>> {
        if (state->impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
        auto c = std::make_shared<detail::st_stream_consumer>(state->impl, topic, subscription, config);
        MAGNETAR_CO_TRY(co_await c->start());
        state->add(c);
        co_return stream_consumer(std::move(c));
      });
}

result<void> client::close() {
  if (!_state) return success();
  return _state->close();
}

}  // namespace magnetar::st
