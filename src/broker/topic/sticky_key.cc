#include "broker/topic/sticky_key.h"

#include "base/murmur3.h"

#include <boost/beast/core/detail/base64.hpp>

#include <string>

namespace magnetar::broker {

namespace {

constexpr std::string_view keyless = "NONE_KEY";

std::string base64_decoded(std::string_view text) {
  namespace b64 = boost::beast::detail::base64;
  std::string out(b64::decoded_size(text.size()), '\0');
  const auto [written, read] = b64::decode(out.data(), text.data(), text.size());
  out.resize(written);
  return out;
}

}  // namespace

std::uint16_t sticky_key_hash(std::string_view key) {
  // Upstream clears the sign bit, then takes the remainder by the ring size: the low 16 bits.
  return static_cast<std::uint16_t>((base::murmur3_32(key) & 0x7fffffffu) % key_hash_ring_size);
}

std::uint16_t sticky_key_hash(const dispatch_fields& fields) {
  if (fields.ordering_key) return sticky_key_hash(*fields.ordering_key);
  if (fields.partition_key) {
    if (fields.partition_key_b64_encoded) return sticky_key_hash(base64_decoded(*fields.partition_key));
    return sticky_key_hash(*fields.partition_key);
  }
  return sticky_key_hash(keyless);
}

std::uint16_t sticky_key_hash(const proto::MessageMetadata& metadata) {
  dispatch_fields fields{.partition_key_b64_encoded = metadata.partition_key_b64_encoded()};
  if (metadata.has_ordering_key()) fields.ordering_key = metadata.ordering_key();
  if (metadata.has_partition_key()) fields.partition_key = metadata.partition_key();
  return sticky_key_hash(fields);
}

}  // namespace magnetar::broker
