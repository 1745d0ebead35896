#include "broker/api/protocol_error.h"

#include "broker/api/errc.h"
#include "ledger/errc.h"
#include "meta/errc.h"
#include "mledger/errc.h"
#include "wire/errc.h"
#include "wire/frame.h"

namespace magnetar::broker {

proto::ServerError server_error_of(const error& e) {
  const auto& code = e.code();
  if (code.category() == make_error_code(errc::ok).category()) {
    switch (static_cast<errc>(code.value())) {
      case errc::topic_not_found:
      case errc::namespace_not_found:
      case errc::tenant_not_found: return proto::TopicNotFound;
      case errc::subscription_not_found: return proto::SubscriptionNotFound;
      case errc::consumer_busy: return proto::ConsumerBusy;
      case errc::producer_busy: return proto::ProducerBusy;
      case errc::producer_fenced: return proto::ProducerFenced;
      case errc::service_not_ready: return proto::ServiceNotReady;
      case errc::persistence_error: return proto::PersistenceError;
      case errc::metadata_error: return proto::MetadataError;
      case errc::too_many_requests: return proto::TooManyRequests;
      case errc::topic_terminated: return proto::TopicTerminatedError;
      case errc::unsupported_version: return proto::UnsupportedVersionError;
      case errc::consumer_assign_error: return proto::ConsumerAssignError;
      case errc::producer_blocked_quota_hold: return proto::ProducerBlockedQuotaExceededError;
      case errc::producer_blocked_quota_exception: return proto::ProducerBlockedQuotaExceededException;
      case errc::not_authorized: return proto::AuthorizationError;
      case errc::not_allowed:
      case errc::precondition_failed:
      case errc::conflict: return proto::NotAllowedError;
      case errc::invalid_request:
      case errc::ok: return proto::UnknownError;
    }
  }
  if (code == wire::errc::invalid_topic_name) return proto::InvalidTopicName;
  if (code == wire::errc::checksum_mismatch) return proto::ChecksumError;
  if (code.category() == make_error_code(meta::errc::not_found).category()) return proto::MetadataError;
  if (code == mledger::errc::terminated) return proto::TopicTerminatedError;
  // Storage failures (a bookie, the managed ledger fenced or closing) are retriable
  // after a fresh lookup, which is what clients do on ServiceNotReady...
  if (code.category() == make_error_code(mledger::errc::closed).category()) return proto::ServiceNotReady;
  // ...except those that say the data itself failed to persist.
  if (code.category() == make_error_code(ledger::errc::no_such_entry).category()) return proto::PersistenceError;
  return proto::UnknownError;
}

std::string message_of(const error& e) {
  if (!e.detail().empty()) return e.detail();
  return e.code().message();
}

std::vector<std::byte> error_frame(std::uint64_t request_id, proto::ServerError code, const std::string& message) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::ERROR);
  auto& body = *command.mutable_error();
  body.set_request_id(request_id);
  body.set_error(code);
  body.set_message(message);
  return wire::encode_command(command);
}

std::vector<std::byte> error_frame(std::uint64_t request_id, const error& e) {
  return error_frame(request_id, server_error_of(e), message_of(e));
}

std::vector<std::byte> success_frame(std::uint64_t request_id) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SUCCESS);
  command.mutable_success()->set_request_id(request_id);
  return wire::encode_command(command);
}

}  // namespace magnetar::broker
