// quantity_units: the units a scenario writes network settings in, as tc and netem users
// write them: durations (`20ms`, `1.5s`, `250us`, `2m`), percentages (`1%`, `0.25%`), bit
// rates (`20Mbit`, `512kbit`, `1Gbit`, `100bit`) and byte sizes (`64kb`, `1mb`, `1500b`;
// k and m are 1024 as in tc, `KiB`/`MiB` too). Case is ignored.
//
// Each returns nullopt for text it does not take; the caller names the key and the form.
// Stateless, thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace magnetar::perf {

std::optional<std::chrono::microseconds> parse_duration(std::string_view text);
// The number before '%' (0 to 100).
std::optional<double> parse_percent(std::string_view text);
std::optional<std::int64_t> parse_bit_rate(std::string_view text);
std::optional<std::int64_t> parse_byte_size(std::string_view text);

}  // namespace magnetar::perf
