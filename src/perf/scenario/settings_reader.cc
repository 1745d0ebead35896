#include "perf/scenario/settings_reader.h"

#include "perf/scenario/yaml_scalar.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

namespace magnetar::perf {
namespace {

// Upstream's older, flat workload and cluster keys, and where each setting lives now.
const std::map<std::string_view, std::string_view>& moved_keys() {
  static const std::map<std::string_view, std::string_view> keys = {
      {"warmupSeconds", "warmup.seconds"},
      {"warmupMessages", "warmup.messages"},
      {"warmupRounds", "warmup.rounds"},
      {"warmupRoundDelaySeconds", "warmup.roundDelaySeconds"},
      {"durationSeconds", "measurement.seconds"},
      {"numberOfMessages", "measurement.messages"},
      {"payloadBytes", "payload.size"},
      {"deviceCount", "devices.count"},
      {"gatewayCount", "gateways.count"},
      {"topicCount", "topics.count"},
      {"topicPrefix", "topics.prefix"},
      {"applicationCount", "applications.count"},
      {"clientsPerApplication", "applications.podsPerApplication"},
      {"ioThreads", "gateways.producer.ioThreads and applications.client.ioThreads"},
      {"listenerThreads", "gateways.producer.listenerThreads and applications.client.listenerThreads"},
      {"maxOutstanding", "gateways.producer.maxOutstanding"},
      {"batchingEnabled", "gateways.producer.batchingEnabled"},
      {"precreateProducers", "gateways.producer.precreate"},
      {"consumerTimeoutSeconds", "timeoutSeconds"},
      {"clientRestartIntervalSeconds", "behaviors.podRestarts.intervalSeconds"},
      {"clientRestartFraction", "behaviors.podRestarts.fraction"},
      {"brokerEnvs", "brokers.env"},
      {"bookkeeperEnvs", "bookies.env"},
      {"producerEnvs", "workloads.iotTelemetry.gateways.env"},
      {"consumerEnvs", "workloads.iotTelemetry.applications.env"},
  };
  return keys;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string quoted(const YAML::Node& node) {
  if (node.IsScalar()) return fmt::format("\"{}\"", node.Scalar());
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "null";
}

std::string list_keys(const std::vector<std::string_view>& known) {
  std::string out;
  for (std::size_t i = 0; i < known.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == known.size() ? " and " : ", ");
    out += known[i];
  }
  return out;
}

}  // namespace

std::string problem_list::joined() const {
  std::string out;
  for (const auto& m : _messages) out += (out.empty() ? "" : "\n") + m;
  return out;
}

std::string closest_key(std::string_view key, const std::vector<std::string_view>& known) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, key.size() / 3) + 1;
  for (auto candidate : known) {
    const auto d = edit_distance(key, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

settings_reader::settings_reader(const YAML::Node& node, std::string path, std::vector<std::string_view> known,
                                 problem_list& problems)
    : _path(std::move(path)), _problems(problems) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    _problems.add(fmt::format("{} must be a mapping with the keys {}, not {}", _path, list_keys(known), quoted(node)));
    return;
  }
  _node = node;
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string hint;
    if (const auto moved = moved_keys().find(key); moved != moved_keys().end()) {
      hint = fmt::format(" (upstream's older format; it is {} under {} now)", moved->second, _path);
    } else if (const auto close = closest_key(key, known); !close.empty()) {
      hint = fmt::format(" (did you mean {}?)", path_of(close));
    }
    _problems.add(fmt::format("{} is not a setting{}; {} has {}", path_of(key), hint, _path, list_keys(known)));
  }
}

std::string settings_reader::path_of(std::string_view key) const {
  return _path.empty() ? std::string(key) : fmt::format("{}.{}", _path, key);
}

std::optional<YAML::Node> settings_reader::value(std::string_view key) const {
  // _node is null for an absent section; a const lookup adds no key.
  if (!_node.IsDefined() || !_node.IsMap()) return std::nullopt;
  const YAML::Node& node = _node;
  YAML::Node child = node[std::string(key)];
  if (!child.IsDefined() || child.IsNull()) return std::nullopt;
  return child;
}

bool settings_reader::has(std::string_view key) const { return value(key).has_value(); }

settings_reader settings_reader::section(std::string_view key, std::vector<std::string_view> known) const {
  return settings_reader(value(key).value_or(YAML::Node()), path_of(key), std::move(known), _problems);
}

std::string settings_reader::range_text(std::int64_t min, std::int64_t max) const {
  if (max == std::numeric_limits<int>::max() || max == std::numeric_limits<std::int64_t>::max()) {
    return fmt::format("{} or more", min);
  }
  return fmt::format("from {} to {}", min, max);
}

void settings_reader::read(std::string_view key, std::int64_t& out, std::int64_t min, std::int64_t max) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  const auto parsed = node.IsScalar() && yaml_scalar::kind_of(node) == yaml_scalar::kind::integer
                          ? yaml_scalar::parse_integer(node.Scalar())
                          : std::nullopt;
  if (!parsed || *parsed < min || *parsed > max) {
    _problems.add(
        fmt::format("{} must be a whole number, {}, not {}", path_of(key), range_text(min, max), quoted(node)));
    return;
  }
  out = *parsed;
}

void settings_reader::read(std::string_view key, int& out, std::int64_t min, std::int64_t max) {
  std::int64_t wide = out;
  read(key, wide, min, std::min<std::int64_t>(max, std::numeric_limits<int>::max()));
  out = static_cast<int>(wide);
}

void settings_reader::read(std::string_view key, double& out, double min, double max) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  const auto k = node.IsScalar() ? yaml_scalar::kind_of(node) : yaml_scalar::kind::string;
  const auto parsed = k == yaml_scalar::kind::integer || k == yaml_scalar::kind::floating
                          ? yaml_scalar::parse_floating(node.Scalar())
                          : std::nullopt;
  if (!parsed || *parsed < min || *parsed > max) {
    const std::string range = max == std::numeric_limits<double>::max() ? fmt::format("{} or more", min)
                                                                        : fmt::format("from {} to {}", min, max);
    _problems.add(fmt::format("{} must be a number, {}, not {}", path_of(key), range, quoted(node)));
    return;
  }
  out = *parsed;
}

void settings_reader::read(std::string_view key, bool& out) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  const auto parsed = node.IsScalar() && node.Tag() != "!" ? yaml_scalar::parse_bool(node.Scalar()) : std::nullopt;
  if (!parsed) {
    _problems.add(fmt::format("{} must be true or false, not {}", path_of(key), quoted(node)));
    return;
  }
  out = *parsed;
}

void settings_reader::read(std::string_view key, std::string& out, bool allow_empty) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  if (!node.IsScalar() || (!allow_empty && node.Scalar().empty())) {
    _problems.add(fmt::format("{} must be a non-empty string, not {}", path_of(key), quoted(node)));
    return;
  }
  out = node.Scalar();
}

void settings_reader::read(std::string_view key, std::map<std::string, std::string>& out) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  if (!node.IsMap()) {
    _problems.add(fmt::format("{} must be a mapping of names to values, not {}", path_of(key), quoted(node)));
    return;
  }
  std::map<std::string, std::string> values;
  for (const auto& entry : node) {
    const std::string name = entry.first.Scalar();
    if (entry.second.IsNull()) {
      values[name] = "";
    } else if (entry.second.IsScalar()) {
      values[name] = entry.second.Scalar();
    } else {
      _problems.add(fmt::format("{}.{} must be a single value (quote it: \"...\"), not {}", path_of(key), name,
                                quoted(entry.second)));
    }
  }
  out = std::move(values);
}

void settings_reader::read(std::string_view key, std::vector<int>& out, std::int64_t min) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  if (!node.IsSequence()) {
    _problems.add(fmt::format("{} must be a list of whole numbers, {}, not {}", path_of(key),
                              range_text(min, std::numeric_limits<int>::max()), quoted(node)));
    return;
  }
  std::vector<int> values;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    const auto parsed = item.IsScalar() && yaml_scalar::kind_of(item) == yaml_scalar::kind::integer
                            ? yaml_scalar::parse_integer(item.Scalar())
                            : std::nullopt;
    if (!parsed || *parsed < min || *parsed > std::numeric_limits<int>::max()) {
      _problems.add(fmt::format("{}[{}] must be a whole number, {}, not {}", path_of(key), i,
                                range_text(min, std::numeric_limits<int>::max()), quoted(item)));
      return;
    }
    values.push_back(static_cast<int>(*parsed));
  }
  out = std::move(values);
}

void settings_reader::read(std::string_view key, std::vector<std::string>& out) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  std::vector<std::string> values;
  if (node.IsScalar() && !node.Scalar().empty()) {
    values.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      const YAML::Node item = node[i];
      if (!item.IsScalar() || item.Scalar().empty()) {
        _problems.add(fmt::format("{}[{}] must be a non-empty string, not {}", path_of(key), i, quoted(item)));
        return;
      }
      values.push_back(item.Scalar());
    }
  } else {
    _problems.add(fmt::format("{} must be a name or a list of names, not {}", path_of(key), quoted(node)));
    return;
  }
  out = std::move(values);
}

void settings_reader::read(std::string_view key, std::vector<std::vector<std::string>>& out) {
  const auto found = value(key);
  if (!found) return;
  const YAML::Node& node = *found;
  if (!node.IsSequence()) {
    _problems.add(fmt::format("{} must be a list, not {}", path_of(key), quoted(node)));
    return;
  }
  std::vector<std::vector<std::string>> groups;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    std::vector<std::string> names;
    if (item.IsScalar() && !item.Scalar().empty()) {
      names.push_back(item.Scalar());
    } else if (item.IsSequence() && item.size() > 0) {
      for (std::size_t j = 0; j < item.size(); ++j) {
        if (!item[j].IsScalar() || item[j].Scalar().empty()) {
          _problems.add(fmt::format("{}[{}][{}] must be a name, not {}", path_of(key), i, j, quoted(item[j])));
          return;
        }
        names.push_back(item[j].Scalar());
      }
    } else {
      _problems.add(fmt::format("{}[{}] must be a name or a list of names, not {}", path_of(key), i, quoted(item)));
      return;
    }
    groups.push_back(std::move(names));
  }
  out = std::move(groups);
}

std::vector<std::string> settings_reader::names_in(std::string_view key) {
  const auto found = value(key);
  if (!found) return {};
  const YAML::Node& node = *found;
  if (!node.IsMap()) {
    _problems.add(fmt::format("{} must be a mapping of names to settings, not {}", path_of(key), quoted(node)));
    return {};
  }
  std::vector<std::string> names;
  for (const auto& entry : node) names.push_back(entry.first.Scalar());
  return names;
}

}  // namespace magnetar::perf
