// Raw-frame tests of a producer name held by a connection that may be dead: a producer
// coming back under the name makes the broker ping the holder, which keeps the name only
// if it answers (connectionLivenessCheckTimeoutMillis, as upstream).
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

class producer_name_liveness_test : public broker_test {
 protected:
  void start_with_timeout(std::chrono::milliseconds timeout) {
    server.reset();
    config.connection_liveness_check_timeout = timeout;
    start();
  }
};

TEST_F(producer_name_liveness_test, ASilentHolderIsClosedAndTheNewProducerTakesTheName) {
  start_with_timeout(std::chrono::milliseconds(300));
  auto holder = connected_client();
  holder->send(producer_command("named", 1, 1, "gateway-0"));
  holder->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  // The holder reads nothing from here on, and so answers no PING: a client that is gone.
  auto comer = connected_client();
  comer->send(producer_command("named", 1, 2, "gateway-0"));
  comer->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  holder->expect(proto::BaseCommand::PING);
  EXPECT_TRUE(holder->closed_by_peer());
}

// A holder that answers keeps the name: producer_test.SecondProducerWithTheSameNameIsBusy.

TEST_F(producer_name_liveness_test, WithTheCheckOffTheNameIsBusyAtOnce) {
  start_with_timeout(std::chrono::milliseconds(0));
  auto holder = connected_client();
  holder->send(producer_command("named", 1, 1, "gateway-0"));
  holder->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto comer = connected_client();
  comer->send(producer_command("named", 1, 2, "gateway-0"));
  EXPECT_EQ(comer->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerBusy);
  EXPECT_FALSE(holder->next(std::chrono::milliseconds(200)));  // no PING went out
}

}  // namespace
}  // namespace magnetar::broker::testing
