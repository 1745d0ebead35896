#include "perf/launcher/run_info.h"

#include "base/errc.h"
#include "perf/launcher/run_directory.h"

#include <fmt/format.h>

#include <fstream>

namespace magnetar::perf {

nlohmann::json to_json(const run_info& info) {
  nlohmann::json missing = nlohmann::json::object();
  for (const auto& [subscription, count] : info.verdict.missing_messages) missing[subscription] = count;
  nlohmann::json out = {{"runId", info.run_id},
                        {"name", info.name},
                        {"scenario", info.scenario.string()},
                        {"startedAt", iso8601_utc(info.started_at)},
                        {"finishedAt", iso8601_utc(info.finished_at)},
                        {"serviceUrl", info.service_url},
                        {"adminUrl", info.admin_url},
                        {"standalone", info.standalone},
                        {"cluster", info.cluster},
                        {"workloadNice", info.workload_nice},
                        {"host", to_json(info.host)},
                        {"magnetarVersion", info.magnetar_version},
                        {"passed", info.verdict.passed},
                        {"failures", info.verdict.failures},
                        {"missingMessages", std::move(missing)}};
  // A geo-replicated run's remote applications, by subscription (the same names as the
  // local applications').
  if (!info.verdict.remote_missing_messages.empty()) {
    nlohmann::json remote = nlohmann::json::object();
    for (const auto& [subscription, count] : info.verdict.remote_missing_messages) remote[subscription] = count;
    out["remoteMissingMessages"] = std::move(remote);
  }
  if (!info.remote_service_url.empty()) {
    out["remoteServiceUrl"] = info.remote_service_url;
    out["remoteAdminUrl"] = info.remote_admin_url;
  }
  return out;
}

result<void> write_run_info(const std::filesystem::path& run_dir, const run_info& info) {
  const auto file = run_dir / "run-info.json";
  const auto temporary = run_dir / "run-info.json.tmp";
  {
    std::ofstream out(temporary);
    out << to_json(info).dump(2) << '\n';
    out.flush();
    if (!out) return fail(base::errc::io_error, fmt::format("write {}", temporary.string()));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, file, ec);
  if (ec) return fail(base::errc::io_error, fmt::format("rename to {}: {}", file.string(), ec.message()));
  return success();
}

}  // namespace magnetar::perf
