// Namespace retention: shown by the admin API, applied to a loaded topic's trimming.
#include "broker/tests/policies_fixture.h"

namespace magnetar::broker::testing {
namespace {

class retention_test : public policies_test {
 protected:
  retention_test() {
    // Keep everything by default; small ledgers that roll over at once.
    config.default_retention_time_minutes = -1;
    config.default_retention_size_mb = -1;
    config.managed_ledger_max_entries_per_ledger = 2;
    config.managed_ledger_min_ledger_rollover_time = std::chrono::minutes(0);
  }

  std::size_t ledgers(const std::string& topic) {
    auto r = call("GET", topic_path(topic) + "/internalStats");
    return nlohmann::json::parse(r.body)["ledgers"].size();
  }
};

TEST_F(retention_test, TheNamespaceRetentionIsShown) {
  ASSERT_EQ(call("POST", std::string(ns) + "/retention", R"({"retentionTimeInMinutes": 60, "retentionSizeInMB": 512})")
                .status,
            204);
  EXPECT_EQ(nlohmann::json::parse(call("GET", std::string(ns) + "/retention").body),
            (nlohmann::json{{"retentionTimeInMinutes", 60}, {"retentionSizeInMB", 512}}));
  EXPECT_EQ(nlohmann::json::parse(call("GET", ns).body)["retention_policies"]["retentionSizeInMB"], 512);
}

TEST_F(retention_test, ANamespaceRetentionOfNoneTrimsWhatTheBrokerDefaultKept) {
  auto client = connected_client();
  publish(*client, "r1", 8);  // no subscription: every closed ledger is consumed
  ASSERT_GT(ledgers("r1"), 2u);
  ASSERT_EQ(
      call("POST", std::string(ns) + "/retention", R"({"retentionTimeInMinutes": 0, "retentionSizeInMB": 0})").status,
      204);
  EXPECT_TRUE(eventually([&] { return ledgers("r1") == 1; }));
}

}  // namespace
}  // namespace magnetar::broker::testing
