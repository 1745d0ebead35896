// Every validation message of parse_settings(): each test breaks one rule of a valid
// scenario and checks the message names the key and what is allowed.
#include "perf/scenario/overrides.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/tests/scenario_files.h"

#include <gtest/gtest.h>

#include <initializer_list>

namespace magnetar::perf {
namespace {

using testing::valid_scenario;

YAML::Node valid_tree() { return YAML::Load(valid_scenario); }

YAML::Node iot(YAML::Node& tree) { return tree["workloads"]["iotTelemetry"]; }

// The message parse_settings() gives for `tree`, or "" when it passes.
std::string problem(const YAML::Node& tree) {
  auto settings = parse_settings(tree);
  if (settings) return "";
  EXPECT_EQ(settings.error(), base::errc::invalid_argument);
  return settings.error().detail();
}

// The message for the valid scenario with these --set assignments.
std::string problem_with(std::initializer_list<const char*> sets) {
  auto tree = valid_tree();
  for (const char* set : sets) {
    auto done = apply_set(tree, set);
    EXPECT_TRUE(done) << (done ? "" : done.error().message());
  }
  return problem(tree);
}

#define EXPECT_MESSAGE(message, part) EXPECT_NE((message).find(part), std::string::npos) << (message)

TEST(scenario_validation, valid_scenario_passes) { EXPECT_EQ(problem(valid_tree()), ""); }

TEST(scenario_validation, unknown_key_suggests_the_closest_known_key) {
  const auto message = problem_with({"workloads.iotTelemetry.gateways.cuont=5"});
  EXPECT_MESSAGE(message, "workloads.iotTelemetry.gateways.cuont is not a setting");
  EXPECT_MESSAGE(message, "did you mean workloads.iotTelemetry.gateways.count?");
  EXPECT_MESSAGE(message, "workloads.iotTelemetry.gateways has count, producer and env");
}

TEST(scenario_validation, unknown_key_far_from_any_known_key_lists_the_known_ones) {
  const auto message = problem_with({"metrics.scrapeEverything=true"});
  EXPECT_MESSAGE(message, "metrics.scrapeEverything is not a setting; metrics has intervalSeconds");
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
}

TEST(scenario_validation, upstream_flat_key_says_where_the_setting_lives_now) {
  const auto message = problem_with({"workloads.iotTelemetry.warmupSeconds=20"});
  EXPECT_MESSAGE(message, "workloads.iotTelemetry.warmupSeconds is not a setting");
  EXPECT_MESSAGE(message, "it is warmup.seconds under workloads.iotTelemetry now");
}

TEST(scenario_validation, unknown_workload_is_rejected) {
  auto tree = valid_tree();
  tree["workloads"]["openMessaging"]["rate"] = 5;
  EXPECT_MESSAGE(problem(tree), "workloads.openMessaging is not a setting; workloads has iotTelemetry");
}

TEST(scenario_validation, missing_workload_is_rejected) {
  auto tree = valid_tree();
  tree.remove("workloads");
  EXPECT_MESSAGE(problem(tree), "workloads.iotTelemetry is missing");
}

TEST(scenario_validation, text_for_a_whole_number_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["gateways"]["count"] = "many";
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.gateways.count must be a whole number, 1 or more, not \"many\"");
}

TEST(scenario_validation, fraction_for_a_whole_number_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["timeoutSeconds"] = 2.5;
  EXPECT_MESSAGE(problem(tree), "workloads.iotTelemetry.timeoutSeconds must be a whole number, 1 or more, not \"2.5\"");
}

TEST(scenario_validation, non_boolean_for_a_boolean_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["gateways"]["producer"]["precreate"] = "sometimes";
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.gateways.producer.precreate must be true or false, not "
                 "\"sometimes\"");
}

TEST(scenario_validation, scalar_for_a_section_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["topics"] = 6;
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.topics must be a mapping with the keys count and prefix, "
                 "not \"6\"");
}

TEST(scenario_validation, env_that_is_not_a_mapping_is_rejected) {
  auto tree = valid_tree();
  tree["cluster"]["brokers"]["env"] = YAML::Load("[a, b]");
  EXPECT_MESSAGE(problem(tree), "cluster.brokers.env must be a mapping of names to values, not a list");
}

TEST(scenario_validation, env_value_that_is_not_a_single_value_is_rejected) {
  auto tree = valid_tree();
  tree["cluster"]["brokers"]["env"]["PULSAR_MEM"] = YAML::Load("[-Xmx1g]");
  EXPECT_MESSAGE(problem(tree), "cluster.brokers.env.PULSAR_MEM must be a single value");
}

TEST(scenario_validation, zero_devices_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.devices.count=0"}),
                 "workloads.iotTelemetry.devices.count must be a whole number, 1 or more, not \"0\"");
}

TEST(scenario_validation, zero_pods_per_application_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.applications.podsPerApplication=0"}),
                 "workloads.iotTelemetry.applications.podsPerApplication must be a whole number, 1 or more");
}

TEST(scenario_validation, zero_replicas_is_rejected) {
  EXPECT_MESSAGE(problem_with({"cluster.bookies.replicas=0"}),
                 "cluster.bookies.replicas must be a whole number, from 1 to 16, not \"0\"");
}

TEST(scenario_validation, negative_rate_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.rate=-5"}),
                 "workloads.iotTelemetry.rate must be a number, 0 or more, not \"-5\"");
}

TEST(scenario_validation, payload_below_the_header_size_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.payload.size=16"}),
                 "workloads.iotTelemetry.payload.size must be a whole number, from 32 to 5242880, not \"16\"");
}

TEST(scenario_validation, restart_fraction_above_one_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.behaviors.podRestarts.fraction=1.5"}),
                 "workloads.iotTelemetry.behaviors.podRestarts.fraction must be a number, from 0 to 1, not \"1.5\"");
}

TEST(scenario_validation, negative_restart_interval_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.behaviors.podRestarts.intervalSeconds=-1"}),
                 "workloads.iotTelemetry.behaviors.podRestarts.intervalSeconds must be a whole number, 0 or more");
}

TEST(scenario_validation, zero_warmup_rounds_is_rejected) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.warmup.rounds=0"}),
                 "workloads.iotTelemetry.warmup.rounds must be a whole number, 1 or more");
}

TEST(scenario_validation, empty_topic_prefix_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["topics"]["prefix"] = "";
  EXPECT_MESSAGE(problem(tree), "workloads.iotTelemetry.topics.prefix must be a non-empty string");
}

TEST(scenario_validation, zero_metrics_interval_is_rejected) {
  EXPECT_MESSAGE(problem_with({"metrics.intervalSeconds=0"}),
                 "metrics.intervalSeconds must be a whole number, 1 or more");
}

TEST(scenario_validation, warmup_seconds_and_messages_are_mutually_exclusive) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.warmup.messages=1000"}),
                 "workloads.iotTelemetry.warmup.seconds and workloads.iotTelemetry.warmup.messages are mutually "
                 "exclusive");
}

TEST(scenario_validation, warmup_seconds_needs_a_rate) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.rate=0", "workloads.iotTelemetry.measurement.messages=1000"}),
                 "workloads.iotTelemetry.warmup.seconds needs a rate above 0; with rate 0 (as fast as possible) set "
                 "workloads.iotTelemetry.warmup.messages instead");
}

TEST(scenario_validation, rate_zero_needs_measurement_messages) {
  EXPECT_MESSAGE(
      problem_with({"workloads.iotTelemetry.rate=0", "workloads.iotTelemetry.warmup.seconds=0"}),
      "workloads.iotTelemetry.rate 0 (as fast as possible) needs workloads.iotTelemetry.measurement.messages "
      "above 0");
}

TEST(scenario_validation, measurement_needs_seconds_or_messages) {
  EXPECT_MESSAGE(problem_with({"workloads.iotTelemetry.measurement.seconds=0"}),
                 "workloads.iotTelemetry.measurement needs seconds (at the rate) or messages (a count): both are 0");
}

TEST(scenario_validation, short_timeout_says_what_the_workload_needs_and_suggests_a_value) {
  const auto message = problem_with({"workloads.iotTelemetry.timeoutSeconds=30"});
  EXPECT_MESSAGE(message,
                 "workloads.iotTelemetry.timeoutSeconds is 30, but the workload needs 40 s: 10 s of warmup "
                 "(1 round(s) of 10 s) and 30 s of measurement at 1000 msg/s");
  EXPECT_MESSAGE(message, "set timeoutSeconds to at least 40, better 100");
}

TEST(scenario_validation, timeout_counts_warmup_rounds_delays_and_message_counts_at_the_rate) {
  const auto message =
      problem_with({"workloads.iotTelemetry.rate=100", "workloads.iotTelemetry.warmup.seconds=0",
                    "workloads.iotTelemetry.warmup.messages=1001", "workloads.iotTelemetry.warmup.rounds=3",
                    "workloads.iotTelemetry.warmup.roundDelaySeconds=2",
                    "workloads.iotTelemetry.measurement.seconds=120", "workloads.iotTelemetry.timeoutSeconds=158"});
  EXPECT_MESSAGE(message,
                 "timeoutSeconds is 158, but the workload needs 159 s: 39 s of warmup (3 round(s) of 11 s and "
                 "a 2 s delay after each) and 120 s of measurement at 100 msg/s");
  EXPECT_MESSAGE(message, "at least 159, better 219");
}

TEST(scenario_validation, join_seconds_needs_a_value_per_application) {
  auto tree = valid_tree();
  iot(tree)["applications"]["joinSeconds"] = YAML::Load("[0, 20]");
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.applications.joinSeconds has 2 value(s), but needs a value for "
                 "each of the 3 applications");
}

TEST(scenario_validation, negative_join_seconds_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["applications"]["joinSeconds"] = YAML::Load("[0, -1, 5]");
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.applications.joinSeconds[1] must be a whole number, 0 or more, "
                 "not \"-1\"");
}

TEST(scenario_validation, null_join_seconds_entry_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["applications"]["joinSeconds"] = YAML::Load("[0, ~, 5]");
  EXPECT_MESSAGE(problem(tree), "workloads.iotTelemetry.applications.joinSeconds[1] must be a whole number");
}

TEST(scenario_validation, join_after_the_timeout_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["applications"]["joinSeconds"] = YAML::Load("[0, 0, 140]");
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.applications.joinSeconds: the warmup (10 s) and the latest join "
                 "(140 s after the measurement's start) must be within "
                 "workloads.iotTelemetry.timeoutSeconds (150)");
}

TEST(scenario_validation, zero_caught_up_latency_is_rejected) {
  auto tree = valid_tree();
  iot(tree)["applications"]["caughtUpLatencyMillis"] = 0;
  EXPECT_MESSAGE(problem(tree),
                 "workloads.iotTelemetry.applications.caughtUpLatencyMillis must be a whole number, 1 or "
                 "more");
}

TEST(scenario_validation, profiling_options_are_rejected) {
  auto tree = valid_tree();
  tree["profiling"]["broker"]["asyncProfilerOptions"] = "event=cpu";
  EXPECT_MESSAGE(problem(tree), "profiling is not supported by magnetar-perf");
}

TEST(scenario_validation, output_name_with_a_slash_is_rejected) {
  auto tree = valid_tree();
  tree["output"]["name"] = "a/b";
  EXPECT_MESSAGE(problem(tree), "output.name \"a/b\" names a directory");
}

TEST(scenario_validation, several_problems_are_reported_together) {
  const auto message =
      problem_with({"workloads.iotTelemetry.devices.count=0", "workloads.iotTelemetry.topics.count=0"});
  EXPECT_MESSAGE(message, "devices.count");
  EXPECT_MESSAGE(message, "topics.count");
}

}  // namespace
}  // namespace magnetar::perf
