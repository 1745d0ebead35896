#include "perf/launcher/host_info.h"

#include <fmt/format.h>

#include <sys/utsname.h>
#include <unistd.h>
#include <charconv>
#include <fstream>
#include <sstream>

namespace magnetar::perf {

namespace {

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string proc_field(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end);
    const auto colon = line.find(':');
    if (colon != std::string_view::npos && trim(line.substr(0, colon)) == key) {
      return std::string(trim(line.substr(colon + 1)));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return {};
}

host_info read_host_info() {
  host_info host;
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0) host.hostname = name;
  host.cpus = static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN));
  // "MemTotal:       24540216 kB"
  const auto total = proc_field(read_file("/proc/meminfo"), "MemTotal");
  std::uint64_t kib = 0;
  std::from_chars(total.data(), total.data() + total.size(), kib);
  host.memory_bytes = kib * 1024;
  utsname uts{};
  if (::uname(&uts) == 0) host.kernel = fmt::format("{} {}", uts.sysname, uts.release);
  host.cpu_model = proc_field(read_file("/proc/cpuinfo"), "model name");
  return host;
}

nlohmann::json to_json(const host_info& host) {
  return {{"hostname", host.hostname},
          {"cpus", host.cpus},
          {"memoryBytes", host.memory_bytes},
          {"kernel", host.kernel},
          {"cpuModel", host.cpu_model}};
}

}  // namespace magnetar::perf
