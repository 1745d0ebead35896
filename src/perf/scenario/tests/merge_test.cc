// Inheritance: extends, merging, null deletes, and the files it rejects.
#include "perf/scenario/scenario_loader.h"
#include "perf/scenario/tests/scenario_files.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::scenario_files;

result<YAML::Node> resolve(const std::filesystem::path& file, const scenario_overrides& overrides = {}) {
  return resolve_scenario(file, overrides, {});
}

TEST(scenario_merge, mappings_merge_recursively_and_the_child_wins) {
  scenario_files files;
  files.write("base.yaml", "a:\n  x: 1\n  y: 2\n  deep:\n    keep: k\n    change: old\nb: base\n");
  const auto child = files.write("child.yaml", "extends: base.yaml\na:\n  y: 3\n  deep:\n    change: new\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["a"]["x"].as<int>(), 1);
  EXPECT_EQ(tree.value()["a"]["y"].as<int>(), 3);
  EXPECT_EQ(tree.value()["a"]["deep"]["keep"].as<std::string>(), "k");
  EXPECT_EQ(tree.value()["a"]["deep"]["change"].as<std::string>(), "new");
  EXPECT_EQ(tree.value()["b"].as<std::string>(), "base");
  EXPECT_FALSE(tree.value()["extends"].IsDefined());
}

TEST(scenario_merge, lists_and_scalars_replace_instead_of_merging) {
  scenario_files files;
  files.write("base.yaml", "list: [1, 2, 3]\nmap:\n  k: v\n");
  const auto child = files.write("child.yaml", "extends: base.yaml\nlist: [9]\nmap: scalar\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  ASSERT_EQ(tree.value()["list"].size(), 1u);
  EXPECT_EQ(tree.value()["list"][0].as<int>(), 9);
  EXPECT_EQ(tree.value()["map"].as<std::string>(), "scalar");
}

TEST(scenario_merge, explicit_null_deletes_the_inherited_entry) {
  scenario_files files;
  files.write("base.yaml", "a:\n  x: 1\n  y: 2\nb: 3\n");
  const auto child = files.write("child.yaml", "extends: base.yaml\na:\n  x: ~\nb: null\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_FALSE(tree.value()["a"]["x"].IsDefined());
  EXPECT_EQ(tree.value()["a"]["y"].as<int>(), 2);
  EXPECT_FALSE(tree.value()["b"].IsDefined());
}

TEST(scenario_merge, extends_list_applies_parents_in_order_then_the_file) {
  scenario_files files;
  files.write("first.yaml", "who: first\nonly_first: 1\nboth: first\n");
  files.write("second.yaml", "who: second\nboth: second\n");
  const auto child = files.write("child.yaml", "extends: [first.yaml, second.yaml]\nwho: child\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["who"].as<std::string>(), "child");
  EXPECT_EQ(tree.value()["both"].as<std::string>(), "second");
  EXPECT_EQ(tree.value()["only_first"].as<int>(), 1);
}

TEST(scenario_merge, parents_extend_recursively_relative_to_the_declaring_file) {
  scenario_files files;
  files.write("common/root.yaml", "level: root\nroot_only: yes\n");
  files.write("common/middle.yaml", "extends: root.yaml\nlevel: middle\n");
  const auto child = files.write("child.yaml", "extends: common/middle.yaml\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["level"].as<std::string>(), "middle");
  EXPECT_TRUE(tree.value()["root_only"].IsDefined());
}

TEST(scenario_merge, absolute_extends_paths_work) {
  scenario_files files;
  const auto base = files.write("elsewhere/base.yaml", "from: base\n");
  const auto child = files.write("child.yaml", "extends: " + base.string() + "\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["from"].as<std::string>(), "base");
}

TEST(scenario_merge, inheritance_cycle_is_rejected_naming_the_chain) {
  scenario_files files;
  files.write("a.yaml", "extends: b.yaml\n");
  files.write("b.yaml", "extends: a.yaml\n");
  auto tree = resolve(files.dir() / "a.yaml");
  ASSERT_FALSE(tree);
  EXPECT_EQ(tree.error(), base::errc::invalid_argument);
  EXPECT_NE(tree.error().detail().find("cycle"), std::string::npos) << tree.error();
  EXPECT_NE(tree.error().detail().find("a.yaml -> "), std::string::npos) << tree.error();
}

TEST(scenario_merge, missing_parent_is_rejected_naming_both_files) {
  scenario_files files;
  const auto child = files.write("child.yaml", "extends: nowhere.yaml\n");
  auto tree = resolve(child);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("nowhere.yaml"), std::string::npos) << tree.error();
  EXPECT_NE(tree.error().detail().find("extended by"), std::string::npos) << tree.error();
  EXPECT_NE(tree.error().detail().find("child.yaml"), std::string::npos) << tree.error();
}

TEST(scenario_merge, missing_scenario_file_is_rejected) {
  scenario_files files;
  auto tree = resolve(files.dir() / "absent.yaml");
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("absent.yaml does not exist"), std::string::npos) << tree.error();
}

TEST(scenario_merge, non_mapping_root_is_rejected_naming_the_file) {
  scenario_files files;
  const auto list = files.write("list.yaml", "- 1\n- 2\n");
  auto tree = resolve(list);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("list.yaml"), std::string::npos) << tree.error();
  EXPECT_NE(tree.error().detail().find("must be a YAML mapping"), std::string::npos) << tree.error();
}

TEST(scenario_merge, empty_file_is_rejected_as_not_a_mapping) {
  scenario_files files;
  const auto empty = files.write("empty.yaml", "");
  auto tree = resolve(empty);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("not empty"), std::string::npos) << tree.error();
}

TEST(scenario_merge, extends_that_is_a_mapping_is_rejected) {
  scenario_files files;
  const auto child = files.write("child.yaml", "extends:\n  file: base.yaml\n");
  auto tree = resolve(child);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("extends must be a file path or a list"), std::string::npos) << tree.error();
}

TEST(scenario_merge, empty_or_nested_extends_entry_is_rejected) {
  scenario_files files;
  files.write("base.yaml", "a: 1\n");
  const auto child = files.write("child.yaml", "extends: [base.yaml, [nested.yaml]]\n");
  auto tree = resolve(child);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("non-empty file path"), std::string::npos) << tree.error();
  EXPECT_NE(tree.error().detail().find("child.yaml"), std::string::npos) << tree.error();
}

TEST(scenario_merge, yaml_syntax_error_names_file_and_line) {
  scenario_files files;
  const auto bad = files.write("bad.yaml", "a: 1\nb: [unclosed\n");
  auto tree = resolve(bad);
  ASSERT_FALSE(tree);
  EXPECT_NE(tree.error().detail().find("bad.yaml: line"), std::string::npos) << tree.error();
}

TEST(scenario_merge, null_in_a_parent_deletes_what_an_earlier_parent_set) {
  scenario_files files;
  files.write("first.yaml", "a:\n  x: 1\n  y: 2\n");
  files.write("second.yaml", "a:\n  x: ~\n");
  const auto child = files.write("child.yaml", "extends: [first.yaml, second.yaml]\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_FALSE(tree.value()["a"]["x"].IsDefined());
  EXPECT_EQ(tree.value()["a"]["y"].as<int>(), 2);
}

TEST(scenario_merge, the_same_parent_twice_is_not_a_cycle) {
  scenario_files files;
  files.write("shared.yaml", "shared: 1\n");
  files.write("a.yaml", "extends: shared.yaml\n");
  files.write("b.yaml", "extends: shared.yaml\n");
  const auto child = files.write("child.yaml", "extends: [a.yaml, b.yaml]\n");
  auto tree = resolve(child);
  ASSERT_TRUE(tree) << tree.error();
  EXPECT_EQ(tree.value()["shared"].as<int>(), 1);
}

}  // namespace
}  // namespace magnetar::perf
