#include "bookie_node/bookie_status.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>

namespace magnetar::bookie_node {
namespace {

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

// Label values escaped as the text format wants (\\, \", \n).
std::string escaped(std::string_view value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void request_summary(std::string& out, std::string_view name, std::string_view help, std::uint64_t ok,
                     std::uint64_t failed, std::uint64_t micros) {
  family(out, name, "summary", help);
  // The time is summed over both outcomes; it goes with the successes, which are
  // nearly all of it, so that _sum / _count stays a meaningful mean.
  out += fmt::format("{}_count{{success=\"true\"}} {}\n", name, ok);
  out += fmt::format("{}_sum{{success=\"true\"}} {}\n", name, double(micros) / 1000.0);
  out += fmt::format("{}_count{{success=\"false\"}} {}\n", name, failed);
  out += fmt::format("{}_sum{{success=\"false\"}} 0\n", name);
}

}  // namespace

std::string render_bookie_metrics(const bookie_status& s) {
  std::string out;
  family(out, "bookie_SERVER_STATUS", "gauge", "1 while the bookie takes writes, 0 when it is read-only");
  out += fmt::format("bookie_SERVER_STATUS {}\n", s.read_only ? 0 : 1);
  request_summary(out, "bookkeeper_server_ADD_ENTRY_REQUEST", "Add requests answered, and the time to answer (ms)",
                  s.server.adds_ok, s.server.adds_failed, s.server.add_micros);
  request_summary(out, "bookkeeper_server_READ_ENTRY_REQUEST",
                  "Read requests (entries and ranges) answered, and the time to answer (ms)", s.server.reads_ok,
                  s.server.reads_failed, s.server.read_micros);
  // BookKeeper's name for the journal's force-writes; magnetar's sync is one fdatasync.
  family(out, "bookie_journal_JOURNAL_SYNC", "summary", "Journal syncs of record data, and their time in all (ms)");
  out += fmt::format("bookie_journal_JOURNAL_SYNC_count{{success=\"true\"}} {}\n", s.engine.journal_syncs);
  out += fmt::format("bookie_journal_JOURNAL_SYNC_sum{{success=\"true\"}} {:.3f}\n", s.engine.journal_sync_nanos / 1e6);
  family(out, "bookie_WRITE_BYTES", "counter", "Entry bytes added");
  out += fmt::format("bookie_WRITE_BYTES {}\n", s.server.bytes_added);
  family(out, "bookie_READ_BYTES", "counter", "Entry bytes read");
  out += fmt::format("bookie_READ_BYTES {}\n", s.server.bytes_read);
  family(out, "bookie_ledger_writable_dirs", "gauge", "Directories below the disk usage threshold");
  const auto writable = std::count_if(s.directories.begin(), s.directories.end(),
                                      [&](const auto& d) { return d.usage() < s.disk_usage_threshold; });
  out += fmt::format("bookie_ledger_writable_dirs {}\n", writable);
  family(out, "magnetar_bookie_disk_usage_ratio", "gauge", "Used share of the file system of each directory");
  for (const auto& d : s.directories) {
    out += fmt::format("magnetar_bookie_disk_usage_ratio{{directory=\"{}\"}} {:.6f}\n", escaped(d.path), d.usage());
  }
  family(out, "magnetar_bookie_storage_failures_total", "counter",
         "Adds refused because the bookie could not write (a full disk, a failed journal)");
  out += fmt::format("magnetar_bookie_storage_failures_total {}\n", s.server.storage_failures);
  family(out, "magnetar_bookie_connections", "gauge", "Client connections open");
  out += fmt::format("magnetar_bookie_connections {}\n", s.server.connections);
  family(out, "magnetar_bookie_checkpoints_total", "counter", "Checkpoints (storage flushed, journals reclaimed)");
  out += fmt::format("magnetar_bookie_checkpoints_total {}\n", s.engine.checkpoints);
  family(out, "magnetar_bookie_journal_replayed_records_total", "counter", "Journal records replayed at start");
  out += fmt::format("magnetar_bookie_journal_replayed_records_total {}\n", s.engine.replayed_records);
  return out;
}

http::http_response answer_bookie_http(const bookie_status& s, const http::incoming_request& request) {
  const auto path = std::string_view(request.target).substr(0, request.target.find('?'));
  if (request.method != "GET") return http::error_response(405, "the bookie's endpoints answer GET only");
  if (path == "/metrics") return http::text_response(200, render_bookie_metrics(s), "text/plain; version=0.0.4");
  if (path == "/heartbeat") return http::text_response(200, "OK\n");
  if (path == "/api/v1/bookie/state") {
    return http::json_response(200, nlohmann::json{{"running", !s.shutting_down},
                                                   {"readOnly", s.read_only},
                                                   {"shuttingDown", s.shutting_down},
                                                   {"availableForHighPriorityWrites", !s.shutting_down}}
                                        .dump());
  }
  if (path == "/api/v1/bookie/info") {
    std::uint64_t free = 0, total = 0;
    for (const auto& d : s.directories) {
      free += d.free_bytes;
      total += d.total_bytes;
    }
    return http::json_response(200, nlohmann::json{{"freeSpace", free}, {"totalSpace", total}}.dump());
  }
  return http::error_response(404, fmt::format("no such endpoint: {}", path));
}

}  // namespace magnetar::bookie_node
