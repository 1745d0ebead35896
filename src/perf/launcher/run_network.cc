#include "perf/launcher/run_network.h"

#include "base/errc.h"
#include "perf/network/network_record.h"

#include <fmt/format.h>

#include <unistd.h>
#include <fstream>

namespace magnetar::perf {

namespace fs = std::filesystem;

result<network_capabilities> run_network::probe(const network_settings& network) {
  auto found = probe_network(fmt::format("mg-probe-{}", ::getpid()));
  if (!found) {
    return fail(base::errc::invalid_argument,
                fmt::format("the network section's impairments cannot run: {}", found.error().message()));
  }
  if (auto missing = missing_capability(found.value(), network.impairments); !missing.empty()) {
    return fail(base::errc::invalid_argument, missing);
  }
  return found;
}

run_network::run_network(options options)
    : _options(std::move(options)), _host(_options.run_dir / "network", _options.program) {}

result<std::unique_ptr<run_network>> run_network::start(options options) {
  std::unique_ptr<run_network> self(new run_network(std::move(options)));
  const auto& o = self->_options;
  MAGNETAR_TRY(plan, plan_impairments(o.settings->network, o.settings->cluster, o.network->nodes()));
  self->_plan = plan;
  const auto events_file = o.run_dir / network_events_file;
  auto on_event = [events_file, log = o.log_event, print = o.print](const network_event& e) {
    (void)append_network_event(events_file, e);
    if (e.impairment.empty()) return;
    log(fmt::format("network-{}-{}", e.action, e.impairment));
    if (e.action == "applied" || e.action == "removed" || e.action == "failed") {
      print(fmt::format("network: {} {}{}", e.impairment, e.action, e.detail.empty() ? "" : ": " + e.detail));
    }
  };
  self->_engine = std::make_unique<impairment_engine>(self->_host, o.network->router_namespace(), std::move(plan),
                                                      o.settings->network.offloads, on_event);
  for (std::size_t i = 0; i < self->_engine->size(); ++i) {
    const auto& p = self->_engine->planned(i);
    o.print(fmt::format("network: {} ({}) {}: {}", p.settings.name, kind_name(p.settings.kind),
                        p.settings.start ? "timed" : "for the whole run", p.method()));
    if (p.settings.start) continue;
    if (auto applied = self->_engine->apply(i); !applied) {
      self->finish();
      return fail(applied.error().code(),
                  fmt::format("network impairment {}: {}", p.settings.name, applied.error().message()));
    }
  }
  return self;
}

run_network::~run_network() { finish(); }

void run_network::start_schedule() {
  const auto events_csv = _options.run_dir / "events.csv";
  _schedule = std::make_unique<impairment_schedule>(
      *_engine, [events_csv] { return read_anchor_times(events_csv); },
      [this](const std::string& failure) {
        std::lock_guard lock(_mutex);
        if (_failure.empty()) _failure = failure;
      });
  _schedule->start();
}

std::string run_network::failure() const {
  std::lock_guard lock(_mutex);
  return _failure;
}

std::vector<std::string> run_network::finish() {
  if (_finished || !_engine) return {};
  _finished = true;
  if (_schedule) _schedule->stop();
  auto failures = _engine->remove_all();
  for (auto& f : failures) f = fmt::format("network cleanup: {}", f);
  const auto records = _engine->records();
  const auto anchors = read_anchor_times(_options.run_dir / "events.csv");
  const auto summary = network_summary(_plan, records, _options.capabilities.to_json(), anchors.measurement_started);
  std::ofstream(_options.run_dir / network_summary_file) << summary.dump(2) << '\n';
  for (auto& f : network_verdict(records)) failures.push_back(std::move(f));
  return failures;
}

}  // namespace magnetar::perf
