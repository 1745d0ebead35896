#include "magnetar/client.h"

#include "client/client_impl.h"
#include "client/consumer_impl.h"
#include "client/dead_letter.h"
#include "client/first_attempt.h"
#include "client/listener_driver.h"
#include "client/multi_topic_consumer.h"
#include "client/partition_router.h"
#include "client/partitioned_producer.h"
#include "client/producer_impl.h"
#include "client/service_url.h"
#include "client/topic_pattern.h"
#include "wire/topic_name.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <random>

namespace magnetar {

using client_detail::client_impl;
using client_detail::consumer_base;
using client_detail::consumer_impl;
using client_detail::consumer_options;
using client_detail::multi_topic_consumer;
using client_detail::multi_topic_options;
using client_detail::partitioned_producer;
using client_detail::producer_base;
using client_detail::producer_impl;
using client_detail::topic_pattern;

namespace {

struct resolved_topic {
  std::string full;
  int partitions = 0;  // 0: not partitioned
};

// The full name and partition count, or invalid_topic_name.
awaitable<result<resolved_topic>> resolve_topic(client_impl& impl, std::string topic) {
  auto name = wire::topic_name::parse(topic);
  if (!name) co_return fail(client_errc::invalid_topic_name, name.error().message());
  resolved_topic out{name.value().full()};
  // A partition is a topic of its own, without partitions.
  if (name.value().partition() < 0) {
    MAGNETAR_CO_TRY(partitions, co_await impl.lookup().partitions(out.full));
    out.partitions = partitions;
  }
  co_return out;
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
awaitable<result<std::shared_ptr<producer_base>>> make_producer(std::shared_ptr<client_impl> impl, std::string topic,
                                                                producer_config config) {
  if (impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
  MAGNETAR_CO_TRY(resolved, co_await client_detail::retry_first_attempt(impl->config(),
                                                                        [&] { return resolve_topic(*impl, topic); }));
  std::shared_ptr<producer_base> made;
  if (resolved.partitions > 0) {
    const auto partitions = static_cast<unsigned>(resolved.partitions);
    MAGNETAR_CO_TRY(router, client_detail::make_partition_router(config, partitions, base::system_clock()));
    auto p =
        std::make_shared<partitioned_producer>(impl, resolved.full, partitions, std::move(config), std::move(router));
    MAGNETAR_CO_TRY(co_await p->start());
    made = std::move(p);
  } else {
    auto p = std::make_shared<producer_impl>(impl, resolved.full, std::move(config));
    MAGNETAR_CO_TRY(co_await p->start());
    made = std::move(p);
  }
  impl->add(std::weak_ptr<producer_base>(made));
  co_return made;
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
multi_topic_options multi_options(const consumer_options& options) {
  multi_topic_options out;
  out.subscription = options.subscription;
  out.config = options.config;
  out.durable = options.durable;
  out.start = options.start;
  out.start_inclusive = options.start_inclusive;
  return out;
}

awaitable<result<std::shared_ptr<consumer_base>>> start_multi(std::shared_ptr<client_impl> impl, std::string name,
                                                              std::vector<std::string> topics,
                                                              const consumer_options& options,
                                                              std::optional<topic_pattern> pattern) {
  auto c = std::make_shared<multi_topic_consumer>(impl, std::move(name), multi_options(options), std::move(pattern));
  MAGNETAR_CO_TRY(co_await c->start(std::move(topics)));
  std::shared_ptr<consumer_base> made = std::move(c);
  impl->add(std::weak_ptr<consumer_base>(made));
  co_return made;
}

// retry_enable: the consumer reads its retry letter topic too (as upstream's Java
// client), so that what reconsume_later publishes comes back to it once the broker
// delivers it. The letter topics are named after the topic subscribed, and every child
// (the retry topic's included) uses those names: otherwise a message reconsumed again
// from the retry topic would go to "<topic>-<sub>-RETRY-<sub>-RETRY".
awaitable<result<std::shared_ptr<consumer_base>>> start_with_retry_topic(std::shared_ptr<client_impl> impl,
                                                                         std::string topic, consumer_options options) {
  auto& policy = options.config.dead_letter_policy;
  if (policy.retry_letter_topic.empty()) {
    policy.retry_letter_topic = client_detail::default_retry_letter_topic(topic, options.subscription);
  }
  if (policy.dead_letter_topic.empty()) {
    policy.dead_letter_topic = client_detail::default_dead_letter_topic(topic, options.subscription);
  }
  auto retry = wire::topic_name::parse(policy.retry_letter_topic);
  if (!retry) co_return fail(client_errc::invalid_topic_name, retry.error().message());
  std::vector<std::string> topics{topic, retry.value().full()};
  const std::optional<topic_pattern> no_pattern;
  co_return co_await start_multi(impl, std::move(topic), std::move(topics), options, no_pattern);
}

awaitable<result<std::shared_ptr<consumer_base>>> make_consumer(std::shared_ptr<client_impl> impl,
                                                                consumer_options options) {
  if (impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
  MAGNETAR_CO_TRY(resolved, co_await client_detail::retry_first_attempt(
                                impl->config(), [&] { return resolve_topic(*impl, options.topic); }));
  if (options.config.retry_enable && options.durable) {
    co_return co_await start_with_retry_topic(impl, resolved.full, std::move(options));
  }
  if (resolved.partitions > 0) {
    // Every partition, through one queue (readers too, as upstream's C++ client).
    std::vector<std::string> topics{resolved.full};
    const std::optional<topic_pattern> no_pattern;
    co_return co_await start_multi(impl, resolved.full, std::move(topics), options, no_pattern);
  }
  options.topic = resolved.full;
  auto c = std::make_shared<consumer_impl>(impl, std::move(options));
  MAGNETAR_CO_TRY(co_await c->start());
  impl->add(std::weak_ptr<consumer_base>(c));
  co_return c;
}

// The application's handle to a new consumer, whose messages go to its listener from
// now on when it has one.
consumer handle_of(client_impl& impl, std::shared_ptr<consumer_base> c, const consumer_config& config) {
  if (!config.message_listener) return client_detail::consumer_access::make(std::move(c), false);
  client_detail::listener_driver::start(c, config.message_listener, impl.next_listener_thread());
  return client_detail::consumer_access::make(std::move(c), true);
}

// Full names, or invalid_topic_name / invalid_argument (an empty list).
result<std::vector<std::string>> full_names(const std::vector<std::string>& topics) {
  if (topics.empty()) return fail(client_errc::invalid_argument, "no topics to subscribe to");
  std::vector<std::string> out;
  for (const auto& t : topics) {
    auto name = wire::topic_name::parse(t);
    if (!name) return fail(client_errc::invalid_topic_name, name.error().message());
    out.push_back(name.value().full());
  }
  return out;
}
}  // namespace

result<consumer> client::subscribe(const std::string& topic, const std::string& subscription, consumer_config config) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  consumer_options options{topic, subscription, std::move(config)};
  return impl->block_on<consumer>([impl, options]() -> awaitable<result<consumer>> {
    MAGNETAR_CO_TRY(c, co_await make_consumer(impl, options));
    co_return handle_of(*impl, std::move(c), options.config);
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
          done(handle_of(*impl, std::move(r).value(), options.config));
        }
      },
      asio::detached);
}

result<consumer> client::subscribe(const std::vector<std::string>& topics, const std::string& subscription,
                                   consumer_config config) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  MAGNETAR_TRY(names, full_names(topics));
  consumer_options options{{}, subscription, std::move(config)};
  return impl->block_on<consumer>([impl, names, options]() -> awaitable<result<consumer>> {
    if (impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
    std::string name = names.size() == 1 ? names.front() : fmt::format("{}", fmt::join(names, ","));
    const std::optional<topic_pattern> no_pattern;
    MAGNETAR_CO_TRY(c, co_await start_multi(impl, std::move(name), names, options, no_pattern));
    co_return handle_of(*impl, std::move(c), options.config);
  });
}

result<consumer> client::subscribe_with_regex(const std::string& pattern, const std::string& subscription,
                                              consumer_config config) {
  auto impl = _impl;
  if (!impl) return fail(client_errc::already_closed, "moved-from client");
  MAGNETAR_TRY(parsed, client_detail::topic_pattern::parse(pattern));
  consumer_options options{{}, subscription, std::move(config)};
  return impl->block_on<consumer>([impl, parsed, options]() -> awaitable<result<consumer>> {
    if (impl->is_closed()) co_return fail(client_errc::already_closed, "the client is closed");
    MAGNETAR_CO_TRY(listed, co_await impl->lookup().topics_of_namespace(parsed.namespace_name()));
    std::vector<std::string> matching;
    for (const auto& t : listed) {
      if (parsed.matches(t)) matching.push_back(t);
    }
    const std::optional<topic_pattern> pattern = parsed;
    MAGNETAR_CO_TRY(c, co_await start_multi(impl, parsed.text(), std::move(matching), options, pattern));
    co_return handle_of(*impl, std::move(c), options.config);
  });
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
    auto* single = dynamic_cast<consumer_impl*>(c.get());
    if (single && options.start == message_id::latest() && options.start_inclusive) {
      // "The last message, inclusive": find it, then move the reader onto it. (A reader
      // over partitions does this on each partition as it starts.)
      MAGNETAR_CO_TRY(last, co_await single->get_last_message_id());
      if (last != message_id::earliest()) {
        const std::optional<message_id> to = last;
        const std::optional<std::uint64_t> no_time;
        MAGNETAR_CO_TRY(co_await single->seek(to, no_time));
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
