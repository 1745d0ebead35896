#include "perf/workload/coordination.h"

#include "perf/measure/events_log.h"

#include <unistd.h>

#include <fmt/format.h>

#include <fstream>
#include <thread>

namespace magnetar::perf {

coordination::coordination(std::filesystem::path directory, std::string run_id, std::string applications)
    : _directory(std::move(directory)), _run_id(std::move(run_id)), _applications(std::move(applications)) {}

std::filesystem::path coordination::applications_ready(const std::string& subscription) const {
  return _directory / fmt::format("{}.applications-ready.{}{}", _run_id, _applications, subscription);
}

std::filesystem::path coordination::warmup_received(int round, const std::string& subscription) const {
  return _directory / fmt::format("{}.warmup-{}.{}{}", _run_id, round, _applications, subscription);
}

std::filesystem::path coordination::measurement_start() const {
  return _directory / fmt::format("{}.measurement-start", _run_id);
}

std::filesystem::path coordination::gateways_finished() const {
  return _directory / fmt::format("{}.gateways-finished", _run_id);
}

result<void> coordination::write(const std::filesystem::path& marker, const std::string& content) const {
  std::error_code ec;
  std::filesystem::create_directories(marker.parent_path(), ec);
  auto temporary = marker;
  temporary += fmt::format(".tmp-{}", ::getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << content << '\n';
    if (!out.flush()) return fail(base::errc::io_error, fmt::format("cannot write marker {}", temporary.string()));
  }
  std::filesystem::rename(temporary, marker, ec);
  if (ec)
    return fail(base::errc::io_error, fmt::format("cannot rename marker to {}: {}", marker.string(), ec.message()));
  return success();
}

std::optional<std::string> coordination::read(const std::filesystem::path& marker) const {
  std::ifstream in(marker);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  return line;
}

result<void> coordination::wait_for(const std::vector<std::filesystem::path>& markers,
                                    std::chrono::steady_clock::time_point deadline,
                                    const std::atomic<bool>* stop) const {
  std::size_t present = 0;  // markers stay once written, so count them in order
  while (true) {
    while (present < markers.size() && std::filesystem::exists(markers[present])) ++present;
    if (present == markers.size()) return success();
    if (stop && stop->load()) return fail(base::errc::cancelled, "stopped while waiting for the other processes");
    if (std::chrono::steady_clock::now() >= deadline) {
      return fail(base::errc::timed_out, fmt::format("timed out waiting for {}", markers[present].filename().string()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void append_event(const std::filesystem::path& events_file, const std::string& source, const std::string& event) {
  if (events_file.empty()) return;
  // The events are context for the report; a run goes on without them.
  if (auto log = events_log::open(events_file)) (void)log.value().append(source, event);
}

std::int64_t epoch_millis_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace magnetar::perf
