// settings_reader: reads one mapping of a scenario into typed values, collecting a message
// for each problem (an unknown key, a wrong type, a value out of range) with the key's full
// path and what is allowed. parse_settings() builds one per section.
//
// Not thread-safe; lives for one parse.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

// Every problem found, in the order found.
class problem_list {
 public:
  void add(std::string message) { _messages.push_back(std::move(message)); }
  bool empty() const { return _messages.empty(); }
  // The messages, one a line.
  std::string joined() const;

 private:
  std::vector<std::string> _messages;
};

// The known key closest to `key` by edit distance (case ignored), or "" when none is close.
std::string closest_key(std::string_view key, const std::vector<std::string_view>& known);

class settings_reader {
 public:
  // `node` may be undefined or null (an absent section: every read keeps its default). A
  // node that is not a mapping is a problem. Keys outside `known` are problems, with the
  // closest known key or, for upstream's older flat keys, where the setting lives now.
  settings_reader(const YAML::Node& node, std::string path, std::vector<std::string_view> known,
                  problem_list& problems);

  // The full path of `key` in this section, for messages.
  std::string path_of(std::string_view key) const;
  bool has(std::string_view key) const;
  settings_reader section(std::string_view key, std::vector<std::string_view> known) const;

  // Each leaves `out` as it is when the key is absent or null, or when the value is a
  // problem. `what` says what the number counts, in messages ("seconds").
  void read(std::string_view key, int& out, std::int64_t min, std::int64_t max = std::numeric_limits<int>::max());
  void read(std::string_view key, std::int64_t& out, std::int64_t min,
            std::int64_t max = std::numeric_limits<std::int64_t>::max());
  void read(std::string_view key, double& out, double min, double max = std::numeric_limits<double>::max());
  void read(std::string_view key, bool& out);
  void read(std::string_view key, std::string& out, bool allow_empty = false);
  // A mapping of names to scalars, each taken as its text.
  void read(std::string_view key, std::map<std::string, std::string>& out);
  // A list of whole numbers, each at least `min`.
  void read(std::string_view key, std::vector<int>& out, std::int64_t min);
  // One non-empty string, or a list of them.
  void read(std::string_view key, std::vector<std::string>& out);
  // A list whose items are each a name or a list of names ([gateways, [bookies, zookeeper]]).
  void read(std::string_view key, std::vector<std::vector<std::string>>& out);
  // The keys of a mapping whose keys are names the scenario chooses (network impairments),
  // in the file's order; empty when the key is absent.
  std::vector<std::string> names_in(std::string_view key);

  problem_list& problems() const { return _problems; }

 private:
  // The key's node, or nullopt when the key is absent or null.
  std::optional<YAML::Node> value(std::string_view key) const;
  std::string range_text(std::int64_t min, std::int64_t max) const;

  YAML::Node _node;
  std::string _path;
  problem_list& _problems;
};

}  // namespace magnetar::perf
