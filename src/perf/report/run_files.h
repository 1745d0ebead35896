// run_files: the parsers of the run directory's text formats that the report reads
// (CSV tables, events.csv, HdrHistogram percentile distributions, JSON), each tolerant of
// what a run that was cut short leaves behind: a truncated last line is dropped, not fatal.
//
// Pure functions on strings; no state, thread-safe.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf::report {

// A CSV file with a header line: cells as text, columns found by header name. Lines with
// fewer cells than the header (a write cut short) are dropped.
struct csv_table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // The index of the named column, if the header has it.
  std::optional<std::size_t> column(std::string_view name) const;
  // The cell as a number; nullopt when the column is absent or the text is no number.
  std::optional<double> number(const std::vector<std::string>& row, std::string_view name) const;
  // The cell's text; empty when the column is absent.
  std::string text(const std::vector<std::string>& row, std::string_view name) const;
};

csv_table parse_csv(std::string_view text);

// One line of events.csv (`epochMillis,source,event`, no header).
struct run_event {
  std::int64_t epoch_millis = 0;
  std::string source;
  std::string event;
};

std::vector<run_event> parse_events(std::string_view text);

// One line of an HdrHistogram percentile distribution (outputPercentileDistribution's
// text): the value in milliseconds at a percentile in [0, 1], and the count up to it.
struct percentile_point {
  double value_millis = 0;
  double percentile = 0;
  std::uint64_t total_count = 0;
};

// The distribution's lines, in file order; invalid_argument when the text has none.
result<std::vector<percentile_point>> parse_hgrm(std::string_view text);

// The value at percentile q (in [0, 1]): the first line at or above it, as HdrHistogram
// reports; nullopt for an empty distribution.
std::optional<double> value_at(const std::vector<percentile_point>& points, double q);

// The file's content; not_found when it does not exist, io_error when it cannot be read.
result<std::string> read_text(const std::filesystem::path& file);

// JSON text parsed without exceptions; invalid_argument naming `what` when malformed.
result<nlohmann::json> parse_json(std::string_view text, std::string_view what);

// A member of a JSON object as a number, nullopt when absent or of another type.
std::optional<double> json_number(const nlohmann::json& object, std::string_view key);
// A member as text (a string, or a number or boolean written out), nullopt when absent.
std::optional<std::string> json_text(const nlohmann::json& object, std::string_view key);

}  // namespace magnetar::perf::report
