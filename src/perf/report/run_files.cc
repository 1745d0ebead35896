#include "perf/report/run_files.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

namespace magnetar::perf::report {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto end = text.find('\n');
    lines.push_back(trim(text.substr(0, end)));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The run directory's CSV files quote nothing (topic names have no commas), so a plain
// split is the whole format.
std::vector<std::string> split_cells(std::string_view line) {
  std::vector<std::string> cells;
  while (true) {
    auto comma = line.find(',');
    cells.emplace_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return cells;
}

std::optional<double> to_number(std::string_view text) {
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

}  // namespace

std::optional<std::size_t> csv_table::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return i;
  }
  return std::nullopt;
}

std::optional<double> csv_table::number(const std::vector<std::string>& row, std::string_view name) const {
  auto index = column(name);
  if (!index || *index >= row.size()) return std::nullopt;
  return to_number(row[*index]);
}

std::string csv_table::text(const std::vector<std::string>& row, std::string_view name) const {
  auto index = column(name);
  if (!index || *index >= row.size()) return {};
  return row[*index];
}

csv_table parse_csv(std::string_view text) {
  csv_table table;
  bool first = true;
  for (auto line : split_lines(text)) {
    if (line.empty()) continue;
    auto cells = split_cells(line);
    if (first) {
      table.header = std::move(cells);
      first = false;
    } else if (cells.size() >= table.header.size()) {
      table.rows.push_back(std::move(cells));
    }
  }
  return table;
}

std::vector<run_event> parse_events(std::string_view text) {
  std::vector<run_event> events;
  for (auto line : split_lines(text)) {
    auto cells = split_cells(line);
    if (cells.size() < 3) continue;
    auto millis = to_number(cells[0]);
    // A header line, should a writer add one, has no number in front.
    if (!millis) continue;
    events.push_back({static_cast<std::int64_t>(*millis), cells[1], cells[2]});
  }
  return events;
}

result<std::vector<percentile_point>> parse_hgrm(std::string_view text) {
  std::vector<percentile_point> points;
  for (auto line : split_lines(text)) {
    // Header ("Value Percentile ...") and footer ("#[Mean = ...]") lines start with no number.
    auto words = split_words(line);
    if (words.size() < 3) continue;
    auto value = to_number(words[0]);
    auto percentile = to_number(words[1]);
    auto count = to_number(words[2]);
    if (!value || !percentile || !count) continue;
    points.push_back({*value, *percentile, static_cast<std::uint64_t>(*count)});
  }
  if (points.empty()) {
    return fail(base::errc::invalid_argument, "no percentile lines in the distribution");
  }
  return points;
}

std::optional<double> value_at(const std::vector<percentile_point>& points, double q) {
  if (points.empty()) return std::nullopt;
  for (const auto& point : points) {
    if (point.percentile >= q) return point.value_millis;
  }
  return points.back().value_millis;
}

result<std::string> read_text(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return fail(base::errc::not_found, fmt::format("{}: no such file", file.string()));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(base::errc::io_error, fmt::format("{}: cannot open", file.string()));
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return fail(base::errc::io_error, fmt::format("{}: read failed", file.string()));
  return content.str();
}

result<nlohmann::json> parse_json(std::string_view text, std::string_view what) {
  auto parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return fail(base::errc::invalid_argument, fmt::format("{}: malformed JSON", what));
  }
  return parsed;
}

std::optional<double> json_number(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::optional<std::string> json_text(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_boolean()) return std::string(it->get<bool>() ? "true" : "false");
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  if (it->is_number()) return fmt::format("{}", it->get<double>());
  return it->dump();
}

}  // namespace magnetar::perf::report
