#include "base/log.h"
#include "base/version.h"
#include "broker/api/protocol_error.h"
#include "broker/protocol/connection.h"
#include "broker/protocol/handlers/handlers.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker::handlers {

namespace {
// The newest protocol version magnetar speaks (upstream clients send 21).
constexpr int newest_protocol_version = proto::v21;
}  // namespace

void connect(connection& conn, const proto::CommandConnect& command) {
  if (conn.is_connected()) {
    spdlog::warn("connection {} ({}): a second CONNECT: closing", conn.id(), conn.remote_address());
    conn.close();
    return;
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

void ping(connection& conn) {
  proto::BaseCommand pong;
  pong.set_type(proto::BaseCommand::PONG);
  pong.mutable_pong();
  conn.send(wire::encode_command(pong));
}

}  // namespace magnetar::broker::handlers
