// Commands, metadata and byte helpers shared by the wire tests.
#pragma once

#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::wire::test_support {

inline std::vector<std::byte> bytes_of(std::string_view text) {
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}

inline std::string text_of(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

inline shared_bytes share(std::span<const std::byte> bytes) { return shared_bytes::copy_of(bytes); }

inline std::vector<std::byte> random_bytes(std::size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::vector<std::byte> bytes(size);
  for (auto& b : bytes) b = static_cast<std::byte>(random());
  return bytes;
}

inline proto::BaseCommand ping() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::PING);
  command.mutable_ping();
  return command;
}

inline proto::BaseCommand connect(std::string client_version) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CONNECT);
  auto* connect = command.mutable_connect();
  connect->set_client_version(std::move(client_version));
  connect->set_protocol_version(proto::v21);
  connect->mutable_feature_flags()->set_supports_broker_entry_metadata(true);
  return command;
}

// The schema has no CommandSend body yet; the type alone makes it a payload frame.
inline proto::BaseCommand send() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SEND);
  return command;
}

inline proto::BaseCommand message() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  return command;
}

inline proto::MessageMetadata metadata(std::uint64_t sequence_id) {
  proto::MessageMetadata metadata;
  metadata.set_producer_name("producer-1");
  metadata.set_sequence_id(sequence_id);
  metadata.set_publish_time(1'700'000'000'000);
  metadata.set_partition_key("key-" + std::to_string(sequence_id));
  auto* property = metadata.add_properties();
  property->set_key("origin");
  property->set_value("test");
  return metadata;
}

inline proto::BrokerEntryMetadata broker_entry_metadata(std::uint64_t index) {
  proto::BrokerEntryMetadata entry;
  entry.set_broker_timestamp(1'700'000'000'123);
  entry.set_index(index);
  return entry;
}

}  // namespace magnetar::wire::test_support
