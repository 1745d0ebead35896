#include "perf/launcher/run_plan.h"
#include "perf/launcher/run_info.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace magnetar::perf {
namespace {

TEST(run_plan, the_name_is_the_option_then_output_name_then_the_file_stem) {
  launcher_options options{.scenario = "scenarios/iot-telemetry-small.yaml"};
  EXPECT_EQ(run_name(options, std::nullopt), "iot-telemetry-small");
  EXPECT_EQ(run_name(options, "from-output"), "from-output");
  options.name = "given";
  EXPECT_EQ(run_name(options, "from-output"), "given");
}

TEST(run_plan, the_gateways_command_line_follows_the_contract) {
  const auto spec =
      workload_spec(workload_kind::gateways,
                    {.program = "/bin/magnetar-perf", .run_dir = "/r", .run_id = "abc", .service_url = "pulsar://h:1"},
                    true, {{"JAVA_TOOL_OPTIONS", "-Xmx1g"}});
  EXPECT_EQ(spec.program, "/bin/magnetar-perf");
  EXPECT_EQ(spec.args,
            (std::vector<std::string>{"iot-produce", "--config", "/r/resolved-config.yaml", "--output", "/r/gateways",
                                      "--run-id", "abc", "--coordination-dir", "/r/coordination", "--service-url",
                                      "pulsar://h:1", "--events", "/r/events.csv"}));
  EXPECT_EQ(spec.log_file, "/r/workloads/gateways.log");
  ASSERT_EQ(spec.environment.size(), 1u);
  EXPECT_EQ(spec.environment[0].first, "JAVA_TOOL_OPTIONS");
}

TEST(run_plan, only_the_applications_get_the_drop_hook) {
  const workload_paths paths{.program = "p", .run_dir = "/r", .run_id = "abc", .service_url = "u"};
  const auto applications = workload_spec(workload_kind::applications, paths, true, {});
  EXPECT_EQ(applications.args.front(), "iot-consume");
  EXPECT_EQ(applications.args.back(), "--drop-one-message");
  EXPECT_EQ(applications.args[4], "/r/applications");
  EXPECT_EQ(applications.log_file, "/r/workloads/applications.log");
  EXPECT_EQ(workload_spec(workload_kind::applications, paths, false, {}).args.back(), "/r/events.csv");
}

TEST(run_plan, the_remote_applications_are_iot_consume_remote_in_a_folder_of_their_own) {
  const workload_paths paths{.program = "p", .run_dir = "/r", .run_id = "abc", .service_url = "pulsar://remote:1"};
  const auto remote = workload_spec(workload_kind::remote_applications, paths, true, {});
  EXPECT_EQ(remote.args.front(), "iot-consume");
  EXPECT_EQ(remote.args[4], "/r/remote-applications");
  EXPECT_EQ(remote.args[10], "pulsar://remote:1");
  EXPECT_EQ(remote.args.back(), "--remote");
  EXPECT_EQ(std::count(remote.args.begin(), remote.args.end(), "--drop-one-message"), 0);
  EXPECT_EQ(remote.log_file, "/r/workloads/remote-applications.log");
}

TEST(run_plan, a_workload_told_to_step_down_gets_its_nice_steps) {
  const workload_paths paths{.program = "p", .run_dir = "/r", .run_id = "abc", .service_url = "u", .nice = 10};
  const auto gateways = workload_spec(workload_kind::gateways, paths, false, {});
  ASSERT_GE(gateways.args.size(), 2u);
  EXPECT_EQ(gateways.args[gateways.args.size() - 2], "--nice");
  EXPECT_EQ(gateways.args.back(), "10");
  const auto applications = workload_spec(workload_kind::applications, paths, true, {});
  EXPECT_EQ(applications.args[applications.args.size() - 3], "--nice");
  EXPECT_EQ(applications.args[applications.args.size() - 2], "10");
  EXPECT_EQ(applications.args.back(), "--drop-one-message");
}

TEST(run_plan, a_comparison_goes_into_the_second_run) {
  EXPECT_EQ(default_comparison_dir("runs/d/n/12-01-10-00-00/", "runs/d/n/12-01-11-00-00"),
            "runs/d/n/12-01-11-00-00/compare-12-01-10-00-00");
}

TEST(run_info, has_the_readme_fields) {
  run_info info{.run_id = "id",
                .name = "n",
                .scenario = "/s.yaml",
                .started_at = std::chrono::system_clock::time_point(std::chrono::seconds(1796120430)),
                .finished_at = std::chrono::system_clock::time_point(std::chrono::seconds(1796120490)),
                .service_url = "pulsar://h:1",
                .admin_url = "http://h:2",
                .standalone = true,
                .workload_nice = 10,
                .magnetar_version = "0.1.0"};
  info.verdict = {.passed = false, .failures = {"missing messages: a"}, .missing_messages = {{"a", 1}}};
  const auto json = to_json(info);
  EXPECT_EQ(json["runId"], "id");
  EXPECT_EQ(json["startedAt"], "2026-12-01T10:20:30Z");
  EXPECT_EQ(json["finishedAt"], "2026-12-01T10:21:30Z");
  EXPECT_EQ(json["standalone"], true);
  EXPECT_EQ(json["workloadNice"], 10);
  EXPECT_EQ(json["passed"], false);
  EXPECT_EQ(json["failures"][0], "missing messages: a");
  EXPECT_EQ(json["missingMessages"]["a"], 1);
  EXPECT_TRUE(json["host"].contains("cpuModel"));
}

TEST(run_info, a_geo_replicated_run_has_the_remote_fields) {
  run_info info{.run_id = "id", .remote_service_url = "pulsar://r:1", .remote_admin_url = "http://r:2"};
  info.verdict = {.passed = false, .remote_missing_messages = {{"a", 5}}};
  const auto json = to_json(info);
  EXPECT_EQ(json["remoteMissingMessages"]["a"], 5);
  EXPECT_EQ(json["remoteServiceUrl"], "pulsar://r:1");
  EXPECT_EQ(json["remoteAdminUrl"], "http://r:2");
}

TEST(run_info, a_single_cluster_run_has_no_remote_fields) {
  const auto json = to_json(run_info{.run_id = "id"});
  EXPECT_FALSE(json.contains("remoteMissingMessages"));
  EXPECT_FALSE(json.contains("remoteServiceUrl"));
}

TEST(run_info, is_written_as_json) {
  testing::temp_dir dir;
  ASSERT_TRUE(write_run_info(dir.path(), run_info{.run_id = "id"}));
  auto read = read_json_file(dir.path() / "run-info.json");
  ASSERT_TRUE(read);
  EXPECT_EQ(read.value()["runId"], "id");
  EXPECT_EQ(read.value()["passed"], true);
}

}  // namespace
}  // namespace magnetar::perf
