#include "wire/frame_decoder.h"

#include "wire/big_endian.h"
#include "wire/errc.h"
#include "wire/tests/test_frames.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace magnetar::wire {
namespace {

using ::testing::HasSubstr;
namespace t = test_support;

// A stream of mixed frames: simple, payload with and without checksum, with broker entry
// metadata, with an empty payload and with one larger than a read block.
std::vector<std::byte> mixed_stream() {
  std::vector<std::byte> out;
  const auto entry = t::broker_entry_metadata(12);
  append_command(out, t::connect("client 1"));
  append_payload_command(out, t::send(), t::metadata(1), t::bytes_of("first"));
  append_command(out, t::ping());
  append_payload_command(out, t::send(), t::metadata(2), t::bytes_of("second"), {.with_checksum = false});
  append_payload_command(out, t::message(), t::metadata(3), t::bytes_of("third"), {.broker_entry_metadata = &entry});
  append_payload_command(out, t::send(), t::metadata(4), {});
  append_payload_command(out, t::send(), t::metadata(5), t::random_bytes(100'000, 5));
  return out;
}

// One line per frame, enough to tell any two decodings apart.
std::string summary(const frame& f) {
  std::string s = f.command.ShortDebugString();
  if (f.has_payload) {
    s += " | " + f.metadata.ShortDebugString();
    if (f.broker_entry_metadata) s += " | " + f.broker_entry_metadata->ShortDebugString();
    s += f.has_checksum ? " | crc " : " | no crc ";
    s += f.checksum_valid ? "ok | " : "bad | ";
    s += std::to_string(f.payload.size()) + " bytes: " + std::string(f.payload.as_chars().substr(0, 16));
  }
  return s;
}

// Every frame the decoder has, stopping at the first error.
result<std::vector<std::string>> drain(frame_decoder& decoder) {
  std::vector<std::string> frames;
  while (true) {
    MAGNETAR_TRY(next, decoder.next());
    if (!next) return frames;
    frames.push_back(summary(*next));
  }
}

std::vector<std::string> decode_at_once(std::span<const std::byte> bytes) {
  frame_decoder decoder;
  decoder.feed(bytes);
  auto frames = drain(decoder);
  EXPECT_TRUE(frames) << frames.error().message();
  EXPECT_EQ(decoder.buffered(), 0u);
  return frames ? frames.value() : std::vector<std::string>{};
}

std::vector<std::byte> frame_header(std::uint32_t total_size) {
  std::vector<std::byte> bytes(4);
  store_be32(bytes.data(), total_size);
  return bytes;
}

TEST(frame_decoder, default_limit_is_pulsars_5_mib) { EXPECT_EQ(frame_decoder().max_frame_size(), 5u * 1024 * 1024); }

TEST(frame_decoder, several_frames_in_one_buffer_come_out_in_order) {
  const auto frames = decode_at_once(mixed_stream());
  ASSERT_EQ(frames.size(), 7u);
  EXPECT_THAT(frames[0], HasSubstr("CONNECT"));
  EXPECT_THAT(frames[1], HasSubstr("first"));
  EXPECT_THAT(frames[2], HasSubstr("PING"));
  EXPECT_THAT(frames[3], HasSubstr("no crc ok | 6 bytes: second"));
  EXPECT_THAT(frames[4], HasSubstr("index: 12"));
  EXPECT_THAT(frames[5], HasSubstr("0 bytes"));
  EXPECT_THAT(frames[6], HasSubstr("100000 bytes"));
}

TEST(frame_decoder, decoding_byte_by_byte_equals_decoding_at_once) {
  const auto stream = mixed_stream();
  frame_decoder decoder;
  std::vector<std::string> frames;
  for (std::byte b : stream) {
    decoder.feed({&b, 1});
    auto some = drain(decoder);
    ASSERT_TRUE(some) << some.error().message();
    frames.insert(frames.end(), some.value().begin(), some.value().end());
  }
  EXPECT_EQ(frames, decode_at_once(stream));
  EXPECT_EQ(decoder.buffered(), 0u);
}

TEST(frame_decoder, reading_through_prepare_and_commit_equals_feeding) {
  const auto stream = mixed_stream();
  frame_decoder decoder;
  std::vector<std::string> frames;
  std::mt19937 random(3);
  for (std::size_t at = 0; at < stream.size();) {
    auto room = decoder.prepare();
    const std::size_t count = std::min({room.size(), stream.size() - at, std::size_t{1} + random() % 5000});
    std::copy_n(stream.begin() + static_cast<std::ptrdiff_t>(at), count, room.begin());
    decoder.commit(count);
    at += count;
    auto some = drain(decoder);
    ASSERT_TRUE(some) << some.error().message();
    frames.insert(frames.end(), some.value().begin(), some.value().end());
  }
  EXPECT_EQ(frames, decode_at_once(stream));
}

TEST(frame_decoder, waits_for_the_rest_of_a_partial_frame) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(1), t::bytes_of("partial"));
  frame_decoder decoder;
  decoder.feed(std::span(bytes).first(bytes.size() - 1));
  auto none = decoder.next();
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(none.value());
  EXPECT_EQ(decoder.buffered(), bytes.size() - 1);

  decoder.feed(std::span(bytes).last(1));
  auto one = decoder.next();
  ASSERT_TRUE(one) << one.error().message();
  ASSERT_TRUE(one.value());
  EXPECT_EQ(one.value()->payload.as_chars(), "partial");
}

TEST(frame_decoder, prepare_offers_room_for_the_whole_frame_once_its_size_is_known) {
  frame_decoder decoder;
  decoder.feed(frame_header(1'000'000));
  EXPECT_GE(decoder.prepare().size(), 1'000'000u);
}

TEST(frame_decoder, a_large_payload_read_through_prepare_is_not_copied) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(1), t::random_bytes(200'000, 1));
  frame_decoder decoder;
  decoder.feed(std::span(bytes).first(4));
  auto room = decoder.prepare();
  std::copy(bytes.begin() + 4, bytes.end(), room.begin());
  decoder.commit(bytes.size() - 4);
  auto one = decoder.next();
  ASSERT_TRUE(one && one.value());
  const auto& payload = one.value()->payload;
  EXPECT_GE(payload.data(), room.data());
  EXPECT_LE(payload.data() + payload.size(), room.data() + room.size());
}

TEST(frame_decoder, frames_outlive_the_decoder_and_its_later_reads) {
  std::vector<frame> kept;
  {
    frame_decoder decoder;
    for (int round = 0; round < 50; ++round) {
      decoder.feed(encode_payload_command(t::send(), t::metadata(round), t::bytes_of("kept " + std::to_string(round))));
      auto one = decoder.next();
      ASSERT_TRUE(one && one.value());
      kept.push_back(std::move(*one.value()));
    }
  }
  for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_EQ(kept[i].payload.as_chars(), "kept " + std::to_string(i));
}

TEST(frame_decoder, an_oversized_frame_is_rejected_with_both_sizes) {
  frame_decoder decoder(1000);
  decoder.feed(frame_header(1001));
  auto refused = decoder.next();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::frame_too_large);
  EXPECT_THAT(refused.error().detail(), HasSubstr("1001"));
  EXPECT_THAT(refused.error().detail(), HasSubstr("1000"));
}

TEST(frame_decoder, a_frame_at_the_limit_is_accepted) {
  const auto bytes = encode_payload_command(t::send(), t::metadata(1), t::random_bytes(5000, 2));
  frame_decoder decoder(bytes.size() - 4);
  decoder.feed(bytes);
  auto one = decoder.next();
  ASSERT_TRUE(one) << one.error().message();
  EXPECT_TRUE(one.value());
}

TEST(frame_decoder, after_an_oversized_frame_the_decoder_stays_failed) {
  frame_decoder decoder(1000);
  decoder.feed(frame_header(5000));
  ASSERT_FALSE(decoder.next());
  decoder.feed(encode_command(t::ping()));
  auto again = decoder.next();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), errc::frame_too_large);
  EXPECT_TRUE(decoder.failed());
}

TEST(frame_decoder, a_frame_too_small_for_its_command_size_is_malformed) {
  frame_decoder decoder;
  decoder.feed(frame_header(3));
  decoder.feed(t::bytes_of("abc"));
  auto refused = decoder.next();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::malformed_frame);
  EXPECT_TRUE(decoder.failed());
}

TEST(frame_decoder, an_inconsistent_command_size_is_malformed) {
  auto bytes = encode_command(t::ping());
  store_be32(bytes.data() + 4, 100);
  frame_decoder decoder;
  decoder.feed(bytes);
  auto refused = decoder.next();
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::malformed_frame);
}

TEST(frame_decoder, a_bad_command_is_dropped_and_the_next_frame_still_decodes) {
  auto stream = frame_header(9);
  for (auto b : t::bytes_of(std::string("\x00\x00\x00\x05\xff\xff\xff\xff\xff", 9))) stream.push_back(b);
  const auto ping = encode_command(t::ping());
  stream.insert(stream.end(), ping.begin(), ping.end());

  frame_decoder decoder;
  decoder.feed(stream);
  auto bad = decoder.next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::bad_command);
  EXPECT_FALSE(decoder.failed());
  auto good = decoder.next();
  ASSERT_TRUE(good && good.value());
  EXPECT_EQ(good.value()->command.type(), proto::BaseCommand::PING);
}

TEST(frame_decoder, a_checksum_mismatch_is_flagged_and_decoding_goes_on) {
  auto stream = encode_payload_command(t::send(), t::metadata(1), t::bytes_of("corrupted"));
  stream.back() ^= std::byte{0x40};
  append_command(stream, t::ping());
  const auto frames = decode_at_once(stream);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_THAT(frames[0], HasSubstr("crc bad"));
  EXPECT_THAT(frames[1], HasSubstr("PING"));
}

// Random input must give frames or errors, never a crash or a read out of bounds (run
// under the Sanitize build to see the latter).
TEST(frame_decoder, random_bytes_never_crash) {
  std::mt19937 random(2024);
  const auto valid = mixed_stream();
  for (int round = 0; round < 400; ++round) {
    std::vector<std::byte> input;
    switch (round % 3) {
      case 0: input = t::random_bytes(1 + random() % 2000, random()); break;
      case 1: {  // a plausible size, then noise
        input = frame_header(random() % 600);
        const auto noise = t::random_bytes(random() % 700, random());
        input.insert(input.end(), noise.begin(), noise.end());
        break;
      }
      default: {  // valid frames with a few bytes changed
        input.assign(valid.begin(), valid.begin() + 2000);
        for (int flips = 1 + random() % 4; flips > 0; --flips)
          input[random() % input.size()] = static_cast<std::byte>(random());
        break;
      }
    }
    frame_decoder decoder(64 * 1024);
    for (std::size_t at = 0; at < input.size() && !decoder.failed();) {
      const std::size_t count = std::min<std::size_t>(input.size() - at, 1 + random() % 300);
      decoder.feed(std::span(input).subspan(at, count));
      at += count;
      for (int guard = 0; guard < 10'000; ++guard) {
        auto next = decoder.next();
        if (next && !next.value()) break;
        if (!next && decoder.failed()) break;
      }
    }
  }
  SUCCEED();
}

}  // namespace
}  // namespace magnetar::wire
