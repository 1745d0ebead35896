#include "perf/launcher/run_directory.h"

#include "base/errc.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <sys/stat.h>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

std::tm utc(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm out{};
  ::gmtime_r(&seconds, &out);
  return out;
}

// mkdir rather than create_directories for the last component: it fails with EEXIST when
// another run took the name, which is how two runs in the same second stay apart.
result<bool> make_directory_exclusive(const fs::path& path) {
  if (::mkdir(path.c_str(), 0755) == 0) return true;
  if (errno == EEXIST) return false;
  return fail(base::errc::io_error, fmt::format("mkdir {}: {}", path.string(), std::strerror(errno)));
}

}  // namespace

std::string generate_run_id() {
  // std::random_device reads the kernel's random source on Linux (getrandom or
  // /dev/urandom), so run ids of runs started in the same second differ.
  std::random_device source;
  std::string id;
  id.reserve(32);
  for (int word = 0; word < 4; ++word) id += fmt::format("{:08x}", static_cast<std::uint32_t>(source()));
  return id;
}

std::string iso8601_utc(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", utc(t));
}

result<run_directory> create_run_directory(const fs::path& reports, std::string_view name,
                                           std::chrono::system_clock::time_point now) {
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") {
    return fail(base::errc::invalid_argument,
                fmt::format("run name '{}': must be a non-empty file name without '/'", name));
  }
  const std::tm when = utc(now);
  std::error_code ec;
  const fs::path parent = fs::absolute(reports, ec) / fmt::format("{:%Y-%m-%d}", when) / std::string(name);
  if (!ec) fs::create_directories(parent, ec);
  if (ec) return fail(base::errc::io_error, fmt::format("create {}: {}", parent.string(), ec.message()));

  const std::string stem = fmt::format("{:%m-%d-%H-%M-%S}", when);
  fs::path root;
  for (int attempt = 1;; ++attempt) {
    root = parent / (attempt == 1 ? stem : fmt::format("{}-{}", stem, attempt));
    MAGNETAR_TRY(created, make_directory_exclusive(root));
    if (created) break;
  }

  for (const char* sub : {"coordination", "gateways", "applications", "workloads", "standalone"}) {
    fs::create_directory(root / sub, ec);
    if (ec) return fail(base::errc::io_error, fmt::format("create {}: {}", (root / sub).string(), ec.message()));
  }
  run_directory run{.root = root, .run_id = generate_run_id()};
  std::ofstream id_file(root / "run-id.txt");
  id_file << run.run_id << '\n';
  id_file.flush();
  if (!id_file) return fail(base::errc::io_error, fmt::format("write {}", (root / "run-id.txt").string()));
  return run;
}

}  // namespace magnetar::perf
