// Raw-frame and admin tests of authorization (authorizationEnabled with token
// authentication): what a role may do on the binary protocol and in the admin API,
// upstream's refusals, and that a refusal leaves nothing behind.
#include "auth/jwt_token.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"
#include "broker/tests/broker_fixture.h"

#include <nlohmann/json.hpp>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;

class authorization_test : public broker_test {
 protected:
  void SetUp() override {
    config.authentication_enabled = true;
    config.authentication.providers = {"token"};
    config.authentication.token_secret_key = "data:;base64," + auth::base64_encoded(secret);
    config.authorization_enabled = true;
    config.super_user_roles = {"root"};
    start();
  }

  std::string token(std::string_view role) const {
    return auth::create_token("HS256", secret, role, std::nullopt).value();
  }

  std::unique_ptr<raw_client> client_as(std::string_view role) {
    auto c = std::make_unique<raw_client>(server->broker_port());
    proto::BaseCommand command;
    command.set_type(proto::BaseCommand::CONNECT);
    command.mutable_connect()->set_client_version("raw-test");
    command.mutable_connect()->set_protocol_version(21);
    command.mutable_connect()->set_auth_method_name("token");
    command.mutable_connect()->set_auth_data(token(role));
    c->send(command);
    c->expect(proto::BaseCommand::CONNECTED);
    return c;
  }

  // An admin call as `role`.
  magnetar::http::reply admin(std::string_view role, std::string_view method, const std::string& target,
                              std::string_view body = {}) {
    magnetar::http::call_options options;
    options.authorization = "Bearer " + token(role);
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, method, target,
                                  body, options);
    EXPECT_TRUE(r) << r.error();
    return r ? std::move(r).value() : magnetar::http::reply{.status = -1};
  }
  void grant(std::string_view role, const char* actions, const std::string& ns = "public/default") {
    ASSERT_EQ(admin("root", "POST", "/admin/v2/namespaces/" + ns + "/permissions/" + std::string(role), actions).status,
              204);
  }
  static std::string reason(const magnetar::http::reply& r) { return json::parse(r.body).value("reason", ""); }

  static proto::CommandError expect_error(raw_client& client) {
    return client.expect(proto::BaseCommand::ERROR).command.error();
  }
  static proto::CommandLookupTopicResponse lookup(raw_client& client, const std::string& topic) {
    proto::BaseCommand command;
    command.set_type(proto::BaseCommand::LOOKUP);
    command.mutable_lookuptopic()->set_topic(topic);
    command.mutable_lookuptopic()->set_request_id(40);
    client.send(command);
    return client.expect(proto::BaseCommand::LOOKUP_RESPONSE).command.lookuptopicresponse();
  }

  const std::string secret = auth::generate_secret_key("HS256").value();
  const std::string topic = "persistent://public/default/guarded";
};

TEST_F(authorization_test, a_producer_without_produce_gets_authorization_error_and_no_topic) {
  auto app = client_as("app");
  app->send(producer_command(topic, 1, 10));
  const auto error = expect_error(*app);
  EXPECT_EQ(error.request_id(), 10u);
  EXPECT_EQ(error.error(), proto::AuthorizationError);
  EXPECT_EQ(error.message(), "Client is not authorized to Produce");
  sync(*app);  // the connection stays open
  EXPECT_EQ(admin("root", "GET", "/admin/v2/persistent/public/default/guarded/stats").status, 404) << "nothing made";
}

TEST_F(authorization_test, a_granted_produce_lets_the_producer_attach_but_not_subscribe) {
  grant("app", R"(["produce"])");
  auto app = client_as("app");
  app->send(producer_command(topic, 1, 10));
  app->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  app->send(subscribe_command(topic, "s", 2, 11));
  const auto error = expect_error(*app);
  EXPECT_EQ(error.error(), proto::AuthorizationError);
  EXPECT_EQ(error.message(), "Client is not authorized to subscribe");
}

TEST_F(authorization_test, a_topic_grant_applies_to_that_topic_only) {
  ASSERT_EQ(
      admin("root", "POST", "/admin/v2/persistent/public/default/guarded/permissions/app", R"(["consume"])").status,
      204);
  auto app = client_as("app");
  app->send(subscribe_command(topic, "s", 1, 10));
  app->expect(proto::BaseCommand::SUCCESS);
  app->send(subscribe_command("persistent://public/default/other", "s", 2, 11));
  EXPECT_EQ(expect_error(*app).error(), proto::AuthorizationError);
}

TEST_F(authorization_test, a_subscriptions_roles_limit_who_consumes_from_it) {
  grant("a", R"(["consume"])");
  grant("b", R"(["consume"])");
  ASSERT_EQ(
      admin("root", "POST", "/admin/v2/namespaces/public/default/permissions/subscription/billing", R"(["a"])").status,
      204);
  auto b = client_as("b");
  b->send(subscribe_command(topic, "billing", 1, 10));
  EXPECT_EQ(expect_error(*b).error(), proto::AuthorizationError);
  b->send(subscribe_command(topic, "audit", 2, 11));
  b->expect(proto::BaseCommand::SUCCESS);
  auto a = client_as("a");
  a->send(subscribe_command(topic, "billing", 1, 12));
  a->expect(proto::BaseCommand::SUCCESS);
}

TEST_F(authorization_test, lookups_and_partition_metadata_need_produce_or_consume) {
  auto app = client_as("app");
  auto refused = lookup(*app, topic);
  EXPECT_EQ(refused.response(), proto::CommandLookupTopicResponse::Failed);
  EXPECT_EQ(refused.error(), proto::AuthorizationError);
  EXPECT_EQ(refused.message(), "Client is not authorized to Lookup");

  proto::BaseCommand metadata;
  metadata.set_type(proto::BaseCommand::PARTITIONED_METADATA);
  metadata.mutable_partitionmetadata()->set_topic(topic);
  metadata.mutable_partitionmetadata()->set_request_id(41);
  app->send(metadata);
  auto reply = app->expect(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE).command.partitionmetadataresponse();
  EXPECT_EQ(reply.error(), proto::AuthorizationError);
  EXPECT_EQ(reply.message(), "Client is not authorized to Get Partition Metadata");

  grant("app", R"(["consume"])");
  EXPECT_EQ(lookup(*app, topic).response(), proto::CommandLookupTopicResponse::Connect);
}

TEST_F(authorization_test, listing_a_namespaces_topics_needs_a_namespace_grant) {
  auto app = client_as("app");
  proto::BaseCommand list;
  list.set_type(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE);
  list.mutable_gettopicsofnamespace()->set_namespace_("public/default");
  list.mutable_gettopicsofnamespace()->set_request_id(42);
  app->send(list);
  const auto error = expect_error(*app);
  EXPECT_EQ(error.error(), proto::AuthorizationError);
  EXPECT_EQ(error.message(), "Client is not authorized to GetTopicsOfNamespace");
  grant("app", R"(["produce"])");
  app->send(list);
  app->expect(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE);
}

TEST_F(authorization_test, a_super_user_may_do_everything) {
  auto root = client_as("root");
  root->send(producer_command(topic, 1, 10));
  root->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  EXPECT_EQ(admin("root", "GET", "/admin/v2/tenants").status, 200);
}

TEST_F(authorization_test, a_tenant_admin_administrates_its_tenant_only) {
  ASSERT_EQ(admin("root", "PUT", "/admin/v2/tenants/acme", R"({"adminRoles": ["ops"]})").status, 204);
  EXPECT_EQ(admin("ops", "PUT", "/admin/v2/namespaces/acme/orders").status, 204);
  EXPECT_EQ(admin("ops", "POST", "/admin/v2/namespaces/acme/orders/permissions/app", R"(["produce"])").status, 204);
  auto ops = client_as("ops");
  ops->send(producer_command("persistent://acme/orders/created", 1, 10));
  ops->expect(proto::BaseCommand::PRODUCER_SUCCESS);

  auto other = admin("ops", "PUT", "/admin/v2/namespaces/public/mine");
  EXPECT_EQ(other.status, 401);
  EXPECT_EQ(reason(other), "Don't have permission to administrate resources on this tenant");
  auto tenants = admin("ops", "GET", "/admin/v2/tenants");
  EXPECT_EQ(tenants.status, 401);
  EXPECT_EQ(reason(tenants), "This operation requires super-user access");
  EXPECT_EQ(admin("ops", "DELETE", "/admin/v2/tenants/acme").status, 401);
  EXPECT_EQ(admin("root", "GET", "/admin/v2/namespaces/public").body, R"(["public/default"])") << "nothing made";
}

TEST_F(authorization_test, topic_admin_reads_need_lookup_and_subscription_writes_consume) {
  auto stats = admin("app", "GET", "/admin/v2/persistent/public/default/guarded/stats");
  EXPECT_EQ(stats.status, 401);
  EXPECT_EQ(reason(stats),
            "Unauthorized to validateTopicOperation for operation [LOOKUP] on topic "
            "[persistent://public/default/guarded]");
  EXPECT_EQ(admin("app", "PUT", "/admin/v2/persistent/public/default/guarded/subscription/s").status, 401);
  grant("app", R"(["consume"])");
  EXPECT_EQ(admin("app", "PUT", "/admin/v2/persistent/public/default/guarded").status, 401) << "creating: tenant admin";
  ASSERT_EQ(admin("root", "PUT", "/admin/v2/persistent/public/default/guarded").status, 204);
  EXPECT_EQ(admin("app", "GET", "/admin/v2/persistent/public/default/guarded/stats").status, 200);
  EXPECT_EQ(admin("app", "PUT", "/admin/v2/persistent/public/default/guarded/subscription/s").status, 204);
  EXPECT_EQ(admin("app", "GET", "/admin/v2/persistent/public/default").status, 200);
}

TEST_F(authorization_test, permissions_are_granted_listed_and_revoked_over_rest) {
  const std::string base = "/admin/v2/namespaces/public/default/permissions";
  EXPECT_EQ(admin("root", "POST", base + "/app", R"(["consume", "produce"])").status, 204);
  EXPECT_EQ(json::parse(admin("root", "GET", base).body), json::parse(R"({"app": ["produce", "consume"]})"));
  EXPECT_EQ(admin("root", "DELETE", base + "/app").status, 204);
  EXPECT_EQ(json::parse(admin("root", "GET", base).body), json::object());

  EXPECT_EQ(admin("root", "POST", base + "/subscription/billing", R"(["a", "b"])").status, 204);
  EXPECT_EQ(admin("root", "DELETE", base + "/billing/a").status, 204);
  EXPECT_EQ(json::parse(admin("root", "GET", base + "/subscription").body), json::parse(R"({"billing": ["b"]})"));
  EXPECT_EQ(admin("root", "DELETE", base + "/nosuch/a").status, 412);

  auto bad = admin("root", "POST", base + "/app", R"(["produce", "admin"])");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(reason(bad).find("'admin'"), std::string::npos);
  auto missing = admin("root", "POST", "/admin/v2/namespaces/public/nowhere/permissions/app", R"(["produce"])");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(reason(missing), "Namespace does not exist");
}

TEST_F(authorization_test, metrics_stay_open) {
  auto r =
      magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, "GET", "/metrics", {});
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 200);
}

// authorizationEnabled without authentication: nobody has a role, so nothing is allowed.
class authorization_without_authentication_test : public broker_test {
 protected:
  void SetUp() override {
    config.authorization_enabled = true;
    start();
  }
};

TEST_F(authorization_without_authentication_test, nobody_may_produce_or_administrate) {
  auto client = connected_client();
  client->send(producer_command("persistent://public/default/t", 1, 10));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::AuthorizationError);
  auto r = call("GET", "/admin/v2/tenants");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(json::parse(r.body).value("reason", ""), "Need to authenticate to perform the request");
}

}  // namespace
}  // namespace magnetar::broker::testing
