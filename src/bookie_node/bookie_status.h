// bookie_status: what a running bookie reports about itself, gathered in one
// snapshot, and what its HTTP port answers from it (BookKeeper's bookie HTTP
// endpoints and Prometheus metric names where they exist):
//
//   GET /heartbeat             200 "OK" while the bookie runs
//   GET /api/v1/bookie/state   {"running", "readOnly", "shuttingDown",
//                               "availableForHighPriorityWrites"}
//   GET /api/v1/bookie/info    {"freeSpace", "totalSpace"} over its directories
//   GET /metrics               Prometheus text (format 0.0.4):
//     bookie_SERVER_STATUS (1 writable, 0 read-only),
//     bookkeeper_server_ADD_ENTRY_REQUEST and _READ_ENTRY_REQUEST (summaries of
//       the time to answer, in ms, label success), bookie_WRITE_BYTES,
//       bookie_READ_BYTES, bookie_ledger_writable_dirs,
//     and magnetar's own: magnetar_bookie_disk_usage_ratio{directory},
//       magnetar_bookie_storage_failures_total, magnetar_bookie_connections,
//       magnetar_bookie_checkpoints_total, magnetar_bookie_journal_replayed_records_total.
//
// Pure functions; thread-safe.
#pragma once

#include "bookie/bookie.h"
#include "bookie/bookie_server.h"
#include "http/message.h"

#include <cstdint>
#include <string>
#include <vector>

namespace magnetar::bookie_node {

struct directory_usage {
  std::string path;
  std::uint64_t free_bytes = 0;  // available to the bookie (not root's reserve)
  std::uint64_t total_bytes = 0;
  double usage() const { return total_bytes == 0 ? 0.0 : 1.0 - double(free_bytes) / double(total_bytes); }
};

struct bookie_status {
  std::string id;
  bool read_only = false;
  bool shutting_down = false;
  bookie::bookie_stats engine;
  bookie::bookie_server_stats server;
  std::vector<directory_usage> directories;  // journals, then the ledger directory
  double disk_usage_threshold = 0.95;        // a directory past it is not writable
};

std::string render_bookie_metrics(const bookie_status& status);
http::http_response answer_bookie_http(const bookie_status& status, const http::incoming_request& request);

}  // namespace magnetar::bookie_node
