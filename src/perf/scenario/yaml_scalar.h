// yaml_scalar: what a YAML scalar means, for the overrides (which keep a replaced
// scalar's type) and the settings parser (which checks each key's type).
//
// yaml-cpp keeps scalars as text; the type is the reading YAML's core schema gives a plain
// scalar, while a quoted one is always a string. Stateless functions, thread-safe.
#pragma once

#include "base/result.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace magnetar::perf::yaml_scalar {

enum class kind { string, boolean, integer, floating };

// "a string", "true or false", "a whole number", "a number": for messages.
std::string_view describe(kind k);

// The strict readings: `true`/`false` (any case of the core schema), decimal integers
// with an optional sign, decimal numbers. Anything else is nullopt.
std::optional<bool> parse_bool(std::string_view text);
std::optional<std::int64_t> parse_integer(std::string_view text);
std::optional<double> parse_floating(std::string_view text);

// What a scalar node means: quoted scalars are strings; plain ones the first reading that
// fits (boolean, integer, floating), else a string.
kind kind_of(const YAML::Node& scalar);

// A scalar node holding `text` with the type `k`; a string that a plain scalar would read
// as something else is tagged "!" (quoted) so that it stays a string.
YAML::Node make_scalar(const std::string& text, kind k);

// `text` read as the type of `existing` (a scalar), for --set and environment overrides.
// Fails with invalid_argument naming `where` ("--set workloads.iotTelemetry.rate") and
// the type it needs.
result<YAML::Node> retyped_like(const YAML::Node& existing, const std::string& text, std::string_view where);

}  // namespace magnetar::perf::yaml_scalar
