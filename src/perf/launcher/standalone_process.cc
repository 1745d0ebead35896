#include "perf/launcher/standalone_process.h"

#include "base/errc.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view prefixed_key = "PULSAR_PREFIX_";

bool environment_style(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(),
                                      [](unsigned char c) { return std::isupper(c) || std::isdigit(c) || c == '_'; });
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Closes the inotify descriptor on every path out.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

std::string quoted_tails(const fs::path& output, const fs::path& log) {
  std::string out;
  for (const auto& file : {output, log}) {
    const auto tail = tail_lines(file, 15);
    if (!tail.empty()) out += fmt::format("\n--- last lines of {} ---\n{}", file.string(), tail);
  }
  return out;
}

// Lines of the standalone's log that tell about settings it ignored.
std::vector<std::string> ignored_setting_warnings(const fs::path& log) {
  std::vector<std::string> out;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find("not implemented by magnetar") != std::string::npos) out.push_back(line);
  }
  return out;
}

}  // namespace

standalone_conf make_standalone_conf(const std::map<std::string, std::string>& env) {
  standalone_conf conf;
  for (const auto& [name, value] : env) {
    std::string_view key = name;
    if (key.starts_with(prefixed_key) && key.size() > prefixed_key.size()) {
      key.remove_prefix(prefixed_key.size());
    } else if (environment_style(key)) {
      conf.ignored.push_back(name);
      continue;
    }
    conf.text += fmt::format("{}={}\n", key, value);
  }
  if (!conf.ignored.empty()) {
    conf.notes.push_back(
        fmt::format("cluster.brokers.env: ignored (JVM/process settings that do not apply to magnetar): {}",
                    fmt::join(conf.ignored, ", ")));
  }
  return conf;
}

result<standalone_urls> parse_ready_file(std::string_view json_text) {
  const auto ready = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  const auto text_field = [&](const char* key) -> std::string {
    if (!ready.is_object() || !ready.contains(key) || !ready[key].is_string()) return {};
    return ready[key].get<std::string>();
  };
  standalone_urls urls{.service_url = text_field("brokerServiceUrl"), .admin_url = text_field("webServiceUrl")};
  if (urls.service_url.empty() || urls.admin_url.empty()) {
    return fail(base::errc::corrupt_data,
                fmt::format("ready file: expected brokerServiceUrl and webServiceUrl, got '{}'", json_text));
  }
  return urls;
}

result<standalone_process> standalone_process::start(const standalone_options& options) {
  std::error_code ec;
  fs::create_directories(options.directory / "data", ec);
  if (ec) return fail(base::errc::io_error, fmt::format("create {}: {}", options.directory.string(), ec.message()));
  const fs::path ready_file = options.directory / "ready.json";
  const fs::path log_file = options.directory / "standalone.log";
  const fs::path output_file = options.directory / "standalone.out.log";
  fs::remove(ready_file, ec);

  child_spec spec{.program = options.magnetar_bin,
                  .args = {"standalone", "--data-dir", (options.directory / "data").string(), "--broker-port", "0",
                           "--web-port", "0", "--log-file", log_file.string(), "--ready-file", ready_file.string()},
                  .environment = options.environment,
                  .log_file = output_file};
  if (!options.conf.text.empty()) {
    const fs::path conf_file = options.directory / "standalone.conf";
    std::ofstream conf(conf_file);
    conf << "# From the scenario's cluster.brokers.env (magnetar-perf).\n" << options.conf.text;
    conf.flush();
    if (!conf) return fail(base::errc::io_error, fmt::format("write {}", conf_file.string()));
    spec.args.insert(spec.args.end(), {"-c", conf_file.string()});
  }

  // The ready file arrives by rename into the directory: inotify wakes the wait for it,
  // the pidfd for an early exit; no polling loop.
  fd_guard watch{::inotify_init1(IN_CLOEXEC | IN_NONBLOCK)};
  if (watch.fd < 0 || ::inotify_add_watch(watch.fd, options.directory.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
    return fail(base::errc::io_error,
                fmt::format("inotify on {}: {}", options.directory.string(), std::strerror(errno)));
  }
  MAGNETAR_TRY(child, child_process::start(spec));

  const auto deadline = std::chrono::steady_clock::now() + options.ready_timeout;
  for (;;) {
    if (fs::exists(ready_file)) {
      auto urls = parse_ready_file(read_text(ready_file));
      if (!urls) {
        child.terminate();
        return urls.error();
      }
      return standalone_process(std::move(child), std::move(urls).value(), ignored_setting_warnings(log_file));
    }
    if (auto code = child.poll()) {
      return fail(
          base::errc::io_error,
          fmt::format("magnetar standalone ({}) exited with code {} before it was ready{}{}",
                      options.magnetar_bin.string(), *code,
                      options.conf.text.empty() ? ""
                                                : fmt::format(" (its configuration, from cluster.brokers.env: {})",
                                                              (options.directory / "standalone.conf").string()),
                      quoted_tails(output_file, log_file)));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      child.terminate();
      return fail(base::errc::timed_out,
                  fmt::format("magnetar standalone was not ready after {} s{}", options.ready_timeout.count(),
                              quoted_tails(output_file, log_file)));
    }
    pollfd descriptors[2] = {{.fd = watch.fd, .events = POLLIN, .revents = 0},
                             {.fd = child.pidfd(), .events = POLLIN, .revents = 0}};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    ::poll(descriptors, 2, static_cast<int>(std::min<std::int64_t>(left, 60'000)));
    // Drain the events; which file changed does not matter, the loop looks again.
    char events[4096];
    while (::read(watch.fd, events, sizeof events) > 0) {
    }
  }
}

result<fs::path> find_magnetar_binary_near(const fs::path& program) {
  const fs::path folder = program.parent_path();
  const fs::path candidates[] = {folder / "magnetar", folder / ".." / "magnetar" / "magnetar"};
  for (const auto& candidate : candidates) {
    if (::access(candidate.c_str(), X_OK) == 0 && fs::is_regular_file(candidate)) {
      return fs::weakly_canonical(candidate);
    }
  }
  return fail(base::errc::not_found,
              fmt::format("the magnetar binary: not found at {} nor {}; build it (scripts/build release magnetar) "
                          "or pass --magnetar-bin",
                          candidates[0].string(), fs::weakly_canonical(candidates[1]).string()));
}

result<fs::path> find_magnetar_binary(const std::optional<fs::path>& given) {
  if (given) {
    if (::access(given->c_str(), X_OK) != 0 || !fs::is_regular_file(*given)) {
      return fail(base::errc::not_found, fmt::format("--magnetar-bin {}: not an executable file", given->string()));
    }
    return fs::absolute(*given);
  }
  std::error_code ec;
  const auto self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fail(base::errc::io_error, fmt::format("/proc/self/exe: {}", ec.message()));
  return find_magnetar_binary_near(self);
}

}  // namespace magnetar::perf
