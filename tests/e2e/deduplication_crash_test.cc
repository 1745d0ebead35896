// End to end: producer deduplication across a crash (SIGKILL) of a `magnetar
// standalone` process. Nothing is snapshotted before the kill (the snapshot interval is
// far away and the topic never closes), so the restarted broker knows the producer's
// sequence ids only by replaying the entries' metadata.
#include "broker/tests/raw_client.h"
#include "http/client.h"
#include "io/temp_directory.h"
#include "tests/e2e/standalone_process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <string>

namespace magnetar::e2e {
namespace {

using broker::testing::raw_client;

constexpr auto minus_one = std::numeric_limits<std::uint64_t>::max();
constexpr const char* topic = "persistent://public/default/dedup-crash";

int port_of(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

proto::BaseCommand producer_command(std::uint64_t request_id) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::PRODUCER);
  c.mutable_producer()->set_topic(topic);
  c.mutable_producer()->set_producer_id(1);
  c.mutable_producer()->set_request_id(request_id);
  c.mutable_producer()->set_producer_name("p");
  return c;
}

wire::frame send(raw_client& client, std::uint64_t sequence_id) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::SEND);
  c.mutable_send()->set_producer_id(1);
  c.mutable_send()->set_sequence_id(sequence_id);
  proto::MessageMetadata m;
  m.set_producer_name("p");
  m.set_sequence_id(sequence_id);
  m.set_publish_time(1'700'000'000'000);
  client.send_payload(c, m, "m" + std::to_string(sequence_id));
  return client.expect(proto::BaseCommand::SEND_RECEIPT);
}

TEST(deduplication_crash, AProducerResendingAfterAKill9GetsNoDuplicate) {
  io::temp_directory dir("dedup-crash");
  standalone_process server(MAGNETAR_BINARY, dir.path());
  server.start();
  const auto web = static_cast<std::uint16_t>(port_of(server.web_url()));
  auto enabled = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = web}, "POST",
                                      "/admin/v2/namespaces/public/default/deduplication", "true");
  ASSERT_TRUE(enabled) << enabled.error();
  ASSERT_EQ(enabled.value().status, 204) << enabled.value().body;
  {
    raw_client client(static_cast<std::uint16_t>(port_of(server.service_url())));
    client.connect();
    client.send(producer_command(1));
    client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
    for (std::uint64_t i = 0; i < 20; ++i) {
      ASSERT_NE(send(client, i).command.send_receipt().message_id().ledgerid(), minus_one);
    }
  }
  server.kill_now();
  server.start();

  raw_client client(static_cast<std::uint16_t>(port_of(server.service_url())));
  client.connect();
  client.send(producer_command(2));
  auto created = client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
  EXPECT_EQ(created.command.producer_success().last_sequence_id(), 19);
  // A client that never saw the last receipts sends those messages again.
  for (std::uint64_t i = 15; i < 20; ++i) {
    EXPECT_EQ(send(client, i).command.send_receipt().message_id().ledgerid(), minus_one) << "sequence id " << i;
  }
  EXPECT_NE(send(client, 20).command.send_receipt().message_id().ledgerid(), minus_one);
  auto stats = magnetar::http::call(
      magnetar::http::url{.host = "127.0.0.1", .port = static_cast<std::uint16_t>(port_of(server.web_url()))}, "GET",
      "/admin/v2/persistent/public/default/dedup-crash/internalStats");
  ASSERT_TRUE(stats) << stats.error();
  EXPECT_EQ(nlohmann::json::parse(stats.value().body)["numberOfEntries"], 21);
  server.stop();
}

}  // namespace
}  // namespace magnetar::e2e
