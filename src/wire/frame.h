// The Pulsar frame: its layout, the decoded form, the encoders, and the decoder of one
// complete frame (frame_decoder.h cuts a byte stream into frames).
//
// A simple frame is
//   [total size][command size][BaseCommand]
// and a payload frame (SEND from a producer, MESSAGE to a consumer) goes on with
//   [0x0e02][broker entry metadata size][BrokerEntryMetadata]   optional
//   [0x0e01][crc32c]                                            optional
//   [metadata size][MessageMetadata][payload]
// Sizes are big-endian u32 and magics big-endian u16. `total size` counts the bytes
// after itself. The crc32c (seed 0) covers everything after it to the end of the frame,
// so it travels unchanged from producer to storage to consumer while the command and
// the broker's entry metadata in front of it change.
//
// Thread-safety: the functions are pure. A frame is a value; its byte slices share a
// read-only buffer (see shared_bytes.h).
#pragma once

#include "base/result.h"
#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace magnetar::wire {

inline constexpr std::uint16_t magic_crc32c = 0x0e01;
inline constexpr std::uint16_t magic_broker_entry_metadata = 0x0e02;

// Pulsar's limit on a frame's total size. Its default maximum message size is 10 KiB
// less, which leaves room for the command and metadata; a broker configured for larger
// messages raises both.
inline constexpr std::size_t default_max_frame_size = 5 * 1024 * 1024;

struct frame {
  proto::BaseCommand command;

  // The rest is set for payload frames only.
  bool has_payload = false;
  std::optional<proto::BrokerEntryMetadata> broker_entry_metadata;
  // No 0x0e01 magic means the sender sent no checksum, which the protocol allows.
  bool has_checksum = false;
  // A mismatch is not a decode error: Pulsar answers the producer with SEND_ERROR
  // ChecksumError and keeps the connection. Metadata and payload of such a frame are
  // not to be trusted; `metadata` is left empty and `payload` too when they don't parse.
  bool checksum_valid = true;
  proto::MessageMetadata metadata;
  // [metadata size][MessageMetadata][payload] as received: what the checksum covers and
  // what the broker stores as the entry.
  shared_bytes metadata_and_payload;
  shared_bytes payload;
};

// SEND and MESSAGE: the commands followed by metadata and payload.
bool is_payload_command(proto::BaseCommand::Type type);

// "SEND", or "untyped command" for a command without a type; for logs and error details.
std::string_view command_name(const proto::BaseCommand& command);

struct payload_options {
  bool with_checksum = true;
  // Written in front of the checksum when set (broker to consumer only).
  const proto::BrokerEntryMetadata* broker_entry_metadata = nullptr;
};

// The encoders take any command type and don't enforce a peer's maximum frame size: that
// is the caller's policy. A frame beyond 4 GiB, which the format can't express, asserts.
std::vector<std::byte> encode_command(const proto::BaseCommand& command);
std::vector<std::byte> encode_payload_command(const proto::BaseCommand& command, const proto::MessageMetadata& metadata,
                                              std::span<const std::byte> payload, const payload_options& options = {});

// The same, appending to `out`, so that several frames go out in one write.
void append_command(std::vector<std::byte>& out, const proto::BaseCommand& command);
void append_payload_command(std::vector<std::byte>& out, const proto::BaseCommand& command,
                            const proto::MessageMetadata& metadata, std::span<const std::byte> payload,
                            const payload_options& options = {});

// A payload frame up to where `metadata_and_payload` starts. Written followed by a stored
// entry's [metadata size][metadata][payload], it forms the whole frame, so an entry is
// sent to many consumers without being copied or re-serialised.
std::vector<std::byte> encode_payload_header(const proto::BaseCommand& command,
                                             std::span<const std::byte> metadata_and_payload,
                                             const payload_options& options = {});

// Decodes exactly one frame, `bytes` running from its total size field to its end. The
// frame's byte slices share `bytes`' buffer. Errors: malformed_frame, bad_command,
// unknown_command, bad_metadata; a size limit is frame_decoder's business.
result<frame> decode_frame(shared_bytes bytes);
// The same into a default-constructed `out`, sparing the moves of its protobuf messages.
result<void> decode_frame(shared_bytes bytes, frame& out);

}  // namespace magnetar::wire
