#include "perf/scenario/quantity_units.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <utility>

namespace magnetar::perf {
namespace {

struct number_and_unit {
  double number = 0;
  std::string unit;  // lower case, may be empty
};

std::optional<number_and_unit> split(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  std::size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  number_and_unit out;
  const auto [end, error] = std::from_chars(text.data(), text.data() + digits, out.number);
  if (error != std::errc{} || end != text.data() + digits || !std::isfinite(out.number)) return std::nullopt;
  for (char c : text.substr(digits)) {
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    out.unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

template <std::size_t N>
std::optional<double> scaled(std::string_view text, const std::array<std::pair<std::string_view, double>, N>& units) {
  const auto parsed = split(text);
  if (!parsed) return std::nullopt;
  for (const auto& [unit, factor] : units) {
    if (parsed->unit == unit) return parsed->number * factor;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::microseconds> parse_duration(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 5> units = {
      {{"us", 1}, {"ms", 1e3}, {"s", 1e6}, {"m", 60e6}, {"h", 3600e6}}};
  const auto micros = scaled(text, units);
  if (!micros || *micros > 1e13) return std::nullopt;
  return std::chrono::microseconds(static_cast<std::int64_t>(std::llround(*micros)));
}

std::optional<double> parse_percent(std::string_view text) {
  const auto parsed = split(text);
  if (!parsed || parsed->unit != "%" || parsed->number > 100) return std::nullopt;
  return parsed->number;
}

std::optional<std::int64_t> parse_bit_rate(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 4> units = {
      {{"bit", 1}, {"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}}};
  const auto bits = scaled(text, units);
  if (!bits || *bits > 1e12) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*bits));
}

std::optional<std::int64_t> parse_byte_size(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, double>, 7> units = {{{"b", 1},
                                                                                {"kb", 1024},
                                                                                {"k", 1024},
                                                                                {"kib", 1024},
                                                                                {"mb", 1024.0 * 1024},
                                                                                {"m", 1024.0 * 1024},
                                                                                {"mib", 1024.0 * 1024}}};
  const auto bytes = scaled(text, units);
  if (!bytes || *bytes > 1e12) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*bytes));
}

}  // namespace magnetar::perf
