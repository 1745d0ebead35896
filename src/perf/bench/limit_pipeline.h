// limit_pipeline: the zero-logic persist-and-forward pipeline that `magnetar-perf limit`
// measures a broker against: what this machine's loopback and disk allow a message
// broker at most, with none of a broker's work.
//
// Three threads in this process and two loopback TCP connections:
//   producer --TCP--> relay --TCP--> consumer
//                       |
//                 file, fdatasync
// The producer writes messages (a 4-byte length and the payload) in batches of up to
// batch_messages, with at most max_outstanding messages not yet made durable. The
// relay reads whatever arrived, appends it to the file, syncs it (group commit: one
// fdatasync for everything read at once), then forwards those bytes to the consumer
// and tells the producer how many bytes are durable (the receipt). The consumer counts
// what arrives. The file is written once with zeros and synced before the clock
// starts, and the relay wraps around in it, as a journal reusing its files does: a
// sync then commits no file size and no block allocation.
//
// A broker does all of this and more (framing, checksums, metadata, an index, a
// cursor), so its batched throughput over this pipeline's is the share of the machine
// it turns into messaging.
//
// Thread-safety: run_limit_pipeline blocks the calling thread until done.
#pragma once

#include "base/result.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace magnetar::perf {

struct limit_options {
  std::size_t message_size = 100;
  std::chrono::seconds duration{10};
  std::size_t batch_messages = 1000;
  std::size_t max_outstanding = 10'000;
  // Where the relay's file goes: the broker's data disk, to compare like with like.
  std::string directory = ".";
  std::uint64_t file_bytes = 64ull << 20;
};

struct limit_results {
  std::uint64_t sent = 0;       // messages the producer wrote
  std::uint64_t durable = 0;    // messages the relay synced (the producer's receipts)
  std::uint64_t delivered = 0;  // messages the consumer read
  std::uint64_t syncs = 0;
  double seconds = 0;  // from the first send to the last delivery
};

result<limit_results> run_limit_pipeline(const limit_options& options);

// Messages delivered a second.
double delivered_rate(const limit_results& results);
// The terminal lines for a pipeline run.
std::string limit_summary(const limit_options& options, const limit_results& results);

}  // namespace magnetar::perf
