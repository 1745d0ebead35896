// managedLedgerCacheSizeMB: the broker's entry cache budget, split between its shards;
// one topic's cache holds at most its shard's share.
#include "broker/tests/policies_fixture.h"

#include <sstream>

namespace magnetar::broker::testing {
namespace {

class entry_cache_size_test : public policies_test {
 protected:
  entry_cache_size_test() {
    config.managed_ledger_cache_size_mb = 1;  // 512 KiB for each of the 2 shards
  }

  // pulsar_ml_cache_used_size from /metrics.
  double cache_used_bytes() {
    auto r = call("GET", "/metrics");
    std::istringstream lines(r.body);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("pulsar_ml_cache_used_size{")) return std::stod(line.substr(line.rfind(' ') + 1));
    }
    ADD_FAILURE() << "no pulsar_ml_cache_used_size in /metrics";
    return -1;
  }
};

TEST_F(entry_cache_size_test, a_topics_cache_holds_at_most_its_shards_share_of_the_budget) {
  auto client = connected_client();
  // A subscription that reads nothing yet: every entry added is expected to be read, so
  // only the size bound can keep it out of the cache.
  client->send(subscribe_command("cached", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(producer_command("cached", 2, 21, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  const std::string payload(32 << 10, 'c');
  for (int i = 0; i < 40; ++i) {  // 1.25 MiB
    client->send_payload(send_command(2, i), metadata("p", i), payload);
    client->expect(proto::BaseCommand::SEND_RECEIPT);
  }
  const auto used = cache_used_bytes();
  EXPECT_GT(used, 256 << 10) << "the cache holds entries";
  EXPECT_LE(used, 512 << 10);
}

}  // namespace
}  // namespace magnetar::broker::testing
