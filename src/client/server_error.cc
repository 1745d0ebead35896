#include "client/server_error.h"

#include <fmt/format.h>

namespace magnetar::client_detail {

client_errc to_client_errc(proto::ServerError e) {
  switch (e) {
    case proto::MetadataError: return client_errc::metadata_error;
    case proto::PersistenceError: return client_errc::persistence_error;
    case proto::AuthenticationError: return client_errc::authentication_error;
    case proto::AuthorizationError: return client_errc::authorization_error;
    case proto::ConsumerBusy: return client_errc::consumer_busy;
    case proto::ServiceNotReady: return client_errc::service_not_ready;
    case proto::ProducerBlockedQuotaExceededError:
    case proto::ProducerBlockedQuotaExceededException: return client_errc::not_allowed;
    case proto::ChecksumError: return client_errc::checksum_error;
    case proto::UnsupportedVersionError: return client_errc::unsupported_version;
    case proto::TopicNotFound: return client_errc::topic_not_found;
    case proto::SubscriptionNotFound: return client_errc::subscription_not_found;
    case proto::ConsumerNotFound: return client_errc::consumer_not_found;
    case proto::TooManyRequests: return client_errc::too_many_requests;
    case proto::TopicTerminatedError: return client_errc::topic_terminated;
    case proto::ProducerBusy: return client_errc::producer_busy;
    case proto::InvalidTopicName: return client_errc::invalid_topic_name;
    case proto::IncompatibleSchema: return client_errc::incompatible_schema;
    case proto::NotAllowedError: return client_errc::not_allowed;
    case proto::ProducerFenced: return client_errc::producer_fenced;
    default: return client_errc::broker_error;
  }
}

error server_failure(proto::ServerError e, std::string_view message, std::string_view context) {
  return error(to_client_errc(e), fmt::format("{}: {} ({})", context, message, proto::ServerError_Name(e)));
}

bool is_retriable(const error& e) {
  return e == client_errc::service_not_ready || e == client_errc::connect_error ||
         e == client_errc::connection_closed || e == client_errc::timeout || e == client_errc::too_many_requests ||
         e == client_errc::lookup_error || e == client_errc::metadata_error || e == client_errc::persistence_error ||
         e == client_errc::not_connected || e == client_errc::broker_error || e == client_errc::producer_busy ||
         e == client_errc::consumer_busy;
}

}  // namespace magnetar::client_detail
