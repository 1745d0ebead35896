#include "perf/cluster/standalone_process.h"

#include "http/client.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using testing::read_text;
using testing::temp_dir;

const std::filesystem::path built_magnetar = MAGNETAR_TEST_MAGNETAR_BIN;

#define SKIP_WITHOUT_MAGNETAR()                                                                  \
  if (!std::filesystem::exists(built_magnetar)) {                                                \
    GTEST_SKIP() << built_magnetar << " is not built (scripts/build release magnetar); skipped"; \
  }

TEST(standalone_conf, keeps_broker_keys_and_ignores_process_settings) {
  const auto conf = make_standalone_conf({{"managedLedgerDefaultEnsembleSize", "1"},
                                          {"PULSAR_MEM", "-Xmx2g"},
                                          {"PULSAR_GC", "-XX:+UseZGC"},
                                          {"JAVA_TOOL_OPTIONS", "-Dx=y"},
                                          {"GLIBC_TUNABLES", "glibc.malloc.arena_max=2"},
                                          {"PULSAR_PREFIX_brokerDeduplicationEnabled", "true"}});
  // PULSAR_PREFIX_ sorts first in the map.
  EXPECT_EQ(conf.text, "brokerDeduplicationEnabled=true\nmanagedLedgerDefaultEnsembleSize=1\n");
  EXPECT_EQ(conf.ignored, (std::vector<std::string>{"GLIBC_TUNABLES", "JAVA_TOOL_OPTIONS", "PULSAR_GC", "PULSAR_MEM"}));
  ASSERT_EQ(conf.notes.size(), 1u);
  EXPECT_NE(conf.notes[0].find("ignored"), std::string::npos);
  EXPECT_NE(conf.notes[0].find("PULSAR_MEM"), std::string::npos);
}

TEST(standalone_conf, is_empty_without_env) {
  const auto conf = make_standalone_conf({});
  EXPECT_TRUE(conf.text.empty());
  EXPECT_TRUE(conf.notes.empty());
}

TEST(standalone_ready_file, gives_both_urls) {
  auto urls = parse_ready_file(
      R"({"brokerServiceUrl": "pulsar://127.0.0.1:40001", "webServiceUrl": "http://127.0.0.1:40002", "pid": 7})");
  ASSERT_TRUE(urls);
  EXPECT_EQ(urls.value().service_url, "pulsar://127.0.0.1:40001");
  EXPECT_EQ(urls.value().admin_url, "http://127.0.0.1:40002");
  EXPECT_FALSE(parse_ready_file(R"({"brokerServiceUrl": "pulsar://x:1"})"));
  EXPECT_FALSE(parse_ready_file("not json"));
}

TEST(magnetar_binary, is_found_in_the_build_tree_layout) {
  temp_dir dir;
  std::filesystem::create_directories(dir.path() / "apps" / "magnetar-perf");
  std::filesystem::create_directories(dir.path() / "apps" / "magnetar");
  const auto bin = dir.path() / "apps" / "magnetar" / "magnetar";
  std::ofstream(bin) << "#!/bin/sh\n";
  std::filesystem::permissions(bin, std::filesystem::perms::owner_all);
  auto found = find_magnetar_binary_near(dir.path() / "apps" / "magnetar-perf" / "magnetar-perf");
  ASSERT_TRUE(found) << found.error();
  EXPECT_EQ(found.value(), std::filesystem::canonical(bin));
}

TEST(magnetar_binary, a_missing_one_says_where_it_looked) {
  temp_dir dir;
  auto found = find_magnetar_binary_near(dir.path() / "magnetar-perf");
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().detail().find("--magnetar-bin"), std::string::npos);
  EXPECT_FALSE(find_magnetar_binary(dir.path() / "nothing-here"));
}

TEST(standalone_process, starts_reports_its_urls_and_stops) {
  SKIP_WITHOUT_MAGNETAR();
  temp_dir dir;
  auto standalone = standalone_process::start({.magnetar_bin = built_magnetar, .directory = dir.path() / "standalone"});
  ASSERT_TRUE(standalone) << standalone.error();
  EXPECT_TRUE(standalone.value().service_url().starts_with("pulsar://127.0.0.1:"));
  EXPECT_TRUE(standalone.value().admin_url().starts_with("http://127.0.0.1:"));
  auto admin = http::url::parse(standalone.value().admin_url());
  ASSERT_TRUE(admin) << admin.error();
  auto clusters = http::call(admin.value(), "GET", "/admin/v2/clusters");
  ASSERT_TRUE(clusters) << clusters.error();
  EXPECT_EQ(clusters.value().status, 200);
  EXPECT_EQ(standalone.value().stop(), 0);  // a graceful stop on SIGTERM
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "standalone" / "standalone.log"));
}

TEST(standalone_process, writes_the_broker_keys_into_its_conf) {
  SKIP_WITHOUT_MAGNETAR();
  temp_dir dir;
  auto standalone = standalone_process::start(
      {.magnetar_bin = built_magnetar,
       .directory = dir.path(),
       .conf = make_standalone_conf({{"brokerDeduplicationEnabled", "true"}, {"PULSAR_MEM", "-Xmx1g"}})});
  ASSERT_TRUE(standalone) << standalone.error();
  EXPECT_NE(read_text(dir.path() / "standalone.conf").find("\nbrokerDeduplicationEnabled=true\n"), std::string::npos);
  EXPECT_EQ(read_text(dir.path() / "standalone.conf").find("PULSAR_MEM"), std::string::npos);
}

TEST(standalone_process, an_unknown_broker_key_fails_quoting_the_standalone) {
  SKIP_WITHOUT_MAGNETAR();
  temp_dir dir;
  auto standalone = standalone_process::start({.magnetar_bin = built_magnetar,
                                               .directory = dir.path(),
                                               .conf = make_standalone_conf({{"brokerDeduplicationEnabeld", "true"}})});
  ASSERT_FALSE(standalone);
  const auto& detail = standalone.error().detail();
  EXPECT_NE(detail.find("exited with code 1 before it was ready"), std::string::npos) << detail;
  EXPECT_NE(detail.find("brokerDeduplicationEnabeld"), std::string::npos) << detail;
  EXPECT_NE(detail.find("standalone.conf"), std::string::npos) << detail;
}

}  // namespace
}  // namespace magnetar::perf
