#include "broker/scalable/scalable_store.h"

#include "broker/api/errc.h"
#include "broker/scalable/layout_codec.h"
#include "meta/errc.h"

#include <fmt/format.h>

namespace magnetar::broker::scalable {

std::string topic_path(const wire::topic_name& topic) {
  return fmt::format("/topics/{}/{}/{}", topic.tenant(), topic.namespace_part(), topic.local_name());
}

namespace {

std::string subscription_path(const wire::topic_name& topic, const std::string& subscription) {
  return fmt::format("{}/subscriptions/{}", topic_path(topic), subscription);
}

error not_found(const wire::topic_name& topic) {
  return error(errc::topic_not_found, fmt::format("Scalable topic not found: {}", topic.full()));
}

bool is_bad_version(const error& e) { return e.code() == meta::errc::bad_version; }

}  // namespace

awaitable<result<void>> scalable_store::create(const wire::topic_name& topic, const segment_layout& layout) {
  auto put = co_await _store.put(topic_path(topic), to_json(layout).dump(), -1);
  if (!put && is_bad_version(put.error())) {
    co_return fail(errc::conflict, fmt::format("Scalable topic already exists: {}", topic.full()));
  }
  if (!put) co_return fail(std::move(put).error());
  co_return success();
}

awaitable<result<std::optional<segment_layout>>> scalable_store::read(const wire::topic_name& topic) {
  MAGNETAR_CO_TRY(value, co_await _store.get(topic_path(topic)));
  if (!value) co_return std::optional<segment_layout>{};
  MAGNETAR_CO_TRY(layout, layout_from_json(value->value));
  co_return std::optional<segment_layout>{std::move(layout)};
}

awaitable<result<segment_layout::change>> scalable_store::update(
    const wire::topic_name& topic, std::function<result<segment_layout::change>(const segment_layout&)> change) {
  const auto path = topic_path(topic);
  while (true) {
    MAGNETAR_CO_TRY(value, co_await _store.get(path));
    if (!value) co_return fail(not_found(topic));
    MAGNETAR_CO_TRY(current, layout_from_json(value->value));
    MAGNETAR_CO_TRY(next, change(current));
    auto put = co_await _store.put(path, to_json(next.layout).dump(), value->st.version);
    if (put) co_return next;
    if (!is_bad_version(put.error())) co_return fail(std::move(put).error());
  }
}

awaitable<result<void>> scalable_store::remove(const wire::topic_name& topic) {
  MAGNETAR_CO_TRY(found, co_await _store.exists(topic_path(topic)));
  if (!found) co_return fail(not_found(topic));
  co_return co_await _store.remove_recursive(topic_path(topic));
}

awaitable<result<std::vector<std::string>>> scalable_store::list(const std::string& namespace_name) {
  MAGNETAR_CO_TRY(names, co_await _store.children(fmt::format("/topics/{}", namespace_name)));
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(fmt::format("topic://{}/{}", namespace_name, n));
  co_return out;
}

awaitable<result<std::vector<std::string>>> scalable_store::subscriptions(const wire::topic_name& topic) {
  co_return co_await _store.children(topic_path(topic) + "/subscriptions");
}

awaitable<result<void>> scalable_store::add_subscription(const wire::topic_name& topic, const std::string& subscription,
                                                         const std::string& type) {
  auto put = co_await _store.put(subscription_path(topic, subscription), fmt::format(R"({{"type":"{}"}})", type), -1);
  if (!put && !is_bad_version(put.error())) co_return fail(std::move(put).error());
  co_return success();
}

awaitable<result<void>> scalable_store::add_consumer(const wire::topic_name& topic, const std::string& subscription,
                                                     const std::string& consumer) {
  auto put =
      co_await _store.put(fmt::format("{}/consumers/{}", subscription_path(topic, subscription), consumer), "{}", -1);
  if (!put && !is_bad_version(put.error())) co_return fail(std::move(put).error());
  co_return success();
}

awaitable<result<void>> scalable_store::remove_consumer(const wire::topic_name& topic, const std::string& subscription,
                                                        const std::string& consumer) {
  auto removed =
      co_await _store.remove(fmt::format("{}/consumers/{}", subscription_path(topic, subscription), consumer), {});
  if (!removed && removed.error().code() != meta::errc::not_found) co_return fail(std::move(removed).error());
  co_return success();
}

awaitable<result<bool>> scalable_store::claim_controller(const wire::topic_name& topic, meta::session_id session,
                                                         const std::string& broker) {
  const auto path = topic_path(topic) + "/controller";
  auto put = co_await _store.put(path, fmt::format("\"{}\"", broker), -1, meta::create_options{session, false});
  if (put) co_return true;
  if (!is_bad_version(put.error())) co_return fail(std::move(put).error());
  MAGNETAR_CO_TRY(holder, co_await _store.get(path));
  co_return holder && holder->st.owner == session;
}

}  // namespace magnetar::broker::scalable
