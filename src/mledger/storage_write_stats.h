// storage_write_stats: upstream's storage write figures (pulsar_storage_write_latency_le_*,
// pulsar_storage_ledger_write_latency_le_*, pulsar_entry_size_le_*) of a managed ledger
// since it opened, successful adds only: microseconds from add_entry to its completion
// (rollovers and queueing included), from the ledger add to its completion, and the
// entries' sizes in bytes. The bound tables are upstream's bounds with upstream's names,
// the one source of both the buckets and the metric families (broker/admin/prometheus.cc).
// A plain value: one owner records, copies travel.
#pragma once

#include "base/stats_buckets.h"

#include <array>

namespace magnetar::mledger {

struct storage_write_stats {
  static constexpr std::array<base::stats_bound, 9> latency_bounds_us{{
      {500, "0_5", "0.5 ms"},
      {1'000, "1", "1 ms"},
      {5'000, "5", "5 ms"},
      {10'000, "10", "10 ms"},
      {20'000, "20", "20 ms"},
      {50'000, "50", "50 ms"},
      {100'000, "100", "100 ms"},
      {200'000, "200", "200 ms"},
      {1'000'000, "1000", "1 s"},
  }};
  static constexpr std::array<base::stats_bound, 8> entry_size_bounds{{
      {128, "128", "128 B"},
      {512, "512", "512 B"},
      {1 << 10, "1_kb", "1 KiB"},
      {2 << 10, "2_kb", "2 KiB"},
      {4 << 10, "4_kb", "4 KiB"},
      {16 << 10, "16_kb", "16 KiB"},
      {100 << 10, "100_kb", "100 KiB"},
      {1 << 20, "1_mb", "1 MiB"},
  }};

  base::stats_buckets add_latency_us{base::values_of(latency_bounds_us)};
  base::stats_buckets ledger_add_latency_us{base::values_of(latency_bounds_us)};
  base::stats_buckets entry_size{base::values_of(entry_size_bounds)};
};

}  // namespace magnetar::mledger
