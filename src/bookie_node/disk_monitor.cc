#include "bookie_node/disk_monitor.h"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

namespace magnetar::bookie_node {

result<directory_usage> measure_directory(const std::string& path) {
  struct statvfs fs {};
  if (::statvfs(path.c_str(), &fs) != 0) {
    return fail(std::error_code(errno, std::system_category()), fmt::format("statvfs {}", path));
  }
  return directory_usage{.path = path,
                         .free_bytes = std::uint64_t{fs.f_bavail} * fs.f_frsize,
                         .total_bytes = std::uint64_t{fs.f_blocks} * fs.f_frsize};
}

bool next_read_only(bool read_only, const std::vector<directory_usage>& directories, bool write_failed,
                    disk_thresholds thresholds) {
  if (write_failed) return true;
  const auto worst = std::max_element(directories.begin(), directories.end(),
                                      [](const auto& a, const auto& b) { return a.usage() < b.usage(); });
  const double usage = worst == directories.end() ? 0.0 : worst->usage();
  if (usage >= thresholds.full) return true;
  if (read_only) return usage >= thresholds.low_water;
  return false;
}

}  // namespace magnetar::bookie_node
