// Errors of the wire library: frames and commands that can't be decoded.
//
// Values are stable (logged, compared by tests). Which of them leave a byte stream
// usable is documented on frame_decoder. Turning these into a ServerError for the
// peer is the job of the protocol error mapping, not of the decoder.
// Thread-safety: plain values and pure functions.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::wire {

enum class errc {
  ok = 0,
  frame_too_large,     // a frame's declared size is above the receiver's limit
  malformed_frame,     // the sizes inside a frame don't add up, or a part is missing
  bad_command,         // the command bytes don't parse, or the command has no type
  unknown_command,     // the command's type number is not one this build knows
  bad_metadata,        // the message or broker-entry metadata doesn't parse
  checksum_mismatch,   // the crc32c of metadata and payload differs from the frame's
  invalid_topic_name,  // a topic name in none of the forms Pulsar accepts
};

constexpr std::string_view category_name(errc) { return "magnetar.wire"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::wire

template <>
struct std::is_error_code_enum<magnetar::wire::errc> : std::true_type {};
