#include "magnetar/client.h"

#include "client/client_impl.h"
#include "client/consumer_impl.h"
#include "client/producer_impl.h"
#include "client/service_url.h"
#include "wire/topic_name.h"

#include <fmt/format.h>

#include <random>

namespace magnetar {

using client_detail::client_impl;
using client_detail::consumer_impl;
using client_detail::consumer_options;
using client_detail::producer_impl;

namespace {

// The full name, or invalid_topic_name; partitioned topics are refused for now.
awaitable<result<std::string>> resolve_topic(client_impl& impl, std::string topic) {
  auto name = wire::topic_name::parse(topic);
  if (!name) co_return fail(client_errc::invalid_topic_name, name.error().message());
  const auto full = name.value().full();
  if (name.value().partition() < 0) {
    MAGNETAR_CO_TRY(partitions, co_await impl.lookup().partitions(full));
    if (partitions > 0) {
      co_return fail(client_errc::not_supported,
                     fmt::format("{} has {} partitions; partitioned topics are not supported yet", full, partitions));
    }
  }
  co_return full;
}

std::string reader_subscription_name() {
  std::random_device device;
  std::mt19937_64 g(device());
  return fmt::format("reader-{:010x}", g() & 0xffffffffff);
}

}  // namespace

result<client> client::create(const std::string& service_url, client_config config) {
  MAGNETAR_TRY(addresses, client_detail::parse_service_url(service_url));
  if (config.operation_timeout.count() <= 0 || config.connection_timeout.count() <= 0 ||
      config.keep_alive_interval.count() <= 0) {
    return fail(client_errc::invalid_argument, "timeouts and the keep-alive interval must be positive");
  }
  return client(std::make_shared<client_impl>(std::move(config), std::move(addresses)));
}

client::client(client&&) noexcept = default;
client& client::operator=(client&&) noexcept = default;

client::~client() {
  if (_impl) (void)_impl->close();
}

namespace {
awaitable<result<std::shared_ptr<producer_impl>>> make_producer(std::shared_ptr<client_impl> impl, std::string topic,
                                                                producer_config config) {
  if (impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
  MAGNETAR_CO_TRY(full, co_await resolve_topic(*impl, topic));
  auto p = std::make_shared<producer_impl>(impl, full, std::move(config));
  MAGNETAR_CO_TRY(co_await p->start());
  impl->add(std::weak_ptr<producer_impl>(p));
  co_return p;
}
}  // namespace

result<producer> client::create_producer(const std::string& topic, producer_config config) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  return impl->block_on<producer>([impl, topic, config]() -> awaitable<result<producer>> {
    MAGNETAR_CO_TRY(p, co_await make_producer(impl, topic, config));
    co_return producer(std::move(p));
  });
}

void client::create_producer_async(const std::string& topic, producer_config config,
                                   std::function<void(result<producer>)> done) {
  auto impl = _impl;
  asio::co_spawn(
      impl->next_shard().executor(),
      [impl, topic, config, done = std::move(done)]() -> awaitable<void> {
        auto r = co_await make_producer(impl, topic, config);
        if (!r) {
          done(r.error());
        } else {
          done(producer(std::move(r).value()));
        }
      },
      asio::detached);
}

namespace {
awaitable<result<std::shared_ptr<consumer_impl>>> make_consumer(std::shared_ptr<client_impl> impl,
                                                                consumer_options options) {
  if (impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
  MAGNETAR_CO_TRY(full, co_await resolve_topic(*impl, options.topic));
  options.topic = full;
  auto c = std::make_shared<consumer_impl>(impl, std::move(options));
  MAGNETAR_CO_TRY(co_await c->start());
  impl->add(std::weak_ptr<consumer_impl>(c));
  co_return c;
}
}  // namespace

result<consumer> client::subscribe(const std::string& topic, const std::string& subscription, consumer_config config) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  consumer_options options{topic, subscription, std::move(config)};
  return impl->block_on<consumer>([impl, options]() -> awaitable<result<consumer>> {
    MAGNETAR_CO_TRY(c, co_await make_consumer(impl, options));
    co_return consumer(std::move(c));
  });
}

void client::subscribe_async(const std::string& topic, const std::string& subscription, consumer_config config,
                             std::function<void(result<consumer>)> done) {
  auto impl = _impl;
  consumer_options options{topic, subscription, std::move(config)};
  asio::co_spawn(
      impl->next_shard().executor(),
      [impl, options, done = std::move(done)]() -> awaitable<void> {
        auto r = co_await make_consumer(impl, options);
        if (!r) {
          done(r.error());
        } else {
          done(consumer(std::move(r).value()));
        }
      },
      asio::detached);
}

result<reader> client::create_reader(const std::string& topic, reader_config config) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  consumer_options options;
  options.topic = topic;
  options.subscription = reader_subscription_name();
  options.config.consumer_name = config.reader_name;
  options.config.receiver_queue_size = config.receiver_queue_size;
  options.config.type = subscription_type::exclusive;
  options.durable = false;
  options.start = config.start;
  options.start_inclusive = config.start_inclusive;
  return impl->block_on<reader>([impl, options]() -> awaitable<result<reader>> {
    MAGNETAR_CO_TRY(c, co_await make_consumer(impl, options));
    if (options.start == message_id::latest() && options.start_inclusive) {
      // "The last message, inclusive": find it, then move the reader onto it.
      MAGNETAR_CO_TRY(last, co_await c->get_last_message_id());
      if (last != message_id::earliest()) {
        const std::optional<message_id> to = last;
        const std::optional<std::uint64_t> no_time;
        MAGNETAR_CO_TRY(co_await c->seek(to, no_time));
      }
    }
    co_return reader(consumer(std::move(c)));
  });
}

result<std::vector<std::string>> client::get_partitions_for_topic(const std::string& topic) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  return impl->block_on<std::vector<std::string>>([impl, topic]() -> awaitable<result<std::vector<std::string>>> {
    auto name = wire::topic_name::parse(topic);
    if (!name) co_return fail(client_errc::invalid_topic_name, name.error().message());
    MAGNETAR_CO_TRY(partitions, co_await impl->lookup().partitions(name.value().full()));
    std::vector<std::string> out;
    if (partitions == 0) {
      out.push_back(name.value().full());
    } else {
      for (int i = 0; i < partitions; ++i) out.push_back(name.value().partition_of(i).full());
    }
    co_return out;
  });
}

result<void> client::close() {
  if (!_impl) return success();
  return _impl->close();
}

}  // namespace magnetar
