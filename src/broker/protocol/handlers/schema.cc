#include "broker/protocol/connection.h"
#include "broker/protocol/handlers/handlers.h"

namespace magnetar::broker::handlers {

// magnetar keeps no schema registry yet: topics have no stored schema, and a producer's
// schema is accepted as declared (the broker stores payloads as they come).
void get_schema(connection& conn, const proto::CommandGetSchema& command) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::GET_SCHEMA_RESPONSE);
  auto& response = *reply.mutable_getschemaresponse();
  response.set_request_id(command.request_id());
  response.set_error_code(proto::TopicNotFound);
  response.set_error_message("the topic has no schema");
  conn.send(wire::encode_command(reply));
}

void get_or_create_schema(connection& conn, const proto::CommandGetOrCreateSchema& command) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE);
  auto& response = *reply.mutable_getorcreateschemaresponse();
  response.set_request_id(command.request_id());
  response.set_schema_version(std::string());
  conn.send(wire::encode_command(reply));
}

}  // namespace magnetar::broker::handlers
