#include "client/compression.h"

#include "magnetar/errc.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <string>

namespace magnetar::client_detail {
namespace {

std::vector<std::byte> sample(std::size_t size) {
  std::vector<std::byte> out(size);
  for (std::size_t i = 0; i < size; ++i) out[i] = static_cast<std::byte>((i * 7) % 13 + 'a');
  return out;
}

class compression_round_trip : public ::testing::TestWithParam<compression_type> {};

TEST_P(compression_round_trip, decompress_gives_back_the_original_bytes) {
  for (std::size_t size : {0u, 1u, 100u, 64u * 1024u, 1000u * 1000u}) {
    const auto original = sample(size);
    const auto packed = compress(GetParam(), original);
    auto unpacked = decompress(to_proto(GetParam()), wire::shared_bytes::copy_of(packed), original.size());
    ASSERT_TRUE(unpacked) << unpacked.error() << " at size " << size;
    ASSERT_EQ(unpacked.value().size(), size);
    EXPECT_TRUE(std::equal(original.begin(), original.end(), unpacked.value().data())) << "size " << size;
  }
}

TEST_P(compression_round_trip, a_wrong_uncompressed_size_is_corrupt) {
  const auto original = sample(1000);
  const auto packed = compress(GetParam(), original);
  auto unpacked = decompress(to_proto(GetParam()), wire::shared_bytes::copy_of(packed), 999);
  ASSERT_FALSE(unpacked);
  EXPECT_EQ(unpacked.error(), client_errc::corrupt_message);
}

TEST_P(compression_round_trip, garbage_is_corrupt_not_a_crash) {
  std::vector<std::byte> garbage(50, std::byte{0xff});
  auto unpacked = decompress(to_proto(GetParam()), wire::shared_bytes::copy_of(garbage), 4096);
  ASSERT_FALSE(unpacked);
  EXPECT_EQ(unpacked.error(), client_errc::corrupt_message);
}

INSTANTIATE_TEST_SUITE_P(codecs, compression_round_trip,
                         ::testing::Values(compression_type::lz4, compression_type::zstd));

TEST(compression, repetitive_data_gets_smaller) {
  const auto original = sample(100'000);
  EXPECT_LT(compress(compression_type::lz4, original).size(), original.size() / 4);
  EXPECT_LT(compress(compression_type::zstd, original).size(), original.size() / 4);
}

TEST(compression, lz4_is_a_raw_block_as_upstream_writes_it) {
  const auto original = sample(5000);
  const auto packed = compress(compression_type::lz4, original);
  std::vector<char> out(original.size());
  const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(packed.data()), out.data(),
                                    static_cast<int>(packed.size()), static_cast<int>(out.size()));
  ASSERT_EQ(n, static_cast<int>(original.size()));
  EXPECT_EQ(std::memcmp(out.data(), original.data(), original.size()), 0);
}

TEST(compression, zstd_is_one_frame_with_its_content_size) {
  const auto original = sample(5000);
  const auto packed = compress(compression_type::zstd, original);
  EXPECT_EQ(ZSTD_getFrameContentSize(packed.data(), packed.size()), original.size());
}

TEST(compression, none_returns_the_same_bytes) {
  const auto original = sample(10);
  auto shared = wire::shared_bytes::copy_of(original);
  auto out = decompress(proto::NONE, shared, 0);
  ASSERT_TRUE(out);
  EXPECT_EQ(out.value().data(), shared.data());
}

TEST(compression, codecs_not_built_in_are_refused_on_decode) {
  const auto original = sample(10);
  auto out = decompress(proto::SNAPPY, wire::shared_bytes::copy_of(original), 10);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error(), client_errc::corrupt_message);
  EXPECT_FALSE(is_supported(compression_type::snappy));
  EXPECT_FALSE(is_supported(compression_type::zlib));
}

TEST(compression, types_map_to_the_protocol_numbers) {
  EXPECT_EQ(to_proto(compression_type::none), proto::NONE);
  EXPECT_EQ(to_proto(compression_type::lz4), proto::LZ4);
  EXPECT_EQ(to_proto(compression_type::zstd), proto::ZSTD);
}

}  // namespace
}  // namespace magnetar::client_detail
