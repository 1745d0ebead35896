#include "perf/launcher/run_verdict.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

const auto clean_application = [](std::string subscription) {
  return application_outcome{.subscription = std::move(subscription),
                             .summary = nlohmann::json{{"orderingViolations", 0}, {"invalid", 0}}};
};

verdict_inputs passing() {
  verdict_inputs in{.gateways = {.exit_code = 0, .log = "g.log"},
                    .applications = {.exit_code = 0, .log = "a.log"},
                    .gateways_summary = nlohmann::json{{"sendErrors", 0}},
                    .timeout_seconds = 240};
  in.each_application = {clean_application("iot-application-0"), clean_application("iot-application-1")};
  return in;
}

bool mentions(const run_verdict& v, std::string_view text) {
  for (const auto& f : v.failures) {
    if (f.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(run_verdict, a_clean_run_passes) {
  const auto v = judge_run(passing());
  EXPECT_TRUE(v.passed);
  EXPECT_TRUE(v.failures.empty());
  EXPECT_EQ(v.missing_messages.at("iot-application-1"), 0u);
}

TEST(run_verdict, a_missing_message_fails_with_the_subscription_and_samples) {
  auto in = passing();
  in.each_application[1].missing_messages = 1;
  in.each_application[1].devices_missing = 1;
  in.each_application[1].missing_samples = {"device 17: sent 0..41, received 0..40 (1 missing)"};
  const auto v = judge_run(in);
  EXPECT_FALSE(v.passed);
  ASSERT_EQ(v.failures.size(), 1u);
  EXPECT_EQ(v.failures[0],
            "missing messages: iot-application-1: 1 messages of 1 devices (first: device 17: sent 0..41, received "
            "0..40 (1 missing))");
  EXPECT_EQ(v.missing_messages.at("iot-application-1"), 1u);
}

TEST(run_verdict, a_timeout_exit_code_says_timed_out) {
  auto in = passing();
  in.gateways.exit_code = 2;
  EXPECT_TRUE(mentions(judge_run(in), "gateways: timed out (timeoutSeconds: 240)"));
}

TEST(run_verdict, a_failed_workload_names_its_log) {
  auto in = passing();
  in.applications.exit_code = 1;
  EXPECT_TRUE(mentions(judge_run(in), "applications: failed with exit code 1, see a.log"));
}

TEST(run_verdict, a_workload_the_launcher_stopped_says_why) {
  auto in = passing();
  in.applications.exit_code = 143;
  in.applications.stopped_because = "the gateways failed";
  EXPECT_TRUE(mentions(judge_run(in), "applications: stopped by the launcher: the gateways failed"));
}

TEST(run_verdict, ordering_violations_and_invalid_messages_fail) {
  auto in = passing();
  in.each_application[0].summary = nlohmann::json{{"orderingViolations", 3}, {"invalid", 2}};
  const auto v = judge_run(in);
  EXPECT_TRUE(mentions(v, "iot-application-0: 3 ordering violations"));
  EXPECT_TRUE(mentions(v, "iot-application-0: 2 invalid messages"));
}

TEST(run_verdict, send_errors_fail) {
  auto in = passing();
  in.gateways_summary = nlohmann::json{{"sendErrors", 4}};
  EXPECT_TRUE(mentions(judge_run(in), "gateways: 4 send errors"));
}

TEST(run_verdict, missing_files_fail) {
  auto in = passing();
  in.gateways_summary.reset();
  in.each_application[0].summary.reset();
  in.each_application[1].state_error = "cannot read application-state.bin";
  const auto v = judge_run(in);
  EXPECT_TRUE(mentions(v, "gateways: no gateways-summary.json"));
  EXPECT_TRUE(mentions(v, "iot-application-0: no application-summary.json"));
  EXPECT_TRUE(mentions(v, "iot-application-1: device state not compared: cannot read application-state.bin"));
}

TEST(run_verdict, files_a_failed_workload_did_not_write_are_not_listed_again) {
  auto in = passing();
  in.gateways.exit_code = 1;
  in.gateways_summary.reset();
  for (auto& app : in.each_application) app.state_error = "cannot read gateways-state.bin";
  const auto v = judge_run(in);
  ASSERT_EQ(v.failures.size(), 1u) << v.failures[1];
  EXPECT_EQ(v.failures[0], "gateways: failed with exit code 1, see g.log");
}

}  // namespace
}  // namespace magnetar::perf

namespace magnetar::perf {
namespace {

verdict_inputs with_remote_applications() {
  auto in = passing();
  in.remote_applications = workload_outcome{.exit_code = 0, .log = "r.log"};
  in.each_remote_application = {clean_application("iot-application-0")};
  return in;
}

TEST(run_verdict, clean_remote_applications_pass_and_are_counted_apart) {
  const auto v = judge_run(with_remote_applications());
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.remote_missing_messages.at("iot-application-0"), 0u);
  EXPECT_FALSE(v.missing_messages.contains("iot-application-2"));
}

TEST(run_verdict, a_message_missing_in_the_remote_cluster_fails_naming_it_remote) {
  auto in = with_remote_applications();
  in.each_remote_application[0].missing_messages = 10;
  in.each_remote_application[0].devices_missing = 3;
  const auto v = judge_run(in);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(mentions(v, "missing messages: remote iot-application-0: 10 messages of 3 devices"));
  EXPECT_EQ(v.remote_missing_messages.at("iot-application-0"), 10u);
  EXPECT_EQ(v.missing_messages.at("iot-application-0"), 0u);
}

TEST(run_verdict, a_remote_ordering_violation_names_the_remote_folder) {
  auto in = with_remote_applications();
  in.each_remote_application[0].summary = nlohmann::json{{"orderingViolations", 2}, {"invalid", 0}};
  EXPECT_TRUE(mentions(judge_run(in),
                       "remote iot-application-0: 2 ordering violations (samples in "
                       "remote-applications/iot-application-0/ordering-violations.txt)"));
}

TEST(run_verdict, remote_applications_that_timed_out_say_so) {
  auto in = with_remote_applications();
  in.remote_applications->exit_code = 2;
  EXPECT_TRUE(mentions(judge_run(in), "remote applications: timed out (timeoutSeconds: 240), see r.log"));
}

}  // namespace
}  // namespace magnetar::perf
