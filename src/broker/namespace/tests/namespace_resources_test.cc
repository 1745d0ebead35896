// namespace_resources: tenants, namespaces, policies and partitioned metadata in the
// real (RocksDB) metadata store, at upstream's paths.
#include "broker/namespace/namespace_resources.h"

#include "broker/api/errc.h"
#include "broker/namespace/tests/store_fixture.h"

#include "io/run_on.h"

#include <gmock/gmock.h>

#include <future>

namespace magnetar::broker {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

class namespace_resources_test : public testing::store_fixture {
 protected:
  void SetUp() override {
    store_fixture::SetUp();
    resources = std::make_unique<namespace_resources>(*store, "standalone");
  }
  void defaults() {
    auto made = run(resources->ensure_defaults("http://localhost:8080", "pulsar://localhost:6650"));
    ASSERT_TRUE(made) << made.error();
  }
  wire::topic_name topic(const char* name) { return wire::topic_name::parse(name).value(); }

  std::unique_ptr<namespace_resources> resources;
};

TEST_F(namespace_resources_test, ensure_defaults_creates_cluster_tenant_and_namespace) {
  defaults();
  EXPECT_THAT(run(resources->list_clusters()).value(), ElementsAre("standalone"));
  EXPECT_THAT(run(resources->list_tenants()).value(), ElementsAre("public"));
  EXPECT_TRUE(run(resources->namespace_exists("public/default")).value());
  auto cluster = run(resources->get_cluster("standalone")).value();
  ASSERT_TRUE(cluster);
  EXPECT_EQ((*cluster)["serviceUrl"], "http://localhost:8080");
  EXPECT_EQ((*cluster)["brokerServiceUrl"], "pulsar://localhost:6650");
}

TEST_F(namespace_resources_test, ensure_defaults_is_idempotent_and_keeps_changes) {
  defaults();
  ASSERT_TRUE(run(resources->set_retention("public/default", {.retention_time_in_minutes = 5})));
  defaults();
  EXPECT_EQ(run(resources->get_retention("public/default")).value()->retention_time_in_minutes, 5);
}

TEST_F(namespace_resources_test, tenant_is_stored_as_pulsars_tenant_info) {
  defaults();
  ASSERT_TRUE(run(resources->create_tenant("acme", {.admin_roles = {"ops"}, .allowed_clusters = {"standalone"}})));
  auto raw = run(store->get("/admin/policies/acme")).value();
  ASSERT_TRUE(raw);
  EXPECT_EQ(json::parse(raw->value), json::parse(R"({"adminRoles":["ops"],"allowedClusters":["standalone"]})"));
}

TEST_F(namespace_resources_test, creating_an_existing_tenant_is_a_conflict) {
  defaults();
  auto again = run(resources->create_tenant("public", {.allowed_clusters = {"standalone"}}));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), errc::conflict);
  EXPECT_EQ(again.error().detail(), "Tenant already exists");
}

TEST_F(namespace_resources_test, tenant_with_an_unknown_cluster_is_refused) {
  defaults();
  auto made = run(resources->create_tenant("acme", {.allowed_clusters = {"elsewhere"}}));
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error(), errc::invalid_request);
}

TEST_F(namespace_resources_test, deleting_a_tenant_with_namespaces_is_a_conflict) {
  defaults();
  auto deleted = run(resources->delete_tenant("public"));
  ASSERT_FALSE(deleted);
  EXPECT_EQ(deleted.error(), errc::conflict);
  EXPECT_EQ(deleted.error().detail(), "The tenant still has active namespaces");
}

TEST_F(namespace_resources_test, deleting_an_empty_tenant_removes_it) {
  defaults();
  ASSERT_TRUE(run(resources->create_tenant("acme", {.allowed_clusters = {"standalone"}})));
  ASSERT_TRUE(run(resources->delete_tenant("acme")));
  EXPECT_EQ(run(resources->get_tenant("acme")).error(), errc::tenant_not_found);
}

TEST_F(namespace_resources_test, namespace_in_a_missing_tenant_is_refused) {
  auto made = run(resources->create_namespace("ghost/ns", json()));
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error(), errc::tenant_not_found);
}

TEST_F(namespace_resources_test, namespace_policies_merge_the_body_over_defaults) {
  defaults();
  ASSERT_TRUE(run(resources->create_namespace("public/ns1", json{{"max_producers_per_topic", 2}}, 1)));
  auto policies = run(resources->get_policies("public/ns1")).value();
  EXPECT_EQ(policies["max_producers_per_topic"], 2);
  EXPECT_EQ(policies["replication_clusters"], json::array({"standalone"}));
  EXPECT_EQ(policies["bundles"]["numBundles"], 1);
  EXPECT_EQ(policies["bundles"]["boundaries"], json::array({"0x00000000", "0xffffffff"}));
}

TEST_F(namespace_resources_test, four_bundles_split_the_hash_range_evenly) {
  defaults();
  auto policies = run(resources->get_policies("public/default")).value();
  EXPECT_EQ(policies["bundles"]["boundaries"],
            json::array({"0x00000000", "0x40000000", "0x80000000", "0xc0000000", "0xffffffff"}));
}

TEST_F(namespace_resources_test, creating_an_existing_namespace_is_a_conflict) {
  defaults();
  auto again = run(resources->create_namespace("public/default", json()));
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), errc::conflict);
}

TEST_F(namespace_resources_test, lists_namespaces_by_full_name) {
  defaults();
  ASSERT_TRUE(run(resources->create_namespace("public/ns1", json())));
  EXPECT_THAT(run(resources->list_namespaces("public")).value(), ElementsAre("public/default", "public/ns1"));
}

TEST_F(namespace_resources_test, deleting_a_namespace_with_a_partitioned_topic_is_a_conflict) {
  defaults();
  ASSERT_TRUE(run(resources->create_partitioned(topic("public/default/t"), 2)));
  auto deleted = run(resources->delete_namespace("public/default"));
  ASSERT_FALSE(deleted);
  EXPECT_EQ(deleted.error(), errc::conflict);
  EXPECT_EQ(deleted.error().detail(), "Cannot delete non empty namespace");
}

TEST_F(namespace_resources_test, deleting_a_namespace_with_a_managed_ledger_is_a_conflict) {
  defaults();
  ASSERT_TRUE(run(store->put("/managed-ledgers/public/default/persistent/t", "{}", std::nullopt)));
  EXPECT_EQ(run(resources->delete_namespace("public/default")).error(), errc::conflict);
}

TEST_F(namespace_resources_test, deleting_an_empty_namespace_removes_it) {
  defaults();
  ASSERT_TRUE(run(resources->create_namespace("public/ns1", json())));
  ASSERT_TRUE(run(resources->delete_namespace("public/ns1")));
  EXPECT_FALSE(run(resources->namespace_exists("public/ns1")).value());
}

TEST_F(namespace_resources_test, retention_round_trips_through_policies) {
  defaults();
  EXPECT_FALSE(run(resources->get_retention("public/default")).value());
  ASSERT_TRUE(
      run(resources->set_retention("public/default", {.retention_time_in_minutes = -1, .retention_size_in_mb = 10})));
  auto policies = run(resources->get_policies("public/default")).value();
  EXPECT_EQ(policies["retention_policies"], json::parse(R"({"retentionTimeInMinutes":-1,"retentionSizeInMB":10})"));
}

TEST_F(namespace_resources_test, concurrent_policy_updates_are_all_kept) {
  defaults();
  // Several read-modify-writes race on one node; compare-and-set retries keep each one.
  std::vector<std::string> keys{"a", "b", "c", "d", "e", "f"};
  std::vector<std::future<bool>> done;
  for (const auto& key : keys) {
    auto promise = std::make_shared<std::promise<bool>>();
    done.push_back(promise->get_future());
    io::spawn(shards[0].executor(), [this, key, promise]() -> awaitable<void> {
      std::function<result<void>(json&)> change = [key](json& p) -> result<void> {
        p["properties"][key] = "1";
        return success();
      };
      auto updated = co_await resources->update_policies("public/default", std::move(change));
      promise->set_value(updated.has_value());
    });
  }
  for (auto& d : done) EXPECT_TRUE(d.get());
  EXPECT_EQ(run(resources->get_policies("public/default")).value()["properties"].size(), keys.size());
}

TEST_F(namespace_resources_test, partitioned_metadata_is_stored_at_upstreams_path) {
  defaults();
  ASSERT_TRUE(run(resources->create_partitioned(topic("public/default/t"), 3)));
  auto raw = run(store->get("/admin/partitioned-topics/public/default/persistent/t")).value();
  ASSERT_TRUE(raw);
  EXPECT_EQ(json::parse(raw->value), json::parse(R"({"partitions":3})"));
  EXPECT_EQ(run(resources->partitioned_partitions(topic("public/default/t"))).value(), 3);
  EXPECT_EQ(run(resources->partitioned_partitions(topic("public/default/t-partition-1"))).value(), 3);
}

TEST_F(namespace_resources_test, a_topic_that_is_not_partitioned_has_zero_partitions) {
  defaults();
  EXPECT_EQ(run(resources->partitioned_partitions(topic("public/default/plain"))).value(), 0);
}

TEST_F(namespace_resources_test, partitioned_topic_in_a_missing_namespace_is_refused) {
  defaults();
  auto made = run(resources->create_partitioned(topic("public/nope/t"), 2));
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error(), errc::namespace_not_found);
  EXPECT_EQ(made.error().detail(), "Namespace does not exist");
}

TEST_F(namespace_resources_test, partitioned_topic_that_exists_is_a_conflict) {
  defaults();
  ASSERT_TRUE(run(resources->create_partitioned(topic("public/default/t"), 2)));
  EXPECT_EQ(run(resources->create_partitioned(topic("public/default/t"), 4)).error(), errc::conflict);
}

TEST_F(namespace_resources_test, partitioned_topic_over_a_non_partitioned_one_is_a_conflict) {
  defaults();
  ASSERT_TRUE(run(store->put("/managed-ledgers/public/default/persistent/t", "{}", std::nullopt)));
  EXPECT_EQ(run(resources->create_partitioned(topic("public/default/t"), 2)).error(), errc::conflict);
}

TEST_F(namespace_resources_test, partitions_can_grow) {
  defaults();
  ASSERT_TRUE(run(resources->create_partitioned(topic("public/default/t"), 2)));
  ASSERT_TRUE(run(resources->update_partitions(topic("public/default/t"), 2, 5)));
  EXPECT_EQ(run(resources->partitioned_partitions(topic("public/default/t"))).value(), 5);
}

TEST_F(namespace_resources_test, lists_and_deletes_partitioned_topics) {
  defaults();
  ASSERT_TRUE(run(resources->create_partitioned(topic("public/default/a"), 1)));
  ASSERT_TRUE(run(resources->create_partitioned(topic("public/default/b"), 1)));
  EXPECT_THAT(run(resources->list_partitioned("public/default")).value(),
              ElementsAre("persistent://public/default/a", "persistent://public/default/b"));
  ASSERT_TRUE(run(resources->delete_partitioned(topic("public/default/a"))));
  EXPECT_EQ(run(resources->delete_partitioned(topic("public/default/a"))).error(), errc::topic_not_found);
  EXPECT_THAT(run(resources->list_partitioned("public/default")).value(), ElementsAre("persistent://public/default/b"));
}

}  // namespace
}  // namespace magnetar::broker
