// Lookups as upstream clients make them: LOOKUP over the binary protocol, with and
// without an advertised listener's name, and GET /lookup/v2/topic/... for clients given
// an http:// service URL.
#include "broker/tests/broker_fixture.h"

#include <nlohmann/json.hpp>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;

class lookup_test : public broker_test {
 protected:
  lookup_test() {
    config.advertised_listeners =
        parse_advertised_listeners("internal:pulsar://127.0.0.1:16650,external:pulsar://ext.example.com:26650").value();
  }

  proto::CommandLookupTopicResponse lookup(const std::string& topic, const std::string& listener = "") {
    proto::BaseCommand command;
    command.set_type(proto::BaseCommand::LOOKUP);
    command.mutable_lookuptopic()->set_topic(topic);
    command.mutable_lookuptopic()->set_request_id(5);
    if (!listener.empty()) command.mutable_lookuptopic()->set_advertised_listener_name(listener);
    auto client = connected_client();
    client->send(command);
    return client->expect(proto::BaseCommand::LOOKUP_RESPONSE).command.lookuptopicresponse();
  }
};

TEST_F(lookup_test, WithoutAListenerNameTheInternalListenerIsAnswered) {
  const auto answer = lookup("persistent://public/default/t");
  EXPECT_EQ(answer.response(), proto::CommandLookupTopicResponse::Connect);
  EXPECT_EQ(answer.brokerserviceurl(), "pulsar://127.0.0.1:16650");
}

TEST_F(lookup_test, ANamedListenerIsAnsweredWithItsUrl) {
  const auto answer = lookup("persistent://public/default/t", "external");
  EXPECT_EQ(answer.response(), proto::CommandLookupTopicResponse::Connect);
  EXPECT_EQ(answer.brokerserviceurl(), "pulsar://ext.example.com:26650");
}

TEST_F(lookup_test, AnUnknownListenerFailsAsNotReadyWithUpstreamsMessage) {
  const auto answer = lookup("persistent://public/default/t", "nowhere");
  EXPECT_EQ(answer.response(), proto::CommandLookupTopicResponse::Failed);
  EXPECT_EQ(answer.error(), proto::ServiceNotReady);
  EXPECT_EQ(answer.message(), "the broker do not have nowhere listener");
}

TEST_F(lookup_test, HttpLookupAnswersTheBrokersUrlsAsLookupData) {
  auto r = call("GET", "/lookup/v2/topic/persistent/public/default/http-t");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto answer = json::parse(r.body);
  EXPECT_EQ(answer["brokerUrl"], "pulsar://127.0.0.1:16650");
  EXPECT_EQ(answer["nativeUrl"], answer["brokerUrl"]);
  EXPECT_EQ(answer["httpUrl"], server->web_service_url());
  // Upstream's C++ client reads brokerUrlTls or brokerUrlSsl and fails without either.
  EXPECT_EQ(answer["brokerUrlSsl"], "");
}

TEST_F(lookup_test, HttpLookupTakesAListenerName) {
  auto r = call("GET", "/lookup/v2/topic/persistent/public/default/http-t?listenerName=external");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["brokerUrl"], "pulsar://ext.example.com:26650");
}

TEST_F(lookup_test, HttpLookupOfAnUnknownDomainIsRefused) {
  EXPECT_EQ(call("GET", "/lookup/v2/topic/elsewhere/public/default/t").status, 412);
}

TEST_F(lookup_test, WithoutAutoCreationAnHttpLookupOfAMissingTopicIsNotFound) {
  server.reset();
  config.allow_auto_topic_creation = false;
  start();
  EXPECT_EQ(call("GET", "/lookup/v2/topic/persistent/public/default/missing").status, 404);
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/made").status, 204);
  EXPECT_EQ(call("GET", "/lookup/v2/topic/persistent/public/default/made").status, 200);
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/parted/partitions", "2").status, 204);
  EXPECT_EQ(call("GET", "/lookup/v2/topic/persistent/public/default/parted").status, 200);
}

}  // namespace
}  // namespace magnetar::broker::testing
