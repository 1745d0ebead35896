#include "broker/namespace/access_control.h"

#include "broker/api/errc.h"
#include "broker/namespace/namespace_resources.h"

namespace magnetar::broker {

access_control::access_control(auth::authorization_settings settings, namespace_resources& resources)
    : _rules(std::move(settings)), _resources(resources) {}

awaitable<result<bool>> access_control::is_tenant_admin(std::optional<std::string> role, std::string tenant) const {
  if (!role) co_return false;
  if (_rules.is_super_user(role)) co_return true;
  auto info = co_await _resources.get_tenant(tenant);
  if (!info && info.error() == errc::tenant_not_found) co_return false;
  if (!info) co_return fail(std::move(info).error());
  co_return _rules.is_tenant_admin(role, info.value().admin_roles);
}

awaitable<result<auth::auth_policies>> access_control::policies_of(std::string namespace_name) const {
  auto policies = co_await _resources.get_policies(namespace_name);
  if (!policies && policies.error() == errc::namespace_not_found) co_return auth::auth_policies{};
  if (!policies) co_return fail(std::move(policies).error());
  co_return auth::auth_policies_from(policies.value());
}

awaitable<result<bool>> access_control::allows(std::optional<std::string> role, topic_operation operation,
                                               wire::topic_name topic, std::string subscription) const {
  if (!role) co_return false;
  MAGNETAR_CO_TRY(admin, co_await is_tenant_admin(role, topic.tenant()));
  if (admin) co_return true;
  MAGNETAR_CO_TRY(policies, co_await policies_of(topic.namespace_name()));
  // A partition is granted what its partitioned topic is (grants name the topic users see).
  const auto name = topic.partition() >= 0 ? topic.partitioned_parent().full() : topic.full();
  switch (operation) {
    case topic_operation::lookup: co_return _rules.can_lookup(role, name, policies);
    case topic_operation::produce: co_return _rules.can(role, auth::auth_action::produce, name, policies);
    case topic_operation::consume: co_return _rules.can_consume(role, name, subscription, policies);
  }
  co_return false;
}

awaitable<result<bool>> access_control::may_list_topics(std::optional<std::string> role,
                                                        std::string namespace_name) const {
  if (!role) co_return false;
  const auto tenant = namespace_name.substr(0, namespace_name.find('/'));
  MAGNETAR_CO_TRY(admin, co_await is_tenant_admin(role, tenant));
  if (admin) co_return true;
  MAGNETAR_CO_TRY(policies, co_await policies_of(namespace_name));
  co_return _rules.has_namespace_action(role, auth::auth_action::produce, policies) ||
      _rules.has_namespace_action(role, auth::auth_action::consume, policies);
}

}  // namespace magnetar::broker
