// Topic stats say who the clients are, as upstream's JSON does: each publisher's and
// consumer's clientVersion (from CONNECT), address, connectedSince and metadata.
#include "broker/tests/broker_fixture.h"

#include <nlohmann/json.hpp>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;

class client_stats_test : public broker_test {
 protected:
  json stats(const std::string& topic) {
    auto r = call("GET", "/admin/v2/persistent/public/default/" + topic + "/stats");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false);
  }
};

TEST_F(client_stats_test, APublisherCarriesItsClientVersionAndMetadata) {
  auto client = connected_client();
  auto command = producer_command("cs1", 1, 10, "p");
  auto* kv = command.mutable_producer()->add_metadata();
  kv->set_key("app");
  kv->set_value("gateway-7");
  client->send(command);
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  const auto publisher = stats("cs1")["publishers"][0];
  EXPECT_EQ(publisher["clientVersion"], "raw-test");
  EXPECT_EQ(publisher["metadata"]["app"], "gateway-7");
  EXPECT_FALSE(publisher["address"].get<std::string>().empty());
  EXPECT_FALSE(publisher["connectedSince"].get<std::string>().empty());
}

TEST_F(client_stats_test, AConsumerCarriesItsClientVersionAndMetadata) {
  auto client = connected_client();
  auto command = subscribe_command("cs2", "s", 1, 10);
  auto* kv = command.mutable_subscribe()->add_metadata();
  kv->set_key("team");
  kv->set_value("ops");
  client->send(command);
  client->expect(proto::BaseCommand::SUCCESS);
  const auto consumer = stats("cs2")["subscriptions"]["s"]["consumers"][0];
  EXPECT_EQ(consumer["clientVersion"], "raw-test");
  EXPECT_EQ(consumer["metadata"]["team"], "ops");
}

TEST_F(client_stats_test, AClientThatGaveNoVersionHasNoClientVersion) {
  raw_client client(server->broker_port());
  client.connect("");
  client.send(producer_command("cs3", 1, 10, "p"));
  client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
  const auto publisher = stats("cs3")["publishers"][0];
  EXPECT_FALSE(publisher.contains("clientVersion"));
  EXPECT_TRUE(publisher["metadata"].is_object());
}

}  // namespace
}  // namespace magnetar::broker::testing
