// libFuzzer target for wire::frame_decoder: arbitrary bytes, cut into arbitrary chunks,
// must never crash the decoder, and what it hands out must be consistent.
//
// Input layout: [control u8][chunking seed u8][stream bytes...]
//   control bits 0-1: the decoder's maximum frame size (5 MiB, 64 B, 1 KiB, 64 KiB)
//   control bits 2-3: the largest chunk (1, 16, 512 bytes, or the whole stream)
//   chunking seed:    seeds the generator that picks each chunk's size and whether it
//                     goes in through prepare()/commit() or feed()
// Keeping the control bytes in front lets a seed be "two bytes + valid frames".
//
// Invariants checked after every call:
// - buffered() is exactly the bytes fed minus the frames taken out (never more than fed);
// - each next() that takes a frame out takes exactly [4 + declared size] bytes;
// - the stream-level errors (frame_too_large, malformed_frame) come exactly when the
//   declared size calls for them, and the decoder then stays failed, also after more
//   bytes arrive;
// - the decoder agrees with decode_frame() on the same bytes;
// - a decoded frame re-encodes to one that decodes to the same command, metadata and
//   payload (for payload frames whose checksum holds).
//
// Run by scripts/fuzz. `MAGNETAR_FUZZ_WRITE_SEEDS=<dir>` makes the binary write its
// seed corpus there and exit (LLVMFuzzerInitialize), so no binary files are committed.
// Single-threaded, as libFuzzer calls it.
#include "base/assert.h"
#include "wire/big_endian.h"
#include "wire/errc.h"
#include "wire/frame.h"
#include "wire/frame_decoder.h"
#include "wire/tests/test_frames.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace magnetar::wire {
namespace {

namespace t = test_support;

constexpr std::size_t size_field = 4;
constexpr std::size_t max_frame_sizes[] = {default_max_frame_size, 64, 1024, 64 * 1024};
constexpr std::size_t max_chunks[] = {1, 16, 512, SIZE_MAX};

std::string serialized(const google::protobuf::Message& message) {
  std::string out;
  message.SerializeToString(&out);
  return out;
}

bool same_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// The decoder's frame and decode_frame()'s reading of the same bytes must agree, and the
// frame must survive a round trip through the encoders.
void check_frame(const frame& f, std::span<const std::byte> bytes) {
  auto again = decode_frame(shared_bytes::copy_of(bytes));
  MAGNETAR_ASSERT(again, "decode_frame refuses a frame the decoder took: {}", again.error());
  MAGNETAR_ASSERT(serialized(again.value().command) == serialized(f.command), "commands differ");
  MAGNETAR_ASSERT(again.value().has_payload == f.has_payload && again.value().checksum_valid == f.checksum_valid,
                  "payload flags differ");
  MAGNETAR_ASSERT(f.metadata_and_payload.size() <= bytes.size(), "metadata and payload exceed the frame");
  MAGNETAR_ASSERT(f.payload.size() <= f.metadata_and_payload.size(), "payload exceeds its section");

  if (!f.has_payload) {
    const auto encoded = encode_command(f.command);
    auto decoded = decode_frame(shared_bytes::copy_of(encoded));
    MAGNETAR_ASSERT(decoded, "a re-encoded command does not decode: {}", decoded.error());
    MAGNETAR_ASSERT(serialized(decoded.value().command) == serialized(f.command), "re-encoded command differs");
    return;
  }
  if (!f.checksum_valid) return;  // metadata and payload are not to be trusted
  MAGNETAR_ASSERT(same_bytes(f.payload, f.metadata_and_payload.span().last(f.payload.size())),
                  "the payload is not the end of its section");
  const payload_options options{
      .with_checksum = f.has_checksum,
      .broker_entry_metadata = f.broker_entry_metadata ? &*f.broker_entry_metadata : nullptr,
  };
  const auto encoded = encode_payload_command(f.command, f.metadata, f.payload, options);
  auto decoded = decode_frame(shared_bytes::copy_of(encoded));
  MAGNETAR_ASSERT(decoded, "a re-encoded payload frame does not decode: {}", decoded.error());
  const frame& d = decoded.value();
  MAGNETAR_ASSERT(serialized(d.command) == serialized(f.command), "re-encoded command differs");
  MAGNETAR_ASSERT(serialized(d.metadata) == serialized(f.metadata), "re-encoded metadata differs");
  MAGNETAR_ASSERT(same_bytes(d.payload, f.payload), "re-encoded payload differs");
  MAGNETAR_ASSERT(d.has_checksum == f.has_checksum && d.checksum_valid, "re-encoded checksum state differs");
  MAGNETAR_ASSERT(d.broker_entry_metadata.has_value() == f.broker_entry_metadata.has_value(),
                  "re-encoded broker entry metadata differs");
}

void run(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return;
  const std::size_t max_frame = max_frame_sizes[data[0] & 3];
  const std::size_t max_chunk = max_chunks[(data[0] >> 2) & 3];
  std::minstd_rand random(data[1] + 1u);
  const auto* stream = reinterpret_cast<const std::byte*>(data + 2);
  const std::size_t length = size - 2;

  frame_decoder decoder(max_frame);
  std::size_t fed = 0;    // bytes of the stream given to the decoder
  std::size_t taken = 0;  // bytes of the stream handed out as frames (or dropped frames)
  std::optional<std::error_code> failure;

  while (fed < length) {
    const std::size_t most = std::min(max_chunk, length - fed);
    const std::size_t chunk = 1 + random() % most;
    if (random() % 2 == 0) {
      auto room = decoder.prepare(chunk);
      MAGNETAR_ASSERT(room.size() >= chunk, "prepare({}) gave {} bytes", chunk, room.size());
      std::memcpy(room.data(), stream + fed, chunk);
      decoder.commit(chunk);
    } else {
      decoder.feed({stream + fed, chunk});
    }
    fed += chunk;

    while (true) {
      MAGNETAR_ASSERT(decoder.buffered() == fed - taken, "buffered {} after {} fed and {} taken", decoder.buffered(),
                      fed, taken);
      auto next = decoder.next();
      if (failure) {
        MAGNETAR_ASSERT(!next && next.error().code() == *failure && decoder.failed(), "a failed decoder recovered");
        break;
      }
      const std::size_t buffered = fed - taken;
      if (buffered < size_field) {
        MAGNETAR_ASSERT(next && !next.value().has_value(), "a frame or error out of {} bytes", buffered);
        break;
      }
      const std::size_t declared = load_be32(stream + taken);
      if (declared > max_frame || declared < size_field) {
        const auto expected = declared > max_frame ? errc::frame_too_large : errc::malformed_frame;
        MAGNETAR_ASSERT(!next && next.error() == expected && decoder.failed(),
                        "declared size {} (limit {}) not refused as it should be", declared, max_frame);
        failure = next.error().code();
        break;
      }
      if (buffered < size_field + declared) {
        MAGNETAR_ASSERT(next && !next.value().has_value(), "a frame out of a partial one");
        break;
      }
      // A whole frame: taken out whether it decodes or is dropped.
      const std::span<const std::byte> bytes(stream + taken, size_field + declared);
      taken += bytes.size();
      MAGNETAR_ASSERT(!decoder.failed(), "a frame-level error failed the stream");
      if (!next) {
        auto alone = decode_frame(shared_bytes::copy_of(bytes));
        MAGNETAR_ASSERT(!alone && alone.error().code() == next.error().code(),
                        "the decoder refused a frame that decode_frame() reads otherwise: {}", next.error());
        continue;
      }
      MAGNETAR_ASSERT(next.value().has_value(), "no frame although one is complete");
      check_frame(*next.value(), bytes);
    }
  }
  MAGNETAR_ASSERT(decoder.buffered() == fed - taken, "buffered {} at the end", decoder.buffered());
}

// A seed: the two control bytes, then frames.
std::vector<std::byte> seed(std::uint8_t control, std::uint8_t chunking, std::vector<std::byte> frames) {
  std::vector<std::byte> out{std::byte{control}, std::byte{chunking}};
  out.insert(out.end(), frames.begin(), frames.end());
  return out;
}

void write_seeds(const std::string& dir) {
  const auto entry = t::broker_entry_metadata(7);
  std::vector<std::vector<std::byte>> seeds;
  seeds.push_back(seed(0x0c, 1, encode_command(t::ping())));
  seeds.push_back(seed(0x04, 2, encode_command(t::connect("fuzz"))));
  seeds.push_back(seed(0x08, 3, encode_payload_command(t::send(), t::metadata(1), t::bytes_of("hello"))));
  seeds.push_back(seed(
      0x0c, 4, encode_payload_command(t::send(), t::metadata(2), t::bytes_of("no crc"), {.with_checksum = false})));
  seeds.push_back(seed(
      0x08, 5,
      encode_payload_command(t::message(), t::metadata(3), t::bytes_of("entry"), {.broker_entry_metadata = &entry})));
  std::vector<std::byte> mixed;
  append_command(mixed, t::connect("client"));
  append_payload_command(mixed, t::send(), t::metadata(4), t::random_bytes(300, 4));
  append_command(mixed, t::ping());
  append_payload_command(mixed, t::send(), t::metadata(5), {});
  seeds.push_back(seed(0x06, 6, mixed));  // 1 KiB limit, chunks up to 512
  auto bad_crc = encode_payload_command(t::send(), t::metadata(6), t::bytes_of("flipped"));
  bad_crc.back() ^= std::byte{1};
  seeds.push_back(seed(0x08, 7, bad_crc));
  seeds.push_back(seed(0x01, 8, encode_payload_command(t::send(), t::metadata(7), t::random_bytes(100, 7))));
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream out(dir + "/seed-" + std::to_string(i), std::ios::binary);
    out.write(reinterpret_cast<const char*>(seeds[i].data()), static_cast<std::streamsize>(seeds[i].size()));
    MAGNETAR_ASSERT(out.good(), "writing seed {} into {}", i, dir);
  }
}

}  // namespace
}  // namespace magnetar::wire

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("MAGNETAR_FUZZ_WRITE_SEEDS")) {
    magnetar::wire::write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  magnetar::wire::run(data, size);
  return 0;
}
