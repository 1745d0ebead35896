#include "wire/topic_name.h"

#include "wire/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace magnetar::wire {

namespace {

constexpr std::string_view partition_marker = "-partition-";

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

int partition_index(std::string_view local) {
  auto at = local.rfind(partition_marker);
  if (at == std::string_view::npos) return -1;
  auto digits = local.substr(at + partition_marker.size());
  int index = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() || index < 0) return -1;
  return index;
}

}  // namespace

bool is_valid_name_part(std::string_view part) {
  // "." and ".." pass upstream's pattern, but as a component of a metadata path they
  // would name another node (ZooKeeper refuses them too).
  if (part.empty() || part == "." || part == "..") return false;
  return std::all_of(part.begin(), part.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '=' || c == ':' || c == '.' || c == '_';
  });
}

result<topic_name> topic_name::parse(std::string_view name) {
  auto invalid = [&](std::string_view why) {
    return fail(errc::invalid_topic_name, fmt::format("invalid topic name '{}': {}", name, why));
  };
  topic_name out;
  out._domain = "persistent";
  std::string_view rest = name;
  bool short_form = true;
  if (auto scheme = name.find("://"); scheme != std::string_view::npos) {
    out._domain = std::string(name.substr(0, scheme));
    if (out._domain != "persistent" && out._domain != "non-persistent" && out._domain != "topic" &&
        out._domain != "segment") {
      return invalid("the domain must be persistent://, non-persistent://, topic:// or segment://");
    }
    rest = name.substr(scheme + 3);
    short_form = false;
  }
  auto parts = split(rest, '/');
  if (out.is_segment()) {
    // segment://t/n/<topic>/<start>-<end>-<id>: the local name keeps the slash.
    if (parts.size() != 4 || parts[2].empty() || parts[3].empty()) {
      return invalid("expected segment://<tenant>/<namespace>/<topic>/<start>-<end>-<id>");
    }
    parts = {parts[0], parts[1], rest.substr(parts[0].size() + parts[1].size() + 2)};
  } else if (short_form && parts.size() == 1) {
    parts = {"public", "default", rest};
  } else if (parts.size() == 4) {
    return invalid("names with a cluster (tenant/cluster/namespace/topic) are not supported");
  } else if (parts.size() != 3) {
    return invalid(short_form ? "a short name is either <topic> or <tenant>/<namespace>/<topic>"
                              : "expected <domain>://<tenant>/<namespace>/<topic>");
  }
  out._tenant = std::string(parts[0]);
  out._namespace = std::string(parts[1]);
  out._local = std::string(parts[2]);
  if (!is_valid_name_part(out._tenant)) return invalid("the tenant may hold only letters, digits and -=:._");
  if (!is_valid_name_part(out._namespace)) return invalid("the namespace may hold only letters, digits and -=:._");
  if (out._local.empty()) return invalid("the topic's local name is empty");
  // The local name becomes part of a metadata path: no "." or ".." component in it.
  for (const auto piece : split(out._local, '/')) {
    if (piece == "." || piece == "..") return invalid("the topic's local name may not hold a '.' or '..' component");
  }
  if (!out.is_segment() && !out.is_scalable()) out._partition = partition_index(out._local);
  return out;
}

std::string topic_name::full() const { return fmt::format("{}://{}/{}/{}", _domain, _tenant, _namespace, _local); }

std::string topic_name::namespace_name() const { return fmt::format("{}/{}", _tenant, _namespace); }

topic_name topic_name::partitioned_parent() const {
  if (_partition < 0) return *this;
  topic_name parent = *this;
  parent._local = _local.substr(0, _local.rfind(partition_marker));
  parent._partition = -1;
  return parent;
}

topic_name topic_name::partition_of(int index) const {
  topic_name child = partitioned_parent();
  child._local = fmt::format("{}{}{}", child._local, partition_marker, index);
  child._partition = index;
  return child;
}

std::string topic_name::persistence_name() const {
  return fmt::format("{}/{}/{}/{}", _tenant, _namespace, _domain, _local);
}

std::string segment_descriptor(std::uint32_t hash_start, std::uint32_t hash_end, std::uint64_t id) {
  return fmt::format("{:04x}-{:04x}-{}", hash_start, hash_end, id);
}

std::string segment_topic_name(std::string_view scalable_topic_path, std::uint32_t hash_start, std::uint32_t hash_end,
                               std::uint64_t id) {
  constexpr std::string_view scheme = "topic://";
  if (scalable_topic_path.starts_with(scheme)) scalable_topic_path.remove_prefix(scheme.size());
  return fmt::format("segment://{}/{}", scalable_topic_path, segment_descriptor(hash_start, hash_end, id));
}

}  // namespace magnetar::wire
