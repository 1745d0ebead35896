#include "auth/authorization.h"

#include "auth/errc.h"

#include <gtest/gtest.h>

namespace magnetar::auth {
namespace {

using nlohmann::json;

const std::string topic = "persistent://acme/orders/created";

auth_policies policies_of(const char* text) { return auth_policies_from(json::parse(text)).value(); }

TEST(authorization_test, a_super_user_may_do_everything) {
  const authorization authz({.super_user_roles = {"root"}});
  const auth_policies none;
  EXPECT_TRUE(authz.can("root", auth_action::produce, topic, none));
  EXPECT_TRUE(authz.can_consume("root", topic, "sub", none));
  EXPECT_TRUE(authz.is_tenant_admin("root", {}));
  EXPECT_FALSE(authz.can("alice", auth_action::produce, topic, none));
}

TEST(authorization_test, nobody_authenticated_may_do_nothing) {
  const authorization authz({.super_user_roles = {""}});
  const auto open = policies_of(R"({"auth_policies": {"namespace_auth": {"": ["produce", "consume"]}}})");
  EXPECT_FALSE(authz.can(std::nullopt, auth_action::produce, topic, open));
  EXPECT_FALSE(authz.can_lookup(std::nullopt, topic, open));
  EXPECT_FALSE(authz.is_tenant_admin(std::nullopt, {""}));
}

TEST(authorization_test, a_namespace_grant_covers_its_topics_for_that_action_only) {
  const authorization authz({});
  const auto policies = policies_of(R"({"auth_policies": {"namespace_auth": {"writer": ["produce"]}}})");
  EXPECT_TRUE(authz.can("writer", auth_action::produce, topic, policies));
  EXPECT_FALSE(authz.can("writer", auth_action::consume, topic, policies));
  EXPECT_FALSE(authz.can("reader", auth_action::produce, topic, policies));
}

TEST(authorization_test, a_topic_grant_covers_that_topic_only) {
  const authorization authz({});
  const auto policies = policies_of(
      R"({"auth_policies": {"destination_auth": {"persistent://acme/orders/created": {"reader": ["consume"]}}}})");
  EXPECT_TRUE(authz.can("reader", auth_action::consume, topic, policies));
  EXPECT_FALSE(authz.can("reader", auth_action::consume, "persistent://acme/orders/other", policies));
}

TEST(authorization_test, subscription_roles_narrow_consume) {
  const authorization authz({});
  const auto policies = policies_of(R"({"auth_policies": {
      "namespace_auth": {"a": ["consume"], "b": ["consume"]},
      "subscription_auth_roles": {"billing": ["a"], "open": []}}})");
  EXPECT_TRUE(authz.can_consume("a", topic, "billing", policies));
  EXPECT_FALSE(authz.can_consume("b", topic, "billing", policies));
  EXPECT_TRUE(authz.can_consume("b", topic, "open", policies));
  EXPECT_TRUE(authz.can_consume("b", topic, "other", policies));
}

TEST(authorization_test, lookup_needs_produce_or_consume) {
  const authorization authz({});
  const auto policies =
      policies_of(R"({"auth_policies": {"namespace_auth": {"w": ["produce"], "r": ["consume"], "f": ["functions"]}}})");
  EXPECT_TRUE(authz.can_lookup("w", topic, policies));
  EXPECT_TRUE(authz.can_lookup("r", topic, policies));
  EXPECT_FALSE(authz.can_lookup("f", topic, policies));
}

TEST(authorization_test, wildcards_match_prefix_and_suffix_only_when_allowed) {
  const auto policies =
      policies_of(R"({"auth_policies": {"namespace_auth": {"app-*": ["produce"], "*.ops": ["consume"]}}})");
  const authorization strict({});
  EXPECT_FALSE(strict.can("app-1", auth_action::produce, topic, policies));
  const authorization wild({.allow_wildcards = true});
  EXPECT_TRUE(wild.can("app-1", auth_action::produce, topic, policies));
  EXPECT_TRUE(wild.can("team.ops", auth_action::consume, topic, policies));
  EXPECT_FALSE(wild.can("team.ops", auth_action::produce, topic, policies));
  EXPECT_FALSE(wild.can("other", auth_action::produce, topic, policies));
}

TEST(authorization_test, tenant_admins_are_its_admin_roles) {
  const authorization authz({});
  EXPECT_TRUE(authz.is_tenant_admin("ops", {"ops", "sre"}));
  EXPECT_FALSE(authz.is_tenant_admin("dev", {"ops", "sre"}));
}

TEST(authorization_test, policies_without_auth_policies_grant_nothing) {
  const auto policies = auth_policies_from(json::parse(R"({"bundles": {}})"));
  ASSERT_TRUE(policies);
  EXPECT_TRUE(policies.value().namespace_auth.empty());
  EXPECT_TRUE(auth_policies_from(json()).value().namespace_auth.empty());
}

TEST(authorization_test, stored_actions_this_version_does_not_know_are_skipped) {
  const auto policies = policies_of(R"({"auth_policies": {"namespace_auth": {"a": ["produce", "teleport"]}}})");
  EXPECT_EQ(policies.namespace_auth.at("a"), action_set{auth_action::produce});
}

TEST(authorization_test, malformed_auth_policies_are_an_error) {
  EXPECT_EQ(auth_policies_from(json::parse(R"({"auth_policies": {"namespace_auth": {"a": "produce"}}})")).error(),
            errc::bad_policies);
  EXPECT_EQ(auth_policies_from(json::parse(R"({"auth_policies": []})")).error(), errc::bad_policies);
  EXPECT_EQ(auth_policies_from(json::parse(R"({"auth_policies": {"subscription_auth_roles": {"s": [1]}}})")).error(),
            errc::bad_policies);
}

TEST(authorization_test, a_permission_list_names_known_actions_only) {
  EXPECT_EQ(action_set_from(json::parse(R"(["consume", "produce"])")).value(),
            (action_set{auth_action::produce, auth_action::consume}));
  const auto unknown = action_set_from(json::parse(R"(["produce", "admin"])"));
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().detail().find("'admin'"), std::string::npos);
  EXPECT_FALSE(action_set_from(json::parse(R"("produce")")));
  EXPECT_EQ(to_json(action_set{auth_action::consume, auth_action::produce}), json::parse(R"(["produce", "consume"])"));
}

}  // namespace
}  // namespace magnetar::auth
