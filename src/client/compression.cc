#include "client/compression.h"

#include "magnetar/errc.h"

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

#include <climits>
#include <memory>

namespace magnetar::client_detail {

namespace {
// Upstream's level; a different one would still decode everywhere, but keeping it means
// our producers cost the same CPU as upstream ones.
constexpr int zstd_level = 3;
// Refuse sizes a corrupt metadata could claim, before allocating (Pulsar's frame limit
// bounds real payloads well below this).
constexpr std::size_t max_uncompressed_size = 256u * 1024 * 1024;
}  // namespace

proto::CompressionType to_proto(compression_type type) {
  switch (type) {
    case compression_type::none: return proto::NONE;
    case compression_type::lz4: return proto::LZ4;
    case compression_type::zlib: return proto::ZLIB;
    case compression_type::zstd: return proto::ZSTD;
    case compression_type::snappy: return proto::SNAPPY;
  }
  return proto::NONE;
}

bool is_supported(compression_type type) {
  return type == compression_type::none || type == compression_type::lz4 || type == compression_type::zstd;
}

std::vector<std::byte> compress(compression_type type, std::span<const std::byte> bytes) {
  std::vector<std::byte> out;
  switch (type) {
    case compression_type::lz4: {
      MAGNETAR_ASSERT(bytes.size() <= static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE), "lz4 input of {} bytes",
                      bytes.size());
      const int bound = LZ4_compressBound(static_cast<int>(bytes.size()));
      out.resize(static_cast<std::size_t>(bound));
      const int written =
          LZ4_compress_default(reinterpret_cast<const char*>(bytes.data()), reinterpret_cast<char*>(out.data()),
                               static_cast<int>(bytes.size()), bound);
      MAGNETAR_ASSERT(written > 0 || bytes.empty(), "LZ4_compress_default failed");
      out.resize(static_cast<std::size_t>(written));
      return out;
    }
    case compression_type::zstd: {
      out.resize(ZSTD_compressBound(bytes.size()));
      const std::size_t written = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), zstd_level);
      MAGNETAR_ASSERT(!ZSTD_isError(written), "ZSTD_compress: {}", ZSTD_getErrorName(written));
      out.resize(written);
      return out;
    }
    case compression_type::none: break;
    case compression_type::zlib:
    case compression_type::snappy: MAGNETAR_UNREACHABLE("compression codec not supported");
  }
  out.assign(bytes.begin(), bytes.end());
  return out;
}

result<wire::shared_bytes> decompress(proto::CompressionType type, const wire::shared_bytes& compressed,
                                      std::size_t uncompressed_size) {
  if (type == proto::NONE) return compressed;
  if (uncompressed_size > max_uncompressed_size) {
    return fail(client_errc::corrupt_message, fmt::format("uncompressed size {} is too large", uncompressed_size));
  }
  auto buffer = std::make_shared_for_overwrite<std::byte[]>(uncompressed_size == 0 ? 1 : uncompressed_size);
  switch (type) {
    case proto::LZ4: {
      if (compressed.size() > INT_MAX) return fail(client_errc::corrupt_message, "lz4 input too large");
      // decompress_safe (not upstream's _fast) so corrupt input can't read out of bounds.
      const int n =
          LZ4_decompress_safe(reinterpret_cast<const char*>(compressed.data()), reinterpret_cast<char*>(buffer.get()),
                              static_cast<int>(compressed.size()), static_cast<int>(uncompressed_size));
      if (n < 0 || static_cast<std::size_t>(n) != uncompressed_size) {
        return fail(client_errc::corrupt_message, "lz4 payload does not decompress to its stated size");
      }
      break;
    }
    case proto::ZSTD: {
      const std::size_t n = ZSTD_decompress(buffer.get(), uncompressed_size, compressed.data(), compressed.size());
      if (ZSTD_isError(n) || n != uncompressed_size) {
        return fail(client_errc::corrupt_message, "zstd payload does not decompress to its stated size");
      }
      break;
    }
    default:
      return fail(client_errc::corrupt_message,
                  fmt::format("compression {} is not supported", proto::CompressionType_Name(type)));
  }
  const std::byte* data = buffer.get();
  return wire::shared_bytes(std::move(buffer), {data, uncompressed_size});
}

}  // namespace magnetar::client_detail
