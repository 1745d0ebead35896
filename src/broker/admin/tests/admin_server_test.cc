// admin_server: Pulsar's /admin/v2 routes for clusters, tenants, namespaces and
// partitioned topics over real HTTP, on the real metadata store (no broker behind it:
// topic routes answer 503, see broker_routes_test.cc for those).
#include "broker/admin/admin_server.h"

#include "autorecovery/underreplication.h"

#include "broker/namespace/tests/store_fixture.h"
#include "http/client.h"

#include <gmock/gmock.h>

namespace magnetar::broker::admin {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class admin_server_test : public testing::store_fixture {
 protected:
  void SetUp() override {
    store_fixture::SetUp();
    config.bind_address = "127.0.0.1";
    config.web_service_port = 0;
    server = std::make_unique<admin_server>(config, *store, nullptr, shards[0]);
    auto made = run(server->resources().ensure_defaults("http://localhost:8080", "pulsar://localhost:6650"));
    ASSERT_TRUE(made) << made.error();
    auto started = server->start();
    ASSERT_TRUE(started) << started.error();
  }
  void TearDown() override {
    if (server) run(server->stop());
    server.reset();
    store_fixture::TearDown();
  }
  magnetar::http::reply call(const char* method, const std::string& target, const std::string& body = {}) {
    auto r =
        magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->port()}, method, target, body);
    EXPECT_TRUE(r) << r.error();
    return r ? std::move(r).value() : magnetar::http::reply{.status = -1};
  }
  static json body_of(const magnetar::http::reply& r) { return json::parse(r.body); }

  broker_config config;
  std::unique_ptr<admin_server> server;
};

TEST_F(admin_server_test, lists_the_cluster) {
  auto r = call("GET", "/admin/v2/clusters");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(std::string(r.header("Content-Type").value_or("")), "application/json");
  EXPECT_EQ(body_of(r), json::array({"standalone"}));
}

TEST_F(admin_server_test, gets_the_clusters_urls) {
  auto r = call("GET", "/admin/v2/clusters/standalone");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r)["brokerServiceUrl"], "pulsar://localhost:6650");
}

TEST_F(admin_server_test, unknown_cluster_is_404) {
  auto r = call("GET", "/admin/v2/clusters/nowhere");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(body_of(r), json::parse(R"({"reason":"Cluster does not exist"})"));
}

TEST_F(admin_server_test, a_cluster_reached_only_over_tls_is_created_with_its_tls_urls) {
  const json data{{"serviceUrlTls", "https://east:8443"}, {"brokerServiceUrlTls", "pulsar+ssl://east:6651"}};
  EXPECT_EQ(call("PUT", "/admin/v2/clusters/east", data.dump()).status, 204);
  auto r = call("GET", "/admin/v2/clusters/east");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r)["brokerServiceUrlTls"], "pulsar+ssl://east:6651");
}

TEST_F(admin_server_test, a_cluster_without_any_url_is_refused) {
  auto r = call("PUT", "/admin/v2/clusters/east", R"({"serviceUrl":""})");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(r.body, HasSubstr("ClusterData needs"));
  EXPECT_EQ(call("GET", "/admin/v2/clusters/east").status, 404);
}

TEST_F(admin_server_test, lists_the_registered_bookies_writable_and_read_only) {
  ASSERT_TRUE(run(store->put("/ledgers/available/10.0.0.1:3181", "{}", -1)));
  ASSERT_TRUE(run(store->put("/ledgers/available/readonly/10.0.0.2:3181", "{}", -1)));
  EXPECT_EQ(body_of(call("GET", "/admin/v2/bookies/all")),
            json::parse(R"({"bookies":[{"bookieId":"10.0.0.1:3181"},{"bookieId":"10.0.0.2:3181"}]})"));
}

TEST_F(admin_server_test, lists_the_under_replicated_ledgers) {
  EXPECT_EQ(body_of(call("GET", "/admin/v2/bookies/underreplicated")), json::array());
  ASSERT_TRUE(run(autorecovery::mark_underreplicated(*store, ledger_id(7), {"10.0.0.3:3181"}, 1234)));
  EXPECT_EQ(body_of(call("GET", "/admin/v2/bookies/underreplicated")),
            json::parse(R"([{"ledgerId":7,"missingReplicas":["10.0.0.3:3181"],"ctime":1234}])"));
}

TEST_F(admin_server_test, lists_tenants) {
  EXPECT_EQ(body_of(call("GET", "/admin/v2/tenants")), json::array({"public"}));
}

TEST_F(admin_server_test, creates_a_tenant_with_an_empty_body) {
  EXPECT_EQ(call("PUT", "/admin/v2/tenants/acme").status, 204);
  auto r = call("GET", "/admin/v2/tenants/acme");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r), json::parse(R"({"adminRoles":[],"allowedClusters":["standalone"]})"));
}

TEST_F(admin_server_test, creates_a_tenant_from_tenant_info) {
  EXPECT_EQ(call("PUT", "/admin/v2/tenants/acme", R"({"adminRoles":["ops"],"allowedClusters":["standalone"]})").status,
            204);
  EXPECT_EQ(body_of(call("GET", "/admin/v2/tenants/acme"))["adminRoles"], json::array({"ops"}));
}

TEST_F(admin_server_test, existing_tenant_is_409) {
  auto r = call("PUT", "/admin/v2/tenants/public");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(body_of(r)["reason"], "Tenant already exists");
}

TEST_F(admin_server_test, tenant_with_unknown_cluster_is_412) {
  EXPECT_EQ(call("PUT", "/admin/v2/tenants/acme", R"({"allowedClusters":["mars"]})").status, 412);
}

TEST_F(admin_server_test, bad_json_is_400_naming_the_problem) {
  auto r = call("PUT", "/admin/v2/tenants/acme", R"({"adminRoles": [)");
  EXPECT_EQ(r.status, 400);
  EXPECT_THAT(body_of(r)["reason"].get<std::string>(), HasSubstr("Invalid JSON body at byte"));
}

TEST_F(admin_server_test, invalid_tenant_name_is_412) {
  EXPECT_EQ(call("PUT", "/admin/v2/tenants/bad%20name").status, 412);
}

TEST_F(admin_server_test, names_that_would_climb_the_metadata_tree_are_412) {
  for (const char* target : {"/admin/v2/tenants/..", "/admin/v2/tenants/%2E%2E", "/admin/v2/tenants/.",
                             "/admin/v2/tenants/a%2F..%2Fb", "/admin/v2/namespaces/public/..",
                             "/admin/v2/namespaces/public/%2e%2e", "/admin/v2/persistent/public/default/..",
                             "/admin/v2/persistent/public/../t", "/admin/v2/persistent/../default/t"}) {
    EXPECT_EQ(call("PUT", target).status, 412) << target;
  }
  auto tenants = call("GET", "/admin/v2/tenants");
  ASSERT_EQ(tenants.status, 200);
  EXPECT_EQ(body_of(tenants), json::parse(R"(["public"])"));
}

TEST_F(admin_server_test, missing_tenant_is_404_with_pulsars_reason) {
  auto r = call("GET", "/admin/v2/tenants/ghost");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(body_of(r), json::parse(R"({"reason":"Tenant does not exist"})"));
}

TEST_F(admin_server_test, deleting_a_tenant_with_namespaces_is_409) {
  EXPECT_EQ(call("DELETE", "/admin/v2/tenants/public").status, 409);
}

TEST_F(admin_server_test, deletes_an_empty_tenant) {
  ASSERT_EQ(call("PUT", "/admin/v2/tenants/acme").status, 204);
  EXPECT_EQ(call("DELETE", "/admin/v2/tenants/acme").status, 204);
  EXPECT_EQ(call("GET", "/admin/v2/tenants/acme").status, 404);
}

TEST_F(admin_server_test, lists_namespaces) {
  EXPECT_EQ(body_of(call("GET", "/admin/v2/namespaces/public")), json::array({"public/default"}));
}

TEST_F(admin_server_test, creates_a_namespace_with_policies_as_upstream_tests_do) {
  EXPECT_EQ(call("PUT", "/admin/v2/namespaces/public/dedup-1", R"({"replication_clusters": ["standalone"]})").status,
            204);
  auto r = call("GET", "/admin/v2/namespaces/public/dedup-1");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r)["replication_clusters"], json::array({"standalone"}));
}

TEST_F(admin_server_test, existing_namespace_is_409) {
  EXPECT_EQ(call("PUT", "/admin/v2/namespaces/public/default").status, 409);
}

TEST_F(admin_server_test, namespace_in_a_missing_tenant_is_404) {
  EXPECT_EQ(call("PUT", "/admin/v2/namespaces/ghost/ns").status, 404);
}

TEST_F(admin_server_test, deletes_an_empty_namespace) {
  ASSERT_EQ(call("PUT", "/admin/v2/namespaces/public/ns1").status, 204);
  EXPECT_EQ(call("DELETE", "/admin/v2/namespaces/public/ns1").status, 204);
  auto r = call("GET", "/admin/v2/namespaces/public/ns1");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(body_of(r)["reason"], "Namespace does not exist");
}

TEST_F(admin_server_test, deleting_a_namespace_with_topics_is_409) {
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/t/partitions", "2").status, 204);
  auto r = call("DELETE", "/admin/v2/namespaces/public/default");
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(body_of(r)["reason"], "Cannot delete non empty namespace");
}

TEST_F(admin_server_test, retention_is_set_and_read_back) {
  ASSERT_EQ(call("POST", "/admin/v2/namespaces/public/default/retention",
                 R"({"retentionTimeInMinutes": 60, "retentionSizeInMB": 100})")
                .status,
            204);
  auto r = call("GET", "/admin/v2/namespaces/public/default/retention");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r), json::parse(R"({"retentionTimeInMinutes":60,"retentionSizeInMB":100})"));
}

TEST_F(admin_server_test, deduplication_and_permissions_land_in_the_policies) {
  ASSERT_EQ(call("POST", "/admin/v2/namespaces/public/default/deduplication", "true").status, 204);
  ASSERT_EQ(
      call("POST", "/admin/v2/namespaces/public/default/permissions/anonymous", R"(["produce","consume"])").status,
      204);
  auto policies = body_of(call("GET", "/admin/v2/namespaces/public/default"));
  EXPECT_EQ(policies["deduplicationEnabled"], true);
  EXPECT_EQ(policies["auth_policies"]["namespace_auth"]["anonymous"], json::array({"produce", "consume"}));
}

TEST_F(admin_server_test, deduplication_needs_a_boolean) {
  EXPECT_EQ(call("POST", "/admin/v2/namespaces/public/default/deduplication", "\"yes\"").status, 400);
}

TEST_F(admin_server_test, creates_a_partitioned_topic_as_upstream_tests_do) {
  EXPECT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "5").status, 204);
  auto r = call("GET", "/admin/v2/persistent/public/default/t1/partitions");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(body_of(r), json::parse(R"({"partitions":5})"));
}

TEST_F(admin_server_test, existing_partitioned_topic_is_409) {
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "2").status, 204);
  EXPECT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "2").status, 409);
}

TEST_F(admin_server_test, partitioned_topic_in_a_missing_namespace_is_404) {
  auto r = call("PUT", "/admin/v2/persistent/public/nope/t1/partitions", "2");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(body_of(r)["reason"], "Namespace does not exist");
}

TEST_F(admin_server_test, zero_partitions_is_406) {
  EXPECT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "0").status, 406);
}

TEST_F(admin_server_test, partitions_body_that_is_not_a_number_is_400) {
  EXPECT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "many").status, 400);
}

TEST_F(admin_server_test, non_partitioned_topic_reports_zero_partitions) {
  EXPECT_EQ(body_of(call("GET", "/admin/v2/persistent/public/default/plain/partitions")),
            json::parse(R"({"partitions":0})"));
}

TEST_F(admin_server_test, partitions_grow_with_post) {
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "2").status, 204);
  EXPECT_EQ(call("POST", "/admin/v2/persistent/public/default/t1/partitions", "3").status, 204);
  EXPECT_EQ(body_of(call("GET", "/admin/v2/persistent/public/default/t1/partitions"))["partitions"], 3);
  EXPECT_EQ(call("POST", "/admin/v2/persistent/public/default/t1/partitions", "1").status, 422);
}

TEST_F(admin_server_test, lists_and_deletes_partitioned_topics) {
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/t1/partitions", "2").status, 204);
  EXPECT_EQ(body_of(call("GET", "/admin/v2/persistent/public/default/partitioned")),
            json::array({"persistent://public/default/t1"}));
  EXPECT_EQ(call("DELETE", "/admin/v2/persistent/public/default/t1/partitions").status, 204);
  EXPECT_EQ(call("DELETE", "/admin/v2/persistent/public/default/t1/partitions").status, 404);
  EXPECT_EQ(body_of(call("GET", "/admin/v2/persistent/public/default/partitioned")), json::array());
}

TEST_F(admin_server_test, unknown_path_is_404_with_a_reason) {
  auto r = call("GET", "/admin/v2/nothing/here");
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(body_of(r).contains("reason"));
}

TEST_F(admin_server_test, wrong_method_is_405) {
  auto r = call("PATCH", "/admin/v2/tenants/public");
  EXPECT_EQ(r.status, 405);
  EXPECT_THAT(std::string(r.header("Allow").value_or("")), HasSubstr("PUT"));
}

TEST_F(admin_server_test, topic_routes_without_a_broker_are_503) {
  EXPECT_EQ(call("GET", "/admin/v2/persistent/public/default/t/stats").status, 503);
}

TEST_F(admin_server_test, metrics_are_prometheus_text) {
  auto r = call("GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(std::string(r.header("Content-Type").value_or("")), HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(r.body, HasSubstr("pulsar_active_connections{cluster=\"standalone\"} 0"));
}

}  // namespace
}  // namespace magnetar::broker::admin
