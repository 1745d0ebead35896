// The Remote applications section of a geo-replicated run: its correctness, latency,
// replication and remote backlog figures, built from a run's data and from a run
// directory with the remote files.
#include "perf/report/remote_section.h"
#include "perf/report/figures.h"
#include "perf/report/run_report.h"
#include "perf/report/tests/synthetic_run.h"

#include <gtest/gtest.h>

#include <fstream>

namespace magnetar::perf::report {
namespace {

std::string markdown_of(const section& s) { return render_markdown(document{"t", {s}}); }

application_data remote_application(std::string subscription, int violations) {
  return {.subscription = std::move(subscription),
          .summary = nlohmann::json{{"unique", 1000},
                                    {"duplicates", 2},
                                    {"orderingViolations", violations},
                                    {"invalid", 0},
                                    {"endToEndLatencyMillis", {{"p50", 41.5}, {"p99", 88.0}, {"max", 120.0}}}}};
}

run_data geo_run() {
  run_data run;
  run.run_info = nlohmann::json{{"remoteMissingMessages", {{"iot-application-0", 0}, {"iot-application-1", 7}}}};
  run.remote.emplace();
  run.remote->applications = {remote_application("iot-application-0", 0), remote_application("iot-application-1", 0)};
  run.remote->has_replication_stats = true;
  run.remote->replication = {
      {.epoch_millis = 1000, .backlog = 500, .max_delay_seconds = 3, .replicators = 2, .rate_out = 900},
      {.epoch_millis = 2000, .backlog = 20, .max_delay_seconds = 1, .replicators = 2, .disconnected = 1}};
  run.remote->backlog["iot-application-0"] = {{.epoch_millis = 1000, .backlog = 40}, {.epoch_millis = 2000}};
  return run;
}

TEST(remote_section, names_each_remote_applications_missing_messages) {
  const auto text = markdown_of(remote_section(geo_run()));
  EXPECT_NE(text.find("| `iot-application-1` | 1,000 | 2 | 0 | 0 | 7 | – |"), std::string::npos) << text;
  EXPECT_NE(text.find("**Ordering violations, invalid or missing messages were found"), std::string::npos) << text;
}

TEST(remote_section, a_clean_remote_side_says_so) {
  auto run = geo_run();
  (*run.run_info)["remoteMissingMessages"]["iot-application-1"] = 0;
  EXPECT_NE(markdown_of(remote_section(run)).find("No ordering violations, invalid or missing messages."),
            std::string::npos);
}

TEST(remote_section, shows_end_to_end_latency_from_the_original_publish_time) {
  const auto text = markdown_of(remote_section(geo_run()));
  EXPECT_NE(text.find("| `iot-application-0` | 41.5 | – | 88.0 | – | 120 |"), std::string::npos) << text;
  EXPECT_NE(text.find("original publish time"), std::string::npos);
}

TEST(remote_section, shows_the_replication_backlog_and_delay) {
  const auto text = markdown_of(remote_section(geo_run()));
  EXPECT_NE(text.find("| Max replication backlog | 500 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| Final replication backlog | 20 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| Max replication delay | 3 s |"), std::string::npos) << text;
  EXPECT_NE(text.find("| Samples with a disconnected replicator | 1 of 2 |"), std::string::npos) << text;
  EXPECT_NE(text.find("| `iot-application-0` | 40 | 0 | 2 |"), std::string::npos) << text;
}

TEST(remote_section, a_run_without_a_replicator_says_nothing_was_replicated) {
  auto run = geo_run();
  run.remote->replication.clear();
  EXPECT_NE(markdown_of(remote_section(run)).find("**No replicator was found:** the local topics' stats"),
            std::string::npos);
}

TEST(remote_section, an_application_that_received_nothing_has_no_latency) {
  auto run = geo_run();
  (*run.remote->applications[0].summary)["unique"] = 0;
  const auto text = markdown_of(remote_section(run));
  EXPECT_NE(text.find("| `iot-application-0` | – | – | – | – | – |"), std::string::npos) << text;
}

TEST(remote_figures, a_comparison_gets_the_remote_applications_and_the_replicators) {
  const auto figures = key_figures(geo_run());
  const auto find = [&](const std::string& label) -> std::optional<double> {
    for (const auto& f : figures) {
      if (f.group == "Geo-replication" && f.label == label) return f.value;
    }
    return std::nullopt;
  };
  EXPECT_EQ(find("remote iot-application-1 missing"), 7);
  EXPECT_EQ(find("remote iot-application-0 end to end p99"), 88.0);
  EXPECT_EQ(find("max replication backlog"), 500);
  EXPECT_EQ(find("max replication delay"), 3);
}

TEST(remote_figures, a_single_cluster_run_has_none) {
  for (const auto& f : key_figures(run_data{})) EXPECT_NE(f.group, "Geo-replication");
}

class remote_report_test : public ::testing::Test {
 protected:
  std::filesystem::path run_dir() const { return _folder.path() / "run"; }
  void write(const std::string& relative, const std::string& text) const {
    std::filesystem::create_directories((run_dir() / relative).parent_path());
    std::ofstream(run_dir() / relative) << text;
  }
  testing::temporary_folder _folder;
};

TEST_F(remote_report_test, a_run_with_remote_applications_has_the_section_after_correctness) {
  testing::write_synthetic_run(run_dir());
  write("remote-applications/iot-application-0/application-summary.json",
        R"({"unique": 12, "orderingViolations": 0, "invalid": 0, "endToEndLatencyMillis": {"p50": 50}})");
  write("replication-stats.csv",
        "epochMillis,topic,remoteCluster,msgRateIn,msgRateOut,msgThroughputOut,replicationBacklog,connected,"
        "replicationDelayInSeconds\n1,t,remote,0,10,100,5,true,1\n");
  write("remote-topic-stats.csv",
        "epochMillis,topic,subscription,msgBacklog,msgInCounter,msgOutCounter\n1,t,iot-application-0,3,10,7\n");
  auto index = write_run_report(run_dir());
  ASSERT_TRUE(index) << index.error();
  const auto text = testing::read_file(run_dir() / "README.md");
  const auto correctness = text.find("## Correctness");
  const auto remote = text.find("## Remote applications");
  ASSERT_NE(remote, std::string::npos) << text;
  EXPECT_LT(correctness, remote);
  EXPECT_NE(text.find("| Max replication backlog | 5 |"), std::string::npos) << text;
  EXPECT_NE(text.find("[replication-stats.csv](replication-stats.csv)"), std::string::npos);
  // Drawn, or named in a note where gnuplot is missing.
  EXPECT_NE(text.find("replication-backlog"), std::string::npos) << text;
}

TEST_F(remote_report_test, a_single_cluster_run_has_no_remote_section) {
  testing::write_synthetic_run(run_dir());
  ASSERT_TRUE(write_run_report(run_dir()));
  EXPECT_EQ(testing::read_file(run_dir() / "README.md").find("Remote applications"), std::string::npos);
}

}  // namespace
}  // namespace magnetar::perf::report
