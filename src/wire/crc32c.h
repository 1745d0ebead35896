// CRC32C (Castagnoli): the checksum Pulsar frames carry over metadata and payload.
//
// `seed` is the crc of the bytes that came before, so a crc can be computed piece by
// piece: crc32c(b, crc32c(a)) == crc32c(a followed by b), starting from 0. That is also
// how a frame's crc is formed without copying metadata and payload together.
//
// crc32c() uses the SSE4.2 crc32 instruction when the CPU has it (checked once) and a
// table-driven loop otherwise; both are exposed so tests and benchmarks can compare them.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace magnetar::wire {

std::uint32_t crc32c(std::span<const std::byte> bytes, std::uint32_t seed = 0);
std::uint32_t crc32c(const void* data, std::size_t size, std::uint32_t seed = 0);

// Slicing-by-8 tables; runs anywhere.
std::uint32_t crc32c_portable(std::span<const std::byte> bytes, std::uint32_t seed = 0);

// The crc32 instruction, three streams interleaved on long inputs. Only call it when
// crc32c_hardware_available(); otherwise it asserts.
std::uint32_t crc32c_hardware(std::span<const std::byte> bytes, std::uint32_t seed = 0);
bool crc32c_hardware_available();

}  // namespace magnetar::wire
