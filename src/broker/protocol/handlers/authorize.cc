#include "broker/protocol/handlers/authorize.h"

#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/protocol/broker_context.h"

namespace magnetar::broker::handlers {

namespace {

std::optional<std::string> role_of(const connection& conn) {
  if (!conn.principal()) return std::nullopt;
  return conn.principal()->role;
}

result<void> denial(const connection& conn, const std::optional<std::string>& role, std::string denied,
                    std::string_view what) {
  spdlog::warn("connection {}: {} (role '{}', {})", conn.id(), denied, role.value_or("<none>"), what);
  return fail(errc::not_authorized, std::move(denied));
}

}  // namespace

awaitable<result<void>> authorize(connection& conn, topic_operation operation, const wire::topic_name& topic,
                                  std::string denied, std::string subscription) {
  const auto* access = conn.broker().access();
  if (access == nullptr) co_return success();
  const auto role = role_of(conn);
  MAGNETAR_CO_TRY(allowed, co_await access->allows(role, operation, topic, std::move(subscription)));
  if (allowed) co_return success();
  co_return denial(conn, role, std::move(denied), topic.full());
}

awaitable<result<void>> authorize_listing(connection& conn, std::string namespace_name, std::string denied) {
  const auto* access = conn.broker().access();
  if (access == nullptr) co_return success();
  const auto role = role_of(conn);
  MAGNETAR_CO_TRY(allowed, co_await access->may_list_topics(role, namespace_name));
  if (allowed) co_return success();
  co_return denial(conn, role, std::move(denied), namespace_name);
}

}  // namespace magnetar::broker::handlers
