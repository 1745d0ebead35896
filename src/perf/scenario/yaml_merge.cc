#include "perf/scenario/yaml_merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace magnetar::perf {
namespace {

namespace fs = std::filesystem;

YAML::Node empty_mapping() { return YAML::Node(YAML::NodeType::Map); }

// The files being merged, outermost first: a file met again while it is open is a cycle.
using open_files = std::vector<fs::path>;

std::string chain(const open_files& open, const fs::path& again) {
  std::string out;
  for (const auto& f : open) out += f.string() + " -> ";
  return out + again.string();
}

result<YAML::Node> read_mapping(const fs::path& file, const fs::path& declared_by) {
  std::error_code ec;
  const std::string by = declared_by.empty() ? "" : fmt::format(" (extended by {})", declared_by.string());
  if (!fs::exists(file, ec)) {
    return fail(base::errc::invalid_argument, fmt::format("scenario file {}{} does not exist", file.string(), by));
  }
  if (fs::is_directory(file, ec)) {
    return fail(base::errc::invalid_argument, fmt::format("scenario file {}{} is a directory", file.string(), by));
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    return fail(base::errc::io_error, fmt::format("scenario file {}{} cannot be read", file.string(), by));
  } catch (const YAML::Exception& e) {
    return fail(base::errc::invalid_argument, fmt::format("scenario file {}: line {}, column {}: {}", file.string(),
                                                          e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root.IsMap()) {
    return fail(base::errc::invalid_argument,
                fmt::format("scenario file {}{}: the root must be a YAML mapping (keys such as cluster and "
                            "workloads), not {}",
                            file.string(), by,
                            root.IsNull()       ? "empty"
                            : root.IsSequence() ? "a list"
                                                : "a scalar"));
  }
  return root;
}

result<void> merge_file(YAML::Node& target, const fs::path& file, const fs::path& declared_by, open_files& open);

result<void> merge_parent(YAML::Node& target, const YAML::Node& entry, const fs::path& file, open_files& open) {
  if (!entry.IsScalar() || entry.Scalar().empty()) {
    return fail(base::errc::invalid_argument,
                fmt::format("scenario file {}: each extends entry must be a non-empty file path", file.string()));
  }
  fs::path parent = entry.Scalar();
  if (parent.is_relative()) parent = file.parent_path() / parent;
  return merge_file(target, parent, file, open);
}

result<void> merge_file(YAML::Node& target, const fs::path& file, const fs::path& declared_by, open_files& open) {
  MAGNETAR_TRY(source, read_mapping(file, declared_by));
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(file, ec);
  if (ec) canonical = fs::absolute(file);
  if (std::find(open.begin(), open.end(), canonical) != open.end()) {
    return fail(base::errc::invalid_argument, fmt::format("scenario inheritance cycle: {}", chain(open, canonical)));
  }
  open.push_back(canonical);
  const YAML::Node parents = source["extends"];
  if (parents.IsDefined() && !parents.IsNull()) {
    if (parents.IsScalar()) {
      MAGNETAR_TRY(merge_parent(target, parents, canonical, open));
    } else if (parents.IsSequence()) {
      for (const auto& entry : parents) {
        MAGNETAR_TRY(merge_parent(target, entry, canonical, open));
      }
    } else {
      return fail(base::errc::invalid_argument,
                  fmt::format("scenario file {}: extends must be a file path or a list of file paths", file.string()));
    }
  }
  source.remove("extends");
  merge_mapping(target, source);
  open.pop_back();
  return success();
}

}  // namespace

YAML::Node without_nulls(const YAML::Node& node) {
  if (node.IsMap()) {
    YAML::Node out = empty_mapping();
    for (const auto& entry : node) {
      if (entry.second.IsNull()) continue;
      out[entry.first.Scalar()] = without_nulls(entry.second);
    }
    return out;
  }
  // Lists replace as a whole, nulls in them included; scalars are copied.
  return YAML::Clone(node);
}

void merge_mapping(YAML::Node& target, const YAML::Node& source) {
  for (const auto& entry : source) {
    const std::string key = entry.first.Scalar();
    const YAML::Node& value = entry.second;
    if (value.IsNull()) {
      target.remove(key);
      continue;
    }
    // A const lookup: the non-const one would add the key. A missing key gives a node
    // whose type yaml-cpp throws for, hence IsDefined() first.
    const YAML::Node existing = std::as_const(target)[key];
    if (value.IsMap() && existing.IsDefined() && existing.IsMap()) {
      YAML::Node current = target[key];
      merge_mapping(current, value);
    } else {
      target[key] = without_nulls(value);
    }
  }
}

result<void> merge_scenario_file(YAML::Node& target, const fs::path& file) {
  open_files open;
  return merge_file(target, file, {}, open);
}

}  // namespace magnetar::perf
