#include "wire/frame.h"

#include "wire/big_endian.h"
#include "wire/crc32c.h"
#include "wire/errc.h"
#include "wire/tests/test_frames.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <google/protobuf/util/message_differencer.h>

namespace magnetar::wire {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;
namespace t = test_support;

// Offsets in a payload frame written with a checksum and without broker entry metadata.
std::size_t checksum_offset(std::span<const std::byte> frame_bytes) {
  return 8 + load_be32(frame_bytes.data() + 4) + 2;
}

result<frame> decode(std::span<const std::byte> bytes) { return decode_frame(t::share(bytes)); }

std::vector<std::byte> raw_frame(std::span<const std::byte> command, std::span<const std::byte> rest = {}) {
  std::vector<std::byte> out(8);
  store_be32(out.data(), static_cast<std::uint32_t>(4 + command.size() + rest.size()));
  store_be32(out.data() + 4, static_cast<std::uint32_t>(command.size()));
  out.insert(out.end(), command.begin(), command.end());
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::vector<std::byte> serialized(const google::protobuf::MessageLite& message) {
  return t::bytes_of(message.SerializeAsString());
}

TEST(frame, simple_command_round_trips) {
  const auto command = t::connect("magnetar-test 1.0");
  auto decoded = decode(encode_command(command));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(MessageDifferencer::Equals(decoded.value().command, command));
  EXPECT_FALSE(decoded.value().has_payload);
}

TEST(frame, simple_frame_is_total_size_then_command_size_then_command) {
  const auto bytes = encode_command(t::ping());
  // What upstream clients write for PING: type 18 and an empty ping body (field 18).
  const std::vector<std::byte> expected = {
      std::byte{0x00}, std::byte{0x00}, std::byte{0x00}, std::byte{0x09},  // total size
      std::byte{0x00}, std::byte{0x00}, std::byte{0x00}, std::byte{0x05},  // command size
      std::byte{0x08}, std::byte{0x12},                                    // type = PING
      std::byte{0x92}, std::byte{0x01}, std::byte{0x00}};                  // ping {}
  EXPECT_EQ(bytes, expected);
}

TEST(frame, payload_frame_round_trips_command_metadata_and_payload) {
  const auto payload = t::bytes_of("hello, pulsar");
  auto decoded = decode(encode_payload_command(t::send(), t::metadata(42), payload));
  ASSERT_TRUE(decoded) << decoded.error().message();
  const frame& f = decoded.value();
  EXPECT_EQ(f.command.type(), proto::BaseCommand::SEND);
  EXPECT_TRUE(f.has_payload);
  EXPECT_TRUE(f.has_checksum);
  EXPECT_TRUE(f.checksum_valid);
  EXPECT_FALSE(f.broker_entry_metadata);
  EXPECT_TRUE(MessageDifferencer::Equals(f.metadata, t::metadata(42)));
  EXPECT_EQ(f.payload.as_chars(), "hello, pulsar");
}

TEST(frame, empty_payload_round_trips) {
  auto decoded = decode(encode_payload_command(t::send(), t::metadata(1), {}));
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded.value().payload.empty());
  EXPECT_TRUE(decoded.value().checksum_valid);
}

TEST(frame, checksum_is_crc32c_of_metadata_size_metadata_and_payload) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(7), t::bytes_of("abc"));
  const std::size_t at = checksum_offset(bytes);
  EXPECT_EQ(load_be16(bytes.data() + at - 2), magic_crc32c);
  const auto covered = std::span(bytes).subspan(at + 4);
  EXPECT_EQ(load_be32(bytes.data() + at), crc32c(covered));
  EXPECT_EQ(load_be32(covered.data()), t::metadata(7).ByteSizeLong());
}

TEST(frame, metadata_and_payload_are_the_bytes_after_the_checksum) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(7), t::bytes_of("abc"));
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  const auto expected = std::span(bytes).subspan(checksum_offset(bytes) + 4);
  EXPECT_EQ(t::text_of(decoded.value().metadata_and_payload), t::text_of(expected));
}

TEST(frame, decoded_slices_share_the_frame_buffer) {
  const auto bytes = t::share(encode_payload_command(t::send(), t::metadata(7), t::bytes_of("abc")));
  auto decoded = decode_frame(bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  const auto* begin = bytes.data();
  const auto* end = bytes.data() + bytes.size();
  EXPECT_GE(decoded.value().payload.data(), begin);
  EXPECT_EQ(decoded.value().payload.data() + decoded.value().payload.size(), end);
  EXPECT_GE(decoded.value().metadata_and_payload.data(), begin);
}

TEST(frame, payload_frame_without_checksum_is_accepted) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(3), t::bytes_of("x"), {.with_checksum = false});
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_FALSE(decoded.value().has_checksum);
  EXPECT_TRUE(decoded.value().checksum_valid);
  EXPECT_EQ(decoded.value().payload.as_chars(), "x");
  EXPECT_EQ(decoded.value().metadata.sequence_id(), 3u);
}

TEST(frame, checksum_mismatch_is_flagged_not_failed) {
  auto bytes = encode_payload_command(t::send(), t::metadata(5), t::bytes_of("payload"));
  bytes.back() ^= std::byte{0x01};
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_TRUE(decoded.value().has_checksum);
  EXPECT_FALSE(decoded.value().checksum_valid);
  EXPECT_EQ(decoded.value().command.type(), proto::BaseCommand::SEND);
}

TEST(frame, checksum_mismatch_with_garbled_metadata_size_is_still_flagged) {
  auto bytes = encode_payload_command(t::send(), t::metadata(5), t::bytes_of("payload"));
  store_be32(bytes.data() + checksum_offset(bytes) + 4, 0xFFFFFF00u);
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  EXPECT_FALSE(decoded.value().checksum_valid);
  EXPECT_TRUE(decoded.value().payload.empty());
}

TEST(frame, broker_entry_metadata_prefix_is_parsed) {
  const auto entry = t::broker_entry_metadata(99);
  const auto bytes =
      encode_payload_command(t::message(), t::metadata(8), t::bytes_of("data"), {.broker_entry_metadata = &entry});
  auto decoded = decode(bytes);
  ASSERT_TRUE(decoded) << decoded.error().message();
  const frame& f = decoded.value();
  ASSERT_TRUE(f.broker_entry_metadata);
  EXPECT_EQ(f.broker_entry_metadata->index(), 99u);
  EXPECT_EQ(f.broker_entry_metadata->broker_timestamp(), entry.broker_timestamp());
  EXPECT_TRUE(f.checksum_valid);
  EXPECT_EQ(f.payload.as_chars(), "data");
}

TEST(frame, broker_entry_metadata_comes_before_the_checksum) {
  const auto entry = t::broker_entry_metadata(1);
  const auto bytes =
      encode_payload_command(t::message(), t::metadata(8), t::bytes_of("data"), {.broker_entry_metadata = &entry});
  const std::size_t after_command = 8 + load_be32(bytes.data() + 4);
  EXPECT_EQ(load_be16(bytes.data() + after_command), magic_broker_entry_metadata);
  const std::size_t entry_size = load_be32(bytes.data() + after_command + 2);
  EXPECT_EQ(load_be16(bytes.data() + after_command + 6 + entry_size), magic_crc32c);
}

TEST(frame, payload_header_followed_by_the_entry_is_the_whole_frame) {
  const auto entry = t::broker_entry_metadata(4);
  const payload_options options{.broker_entry_metadata = &entry};
  const auto whole = encode_payload_command(t::message(), t::metadata(9), t::bytes_of("stored"), options);
  auto decoded = decode(whole);
  ASSERT_TRUE(decoded) << decoded.error().message();
  const auto& stored = decoded.value().metadata_and_payload;

  auto rebuilt = encode_payload_header(t::message(), stored, options);
  rebuilt.insert(rebuilt.end(), stored.span().begin(), stored.span().end());
  EXPECT_EQ(rebuilt, whole);
}

TEST(frame, append_puts_several_frames_in_one_buffer) {
  std::vector<std::byte> out;
  append_command(out, t::ping());
  append_payload_command(out, t::send(), t::metadata(1), t::bytes_of("p"));
  auto first = encode_command(t::ping());
  auto second = encode_payload_command(t::send(), t::metadata(1), t::bytes_of("p"));
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_EQ(out, first);
}

TEST(frame, garbage_command_bytes_are_a_bad_command) {
  const auto garbage = t::bytes_of("\xff\xff\xff\xff\xff");
  auto decoded = decode(raw_frame(garbage));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::bad_command);
}

TEST(frame, a_bad_command_names_its_type_when_readable) {
  // type = SEND, then a field whose length runs past the end.
  const std::vector<std::byte> command = {std::byte{0x08}, std::byte{0x06}, std::byte{0x12}, std::byte{0x7f}};
  auto decoded = decode(raw_frame(command));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::bad_command);
  EXPECT_THAT(decoded.error().detail(), HasSubstr("SEND"));
}

TEST(frame, an_unknown_command_type_is_reported_with_its_number) {
  const std::vector<std::byte> command = {std::byte{0x08}, std::byte{0x63}};  // type = 99
  auto decoded = decode(raw_frame(command));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::unknown_command);
  EXPECT_THAT(decoded.error().detail(), HasSubstr("99"));
}

TEST(frame, a_command_without_a_type_is_a_bad_command) {
  proto::BaseCommand untyped;
  untyped.mutable_ping();
  auto decoded = decode(raw_frame(serialized(untyped)));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::bad_command);
}

TEST(frame, a_command_larger_than_its_frame_is_malformed) {
  auto bytes = encode_command(t::ping());
  store_be32(bytes.data() + 4, 6);
  auto decoded = decode(bytes);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
}

TEST(frame, a_total_size_that_disagrees_with_the_bytes_is_malformed) {
  auto bytes = encode_command(t::ping());
  bytes.push_back(std::byte{0});
  auto decoded = decode(bytes);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
}

TEST(frame, bytes_shorter_than_the_size_fields_are_malformed) {
  const std::vector<std::byte> bytes = {std::byte{0}, std::byte{0}, std::byte{0}, std::byte{3},
                                        std::byte{0}, std::byte{0}, std::byte{0}};
  auto decoded = decode(bytes);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
}

TEST(frame, a_send_without_metadata_is_malformed) {
  auto decoded = decode(encode_command(t::send()));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
  EXPECT_THAT(decoded.error().detail(), HasSubstr("SEND"));
}

TEST(frame, a_metadata_size_beyond_the_frame_is_malformed) {
  auto bytes = encode_payload_command(t::send(), t::metadata(5), t::bytes_of("p"), {.with_checksum = false});
  store_be32(bytes.data() + 8 + load_be32(bytes.data() + 4), 1000);
  auto decoded = decode(bytes);
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
}

TEST(frame, unparseable_metadata_is_bad_metadata) {
  std::vector<std::byte> section(4);
  store_be32(section.data(), 3);
  for (auto b : t::bytes_of("\xff\xff\xff")) section.push_back(b);
  auto decoded = decode(raw_frame(serialized(t::send()), section));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::bad_metadata);
}

TEST(frame, a_truncated_checksum_is_malformed) {
  const std::vector<std::byte> rest = {std::byte{0x0e}, std::byte{0x01}, std::byte{0x00}};
  auto decoded = decode(raw_frame(serialized(t::send()), rest));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
}

TEST(frame, bytes_after_a_simple_command_are_malformed) {
  auto decoded = decode(raw_frame(serialized(t::ping()), t::bytes_of("xyz")));
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error(), errc::malformed_frame);
  EXPECT_THAT(decoded.error().detail(), HasSubstr("PING"));
}

TEST(frame, wire_errors_belong_to_the_wire_category) {
  std::error_code code = errc::frame_too_large;
  EXPECT_STREQ(code.category().name(), "magnetar.wire");
  EXPECT_EQ(code.message(), "frame too large");
}

}  // namespace
}  // namespace magnetar::wire
