// impairment_schedule: timed impairments act at their anchor plus start, end after their
// duration, wait for an anchor that has not come, and a failure stops the schedule.
#include "perf/network/impairment_schedule.h"
#include "perf/network/tests/plan_fixture.h"

#include <gtest/gtest.h>

#include <fstream>

namespace magnetar::perf {
namespace {

using namespace std::chrono_literals;
using std::chrono::system_clock;
using testing::fake_network_host;
using testing::plan_of;

const system_clock::time_point t0 = system_clock::time_point(1'700'000'000'000ms);

class impairment_schedule_test : public ::testing::Test {
 protected:
  void make(std::vector<impairment_settings> impairments) {
    engine =
        std::make_unique<impairment_engine>(host, "router", plan_of(std::move(impairments)), offload_mode::on, nullptr);
    schedule = std::make_unique<impairment_schedule>(
        *engine, [this] { return anchors; }, [this](const std::string& f) { failures.push_back(f); });
  }
  impairment_state state(std::size_t i) const { return engine->records()[i].state; }

  fake_network_host host;
  anchor_times anchors;
  std::vector<std::string> failures;
  std::unique_ptr<impairment_engine> engine;
  std::unique_ptr<impairment_schedule> schedule;
};

TEST_F(impairment_schedule_test, acts_at_the_anchor_plus_start_and_ends_after_the_duration) {
  make({{.name = "cut",
         .kind = impairment_kind::partition,
         .from = {"gateways"},
         .to = {"broker-0"},
         .start = 10s,
         .duration = 5s}});
  anchors.measurement_started = t0;
  schedule->step(t0 + 9s);
  EXPECT_EQ(state(0), impairment_state::pending);
  schedule->step(t0 + 10s);
  EXPECT_EQ(state(0), impairment_state::active);
  schedule->step(t0 + 14s);
  EXPECT_EQ(state(0), impairment_state::active);
  schedule->step(t0 + 15s);
  EXPECT_EQ(state(0), impairment_state::ended);
}

TEST_F(impairment_schedule_test, waits_for_its_own_anchor) {
  make({{.name = "cut",
         .kind = impairment_kind::partition,
         .from = {"gateways"},
         .to = {"broker-0"},
         .start = 1s,
         .anchor = impairment_anchor::gateways}});
  anchors.measurement_started = t0;
  schedule->step(t0 + 60s);
  EXPECT_EQ(state(0), impairment_state::pending);
  anchors.gateways_started = t0;
  schedule->step(t0 + 60s);
  EXPECT_EQ(state(0), impairment_state::active);
}

TEST_F(impairment_schedule_test, whole_run_impairments_are_left_to_the_launcher) {
  make({{.name = "cut", .kind = impairment_kind::partition, .from = {"gateways"}, .to = {"broker-0"}}});
  anchors.measurement_started = t0;
  schedule->step(t0 + 60s);
  EXPECT_EQ(state(0), impairment_state::pending);
}

TEST_F(impairment_schedule_test, a_failure_is_reported_once_and_stops_it) {
  make({{.name = "cut", .kind = impairment_kind::partition, .from = {"gateways"}, .to = {"broker-0"}, .start = 1s},
        {.name = "later", .kind = impairment_kind::partition, .from = {"gateways"}, .to = {"broker-1"}, .start = 2s}});
  host.failing = "nft -f";
  anchors.measurement_started = t0;
  schedule->step(t0 + 5s);
  schedule->step(t0 + 6s);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].find("network impairment cut"), std::string::npos);
  EXPECT_EQ(state(1), impairment_state::pending);
}

TEST(read_anchor_times, finds_the_gateways_events) {
  const auto file = std::filesystem::temp_directory_path() / "magnetar-anchor-test-events.csv";
  std::ofstream(file) << "epochMillis,source,event\n1000,launcher,run-started\n2000,gateways,gateways-started\n"
                         "7000,gateways,measurement-started\n";
  const auto anchors = read_anchor_times(file);
  std::filesystem::remove(file);
  EXPECT_EQ(anchors.gateways_started, system_clock::time_point(2000ms));
  EXPECT_EQ(anchors.measurement_started, system_clock::time_point(7000ms));
}

}  // namespace
}  // namespace magnetar::perf
