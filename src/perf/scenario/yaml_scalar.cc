#include "perf/scenario/yaml_scalar.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace magnetar::perf::yaml_scalar {

std::string_view describe(kind k) {
  switch (k) {
    case kind::string: return "a string";
    case kind::boolean: return "true or false";
    case kind::integer: return "a whole number";
    case kind::floating: return "a number";
  }
  return "a value";
}

std::optional<bool> parse_bool(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return std::nullopt;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_floating(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  // from_chars reads "inf" and "nan", which are not numbers a scenario means.
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

kind kind_of(const YAML::Node& scalar) {
  // yaml-cpp tags quoted scalars "!" and plain ones "?".
  if (scalar.Tag() == "!") return kind::string;
  const std::string& text = scalar.Scalar();
  if (parse_bool(text)) return kind::boolean;
  if (parse_integer(text)) return kind::integer;
  if (parse_floating(text)) return kind::floating;
  return kind::string;
}

YAML::Node make_scalar(const std::string& text, kind k) {
  YAML::Node node(text);
  if (k == kind::string) {
    YAML::Node plain(text);
    plain.SetTag("?");
    if (kind_of(plain) != kind::string || text.empty() || text == "~" || text == "null" || text == "Null" ||
        text == "NULL") {
      node.SetTag("!");
    } else {
      node.SetTag("?");
    }
  } else {
    node.SetTag("?");
  }
  return node;
}

result<YAML::Node> retyped_like(const YAML::Node& existing, const std::string& text, std::string_view where) {
  const kind k = kind_of(existing);
  bool fits = true;
  switch (k) {
    case kind::string: break;
    case kind::boolean: fits = parse_bool(text).has_value(); break;
    case kind::integer: fits = parse_integer(text).has_value(); break;
    // A whole number is a number too: `fraction: 0.0` takes 1.
    case kind::floating: fits = parse_floating(text).has_value(); break;
  }
  if (!fits) {
    return fail(base::errc::invalid_argument, fmt::format("{}: \"{}\" is not {}, as the value it replaces ({}) is",
                                                          where, text, describe(k), existing.Scalar()));
  }
  return make_scalar(text, k);
}

}  // namespace magnetar::perf::yaml_scalar
