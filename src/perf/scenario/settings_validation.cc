#include "perf/scenario/settings_validation.h"

#include "perf/scenario/network_settings_parser.h"
#include "perf/scenario/scenario_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace magnetar::perf {
namespace {

constexpr std::string_view iot = "workloads.iotTelemetry";
// What the suggested timeout adds to the traffic's time: the standalone's and the
// clients' start, and the applications catching up at the end.
constexpr std::int64_t timeout_margin_seconds = 60;

std::string rate_text(double rate) { return fmt::format("{:g} msg/s", rate); }

void check_warmup(const iot_telemetry_settings& s, problem_list& problems) {
  if (s.warmup.seconds > 0 && s.warmup.messages > 0) {
    problems.add(
        fmt::format("{0}.warmup.seconds and {0}.warmup.messages are mutually exclusive: set seconds "
                    "(traffic at the rate) or messages (a count, as a rate of 0 needs), not both",
                    iot));
  }
  if (s.warmup.seconds > 0 && s.rate <= 0) {
    problems.add(
        fmt::format("{0}.warmup.seconds needs a rate above 0; with rate 0 (as fast as possible) set "
                    "{0}.warmup.messages instead",
                    iot));
  }
}

void check_measurement(const iot_telemetry_settings& s, problem_list& problems) {
  if (s.measurement.seconds == 0 && s.measurement.messages == 0) {
    problems.add(fmt::format("{0}.measurement needs seconds (at the rate) or messages (a count): both are 0", iot));
  } else if (s.rate <= 0 && s.measurement.messages == 0) {
    problems.add(
        fmt::format("{0}.rate 0 (as fast as possible) needs {0}.measurement.messages above 0: without a "
                    "rate, seconds cannot say how many messages to send",
                    iot));
  }
}

void check_timeout(const iot_telemetry_settings& s, problem_list& problems) {
  const std::int64_t warmup = s.warmup_total_seconds();
  const std::int64_t measurement = s.measurement_seconds();
  const std::int64_t needs = warmup + measurement;
  if (s.timeout_seconds >= needs) return;
  std::string parts;
  if (warmup > 0) {
    parts = fmt::format(
        "{} s of warmup ({} round(s) of {} s{}) and ", warmup, s.warmup.rounds, s.warmup_round_seconds(),
        s.warmup.round_delay_seconds > 0 ? fmt::format(" and a {} s delay after each", s.warmup.round_delay_seconds)
                                         : "");
  }
  parts += fmt::format("{} s of measurement", measurement);
  if (s.rate > 0) parts += " at " + rate_text(s.rate);
  problems.add(
      fmt::format("{}.timeoutSeconds is {}, but the workload needs {} s: {}. The applications stop "
                  "waiting at the timeout and the run fails; set timeoutSeconds to at least {}, better {} "
                  "({} s for start-up and catching up)",
                  iot, s.timeout_seconds, needs, parts, needs, needs + timeout_margin_seconds, timeout_margin_seconds));
}

void check_joins(const iot_telemetry_settings& s, problem_list& problems) {
  const auto& joins = s.applications.join_seconds;
  if (joins.empty()) return;
  if (joins.size() != static_cast<std::size_t>(s.applications.count)) {
    problems.add(
        fmt::format("{0}.applications.joinSeconds has {1} value(s), but needs a value for each of the {2} "
                    "applications ({0}.applications.count)",
                    iot, joins.size(), s.applications.count));
    return;
  }
  const std::int64_t latest = *std::max_element(joins.begin(), joins.end());
  const std::int64_t warmup = s.warmup_total_seconds();
  if (warmup + latest >= s.timeout_seconds) {
    problems.add(
        fmt::format("{0}.applications.joinSeconds: the warmup ({1} s) and the latest join ({2} s after the "
                    "measurement's start) must be within {0}.timeoutSeconds ({3}); make the join earlier "
                    "than {4} s or the timeout longer",
                    iot, warmup, latest, s.timeout_seconds, std::max<std::int64_t>(0, s.timeout_seconds - warmup)));
  }
}

void check_output_name(const scenario_settings& settings, problem_list& problems) {
  if (!settings.output_name) return;
  const std::string& name = *settings.output_name;
  if (name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos) {
    problems.add(
        fmt::format("output.name \"{}\" names a directory of the run's path: use a single name, without "
                    "'/', not . or ..",
                    name));
  }
}

// The launcher replicates one namespace, public/default (the broker side's replication is
// a namespace policy): topics elsewhere would never reach the remote cluster.
void check_remote(const scenario_settings& settings, problem_list& problems) {
  if (!settings.cluster.remote) return;
  const auto& prefix = settings.iot.topics.prefix;
  for (std::string_view domain : {"persistent://", "non-persistent://"}) {
    if (!prefix.starts_with(domain)) continue;
    if (std::string_view(prefix).substr(domain.size()).starts_with(replicated_namespace_path)) return;
  }
  problems.add(
      fmt::format("{}.topics.prefix \"{}\" is outside {}: with cluster.remote (geo-replication) the topics must "
                  "be in the namespace the launcher replicates; use a prefix such as "
                  "persistent://public/default/iot-telemetry-",
                  iot, prefix, replicated_namespace));
}

result<void> check_ensemble(const node_group_settings& brokers, const node_group_settings& bookies,
                            std::string_view where) {
  const auto& env = brokers.env;
  const auto ensemble = env.find("managedLedgerDefaultEnsembleSize");
  if (ensemble == env.end()) return success();
  int size = 0;
  const auto& text = ensemble->second;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), size);
  if (error != std::errc{} || end != text.data() + text.size()) return success();  // the broker names the problem
  if (size > bookies.replicas) {
    return fail(base::errc::invalid_argument,
                fmt::format("{0}.brokers.env.managedLedgerDefaultEnsembleSize: {1} bookies per ledger, but "
                            "{0}.bookies.replicas is {2}; no ledger could be created",
                            where, size, bookies.replicas));
  }
  return success();
}

}  // namespace

void validate_settings(const scenario_settings& settings, problem_list& problems) {
  const auto& s = settings.iot;
  check_warmup(s, problems);
  check_measurement(s, problems);
  if (!problems.empty()) return;  // the times below need a consistent warmup and measurement
  check_timeout(s, problems);
  check_joins(s, problems);
  check_output_name(settings, problems);
  check_remote(settings, problems);
  check_network(settings, problems);
}

result<void> check_cluster(const cluster_settings& cluster) {
  MAGNETAR_TRY(check_ensemble(cluster.brokers, cluster.bookies, "cluster"));
  if (cluster.remote) {
    MAGNETAR_TRY(check_ensemble(cluster.remote->brokers, cluster.remote->bookies, "cluster.remote"));
  }
  return success();
}

}  // namespace magnetar::perf
