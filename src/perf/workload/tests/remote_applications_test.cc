// iot-consume --remote: the settings the remote cluster's applications run with.
#include "perf/workload/applications.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

scenario_settings with_late_applications() {
  scenario_settings settings;
  settings.iot.applications.count = 3;
  settings.iot.applications.pods_per_application = 2;
  settings.iot.applications.join_seconds = {0, 5, 10};
  return settings;
}

TEST(remote_applications, the_local_ones_run_the_workloads_settings) {
  auto iot = applications_of(with_late_applications(), false);
  ASSERT_TRUE(iot) << iot.error();
  EXPECT_EQ(iot.value().applications.count, 3);
  EXPECT_EQ(iot.value().applications.join_seconds.size(), 3u);
}

TEST(remote_applications, the_remote_ones_take_count_pods_and_env_from_cluster_remote) {
  auto settings = with_late_applications();
  settings.cluster.remote.emplace();
  settings.cluster.remote->applications = {.count = 4, .pods_per_application = 1, .env = {{"A", "1"}}};
  auto iot = applications_of(settings, true);
  ASSERT_TRUE(iot) << iot.error();
  EXPECT_EQ(iot.value().applications.count, 4);
  EXPECT_EQ(iot.value().applications.pods_per_application, 1);
  EXPECT_EQ(iot.value().applications.env.at("A"), "1");
  EXPECT_EQ(iot.value().subscription(3), "iot-application-3");
}

TEST(remote_applications, every_remote_one_reads_from_the_start) {
  auto settings = with_late_applications();
  settings.cluster.remote.emplace();
  settings.cluster.remote->applications.count = 3;
  auto iot = applications_of(settings, true);
  ASSERT_TRUE(iot) << iot.error();
  EXPECT_TRUE(iot.value().applications.join_seconds.empty());
}

TEST(remote_applications, refused_without_a_remote_cluster) {
  auto iot = applications_of(with_late_applications(), true);
  ASSERT_FALSE(iot);
  EXPECT_NE(iot.error().message().find("no remote cluster"), std::string::npos) << iot.error();
}

}  // namespace
}  // namespace magnetar::perf
