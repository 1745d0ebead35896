// Geo-replication's admin calls and stats: the bodies the launcher sends to switch
// replication on, and the rows of replication-stats.csv read from a topic's stats.
#include "perf/launcher/replication_setup.h"
#include "perf/launcher/replication_stats.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

TEST(replication_setup, the_tenant_is_allowed_in_both_clusters) {
  EXPECT_EQ(tenant_clusters_body({"local", "remote"}), R"({"adminRoles":[],"allowedClusters":["local","remote"]})");
}

TEST(replication_setup, the_namespace_replicates_to_a_json_array_of_clusters) {
  EXPECT_EQ(replication_clusters_body({"local", "remote"}), R"(["local","remote"])");
}

TEST(replication_setup, retention_keeps_time_without_a_size_limit) {
  EXPECT_EQ(retention_body(60), R"({"retentionSizeInMB":-1,"retentionTimeInMinutes":60})");
}

TEST(replication_stats, one_row_per_remote_cluster) {
  auto rows = parse_replication_stats("persistent://public/default/t", R"({"msgInCounter": 1,
    "replication": {"remote": {"msgRateIn": 0, "msgThroughputIn": 0, "msgRateOut": 120.5, "msgThroughputOut": 9000,
                               "replicationBacklog": 42, "connected": true, "replicationDelayInSeconds": 2,
                               "msgRateExpired": 0}}})");
  ASSERT_TRUE(rows) << rows.error();
  ASSERT_EQ(rows.value().size(), 1u);
  EXPECT_EQ(replication_stats_csv_line(7, rows.value()[0]),
            "7,persistent://public/default/t,remote,0.000,120.500,9000.0,42,true,2");
}

TEST(replication_stats, a_topic_that_does_not_replicate_has_no_row) {
  auto rows = parse_replication_stats("persistent://public/default/t", R"({"msgInCounter": 1})");
  ASSERT_TRUE(rows) << rows.error();
  EXPECT_TRUE(rows.value().empty());
}

TEST(replication_stats, a_disconnected_replicator_says_so) {
  auto rows = parse_replication_stats("t", R"({"replication": {"remote": {"replicationBacklog": 5}}})");
  ASSERT_TRUE(rows) << rows.error();
  ASSERT_EQ(rows.value().size(), 1u);
  EXPECT_FALSE(rows.value()[0].connected);
  EXPECT_EQ(rows.value()[0].replication_backlog, 5);
}

TEST(replication_stats, a_body_that_is_not_json_is_an_error) { EXPECT_FALSE(parse_replication_stats("t", "<html>")); }

}  // namespace
}  // namespace magnetar::perf
