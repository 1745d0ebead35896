#include "broker/api/advertised_listeners.h"
#include "broker/api/topic_ownership.h"
#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/authorize.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/topic_registry.h"
#include "wire/topic_name.h"

namespace magnetar::broker::handlers {

namespace {

proto::BaseCommand lookup_reply(std::uint64_t request_id) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
  reply.mutable_lookuptopicresponse()->set_request_id(request_id);
  return reply;
}

void set_failed(proto::CommandLookupTopicResponse& response, const error& e) {
  response.set_response(proto::CommandLookupTopicResponse::Failed);
  response.set_error(server_error_of(e));
  response.set_message(message_of(e));
}

// In a cluster: the owner of the topic's bundle (Connect), or the broker that will
// place it (Redirect, authoritative), as topic_ownership decides.
void cluster_lookup(connection& conn, const proto::CommandLookupTopic& command, wire::topic_name name) {
  start_request(conn, [command, name = std::move(name)](std::shared_ptr<connection> self) -> awaitable<void> {
    auto reply = lookup_reply(command.request_id());
    auto& response = *reply.mutable_lookuptopicresponse();
    auto target = co_await self->broker().ownership()->lookup(name, command.authoritative());
    if (!target) {
      set_failed(response, target.error());
      self->send(wire::encode_command(reply));
      co_return;
    }
    // At the listener the client names, as the target broker advertises it.
    auto urls = lookup_urls_for(target.value().listeners, command.advertised_listener_name(), target.value().urls());
    if (!urls) {
      set_failed(response, urls.error());
    } else {
      response.set_response(target.value().redirect ? proto::CommandLookupTopicResponse::Redirect
                                                    : proto::CommandLookupTopicResponse::Connect);
      response.set_brokerserviceurl(urls.value().broker_url);
      if (!urls.value().broker_url_tls.empty()) response.set_brokerserviceurltls(urls.value().broker_url_tls);
      response.set_authoritative(target.value().authoritative);
    }
    self->send(wire::encode_command(reply));
  });
}

// A standalone serves every topic: the answer is "connect here", at the listener the
// client names (advertisedListeners), or at the broker's service URL. A cluster's
// broker asks the bundle ownership.
void answer_lookup(connection& conn, const proto::CommandLookupTopic& command, wire::topic_name name) {
  if (conn.broker().ownership() != nullptr) {
    cluster_lookup(conn, command, std::move(name));
    return;
  }
  auto reply = lookup_reply(command.request_id());
  auto& response = *reply.mutable_lookuptopicresponse();
  auto urls =
      lookup_urls_for(conn.broker().config().advertised_listeners, command.advertised_listener_name(),
                      {.broker_url = conn.broker().service_url(), .broker_url_tls = conn.broker().service_url_tls()});
  if (!urls) {
    set_failed(response, urls.error());
  } else {
    response.set_response(proto::CommandLookupTopicResponse::Connect);
    response.set_brokerserviceurl(urls.value().broker_url);
    if (!urls.value().broker_url_tls.empty()) response.set_brokerserviceurltls(urls.value().broker_url_tls);
    response.set_authoritative(true);
  }
  conn.send(wire::encode_command(reply));
}

}  // namespace

void lookup(connection& conn, const proto::CommandLookupTopic& command) {
  auto name = wire::topic_name::parse(command.topic());
  if (!command.has_topic() || !name) {
    auto reply = lookup_reply(command.request_id());
    auto& response = *reply.mutable_lookuptopicresponse();
    response.set_response(proto::CommandLookupTopicResponse::Failed);
    response.set_error(proto::InvalidTopicName);
    response.set_message(name ? "LOOKUP without topic" : message_of(name.error()));
    conn.send(wire::encode_command(reply));
    return;
  }
  if (conn.broker().access() == nullptr) {
    answer_lookup(conn, command, std::move(name).value());
    return;
  }
  start_request(conn, [command, name = std::move(name).value()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto allowed = co_await authorize(*self, topic_operation::lookup, name, "Client is not authorized to Lookup");
    if (!allowed) {
      auto reply = lookup_reply(command.request_id());
      set_failed(*reply.mutable_lookuptopicresponse(), allowed.error());
      self->send(wire::encode_command(reply));
      co_return;
    }
    answer_lookup(*self, command, name);
  });
}

void partitioned_metadata(connection& conn, const proto::CommandPartitionedTopicMetadata& command) {
  start_request(conn, [command](std::shared_ptr<connection> self) -> awaitable<void> {
    proto::BaseCommand reply;
    reply.set_type(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE);
    auto& response = *reply.mutable_partitionmetadataresponse();
    response.set_request_id(command.request_id());
    auto name = wire::topic_name::parse(command.topic());
    if (!name) {
      response.set_response(proto::CommandPartitionedTopicMetadataResponse::Failed);
      response.set_error(proto::InvalidTopicName);
      response.set_message(message_of(name.error()));
    } else if (auto allowed = co_await authorize(*self, topic_operation::lookup, name.value(),
                                                 "Client is not authorized to Get Partition Metadata");
               !allowed) {
      response.set_response(proto::CommandPartitionedTopicMetadataResponse::Failed);
      response.set_error(server_error_of(allowed.error()));
      response.set_message(message_of(allowed.error()));
    } else {
      auto partitions = co_await self->broker().topics().partitions_of(name.value());
      if (partitions) {
        response.set_response(proto::CommandPartitionedTopicMetadataResponse::Success);
        response.set_partitions(static_cast<std::uint32_t>(partitions.value()));
      } else {
        response.set_response(proto::CommandPartitionedTopicMetadataResponse::Failed);
        response.set_error(server_error_of(partitions.error()));
        response.set_message(message_of(partitions.error()));
      }
    }
    self->send(wire::encode_command(reply));
  });
}

void get_topics_of_namespace(connection& conn, const proto::CommandGetTopicsOfNamespace& command) {
  if (missing(conn, command.has_namespace_(), command.request_id(), "GET_TOPICS_OF_NAMESPACE", "namespace")) return;
  start_request(conn, [command](std::shared_ptr<connection> self) -> awaitable<void> {
    // Upstream's modes: persistent topics (the default), the non-persistent ones active
    // here, or both.
    if (auto allowed =
            co_await authorize_listing(*self, command.namespace_(), "Client is not authorized to GetTopicsOfNamespace");
        !allowed) {
      self->send(error_frame(command.request_id(), allowed.error()));
      co_return;
    }
    auto& registry = self->broker().topics();
    result<std::vector<std::string>> topics = std::vector<std::string>{};
    if (command.mode() != proto::CommandGetTopicsOfNamespace::NON_PERSISTENT) {
      topics = co_await registry.list_topics(command.namespace_());
    }
    if (!topics) {
      self->send(error_frame(command.request_id(), topics.error()));
      co_return;
    }
    if (command.mode() != proto::CommandGetTopicsOfNamespace::PERSISTENT) {
      for (auto& t : co_await registry.list_non_persistent_topics(command.namespace_())) {
        topics.value().push_back(std::move(t));
      }
    }
    proto::BaseCommand reply;
    reply.set_type(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE);
    auto& response = *reply.mutable_gettopicsofnamespaceresponse();
    response.set_request_id(command.request_id());
    for (const auto& t : topics.value()) response.add_topics(t);
    self->send(wire::encode_command(reply));
  });
}

}  // namespace magnetar::broker::handlers
