#include "wire/frame.h"

#include "base/varint.h"
#include "wire/big_endian.h"
#include "wire/crc32c.h"
#include "wire/errc.h"

#include <fmt/format.h>

#include <climits>
#include <cstring>
#include <limits>

namespace magnetar::wire {
namespace {

constexpr std::size_t size_field = 4;
constexpr std::size_t magic_field = 2;
constexpr std::size_t checksum_field = 4;

// protobuf serialises at most 2 GiB; the encoders' callers bound sizes well below that.
std::uint32_t message_size(const google::protobuf::MessageLite& message) {
  const std::size_t size = message.ByteSizeLong();
  MAGNETAR_ASSERT(size <= static_cast<std::size_t>(INT_MAX), "{} of {} bytes can't be serialised",
                  message.GetTypeName(), size);
  return static_cast<std::uint32_t>(size);
}

std::byte* put_u16(std::byte* p, std::uint16_t v) {
  store_be16(p, v);
  return p + 2;
}

std::byte* put_u32(std::byte* p, std::uint32_t v) {
  store_be32(p, v);
  return p + 4;
}

// Uses the size cached by the message_size() call just before.
std::byte* put_message(std::byte* p, const google::protobuf::MessageLite& message) {
  auto* end = message.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(p));
  return reinterpret_cast<std::byte*>(end);
}

bool parse(google::protobuf::MessageLite& message, std::span<const std::byte> bytes) {
  if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return false;
  return message.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
}

// Appends a payload frame up to where [metadata size] starts, for a section (metadata size,
// metadata, payload) of `section_size` bytes, and reserves room for `then_appended`
// more. Returns where the crc field is in `out`, still zero, if there is one.
std::optional<std::size_t> append_payload_front(std::vector<std::byte>& out, const proto::BaseCommand& command,
                                                std::size_t section_size, std::size_t then_appended,
                                                const payload_options& options) {
  const auto* entry_metadata = options.broker_entry_metadata;
  const std::uint32_t command_size = message_size(command);
  const std::uint32_t entry_metadata_size = entry_metadata ? message_size(*entry_metadata) : 0;
  const std::size_t front = 2 * size_field + command_size +
                            (entry_metadata ? magic_field + size_field + entry_metadata_size : 0) +
                            (options.with_checksum ? magic_field + checksum_field : 0);
  const std::size_t total = front - size_field + section_size;
  MAGNETAR_ASSERT(total <= std::numeric_limits<std::uint32_t>::max(),
                  "a frame of {} bytes is beyond the format's 4 GiB", total);

  const std::size_t at = out.size();
  out.reserve(at + front + then_appended);
  out.resize(at + front);
  std::byte* p = out.data() + at;
  p = put_u32(p, static_cast<std::uint32_t>(total));
  p = put_u32(p, command_size);
  p = put_message(p, command);
  if (entry_metadata) {
    p = put_u16(p, magic_broker_entry_metadata);
    p = put_u32(p, entry_metadata_size);
    p = put_message(p, *entry_metadata);
  }
  if (!options.with_checksum) return std::nullopt;
  p = put_u16(p, magic_crc32c);
  return static_cast<std::size_t>(p - out.data());
}

// The type number at the start of command bytes that don't parse: writers put field 1
// (the type) first, so it often survives whatever broke the rest.
std::optional<std::uint64_t> peek_type_number(std::span<const std::byte> bytes) {
  constexpr std::byte type_tag{0x08};  // field 1, varint
  if (bytes.empty() || bytes[0] != type_tag) return std::nullopt;
  const auto r = base::read_varint(bytes.subspan(1), base::varint_rules::protobuf);
  if (r.status != base::varint_status::ok) return std::nullopt;
  return r.value;
}

std::string type_number_name(std::uint64_t number) {
  if (number <= static_cast<std::uint64_t>(INT_MAX) && proto::BaseCommand::Type_IsValid(static_cast<int>(number))) {
    return proto::BaseCommand::Type_Name(static_cast<proto::BaseCommand::Type>(number));
  }
  return fmt::format("type {}", number);
}

// proto2 keeps an enum number it doesn't know as an unknown field instead of setting it.
std::optional<std::uint64_t> unknown_type_number(const proto::BaseCommand& command) {
  const auto& unknown = command.GetReflection()->GetUnknownFields(command);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto& field = unknown.field(i);
    if (field.number() == 1 && field.type() == google::protobuf::UnknownField::TYPE_VARINT) {
      return field.varint();
    }
  }
  return std::nullopt;
}

// Everything after the command of a SEND or MESSAGE frame.
result<void> decode_payload(frame& f, const shared_bytes& rest) {
  const std::string_view name = command_name(f.command);
  f.has_payload = true;
  std::size_t at = 0;
  const auto left = [&] { return rest.size() - at; };
  const auto magic_here = [&](std::uint16_t magic) {
    return left() >= magic_field && load_be16(rest.data() + at) == magic;
  };

  if (rest.empty()) return fail(errc::malformed_frame, fmt::format("{} frame ends after its command", name));

  if (magic_here(magic_broker_entry_metadata)) {
    if (left() < magic_field + size_field) {
      return fail(errc::malformed_frame, fmt::format("{} frame: broker entry metadata has no size", name));
    }
    const std::uint32_t size = load_be32(rest.data() + at + magic_field);
    at += magic_field + size_field;
    if (size > left()) {
      return fail(
          errc::malformed_frame,
          fmt::format("{} frame: broker entry metadata of {} bytes, but {} bytes are left", name, size, left()));
    }
    if (!parse(f.broker_entry_metadata.emplace(), rest.span().subspan(at, size))) {
      return fail(errc::bad_metadata,
                  fmt::format("{} frame: broker entry metadata of {} bytes doesn't parse", name, size));
    }
    at += size;
  }

  if (magic_here(magic_crc32c)) {
    if (left() < magic_field + checksum_field) {
      return fail(errc::malformed_frame, fmt::format("{} frame: checksum magic without a checksum", name));
    }
    const std::uint32_t expected = load_be32(rest.data() + at + magic_field);
    at += magic_field + checksum_field;
    f.has_checksum = true;
    f.checksum_valid = crc32c(rest.data() + at, left()) == expected;
  }

  // Past a failed checksum, sizes that don't add up are most likely the corruption the
  // checksum caught, so the frame is returned flagged and the producer hears
  // ChecksumError rather than losing its connection.
  f.metadata_and_payload = rest.slice(at);
  const shared_bytes& section = f.metadata_and_payload;
  if (section.size() < size_field) {
    if (!f.checksum_valid) return success();
    return fail(errc::malformed_frame, fmt::format("{} frame has no metadata size", name));
  }
  const std::uint32_t metadata_size = load_be32(section.data());
  if (metadata_size > section.size() - size_field) {
    if (!f.checksum_valid) return success();
    return fail(errc::malformed_frame, fmt::format("{} frame: metadata of {} bytes, but {} bytes are left", name,
                                                   metadata_size, section.size() - size_field));
  }
  if (!parse(f.metadata, section.span().subspan(size_field, metadata_size))) {
    f.metadata.Clear();
    if (!f.checksum_valid) return success();
    return fail(errc::bad_metadata,
                fmt::format("{} frame: message metadata of {} bytes doesn't parse", name, metadata_size));
  }
  f.payload = section.slice(size_field + metadata_size);
  return success();
}

}  // namespace

bool is_payload_command(proto::BaseCommand::Type type) {
  return type == proto::BaseCommand::SEND || type == proto::BaseCommand::MESSAGE;
}

std::string_view command_name(const proto::BaseCommand& command) {
  if (!command.has_type()) return "untyped command";
  return proto::BaseCommand::Type_Name(command.type());
}

void append_command(std::vector<std::byte>& out, const proto::BaseCommand& command) {
  const std::uint32_t command_size = message_size(command);
  const std::size_t at = out.size();
  out.resize(at + 2 * size_field + command_size);
  std::byte* p = out.data() + at;
  p = put_u32(p, static_cast<std::uint32_t>(size_field + command_size));
  p = put_u32(p, command_size);
  put_message(p, command);
}

std::vector<std::byte> encode_command(const proto::BaseCommand& command) {
  std::vector<std::byte> out;
  append_command(out, command);
  return out;
}

void append_payload_command(std::vector<std::byte>& out, const proto::BaseCommand& command,
                            const proto::MessageMetadata& metadata, std::span<const std::byte> payload,
                            const payload_options& options) {
  const std::uint32_t metadata_size = message_size(metadata);
  const std::size_t section_size = size_field + metadata_size + payload.size();
  const auto checksum_at = append_payload_front(out, command, section_size, section_size, options);

  const std::size_t section_at = out.size();
  out.resize(section_at + section_size);
  std::byte* p = out.data() + section_at;
  p = put_u32(p, metadata_size);
  p = put_message(p, metadata);
  if (!payload.empty()) std::memcpy(p, payload.data(), payload.size());
  if (checksum_at) store_be32(out.data() + *checksum_at, crc32c(out.data() + section_at, section_size));
}

std::vector<std::byte> encode_payload_command(const proto::BaseCommand& command, const proto::MessageMetadata& metadata,
                                              std::span<const std::byte> payload, const payload_options& options) {
  std::vector<std::byte> out;
  append_payload_command(out, command, metadata, payload, options);
  return out;
}

std::vector<std::byte> encode_payload_header(const proto::BaseCommand& command,
                                             std::span<const std::byte> metadata_and_payload,
                                             const payload_options& options) {
  std::vector<std::byte> out;
  const auto checksum_at = append_payload_front(out, command, metadata_and_payload.size(), 0, options);
  if (checksum_at) store_be32(out.data() + *checksum_at, crc32c(metadata_and_payload));
  return out;
}

result<void> decode_frame(shared_bytes bytes, frame& f) {
  if (bytes.size() < 2 * size_field) {
    return fail(errc::malformed_frame,
                fmt::format("a frame of {} bytes is shorter than its two size fields", bytes.size()));
  }
  const std::uint32_t total = load_be32(bytes.data());
  if (total != bytes.size() - size_field) {
    return fail(errc::malformed_frame, fmt::format("frame declares {} bytes after its size field but has {}", total,
                                                   bytes.size() - size_field));
  }
  const std::uint32_t command_size = load_be32(bytes.data() + size_field);
  if (command_size > total - size_field) {
    return fail(errc::malformed_frame, fmt::format("command size {} is more than the {} bytes left in the frame",
                                                   command_size, total - size_field));
  }

  const auto command_bytes = bytes.span().subspan(2 * size_field, command_size);
  if (!parse(f.command, command_bytes)) {
    const auto number = peek_type_number(command_bytes);
    return fail(errc::bad_command,
                fmt::format("{} of {} bytes doesn't parse", number ? type_number_name(*number) + " command" : "command",
                            command_size));
  }
  if (!f.command.has_type()) {
    if (const auto number = unknown_type_number(f.command)) {
      return fail(errc::unknown_command, fmt::format("command type {}", *number));
    }
    return fail(errc::bad_command, "command without a type");
  }

  const std::size_t rest_at = 2 * size_field + command_size;
  if (!is_payload_command(f.command.type())) {
    if (rest_at != bytes.size()) {
      return fail(errc::malformed_frame, fmt::format("{} frame has {} bytes after its command", command_name(f.command),
                                                     bytes.size() - rest_at));
    }
    return success();
  }
  return decode_payload(f, bytes.slice(rest_at));
}

result<frame> decode_frame(shared_bytes bytes) {
  result<frame> decoded(std::in_place_type<frame>);
  if (auto status = decode_frame(std::move(bytes), decoded.value()); !status) decoded = fail(status.error());
  return decoded;
}

}  // namespace magnetar::wire
