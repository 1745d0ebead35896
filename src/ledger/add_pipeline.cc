#include "ledger/add_pipeline.h"

#include "bookie/errc.h"
#include "io/await_callback.h"
#include "io/run_on.h"
#include "ledger/errc.h"
#include "meta/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <bit>
#include <random>

namespace magnetar::ledger {
namespace {

error write_error(ledger_id ledger, std::int64_t entry, const std::string& bookie, const error& cause) {
  const auto code = cause == bookie::errc::ledger_fenced ? errc::ledger_fenced : errc::write_failed;
  return error(code, fmt::format("ledger {} entry {} on bookie {}: {}", ledger, entry, bookie, cause.message()));
}

}  // namespace

add_pipeline::add_pipeline(meta::store& store, bookie_directory& bookies, ledger_metadata metadata,
                           std::int64_t version, std::int64_t last_confirmed, bookie::add_mode mode)
    : _store(store),
      _bookies(bookies),
      _metadata(std::move(metadata)),
      _version(version),
      _mode(mode),
      _pushed(last_confirmed),
      _confirmed(last_confirmed) {}

void add_pipeline::set_metadata(ledger_metadata metadata, std::int64_t version) {
  _metadata = std::move(metadata);
  _version = version;
}

add_pipeline::pending_add* add_pipeline::find(std::int64_t entry) {
  const auto index = entry - (_confirmed + 1);
  if (index < 0 || index >= static_cast<std::int64_t>(_pending.size())) return nullptr;
  return &_pending[static_cast<std::size_t>(index)];
}

awaitable<result<entry_id>> add_pipeline::add(wire::shared_bytes payload) {
  auto executor = co_await asio::this_coro::executor;
  auto start = [&](add_done done) { start_add(std::move(payload), executor, std::move(done)); };
  co_return co_await io::await_callback<result<entry_id>>(start);
}

void add_pipeline::start_add(wire::shared_bytes payload, asio::any_io_executor executor, add_done done) {
  if (!_executor) _executor = std::move(executor);
  if (_failure) {
    asio::post(_executor, [done = std::move(done), e = *_failure] { done(fail(e)); });
    return;
  }
  const auto entry = ++_pushed;
  _pending.push_back(pending_add{entry, std::move(payload), 0, 0, std::move(done)});
  // Each send runs beside the others, so that the add completes at its ack quorum,
  // not when one chosen bookie (maybe a hung one) answers.
  send_missing(_pending.back());
  // A bookie that failed while no other could replace it: try again now.
  if (!_failed.empty()) start_ensemble_change();
}

awaitable<void> add_pipeline::drain() {
  while (!_pending.empty() || _changing) {
    _drained = std::make_shared<io::oneshot_signal>(co_await asio::this_coro::executor);
    co_await _drained->wait();
  }
}

void add_pipeline::wake_drain() {
  if (_drained && _pending.empty() && !_changing) {
    _drained->fire();
    _drained.reset();
  }
}

void add_pipeline::send_missing(pending_add& add) {
  const auto& ensemble = _metadata.ensemble_for(entry_id(add.entry));
  const auto wanted = _metadata.write_set_positions(entry_id(add.entry)) & ~add.acked & ~add.sending;
  for (std::size_t position = 0; position < ensemble.size(); ++position) {
    if ((wanted & (1ULL << position)) == 0 || _failed.count(ensemble[position])) continue;
    add.sending |= 1ULL << position;
    start_send(add.entry, position, ensemble[position], add.payload);
  }
}

void add_pipeline::start_send(std::int64_t entry, std::size_t position, const std::string& bookie_id,
                              wire::shared_bytes payload) {
  auto* client = _bookies.client(bookie_id);
  if (client == nullptr) {
    // Later, not now: the caller is walking the pending adds.
    asio::post(_executor, [self = shared_from_this(), entry, position, bookie_id] {
      self->on_sent(entry, position, bookie_id, fail(errc::write_failed, fmt::format("unknown bookie {}", bookie_id)));
    });
    return;
  }
  client->start_add_entry(_metadata.id, entry_id(entry), entry_id(_confirmed), std::move(payload), _mode, _executor,
                          [self = shared_from_this(), entry, position, bookie_id](result<void> sent) {
                            self->on_sent(entry, position, bookie_id, std::move(sent));
                          });
}

void add_pipeline::on_sent(std::int64_t entry, std::size_t position, const std::string& bookie_id, result<void> sent) {
  auto* add = find(entry);
  // Gone (confirmed, or failed with the rest), or the place now belongs to
  // another bookie: this answer counts for nothing.
  if (add == nullptr || _metadata.ensemble_for(entry_id(entry))[position] != bookie_id) return;
  const auto bit = 1ULL << position;
  add->sending &= ~bit;
  if (sent) {
    add->acked |= bit;
    confirm_ready();
    return;
  }
  auto cause = write_error(_metadata.id, entry, bookie_id, sent.error());
  if (cause == errc::ledger_fenced) {
    fail_all(std::move(cause));
    return;
  }
  if (_failed.insert(bookie_id).second) spdlog::warn("ledger {}: {}; changing the ensemble", _metadata.id, cause);
  start_ensemble_change();
}

void add_pipeline::start_ensemble_change() {
  if (_changing) return;  // the change under way sees the new failure too
  _changing = true;
  io::spawn(_executor, [self = shared_from_this()] { return self->change_ensemble(); });
}

bool add_pipeline::quorum_reachable(const pending_add& add) const {
  const auto& ensemble = _metadata.ensemble_for(entry_id(add.entry));
  int possible = 0;
  const auto positions = _metadata.write_set_positions(entry_id(add.entry));
  for (std::size_t position = 0; position < ensemble.size(); ++position) {
    if ((positions & (1ULL << position)) == 0) continue;
    if ((add.acked & (1ULL << position)) || !_failed.count(ensemble[position])) ++possible;
  }
  return possible >= _metadata.ack_quorum;
}

void add_pipeline::confirm_ready() {
  if (_changing) return;  // see the header: nothing is confirmed while the ensemble changes
  while (!_pending.empty() && std::popcount(_pending.front().acked) >= _metadata.ack_quorum) {
    _confirmed = _pending.front().entry;
    auto done = std::move(_pending.front().done);
    _pending.pop_front();
    // Popped first: the callback may add again.
    done(entry_id(_confirmed));
  }
  wake_drain();
}

awaitable<void> add_pipeline::change_ensemble() {
  static thread_local std::mt19937 random{std::random_device{}()};
  while (!_failure) {
    auto ensemble = _metadata.ensembles.rbegin()->second;
    std::vector<std::string> candidates;
    for (auto& id : _bookies.writable_bookies()) {
      if (!_failed.count(id) && std::find(ensemble.begin(), ensemble.end(), id) == ensemble.end()) {
        candidates.push_back(std::move(id));
      }
    }
    std::shuffle(candidates.begin(), candidates.end(), random);
    std::uint64_t replaced = 0;
    for (std::size_t position = 0; position < ensemble.size() && !candidates.empty(); ++position) {
      if (!_failed.count(ensemble[position])) continue;
      spdlog::info("ledger {}: bookie {} replaced by {} from entry {}", _metadata.id, ensemble[position],
                   candidates.back(), _confirmed + 1);
      ensemble[position] = std::move(candidates.back());
      candidates.pop_back();
      replaced |= 1ULL << position;
    }
    if (replaced == 0) break;
    auto changed = _metadata;
    const auto start = _confirmed + 1;
    changed.ensembles.erase(changed.ensembles.lower_bound(start), changed.ensembles.end());
    changed.ensembles[start] = ensemble;
    auto put = co_await _store.put(ledger_path(changed.id), to_json(changed), _version);
    if (!put) {
      if (put.error() == meta::errc::bad_version) {
        fail_all(error(errc::ledger_fenced,
                       fmt::format("ledger {}: another client recovered it during an ensemble change", changed.id)));
      } else {
        fail_all(error(errc::write_failed,
                       fmt::format("ledger {}: recording a new ensemble: {}", changed.id, put.error().message())));
      }
      break;
    }
    // The places that changed hold nothing yet: forget what their old bookies
    // acked or are still being sent, and send every pending entry there.
    const auto& old = _metadata.ensembles.rbegin()->second;
    for (std::size_t position = 0; position < old.size(); ++position) {
      if (replaced & (1ULL << position)) _failed.erase(old[position]);
    }
    _metadata = std::move(changed);
    _version = put.value().version;
    for (auto& add : _pending) {
      add.acked &= ~replaced;
      add.sending &= ~replaced;
      send_missing(add);
    }
  }
  _changing = false;
  if (_failure) {
    wake_drain();
    co_return;
  }
  for (const auto& add : _pending) {
    if (quorum_reachable(add)) continue;
    fail_all(error(errc::write_failed,
                   fmt::format("ledger {} entry {}: ack quorum {} out of reach: failed bookies {}, no writable bookie "
                               "to replace them",
                               _metadata.id, add.entry, _metadata.ack_quorum, fmt::join(_failed, ", "))));
    co_return;
  }
  confirm_ready();
}

void add_pipeline::fail_all(error e) {
  if (!_failure) {
    spdlog::warn("ledger {}: writer failed: {}", _metadata.id, e.message());
    _failure = std::move(e);
  }
  auto failed = std::exchange(_pending, {});
  for (auto& add : failed) add.done(fail(*_failure));
  wake_drain();
}

}  // namespace magnetar::ledger
