// Backlog quotas (destination_storage, size): producers refused or disconnected under
// the producer policies, the slowest subscription moved under eviction; the admin's
// backlogQuota and backlogQuotaMap.
#include "broker/tests/policies_fixture.h"

namespace magnetar::broker::testing {
namespace {

class backlog_quota_test : public policies_test {
 protected:
  backlog_quota_test() { config.backlog_quota_check_interval = std::chrono::milliseconds(200); }

  // A topic with `count` entries and a subscription "slow" that has consumed none.
  void topic_with_backlog(const std::string& topic, int count) {
    auto client = connected_client();
    publish(*client, topic, count);
    ASSERT_EQ(call("PUT", topic_path(topic) + "/subscription/slow", "earliest").status, 204);
    ASSERT_EQ(backlog(topic, "slow"), count);
  }

  void set_quota(std::int64_t limit_size, const std::string& policy) {
    auto body = nlohmann::json{{"limitSize", limit_size}, {"policy", policy}}.dump();
    ASSERT_EQ(call("POST", std::string(ns) + "/backlogQuota", body).status, 204);
  }
};

TEST_F(backlog_quota_test, AHoldQuotaRefusesNewProducersWithProducerBlockedQuotaExceededError) {
  topic_with_backlog("q1", 5);
  set_quota(10, "producer_request_hold");
  auto client = connected_client();
  auto refused = create_producer(*client, "q1", 7, "late", proto::BaseCommand::ERROR);
  EXPECT_EQ(refused.command.error().error(), proto::ProducerBlockedQuotaExceededError);
}

TEST_F(backlog_quota_test, AnExceptionQuotaRefusesNewProducersWithProducerBlockedQuotaExceededException) {
  topic_with_backlog("q2", 5);
  set_quota(10, "producer_exception");
  auto client = connected_client();
  auto refused = create_producer(*client, "q2", 7, "late", proto::BaseCommand::ERROR);
  EXPECT_EQ(refused.command.error().error(), proto::ProducerBlockedQuotaExceededException);
}

TEST_F(backlog_quota_test, TheCheckDisconnectsAttachedProducersOverAProducerQuota) {
  auto client = connected_client();
  publish(*client, "q3", 5);  // its producer stays attached
  ASSERT_EQ(call("PUT", topic_path("q3") + "/subscription/slow", "earliest").status, 204);
  set_quota(10, "producer_exception");
  auto closed = client->expect(proto::BaseCommand::CLOSE_PRODUCER);
  EXPECT_EQ(closed.command.close_producer().producer_id(), 1u);
}

TEST_F(backlog_quota_test, AProducerIsAdmittedOnceTheBacklogIsConsumed) {
  topic_with_backlog("q4", 5);
  set_quota(10, "producer_request_hold");
  auto client = connected_client();
  create_producer(*client, "q4", 7, "late", proto::BaseCommand::ERROR);
  ASSERT_EQ(call("POST", topic_path("q4") + "/subscription/slow/skip_all").status, 204);
  create_producer(*client, "q4", 8, "later");
}

TEST_F(backlog_quota_test, EvictionMovesTheSlowestSubscriptionAndLeavesProducersAlone) {
  topic_with_backlog("q5", 10);
  ASSERT_EQ(call("PUT", topic_path("q5") + "/subscription/fast", "latest").status, 204);
  const auto bytes = stats("q5")["backlogSize"].get<std::int64_t>();
  ASSERT_GT(bytes, 0);
  set_quota(bytes / 2, "consumer_backlog_eviction");
  EXPECT_TRUE(eventually([&] { return backlog("q5", "slow") < 10; }));
  EXPECT_LE(stats("q5")["backlogSize"].get<std::int64_t>(), bytes / 2);
  EXPECT_EQ(backlog("q5", "fast"), 0);
  auto client = connected_client();
  create_producer(*client, "q5", 7, "still-welcome");
}

TEST_F(backlog_quota_test, TheQuotaIsStoredInUpstreamsFormAndListedInTheMap) {
  EXPECT_EQ(call("GET", std::string(ns) + "/backlogQuota").status, 204);
  ASSERT_EQ(call("POST", std::string(ns) + "/backlogQuota", R"({"limit": 100, "policy": "producer_exception"})").status,
            204);
  const nlohmann::json stored{{"limit", 100}, {"limitSize", 100}, {"limitTime", -1}, {"policy", "producer_exception"}};
  EXPECT_EQ(nlohmann::json::parse(call("GET", std::string(ns) + "/backlogQuota").body), stored);
  EXPECT_EQ(nlohmann::json::parse(call("GET", std::string(ns) + "/backlogQuotaMap").body),
            (nlohmann::json{{"destination_storage", stored}}));
  EXPECT_EQ(call("DELETE", std::string(ns) + "/backlogQuota").status, 204);
  EXPECT_EQ(call("GET", std::string(ns) + "/backlogQuota").status, 204);
}

TEST_F(backlog_quota_test, AQuotaWithAnUnknownPolicyIsRefused) {
  EXPECT_EQ(call("POST", std::string(ns) + "/backlogQuota", R"({"limitSize": 100, "policy": "drop_it"})").status, 400);
  EXPECT_EQ(call("POST", std::string(ns) + "/backlogQuota", R"({"limitSize": 100})").status, 400);
}

class default_backlog_quota_test : public backlog_quota_test {
 protected:
  default_backlog_quota_test() {
    config.backlog_quota_default_limit_bytes = 10;
    config.backlog_quota_default_retention_policy = "producer_exception";
  }
};

TEST_F(default_backlog_quota_test, TheBrokerDefaultQuotaAppliesWithoutANamespaceQuota) {
  topic_with_backlog("q6", 5);
  auto client = connected_client();
  auto refused = create_producer(*client, "q6", 7, "late", proto::BaseCommand::ERROR);
  EXPECT_EQ(refused.command.error().error(), proto::ProducerBlockedQuotaExceededException);
}

}  // namespace
}  // namespace magnetar::broker::testing
