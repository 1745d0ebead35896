// Launch-time changes: --extends overlays, --set, environment overrides; and emit_yaml.
#include "perf/scenario/overrides.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/tests/scenario_files.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

namespace fs = std::filesystem;
using testing::scenario_files;

YAML::Node tree_of(const std::string& text) { return YAML::Load(text); }

const char* sample = R"(workloads:
  iotTelemetry:
    rate: 1000
    fraction: 0.5
    enabled: true
    prefix: persistent://public/default/t-
    env:
      PULSAR_MEM: -Xmx1g
      brokerDeduplicationEnabled: "true"
    podsPerApplication: 3
    list: [1, 2]
)";

// --extends

TEST(scenario_overlay, extends_overlay_applies_over_the_scenario_tree) {
  scenario_files files;
  files.write("base.yaml", "a: base\nb: base\n");
  const auto scenario = files.write("scenario.yaml", "extends: base.yaml\nb: scenario\nc: scenario\n");
  files.write("overlay.yaml", "c: overlay\nd: overlay\n");
  scenario_overrides overrides;
  overrides.extends = {files.dir() / "overlay.yaml"};
  auto tree = resolve_scenario(scenario, overrides, {});
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["a"].as<std::string>(), "base");
  EXPECT_EQ(tree.value()["b"].as<std::string>(), "scenario");
  EXPECT_EQ(tree.value()["c"].as<std::string>(), "overlay");
  EXPECT_EQ(tree.value()["d"].as<std::string>(), "overlay");
}

TEST(scenario_overlay, several_overlays_apply_in_order) {
  scenario_files files;
  const auto scenario = files.write("scenario.yaml", "v: scenario\n");
  files.write("one.yaml", "v: one\n");
  files.write("two.yaml", "v: two\n");
  scenario_overrides overrides;
  overrides.extends = {files.dir() / "one.yaml", files.dir() / "two.yaml"};
  auto tree = resolve_scenario(scenario, overrides, {});
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["v"].as<std::string>(), "two");
}

TEST(scenario_overlay, overlay_is_found_in_the_configs_folder_without_yaml_suffix) {
  scenario_files files;
  files.write("configs/profile-x.yaml", "x: 1\n");
  auto found = find_overlay("profile-x", files.dir());
  ASSERT_TRUE(found) << found.error();
  EXPECT_EQ(found.value(), files.dir() / "configs" / "profile-x.yaml");
}

TEST(scenario_overlay, overlay_path_with_configs_prefix_resolves_against_the_scenario_dir) {
  scenario_files files;
  files.write("configs/profile-broker.yaml", "x: 1\n");
  auto found = find_overlay("configs/profile-broker", files.dir());
  ASSERT_TRUE(found) << found.error();
  EXPECT_EQ(found.value(), files.dir() / "configs" / "profile-broker.yaml");
}

TEST(scenario_overlay, overlay_relative_to_the_working_directory_comes_first) {
  scenario_files files;
  files.write("cwd-side/o.yaml", "x: cwd\n");
  files.write("scenario-dir/cwd-side/o.yaml", "x: scenario\n");
  const auto relative = fs::relative(files.dir() / "cwd-side" / "o.yaml", fs::current_path());
  auto found = find_overlay(relative, files.dir() / "scenario-dir");
  ASSERT_TRUE(found) << found.error();
  EXPECT_EQ(fs::weakly_canonical(found.value()), fs::weakly_canonical(files.dir() / "cwd-side" / "o.yaml"));
}

TEST(scenario_overlay, missing_overlay_names_the_places_looked_at) {
  scenario_files files;
  auto found = find_overlay("nothing-here", files.dir());
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail().find("--extends nothing-here"), std::string::npos) << found.error();
  EXPECT_NE(found.error().detail().find("configs/nothing-here.yaml"), std::string::npos) << found.error();
}

// --set

TEST(scenario_set, keeps_an_integer_an_integer) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_set(tree, "workloads.iotTelemetry.rate=2500"));
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["rate"].as<int>(), 2500);
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["rate"].Tag(), "?");
}

TEST(scenario_set, rejects_text_for_an_integer_naming_the_path) {
  auto tree = tree_of(sample);
  auto done = apply_set(tree, "workloads.iotTelemetry.rate=abc");
  ASSERT_FALSE(done);
  EXPECT_EQ(done.error(), base::errc::invalid_argument);
  EXPECT_NE(done.error().detail().find("--set workloads.iotTelemetry.rate"), std::string::npos) << done.error();
  EXPECT_NE(done.error().detail().find("is not a whole number"), std::string::npos) << done.error();
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["rate"].as<int>(), 1000);
}

TEST(scenario_set, bool_takes_true_or_false_only) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_set(tree, "workloads.iotTelemetry.enabled=false"));
  EXPECT_FALSE(tree["workloads"]["iotTelemetry"]["enabled"].as<bool>());
  auto bad = apply_set(tree, "workloads.iotTelemetry.enabled=maybe");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().detail().find("true or false"), std::string::npos) << bad.error();
}

TEST(scenario_set, floating_accepts_whole_numbers) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_set(tree, "workloads.iotTelemetry.fraction=1"));
  EXPECT_DOUBLE_EQ(tree["workloads"]["iotTelemetry"]["fraction"].as<double>(), 1.0);
  EXPECT_FALSE(apply_set(tree, "workloads.iotTelemetry.fraction=half"));
}

TEST(scenario_set, quoted_string_stays_a_string_when_replaced) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_set(tree, "workloads.iotTelemetry.env.brokerDeduplicationEnabled=false"));
  const auto text = emit_yaml(tree);
  EXPECT_NE(text.find("brokerDeduplicationEnabled: \"false\""), std::string::npos) << text;
}

TEST(scenario_set, string_takes_any_text_including_equals_signs) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_set(tree, "workloads.iotTelemetry.env.PULSAR_MEM=-Xmx2g -Dx=y"));
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["env"]["PULSAR_MEM"].as<std::string>(), "-Xmx2g -Dx=y");
}

TEST(scenario_set, new_last_key_is_added_to_an_existing_mapping) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_set(tree, "workloads.iotTelemetry.env.journalMaxSizeMB=8192"));
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["env"]["journalMaxSizeMB"].as<std::string>(), "8192");
}

TEST(scenario_set, missing_intermediate_key_is_rejected_naming_it) {
  auto tree = tree_of(sample);
  auto done = apply_set(tree, "workloads.iotTelemetri.rate=5");
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().detail().find("workloads.iotTelemetri does not exist"), std::string::npos) << done.error();
}

TEST(scenario_set, scalar_in_the_middle_of_the_path_is_rejected) {
  auto tree = tree_of(sample);
  auto done = apply_set(tree, "workloads.iotTelemetry.rate.max=5");
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().detail().find("workloads.iotTelemetry.rate is a scalar, not a mapping"), std::string::npos)
      << done.error();
}

TEST(scenario_set, replacing_a_mapping_or_list_is_rejected) {
  auto tree = tree_of(sample);
  auto mapping = apply_set(tree, "workloads.iotTelemetry.env=x");
  ASSERT_FALSE(mapping);
  EXPECT_NE(mapping.error().detail().find("is a mapping"), std::string::npos) << mapping.error();
  auto list = apply_set(tree, "workloads.iotTelemetry.list=3");
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().detail().find("is a list"), std::string::npos) << list.error();
}

TEST(scenario_set, assignment_without_equals_is_rejected) {
  auto tree = tree_of(sample);
  auto done = apply_set(tree, "workloads.iotTelemetry.rate");
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().detail().find("expected path=value"), std::string::npos) << done.error();
}

TEST(scenario_set, applies_after_the_overlays_in_resolve_scenario) {
  scenario_files files;
  const auto scenario = files.write("s.yaml", "a:\n  rate: 1\n");
  files.write("o.yaml", "a:\n  rate: 2\n");
  scenario_overrides overrides;
  overrides.extends = {files.dir() / "o.yaml"};
  overrides.sets = {"a.rate=3"};
  auto tree = resolve_scenario(scenario, overrides, {});
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["a"]["rate"].as<int>(), 3);
}

// Environment

TEST(scenario_environment, overrides_an_existing_scalar_keeping_its_type) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_environment(tree, {{"MAGNETAR_PERF_WORKLOADS_IOTTELEMETRY_RATE", "2000"}}));
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["rate"].as<int>(), 2000);
}

TEST(scenario_environment, accepts_upstream_prefix) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_environment(tree, {{"PULSAR_PERFORMANCE_WORKLOADS_IOTTELEMETRY_PODSPERAPPLICATION", "7"}}));
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["podsPerApplication"].as<int>(), 7);
}

TEST(scenario_environment, matches_keys_that_contain_underscores) {
  auto tree = tree_of(sample);
  ASSERT_TRUE(apply_environment(tree, {{"MAGNETAR_PERF_WORKLOADS_IOTTELEMETRY_ENV_PULSAR_MEM", "-Xmx4g"}}));
  EXPECT_EQ(tree["workloads"]["iotTelemetry"]["env"]["PULSAR_MEM"].as<std::string>(), "-Xmx4g");
}

TEST(scenario_environment, ignores_names_that_match_no_setting) {
  auto tree = tree_of(sample);
  const auto before = emit_yaml(tree);
  ASSERT_TRUE(apply_environment(
      tree, {{"MAGNETAR_PERF_WORKLOADS_IOTTELEMETRY_RAET", "5"}, {"MAGNETAR_PERF_NEWKEY", "5"}, {"HOME", "/root"}}));
  EXPECT_EQ(emit_yaml(tree), before);
}

TEST(scenario_environment, wrong_type_is_rejected_naming_the_variable) {
  auto tree = tree_of(sample);
  auto done = apply_environment(tree, {{"MAGNETAR_PERF_WORKLOADS_IOTTELEMETRY_RATE", "fast"}});
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().detail().find("MAGNETAR_PERF_WORKLOADS_IOTTELEMETRY_RATE (workloads.iotTelemetry.rate)"),
            std::string::npos)
      << done.error();
}

TEST(scenario_environment, naming_a_mapping_is_rejected) {
  auto tree = tree_of(sample);
  auto done = apply_environment(tree, {{"MAGNETAR_PERF_WORKLOADS_IOTTELEMETRY_ENV", "x"}});
  ASSERT_FALSE(done);
  EXPECT_NE(done.error().detail().find("workloads.iotTelemetry.env is a mapping"), std::string::npos) << done.error();
}

TEST(scenario_environment, applies_after_set_and_only_when_enabled) {
  scenario_files files;
  const auto scenario = files.write("s.yaml", "a:\n  rate: 1\n");
  scenario_overrides overrides;
  overrides.sets = {"a.rate=3"};
  const std::map<std::string, std::string> environment = {{"MAGNETAR_PERF_A_RATE", "4"}};
  auto with = resolve_scenario(scenario, overrides, environment);
  ASSERT_TRUE(with) << with.error();
  EXPECT_EQ(with.value()["a"]["rate"].as<int>(), 4);
  overrides.environment = false;
  auto without = resolve_scenario(scenario, overrides, environment);
  ASSERT_TRUE(without) << without.error();
  EXPECT_EQ(without.value()["a"]["rate"].as<int>(), 3);
}

// emit_yaml

TEST(scenario_emit, quoted_strings_stay_quoted_and_round_trip) {
  auto tree = tree_of(sample);
  const auto text = emit_yaml(tree);
  EXPECT_NE(text.find("brokerDeduplicationEnabled: \"true\""), std::string::npos) << text;
  const auto again = YAML::Load(text);
  EXPECT_EQ(again["workloads"]["iotTelemetry"]["env"]["brokerDeduplicationEnabled"].Tag(), "!");
  EXPECT_EQ(again["workloads"]["iotTelemetry"]["rate"].as<int>(), 1000);
  EXPECT_EQ(emit_yaml(again), text);
}

}  // namespace
}  // namespace magnetar::perf
