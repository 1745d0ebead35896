#include "auth/authenticator.h"
#include "base/log.h"
#include "base/version.h"
#include "broker/api/protocol_error.h"
#include "broker/protocol/broker_context.h"
#include "broker/protocol/connection.h"
#include "broker/protocol/handlers/handlers.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace magnetar::broker::handlers {

namespace {
// The newest protocol version magnetar speaks (upstream clients send 21).
constexpr int newest_protocol_version = proto::v21;
// An ERROR that answers no request (the CONNECT has no request id): upstream sends -1.
constexpr std::uint64_t no_request_id = std::numeric_limits<std::uint64_t>::max();
}  // namespace

void connect(connection& conn, const proto::CommandConnect& command) {
  if (conn.is_connected()) {
    spdlog::warn("connection {} ({}): a second CONNECT: closing", conn.id(), conn.remote_address());
    conn.close();
    return;
  }
  if (const auto* authenticator = conn.broker().authenticator()) {
    const std::string method = command.has_auth_method_name() ? command.auth_method_name() : "none";
    auto who = method == "tls" ? authenticator->authenticate_tls(conn.peer_common_name())
                               : authenticator->authenticate(method, command.auth_data());
    if (!who) {
      // The reason goes to the log only, as upstream: a prober learns nothing from it.
      spdlog::info("connection {} ({}): authentication with method '{}' failed: {}", conn.id(), conn.remote_address(),
                   method, who.error());
      conn.send(error_frame(no_request_id, proto::AuthenticationError, "Failed to authenticate"));
      conn.close();
      return;
    }
    conn.set_principal(std::move(who).value(), command.feature_flags().supports_auth_refresh());
  }
  const int version = std::min(command.protocol_version(), newest_protocol_version);
  conn.set_connected(command.client_version(), version);
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::CONNECTED);
  auto& connected = *reply.mutable_connected();
  connected.set_server_version(fmt::format("magnetar-{}", base::version()));
  connected.set_protocol_version(version);
  connected.set_max_message_size(static_cast<std::int32_t>(conn.config().max_message_size));
  // Flags the broker honours; anything else stays at its default (off).
  connected.mutable_feature_flags()->set_supports_get_partitioned_metadata_without_auto_creation(true);
  // The st SDKs (ours and upstream's) refuse a broker that does not say this.
  connected.mutable_feature_flags()->set_supports_scalable_topics(true);
  conn.send(wire::encode_command(reply));
  spdlog::debug("connection {} ({}): connected, client {} protocol v{}", conn.id(), conn.remote_address(),
                command.client_version(), version);
}

void auth_response(connection& conn, const proto::CommandAuthResponse& command) {
  const auto* authenticator = conn.broker().authenticator();
  if (!authenticator || !conn.challenge_outstanding() || !conn.principal()) {
    spdlog::info("connection {} ({}): an AUTH_RESPONSE to no challenge: closing", conn.id(), conn.remote_address());
    conn.close();
    return;
  }
  const auto& response = command.response();
  auto who = authenticator->authenticate(response.auth_method_name(), response.auth_data());
  if (!who) {
    spdlog::info("connection {} ({}): refreshing the credentials failed: {}", conn.id(), conn.remote_address(),
                 who.error());
    conn.send(error_frame(no_request_id, proto::AuthenticationError, "Failed to authenticate"));
    conn.close();
    return;
  }
  if (who.value().role != conn.principal()->role) {
    spdlog::info("connection {} ({}): the refreshed credentials name role '{}', not '{}': closing", conn.id(),
                 conn.remote_address(), who.value().role, conn.principal()->role);
    conn.close();
    return;
  }
  conn.set_principal(std::move(who).value(), conn.supports_auth_refresh());
}

void ping(connection& conn) {
  proto::BaseCommand pong;
  pong.set_type(proto::BaseCommand::PONG);
  pong.mutable_pong();
  conn.send(wire::encode_command(pong));
}

}  // namespace magnetar::broker::handlers
