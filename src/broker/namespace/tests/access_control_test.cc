// access_control: decisions over tenants and policies as stored in the real (RocksDB)
// metadata store by namespace_resources.
#include "broker/namespace/access_control.h"

#include "broker/namespace/namespace_resources.h"
#include "broker/namespace/tests/store_fixture.h"

#include <gtest/gtest.h>

namespace magnetar::broker {
namespace {

using nlohmann::json;

class access_control_test : public testing::store_fixture {
 protected:
  void SetUp() override {
    store_fixture::SetUp();
    resources = std::make_unique<namespace_resources>(*store, "standalone");
    ASSERT_TRUE(run(resources->ensure_defaults("http://localhost:8080", "pulsar://localhost:6650")));
    ASSERT_TRUE(run(resources->create_tenant("acme", {.admin_roles = {"ops"}, .allowed_clusters = {"standalone"}})));
    ASSERT_TRUE(run(resources->create_namespace("acme/orders", json())));
    access = std::make_unique<access_control>(auth::authorization_settings{.super_user_roles = {"root"}}, *resources);
  }
  void grant(const std::string& role, json actions) {
    ASSERT_TRUE(run(resources->update_policies("acme/orders", [&](json& p) -> result<void> {
      p["auth_policies"]["namespace_auth"][role] = actions;
      return success();
    })));
  }
  bool allows(const char* role, topic_operation op, const char* topic, std::string subscription = {}) {
    return run(access->allows(std::string(role), op, wire::topic_name::parse(topic).value(), subscription)).value();
  }

  std::unique_ptr<namespace_resources> resources;
  std::unique_ptr<access_control> access;
};

TEST_F(access_control_test, a_grant_stored_in_the_namespace_policies_applies) {
  const char* topic = "persistent://acme/orders/created";
  EXPECT_FALSE(allows("app", topic_operation::produce, topic));
  grant("app", {"produce"});
  EXPECT_TRUE(allows("app", topic_operation::produce, topic));
  EXPECT_TRUE(allows("app", topic_operation::lookup, topic));
  EXPECT_FALSE(allows("app", topic_operation::consume, topic, "s"));
}

TEST_F(access_control_test, tenant_admins_and_super_users_may_use_every_topic_of_the_tenant) {
  EXPECT_TRUE(allows("ops", topic_operation::consume, "persistent://acme/orders/x", "s"));
  EXPECT_TRUE(allows("root", topic_operation::produce, "persistent://public/default/x"));
  EXPECT_FALSE(allows("ops", topic_operation::produce, "persistent://public/default/x"));
  EXPECT_TRUE(run(access->is_tenant_admin(std::string("ops"), "acme")).value());
  EXPECT_FALSE(run(access->is_tenant_admin(std::string("ops"), "public")).value());
}

TEST_F(access_control_test, a_partition_has_its_partitioned_topics_grants) {
  ASSERT_TRUE(run(resources->update_policies("acme/orders", [&](json& p) -> result<void> {
    p["auth_policies"]["destination_auth"]["persistent://acme/orders/sharded"]["app"] = {"consume"};
    return success();
  })));
  EXPECT_TRUE(allows("app", topic_operation::consume, "persistent://acme/orders/sharded-partition-3", "s"));
  EXPECT_FALSE(allows("app", topic_operation::consume, "persistent://acme/orders/other", "s"));
}

TEST_F(access_control_test, a_missing_namespace_or_tenant_grants_nothing) {
  EXPECT_FALSE(allows("app", topic_operation::lookup, "persistent://acme/nowhere/x"));
  EXPECT_FALSE(allows("app", topic_operation::lookup, "persistent://ghost/ns/x"));
  EXPECT_FALSE(run(access->is_tenant_admin(std::string("ops"), "ghost")).value());
}

TEST_F(access_control_test, listing_topics_needs_a_namespace_grant) {
  EXPECT_FALSE(run(access->may_list_topics(std::string("app"), "acme/orders")).value());
  grant("app", {"consume"});
  EXPECT_TRUE(run(access->may_list_topics(std::string("app"), "acme/orders")).value());
  EXPECT_FALSE(run(access->may_list_topics(std::nullopt, "acme/orders")).value());
}

}  // namespace
}  // namespace magnetar::broker
