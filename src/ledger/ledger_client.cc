#include "ledger/ledger_client.h"

#include "bookie/errc.h"
#include "io/await_callback.h"
#include "io/run_on.h"
#include "ledger/entry_header.h"
#include "ledger/errc.h"
#include "ledger/speculative.h"
#include "meta/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>

namespace magnetar::ledger {
namespace {

constexpr std::string_view id_prefix = "/ledgers/idgen/id-";

// What the ledger's users wrote: the stored entries without their headers.
result<std::vector<wire::shared_bytes>> payloads_of(const ledger_metadata& m, std::vector<wire::shared_bytes> stored) {
  if (m.entry_format == 0) return stored;
  for (auto& entry : stored) {
    auto payload = payload_of(entry);
    if (!payload) return fail(payload.error().code(), fmt::format("ledger {}: {}", m.id, payload.error().detail()));
    entry = std::move(payload).value();
  }
  return stored;
}

}  // namespace

// ---- ledger_client ---------------------------------------------------------

result<bookie_client*> ledger_client::client_of(const std::string& bookie_id) {
  auto* client = _bookies.client(bookie_id);
  if (client == nullptr) return fail(errc::read_failed, fmt::format("unknown bookie {}", bookie_id));
  return client;
}

awaitable<result<ledger_id>> ledger_client::allocate_id() {
  // A sequential node gives a unique, increasing id that survives restarts.
  MAGNETAR_CO_TRY(node, co_await _store.put(std::string(id_prefix), "", std::nullopt, {.sequential = true}));
  const auto id = std::stoll(node.path.substr(id_prefix.size()));
  MAGNETAR_CO_TRY(co_await _store.remove(node.path, std::nullopt));
  co_return ledger_id(id);
}

awaitable<result<std::unique_ptr<ledger_writer>>> ledger_client::create(ledger_config config) {
  if (config.ensemble_size < 1 || config.write_quorum < 1 || config.ack_quorum < 1 ||
      config.write_quorum > config.ensemble_size || config.ack_quorum > config.write_quorum ||
      config.ensemble_size > 64) {
    co_return fail(errc::invalid_config, fmt::format("ensemble {} write quorum {} ack quorum {}: need 64 >= E >= W >= "
                                                     "A >= 1",
                                                     config.ensemble_size, config.write_quorum, config.ack_quorum));
  }
  auto bookies = _bookies.writable_bookies();
  if (bookies.size() < static_cast<std::size_t>(config.ensemble_size)) {
    co_return fail(errc::not_enough_bookies, fmt::format("an ensemble of {} needs {} bookies, {} are available",
                                                         config.ensemble_size, config.ensemble_size, bookies.size()));
  }
  MAGNETAR_CO_TRY(id, co_await allocate_id());
  // Spread ensembles over the bookies, starting at a place given by the id.
  std::vector<std::string> ensemble;
  for (int i = 0; i < config.ensemble_size; ++i) {
    ensemble.push_back(bookies[(static_cast<std::size_t>(id.value()) + i) % bookies.size()]);
  }
  ledger_metadata m;
  m.id = id;
  m.ensemble_size = config.ensemble_size;
  m.write_quorum = config.write_quorum;
  m.ack_quorum = config.ack_quorum;
  m.ensembles[0] = std::move(ensemble);
  m.created_ms = std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
  m.custom = std::move(config.custom);
  m.entry_format = current_entry_format;
  MAGNETAR_CO_TRY(st, co_await _store.put(ledger_path(id), to_json(m), -1));
  auto adds = std::make_shared<add_pipeline>(_store, _bookies, std::move(m), st.version, -1, bookie::add_mode::normal);
  co_return std::unique_ptr<ledger_writer>(new ledger_writer(*this, std::move(adds)));
}

awaitable<result<std::pair<ledger_metadata, std::int64_t>>> ledger_client::read_metadata(ledger_id id) {
  MAGNETAR_CO_TRY(node, co_await _store.get(ledger_path(id)));
  if (!node) co_return fail(errc::no_such_ledger, fmt::format("ledger {}", id));
  MAGNETAR_CO_TRY(m, ledger_metadata_from_json(node->value));
  co_return std::pair(std::move(m), node->st.version);
}

awaitable<result<std::optional<ledger_metadata>>> ledger_client::metadata(ledger_id id) {
  auto read = co_await read_metadata(id);
  if (!read) {
    if (read.error() == errc::no_such_ledger) co_return std::optional<ledger_metadata>();
    co_return fail(std::move(read).error());
  }
  co_return std::optional(std::move(read).value().first);
}

awaitable<result<std::unique_ptr<ledger_reader>>> ledger_client::open(ledger_id id, bool recover) {
  MAGNETAR_CO_TRY(read, co_await read_metadata(id));
  auto [m, version] = std::move(read);
  entry_id last = m.last_entry;
  if (m.state != ledger_state::closed) {
    if (recover) {
      MAGNETAR_CO_TRY(recovered, co_await this->recover(m, version));
      last = recovered;
    } else {
      // Tailing an open ledger: what its bookies say is confirmed so far.
      auto reader = std::unique_ptr<ledger_reader>(new ledger_reader(*this, m, entry_id(-1)));
      MAGNETAR_CO_TRY(lac, co_await reader->read_last_add_confirmed());
      reader->_last_entry = lac;
      co_return reader;
    }
  }
  co_return std::unique_ptr<ledger_reader>(new ledger_reader(*this, std::move(m), last));
}

awaitable<result<entry_id>> ledger_client::recover(ledger_metadata& m, std::int64_t& version) {
  if (m.state == ledger_state::open) {
    m.state = ledger_state::in_recovery;
    MAGNETAR_CO_TRY(st, co_await _store.put(ledger_path(m.id), to_json(m), version));
    version = st.version;
  }
  // Fence the bookies of the last ensemble: after this no writer can add, and
  // each answers what it holds. As in BookKeeper, bookies may be down as long
  // as every write set has W - A + 1 fenced: then no add can reach its ack
  // quorum any more.
  const auto& ensemble = m.ensembles.rbegin()->second;
  std::int64_t lac = -1;
  std::set<std::string> fenced_bookies;
  std::string failures;
  for (const auto& bookie_id : ensemble) {
    MAGNETAR_CO_TRY(client, client_of(bookie_id));
    auto fenced = co_await client->fence(m.id);
    if (!fenced) {
      failures += fmt::format("{}{}: {}", failures.empty() ? "" : "; ", bookie_id, fenced.error().message());
      continue;
    }
    fenced_bookies.insert(bookie_id);
    lac = std::max(lac, fenced.value().last_add_confirmed.value());
  }
  const auto enough = static_cast<std::size_t>(m.write_quorum - m.ack_quorum + 1);
  for (std::size_t first = 0; first < ensemble.size(); ++first) {
    const auto set = m.write_set(entry_id(static_cast<std::int64_t>(first)));
    const auto answered = std::count_if(set.begin(), set.end(), [&](const auto& b) { return fenced_bookies.count(b); });
    if (static_cast<std::size_t>(answered) < enough) {
      co_return fail(errc::read_failed, fmt::format("recovering ledger {}: too few bookies fenced ({} of a write set, "
                                                    "{} needed): {}",
                                                    m.id, answered, enough, failures));
    }
  }
  // Entries past the LAC may have reached their ack quorum without the
  // writer hearing back: take every one some bookie holds, and write it back
  // to its whole write set with recovery adds (they pass the fence), so that
  // the closed ledger holds each entry W times, as the writer meant to.
  // Stop only where enough bookies of the write set say the entry does not
  // exist that it can't have been acknowledged (read_entry's rule): any other
  // failure could hide an acknowledged entry, so recovery fails and is
  // retried later instead.
  auto rewrites = std::make_shared<add_pipeline>(_store, _bookies, m, version, lac, bookie::add_mode::recovery);
  auto executor = co_await asio::this_coro::executor;
  std::int64_t last = lac;
  std::uint64_t recovered_bytes = 0;
  std::optional<wire::shared_bytes> last_stored;
  for (;;) {
    auto entry = co_await read_entry(m, entry_id(last + 1));
    if (!entry) {
      if (entry.error() == errc::no_such_entry) break;
      co_return fail(entry.error().code(), fmt::format("recovering ledger {}: {}", m.id, entry.error().detail()));
    }
    recovered_bytes += entry.value().size();
    last_stored = entry.value();
    ++last;
    // Spawned in entry order, so the pipeline numbers them as the ledger did.
    io::spawn(executor,
              [rewrites, payload = std::move(entry).value()]() -> awaitable<void> { co_await rewrites->add(payload); });
  }
  co_await rewrites->drain();
  if (rewrites->failure()) {
    co_return fail(rewrites->failure()->code(),
                   fmt::format("recovering ledger {}: {}", m.id, rewrites->failure()->detail()));
  }
  // The last entry's header says the ledger's length (the LAC's entry when
  // none was found past it). Ledgers without headers know only what was
  // found past the LAC: their writer recorded no length before closing.
  std::uint64_t length = m.length + recovered_bytes;
  if (m.entry_format >= 1 && last >= 0) {
    if (!last_stored) {
      MAGNETAR_CO_TRY(at_lac, co_await read_entry(m, entry_id(last)));
      last_stored = std::move(at_lac);
    }
    MAGNETAR_CO_TRY(through_last, ledger_length_of(*last_stored));
    length = through_last;
  }
  // The re-writes may have changed the ensemble.
  auto closed = rewrites->metadata();
  closed.state = ledger_state::closed;
  closed.last_entry = entry_id(last);
  closed.length = length;
  MAGNETAR_CO_TRY(st, co_await _store.put(ledger_path(m.id), to_json(closed), rewrites->version()));
  m = std::move(closed);
  version = st.version;
  spdlog::info("ledger {} recovered: closed at entry {} (LAC was {})", m.id, last, lac);
  co_return entry_id(last);
}

awaitable<result<void>> ledger_client::remove(ledger_id id) {
  MAGNETAR_CO_TRY(read, co_await read_metadata(id));
  MAGNETAR_CO_TRY(co_await _store.remove(ledger_path(id), read.second));
  std::set<std::string> bookies;
  for (const auto& [first, ensemble] : read.first.ensembles) bookies.insert(ensemble.begin(), ensemble.end());
  for (const auto& bookie_id : bookies) {
    // The metadata is gone, so the ledger is deleted; a bookie that misses
    // this keeps garbage until a later sweep, which is not built yet.
    if (auto* client = _bookies.client(bookie_id)) {
      if (auto dropped = co_await client->delete_ledger(id); !dropped) {
        spdlog::warn("ledger {}: bookie {} did not delete it: {}", id, bookie_id, dropped.error());
      }
    }
  }
  co_return success();
}

awaitable<result<wire::shared_bytes>> ledger_client::read_entry(const ledger_metadata& m, entry_id entry) {
  std::vector<attempt<wire::shared_bytes>> attempts;
  for (const auto& bookie_id : m.write_set(entry)) {
    MAGNETAR_CO_TRY(client, client_of(bookie_id));
    attempts.push_back([client, ledger = m.id, entry] { return client->read_entry(ledger, entry); });
  }
  std::vector<error> failures;
  auto read = co_await first_success(std::move(attempts), _options.speculative_read_timeout, failures);
  if (read) co_return read;
  const auto missing = std::count_if(failures.begin(), failures.end(), [](const error& e) {
    return e == bookie::errc::entry_not_found || e == bookie::errc::ledger_not_found;
  });
  std::string why;
  for (const auto& f : failures) why += fmt::format("{}{}", why.empty() ? "" : "; ", f.message());
  // W - A + 1 bookies without it: it never reached an ack quorum (BookKeeper's
  // rule), so it isn't there, even if the others are unreachable.
  co_return fail(missing >= m.write_quorum - m.ack_quorum + 1 ? errc::no_such_entry : errc::read_failed,
                 fmt::format("ledger {} entry {}: {}", m.id, entry, why));
}

awaitable<result<std::vector<wire::shared_bytes>>> ledger_client::read_range(const ledger_metadata& m, entry_id first,
                                                                             entry_id last) {
  std::vector<wire::shared_bytes> entries;
  entries.reserve(static_cast<std::size_t>(std::max<std::int64_t>(last.value() - first.value() + 1, 0)));
  auto e = first.value();
  while (e <= last.value()) {
    // Where every bookie of the ensemble holds every entry (E = W), one bookie serves the
    // ensemble's stretch of the range in one request (another too, when the first is
    // slow). Whatever none can serve is read entry by entry below, which names the failure.
    if (m.ensemble_size == m.write_quorum) {
      const auto next_ensemble = m.ensembles.upper_bound(e);
      const auto stretch_last =
          next_ensemble == m.ensembles.end() ? last.value() : std::min(last.value(), next_ensemble->first - 1);
      std::vector<attempt<std::vector<wire::shared_bytes>>> attempts;
      for (const auto& bookie_id : m.write_set(entry_id(e))) {
        MAGNETAR_CO_TRY(client, client_of(bookie_id));
        attempts.push_back([client, ledger = m.id, from = entry_id(e),
                            to = entry_id(stretch_last)]() -> awaitable<result<std::vector<wire::shared_bytes>>> {
          auto stretch = co_await client->read_range(ledger, from, to);
          if (stretch && stretch.value().empty()) co_return fail(errc::read_failed, "an empty range");
          co_return stretch;
        });
      }
      std::vector<error> failures;
      auto stretch = co_await first_success(std::move(attempts), _options.speculative_read_timeout, failures);
      if (stretch) {
        e += static_cast<std::int64_t>(stretch.value().size());
        for (auto& entry : stretch.value()) entries.push_back(std::move(entry));
        continue;
      }
    }
    MAGNETAR_CO_TRY(entry, co_await read_entry(m, entry_id(e)));
    entries.push_back(std::move(entry));
    ++e;
  }
  co_return entries;
}

// ---- ledger_reader ---------------------------------------------------------

awaitable<result<std::vector<wire::shared_bytes>>> ledger_reader::read(entry_id first, entry_id last) {
  if (first.value() < 0 || last < first || last > _last_entry) {
    co_return fail(errc::entry_beyond_last,
                   fmt::format("ledger {}: read [{}, {}] with the last entry at {}", id(), first, last, _last_entry));
  }
  MAGNETAR_CO_TRY(stored, co_await _client.read_range(_metadata, first, last));
  co_return payloads_of(_metadata, std::move(stored));
}

awaitable<result<entry_id>> ledger_reader::read_last_add_confirmed() {
  std::int64_t lac = _last_entry.value();
  for (const auto& bookie_id : _metadata.ensembles.rbegin()->second) {
    MAGNETAR_CO_TRY(client, _client.client_of(bookie_id));
    auto read = co_await client->read_last_add_confirmed(id());
    if (read) lac = std::max(lac, read.value().value());
  }
  _last_entry = entry_id(lac);
  co_return _last_entry;
}

awaitable<result<entry_id>> ledger_reader::wait_for_entries(std::chrono::milliseconds timeout) {
  if (_metadata.state == ledger_state::closed) co_return _last_entry;
  std::string failures;
  for (const auto& bookie_id : _metadata.ensembles.rbegin()->second) {
    MAGNETAR_CO_TRY(client, _client.client_of(bookie_id));
    auto lac = co_await client->wait_last_add_confirmed(id(), _last_entry, timeout);
    if (lac) {
      _last_entry = std::max(_last_entry, lac.value());
      co_return _last_entry;
    }
    failures += fmt::format("{}{}: {}", failures.empty() ? "" : "; ", bookie_id, lac.error().message());
  }
  co_return fail(errc::read_failed, fmt::format("ledger {}: no bookie answered the long poll: {}", id(), failures));
}

// ---- ledger_writer ---------------------------------------------------------

awaitable<result<entry_id>> ledger_writer::add(wire::shared_bytes payload) {
  auto executor = co_await asio::this_coro::executor;
  auto start = [&](add_pipeline::add_done done) { start_add(std::move(payload), executor, std::move(done)); };
  co_return co_await io::await_callback<result<entry_id>>(start);
}

void ledger_writer::start_add(wire::shared_bytes payload, asio::any_io_executor executor, add_pipeline::add_done done) {
  if (_closed) {
    asio::post(executor, [done = std::move(done), id = id()] {
      done(fail(errc::ledger_closed, fmt::format("add to ledger {} after close", id)));
    });
    return;
  }
  const auto size = payload.size();
  // The header's length is fixed here, where entries are numbered in call order.
  if (metadata().entry_format >= 1) {
    _pushed_length += size;
    payload = with_entry_header(_pushed_length, payload);
  }
  _adds->start_add(std::move(payload), std::move(executor),
                   [this, size, done = std::move(done)](result<entry_id> entry) {
                     if (entry) _length += size;
                     done(std::move(entry));
                   });
}

awaitable<result<void>> ledger_writer::close() {
  if (_closed) co_return success();
  _closed = true;
  co_await _adds->drain();
  auto m = metadata();
  m.state = ledger_state::closed;
  m.last_entry = last_add_confirmed();
  m.length = _length;
  auto put = co_await _client._store.put(ledger_path(id()), to_json(m), _adds->version());
  if (!put) {
    if (put.error() == meta::errc::bad_version) {
      co_return fail(errc::ledger_fenced, fmt::format("closing ledger {}: another client recovered it", id()));
    }
    co_return fail(std::move(put).error());
  }
  _adds->set_metadata(std::move(m), put.value().version);
  co_return success();
}

awaitable<result<std::vector<wire::shared_bytes>>> ledger_writer::read(entry_id first, entry_id last) {
  if (first.value() < 0 || last < first || last > last_add_confirmed()) {
    co_return fail(errc::entry_beyond_last,
                   fmt::format("ledger {}: read [{}, {}] with the LAC at {}", id(), first, last, last_add_confirmed()));
  }
  MAGNETAR_CO_TRY(stored, co_await _client.read_range(metadata(), first, last));
  co_return payloads_of(metadata(), std::move(stored));
}

}  // namespace magnetar::ledger
