#include "perf/cluster/standalone_process.h"

#include "base/errc.h"
#include "perf/cluster/ready_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

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

  MAGNETAR_TRY(child, child_process::start(spec));
  auto ready = wait_for_ready_file(child, ready_file, std::chrono::steady_clock::now() + options.ready_timeout);
  if (!ready) {
    const bool exited = ready.error().code() != base::errc::timed_out;
    const auto why = ready.error().detail();
    if (!exited) child.terminate();
    return fail(ready.error().code(),
                fmt::format("magnetar standalone ({}) {}{}{}", options.magnetar_bin.string(), why,
                            exited && !options.conf.text.empty()
                                ? fmt::format(" (its configuration, from cluster.brokers.env: {})",
                                              (options.directory / "standalone.conf").string())
                                : "",
                            quoted_tails(output_file, log_file)));
  }
  auto urls = parse_ready_file(ready.value());
  if (!urls) {
    child.terminate();
    return urls.error();
  }
  return standalone_process(std::move(child), std::move(urls).value(), ignored_setting_warnings(log_file));
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
