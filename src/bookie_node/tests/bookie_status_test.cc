#include "bookie_node/bookie_status.h"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

namespace magnetar::bookie_node {
namespace {

using ::testing::HasSubstr;

bookie_status sample() {
  bookie_status s;
  s.id = "10.0.0.1:3181";
  s.server.adds_ok = 7;
  s.server.adds_failed = 2;
  s.server.add_micros = 3500;
  s.server.bytes_added = 700;
  s.directories = {{.path = "/data/j\"1", .free_bytes = 50, .total_bytes = 100},
                   {.path = "/data/l", .free_bytes = 2, .total_bytes = 100}};
  return s;
}

http::incoming_request get(std::string target) { return {.method = "GET", .target = std::move(target)}; }

TEST(bookie_status, metrics_use_bookkeepers_names_and_count_the_servers_answers) {
  const auto text = render_bookie_metrics(sample());
  EXPECT_THAT(text, HasSubstr("# TYPE bookie_SERVER_STATUS gauge\nbookie_SERVER_STATUS 1\n"));
  EXPECT_THAT(text, HasSubstr("bookkeeper_server_ADD_ENTRY_REQUEST_count{success=\"true\"} 7\n"));
  EXPECT_THAT(text, HasSubstr("bookkeeper_server_ADD_ENTRY_REQUEST_count{success=\"false\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("bookkeeper_server_ADD_ENTRY_REQUEST_sum{success=\"true\"} 3.5\n"));
  EXPECT_THAT(text, HasSubstr("bookie_WRITE_BYTES 700\n"));
}

TEST(bookie_status, metrics_count_the_journal_syncs_and_their_time_in_milliseconds) {
  auto status = sample();
  status.engine.journal_syncs = 4;
  status.engine.journal_sync_nanos = 2'500'000;
  const auto text = render_bookie_metrics(status);
  EXPECT_THAT(text, HasSubstr("bookie_journal_JOURNAL_SYNC_count{success=\"true\"} 4\n"));
  EXPECT_THAT(text, HasSubstr("bookie_journal_JOURNAL_SYNC_sum{success=\"true\"} 2.500\n"));
}

TEST(bookie_status, a_directory_past_the_threshold_is_not_writable_and_its_label_is_escaped) {
  const auto text = render_bookie_metrics(sample());
  EXPECT_THAT(text, HasSubstr("bookie_ledger_writable_dirs 1\n"));
  EXPECT_THAT(text, HasSubstr("magnetar_bookie_disk_usage_ratio{directory=\"/data/j\\\"1\"} 0.500000\n"));
}

TEST(bookie_status, a_read_only_bookie_reports_status_zero_and_read_only_state) {
  auto s = sample();
  s.read_only = true;
  EXPECT_THAT(render_bookie_metrics(s), HasSubstr("bookie_SERVER_STATUS 0\n"));
  const auto state = answer_bookie_http(s, get("/api/v1/bookie/state"));
  EXPECT_EQ(state.status, 200);
  const auto j = nlohmann::json::parse(state.body);
  EXPECT_EQ(j.at("readOnly"), true);
  EXPECT_EQ(j.at("running"), true);
}

TEST(bookie_status, heartbeat_and_info_answer_and_unknown_paths_are_404) {
  EXPECT_EQ(answer_bookie_http(sample(), get("/heartbeat")).body, "OK\n");
  const auto info = nlohmann::json::parse(answer_bookie_http(sample(), get("/api/v1/bookie/info")).body);
  EXPECT_EQ(info.at("freeSpace"), 52);
  EXPECT_EQ(info.at("totalSpace"), 200);
  EXPECT_EQ(answer_bookie_http(sample(), get("/admin/v2/brokers")).status, 404);
  EXPECT_EQ(answer_bookie_http(sample(), {.method = "POST", .target = "/metrics"}).status, 405);
}

}  // namespace
}  // namespace magnetar::bookie_node
