// sticky_key: which key a Key_Shared subscription orders an entry by, and its hash.
//
// The key is the message's ordering key, else its partition key (decoded when the
// producer sent it base64-encoded), else a fixed stand-in, so keyless messages all share
// one hash, as upstream. The hash is murmur3_32 of the key folded onto the 16-bit ring
// (0..65535) that consumers' hash ranges cover; upstream folds it the same way, so a
// consumer's STICKY ranges select the keys an upstream broker would give it.
// A batch entry is dispatched by its metadata's key (the first message's, which is every
// message's under key-based batching). Pure functions; thread-safe.
#pragma once

#include "broker/topic/dispatch_fields.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <string_view>

namespace magnetar::broker {

inline constexpr std::uint32_t key_hash_ring_size = 65536;

std::uint16_t sticky_key_hash(std::string_view key);
std::uint16_t sticky_key_hash(const proto::MessageMetadata& metadata);
std::uint16_t sticky_key_hash(const dispatch_fields& fields);

}  // namespace magnetar::broker
