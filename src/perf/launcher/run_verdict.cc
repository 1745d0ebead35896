#include "perf/launcher/run_verdict.h"

#include "base/errc.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>

namespace magnetar::perf {

namespace {

std::int64_t counter(const nlohmann::json& summary, const char* key) {
  const auto found = summary.find(key);
  return found != summary.end() && found->is_number_integer() ? found->get<std::int64_t>() : 0;
}

// A workload that did not end by itself (stopped, crashed, failed) leaves files missing;
// its own failure explains them, so they are not listed again.
bool ended_by_itself(const workload_outcome& outcome) {
  return outcome.exit_code && !outcome.stopped_because && (*outcome.exit_code == 0 || *outcome.exit_code == 2);
}

void judge_workload(const char* name, const workload_outcome& outcome, int timeout_seconds,
                    std::vector<std::string>& failures) {
  if (!outcome.exit_code) {
    failures.push_back(fmt::format("{}: not started", name));
  } else if (outcome.stopped_because) {
    failures.push_back(
        fmt::format("{}: stopped by the launcher: {}, see {}", name, *outcome.stopped_because, outcome.log));
  } else if (*outcome.exit_code == 2) {
    failures.push_back(fmt::format("{}: timed out (timeoutSeconds: {}), see {}", name, timeout_seconds, outcome.log));
  } else if (*outcome.exit_code != 0) {
    failures.push_back(fmt::format("{}: failed with exit code {}, see {}", name, *outcome.exit_code, outcome.log));
  }
}

// Each application's summary and device-state comparison; `folder` is where its files
// are ("applications" or "remote-applications"), `label` what names it in a failure.
void judge_applications(const std::vector<application_outcome>& applications, const workload_outcome& process,
                        bool both_ended, std::string_view folder, std::string_view label,
                        std::map<std::string, std::uint64_t>& missing_messages, std::vector<std::string>& failures) {
  for (const auto& app : applications) {
    const auto sub = fmt::format("{}{}", label, app.subscription);
    if (!app.summary) {
      if (ended_by_itself(process)) failures.push_back(fmt::format("{}: no application-summary.json", sub));
    } else {
      if (const auto violations = counter(*app.summary, "orderingViolations"); violations > 0) {
        failures.push_back(fmt::format("{}: {} ordering violations (samples in {}/{}/ordering-violations.txt)", sub,
                                       violations, folder, app.subscription));
      }
      if (const auto invalid = counter(*app.summary, "invalid"); invalid > 0) {
        failures.push_back(fmt::format("{}: {} invalid messages", sub, invalid));
      }
    }
    if (app.state_error) {
      if (both_ended) failures.push_back(fmt::format("{}: device state not compared: {}", sub, *app.state_error));
      continue;
    }
    missing_messages[app.subscription] = app.missing_messages;
    if (app.missing_messages > 0) {
      failures.push_back(fmt::format(
          "missing messages: {}: {} messages of {} devices{}", sub, app.missing_messages, app.devices_missing,
          app.missing_samples.empty() ? "" : fmt::format(" (first: {})", fmt::join(app.missing_samples, "; "))));
    }
  }
}

}  // namespace

run_verdict judge_run(const verdict_inputs& in) {
  run_verdict verdict;
  auto& failures = verdict.failures;
  judge_workload("gateways", in.gateways, in.timeout_seconds, failures);
  judge_workload("applications", in.applications, in.timeout_seconds, failures);
  if (in.remote_applications) {
    judge_workload("remote applications", *in.remote_applications, in.timeout_seconds, failures);
  }

  const bool gateways_ended = ended_by_itself(in.gateways);
  if (!in.gateways_summary) {
    if (gateways_ended) failures.push_back("gateways: no gateways-summary.json");
  } else if (const auto errors = counter(*in.gateways_summary, "sendErrors"); errors > 0) {
    failures.push_back(fmt::format("gateways: {} send errors", errors));
  }

  judge_applications(in.each_application, in.applications, gateways_ended && ended_by_itself(in.applications),
                     "applications", "", verdict.missing_messages, failures);
  if (in.remote_applications) {
    judge_applications(in.each_remote_application, *in.remote_applications,
                       gateways_ended && ended_by_itself(*in.remote_applications), "remote-applications", "remote ",
                       verdict.remote_missing_messages, failures);
  }
  verdict.passed = failures.empty();
  return verdict;
}

result<nlohmann::json> read_json_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return fail(base::errc::io_error, fmt::format("cannot read {}", file.string()));
  auto parsed = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return fail(base::errc::corrupt_data, fmt::format("{}: not JSON", file.string()));
  return parsed;
}

}  // namespace magnetar::perf
