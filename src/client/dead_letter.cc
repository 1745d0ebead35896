#include "client/dead_letter.h"

#include "client/message_data.h"
#include "client/producer_impl.h"
#include "magnetar/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <charconv>

namespace magnetar::client_detail {

std::string default_dead_letter_topic(const std::string& topic, const std::string& subscription) {
  return fmt::format("{}-{}-DLQ", topic, subscription);
}

std::string default_retry_letter_topic(const std::string& topic, const std::string& subscription) {
  return fmt::format("{}-{}-RETRY", topic, subscription);
}

namespace {

// A copy of what the application gave the original message; ids and broker fields are
// the new topic's to set.
std::shared_ptr<message_data> copy_of(const message& m) {
  const auto& from = message_data::of(m);
  auto d = std::make_shared<message_data>();
  d->payload = from.payload;  // shared bytes: no copy
  d->key = from.key;
  d->ordering_key = from.ordering_key;
  d->properties = from.properties;
  d->event_time = from.event_time;
  d->properties.try_emplace(property_real_topic, m.topic());
  d->properties.try_emplace(property_origin_message_id, m.id().to_string());
  return d;
}

}  // namespace

message dead_letter_message(const message& m) { return message_data::make(copy_of(m)); }

int reconsume_times_of(const message& m) {
  auto it = m.properties().find(property_reconsume_times);
  if (it == m.properties().end()) return 0;
  int n = 0;
  const auto& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  return ec == std::errc() && end == s.data() + s.size() && n >= 0 ? n : 0;
}

message retry_message(const message& m, std::chrono::milliseconds delay) {
  auto d = copy_of(m);
  d->properties[property_reconsume_times] = std::to_string(reconsume_times_of(m) + 1);
  d->properties[property_delay_time] = std::to_string(delay.count());
  const auto now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch());
  d->deliver_at_time = static_cast<std::uint64_t>((now + delay).count());
  return message_data::make(std::move(d));
}

letter_producer::letter_producer(std::shared_ptr<client_impl> client, std::string topic,
                                 std::string initial_subscription_name)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _initial_subscription_name(std::move(initial_subscription_name)) {}

letter_producer::~letter_producer() = default;

void letter_producer::send(message m, send_callback done) {
  std::shared_ptr<producer_impl> p;
  bool closed = false;
  {
    std::lock_guard lock(_mutex);
    closed = _closed;
    if (!closed && !_producer) {
      _waiting.emplace_back(std::move(m), std::move(done));
      if (!_creating) {
        _creating = true;
        asio::co_spawn(
            _client->next_shard().executor(), [self = shared_from_this()] { return self->create(); }, asio::detached);
      }
      return;
    }
    p = _producer;
  }
  if (closed) {
    if (done) done(fail(client_errc::already_closed, fmt::format("the producer for {} is closed", _topic)));
    return;
  }
  p->send_async(std::move(m), std::move(done));
}

awaitable<void> letter_producer::create() {
  result<std::shared_ptr<producer_impl>> made = fail(client_errc::already_closed, "the client is closed");
  auto name = wire::topic_name::parse(_topic);
  if (!name) {
    made = fail(client_errc::invalid_topic_name, name.error().message());
  } else if (!_client->is_closed()) {
    producer_config config;
    // One entry per message, so each dead letter keeps its own id and properties.
    config.batching_enabled = false;
    auto p = std::make_shared<producer_impl>(_client, name.value().full(), config);
    p->set_initial_subscription_name(_initial_subscription_name);
    auto started = co_await p->start();
    if (started) {
      _client->add(std::weak_ptr<producer_impl>(p));
      made = std::move(p);
    } else {
      made = started.error();
    }
  }
  std::vector<std::pair<message, send_callback>> waiting;
  std::shared_ptr<producer_impl> p;
  {
    std::lock_guard lock(_mutex);
    _creating = false;
    waiting.swap(_waiting);
    if (made && !_closed) {
      _producer = made.value();
      p = _producer;
    }
  }
  if (!made) {
    spdlog::warn("client: no producer for {}: {}", _topic, made.error().message());
    for (auto& [m, done] : waiting) {
      if (done) done(made.error());
    }
    co_return;
  }
  if (!p) {  // closed meanwhile
    made.value()->shutdown();
    for (auto& [m, done] : waiting) {
      if (done) done(fail(client_errc::already_closed, fmt::format("the producer for {} is closed", _topic)));
    }
    co_return;
  }
  for (auto& [m, done] : waiting) p->send_async(std::move(m), std::move(done));
}

awaitable<void> letter_producer::close() {
  std::shared_ptr<producer_impl> p;
  {
    std::lock_guard lock(_mutex);
    _closed = true;
    p = std::move(_producer);
  }
  if (p) (void)co_await p->close();
}

void letter_producer::shutdown() {
  std::shared_ptr<producer_impl> p;
  {
    std::lock_guard lock(_mutex);
    _closed = true;
    p = std::move(_producer);
  }
  if (p) p->shutdown();
}

}  // namespace magnetar::client_detail
