#include "autorecovery/replicate_ledger.h"

#include "autorecovery/ledger_checker.h"
#include "bookie/add_mode.h"
#include "io/oneshot_signal.h"
#include "io/run_on.h"
#include "ledger/errc.h"
#include "meta/errc.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <random>

namespace magnetar::autorecovery {
namespace {

struct segment {
  std::int64_t first;
  std::int64_t last;  // last < first: no entry
  std::vector<std::string> ensemble;
};

std::vector<segment> segments_of(const ledger::ledger_metadata& m) {
  std::vector<segment> out;
  for (auto it = m.ensembles.begin(); it != m.ensembles.end(); ++it) {
    const auto next = std::next(it);
    const auto last = next == m.ensembles.end() ? m.last_entry.value() : next->first - 1;
    out.push_back({it->first, last, it->second});
  }
  return out;
}

// Reads entries [first, last] of the segment from any of its registered bookies
// that hold them: one range request where a bookie holds every entry (E = W),
// else entry by entry from the write set.
awaitable<result<std::vector<wire::shared_bytes>>> read_batch(ledger::bookie_directory& bookies,
                                                              const ledger::ledger_metadata& m, const segment& s,
                                                              const std::set<std::string>& alive, std::int64_t first,
                                                              std::int64_t last) {
  if (m.ensemble_size == m.write_quorum) {
    for (const auto& b : s.ensemble) {
      auto* client = alive.count(b) ? bookies.client(b) : nullptr;
      if (client == nullptr) continue;
      auto range = co_await client->read_range(m.id, entry_id(first), entry_id(last));
      if (range && range.value().size() == static_cast<std::size_t>(last - first + 1)) co_return std::move(range);
    }
  }
  std::vector<wire::shared_bytes> out;
  for (auto e = first; e <= last; ++e) {
    std::optional<wire::shared_bytes> found;
    std::string failures;
    for (const auto& b : m.write_set(entry_id(e))) {
      auto* client = alive.count(b) ? bookies.client(b) : nullptr;
      if (client == nullptr) continue;
      auto read = co_await client->read_entry(m.id, entry_id(e));
      if (read) {
        found = std::move(read).value();
        break;
      }
      failures += fmt::format(" {}: {};", b, read.error().message());
    }
    if (!found) {
      co_return fail(ledger::errc::read_failed,
                     fmt::format("ledger {} entry {}: no registered bookie served it:{}", m.id, e, failures));
    }
    out.push_back(std::move(*found));
  }
  co_return out;
}

// Writes the batch's entries that `position` stores to `target`, all at once.
awaitable<result<void>> write_batch(ledger::bookie_client& target, const ledger::ledger_metadata& m,
                                    std::size_t position, std::int64_t first, std::vector<wire::shared_bytes> entries) {
  struct state {
    std::size_t pending = 0;
    std::optional<error> failure;
    io::oneshot_signal done;
    explicit state(asio::any_io_executor ex) : done(std::move(ex)) {}
  };
  auto executor = co_await asio::this_coro::executor;
  auto s = std::make_shared<state>(executor);
  s->pending = 1;  // held until every add is sent
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const auto e = first + static_cast<std::int64_t>(i);
    if ((m.write_set_positions(entry_id(e)) & (1ULL << position)) == 0) continue;
    ++s->pending;
    target.start_add_entry(m.id, entry_id(e), m.last_entry, std::move(entries[i]), bookie::add_mode::recovery, executor,
                           [s](result<void> added) {
                             if (!added && !s->failure) s->failure = added.error();
                             if (--s->pending == 0) s->done.fire();
                           });
  }
  if (--s->pending == 0) s->done.fire();
  co_await s->done.wait();
  if (s->failure) co_return fail(*s->failure);
  co_return success();
}

std::int64_t batch_entries_for(const ledger::ledger_metadata& m, const replicate_options& options) {
  const auto most = static_cast<std::int64_t>(options.batch_entries);
  const auto entries = m.last_entry.value() + 1;
  if (m.length == 0 || entries <= 0) return most;
  const auto average = std::max<std::uint64_t>(1, m.length / static_cast<std::uint64_t>(entries));
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(options.batch_bytes / average), 1, most);
}

// Copies `position`'s share of the segment to `target`: batches_in_flight
// batches at a time, each read and then written, so that reading one batch
// overlaps writing another. The bytes read, or the first failure.
awaitable<result<std::uint64_t>> copy_segment(ledger::bookie_directory& bookies, ledger::bookie_client& target,
                                              const ledger::ledger_metadata& m, const segment& s, std::size_t position,
                                              const std::set<std::string>& alive, const replicate_options& options) {
  struct state {
    explicit state(asio::any_io_executor ex) : room(std::move(ex)) {}
    std::int64_t next;
    std::size_t running = 0;
    std::uint64_t copied = 0;
    std::optional<error> failure;
    asio::steady_timer room;  // cancelled as each batch ends
  };
  auto executor = co_await asio::this_coro::executor;
  auto st = std::make_shared<state>(executor);
  st->next = s.first;
  const auto batch = batch_entries_for(m, options);
  while ((st->next <= s.last && !st->failure) || st->running > 0) {
    if (st->next <= s.last && !st->failure && st->running < options.batches_in_flight) {
      const auto first = st->next, last = std::min(s.last, first + batch - 1);
      st->next = last + 1;
      ++st->running;
      // Everything referenced outlives the batch: this coroutine waits for running == 0.
      io::spawn(executor, [&, st, first, last]() -> awaitable<void> {
        auto entries = co_await read_batch(bookies, m, s, alive, first, last);
        if (entries) {
          for (const auto& e : entries.value()) st->copied += e.size();
          auto written = co_await write_batch(target, m, position, first, std::move(entries).value());
          if (!written && !st->failure) st->failure = written.error();
        } else if (!st->failure) {
          st->failure = entries.error();
        }
        --st->running;
        st->room.cancel();
      });
      continue;
    }
    st->room.expires_after(std::chrono::hours(24));
    boost::system::error_code ignored;
    co_await st->room.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
  }
  if (st->failure) co_return fail(*st->failure);
  co_return st->copied;
}

}  // namespace

awaitable<result<replicate_outcome>> replicate_ledger(ledger::ledger_client& ledgers, meta::store& store,
                                                      ledger::bookie_directory& bookies,
                                                      const underreplicated_ledger& listed, std::int64_t now_ms,
                                                      replicate_options options) {
  const auto path = ledger::ledger_path(listed.id);
  MAGNETAR_CO_TRY(node, co_await store.get(path));
  if (!node) co_return replicate_outcome::done;  // deleted: nothing to keep
  MAGNETAR_CO_TRY(m, ledger::ledger_metadata_from_json(node->value));
  auto version = node->st.version;
  MAGNETAR_CO_TRY(alive, co_await registered_bookies(store));
  const auto lost_in = [&](const std::vector<std::string>& ensemble) {
    return std::any_of(ensemble.begin(), ensemble.end(), [&](const auto& b) { return !alive.count(b); });
  };

  if (m.state != ledger::ledger_state::closed && lost_in(m.ensembles.rbegin()->second)) {
    if (now_ms - listed.marked_ms < options.open_ledger_grace.count()) co_return replicate_outcome::not_yet;
    spdlog::info("autorecovery: ledger {} is still open {} ms after it was listed: recovering it", m.id,
                 now_ms - listed.marked_ms);
    MAGNETAR_CO_TRY(co_await ledgers.open(m.id, /*recover=*/true));
    MAGNETAR_CO_TRY(reread, co_await store.get(path));
    if (!reread) co_return replicate_outcome::done;
    MAGNETAR_CO_TRY(recovered, ledger::ledger_metadata_from_json(reread->value));
    m = std::move(recovered);
    version = reread->st.version;
  }
  // An open ledger's metadata belongs to its writer, which changes it with
  // versioned writes of its own: copy its segments once it is closed.
  if (m.state != ledger::ledger_state::closed) co_return replicate_outcome::not_yet;

  static thread_local std::mt19937 random{std::random_device{}()};
  auto changed = m;
  bool any = false;
  for (const auto& s : segments_of(m)) {
    // A registered bookie the listing names (the periodic check found it short)
    // is replaced where it still lacks entries, and read from nowhere.
    std::set<std::string> short_of;
    if (std::any_of(s.ensemble.begin(), s.ensemble.end(),
                    [&](const auto& b) { return alive.count(b) && listed.missing.count(b); })) {
      short_of = co_await bookies_missing_entries(bookies, m, s.first, s.last);
    }
    const auto replaced = [&](const std::string& b) { return !alive.count(b) || short_of.count(b); };
    if (std::none_of(s.ensemble.begin(), s.ensemble.end(), replaced)) continue;
    auto sources = alive;
    for (const auto& b : short_of) sources.erase(b);
    auto ensemble = s.ensemble;
    for (std::size_t position = 0; position < ensemble.size(); ++position) {
      if (!replaced(ensemble[position])) continue;
      std::vector<std::string> candidates;
      for (auto& b : bookies.writable_bookies()) {
        if (std::find(ensemble.begin(), ensemble.end(), b) == ensemble.end()) candidates.push_back(std::move(b));
      }
      if (candidates.empty()) {
        spdlog::warn("autorecovery: ledger {}: no writable bookie outside ensemble {} to replace {}", m.id,
                     fmt::join(ensemble, ","), ensemble[position]);
        co_return replicate_outcome::not_yet;
      }
      const auto target_id = candidates[std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(random)];
      auto* target = bookies.client(target_id);
      if (target == nullptr) co_return fail(ledger::errc::write_failed, fmt::format("unknown bookie {}", target_id));
      MAGNETAR_CO_TRY(copied, co_await copy_segment(bookies, *target, m, s, position, sources, options));
      spdlog::info("autorecovery: ledger {} entries {}..{}: {} replaced by {} ({} bytes read)", m.id, s.first, s.last,
                   ensemble[position], target_id, copied);
      ensemble[position] = target_id;
    }
    changed.ensembles[s.first] = std::move(ensemble);
    any = true;
  }
  if (!any) co_return replicate_outcome::done;
  auto put = co_await store.put(path, ledger::to_json(changed), version);
  if (!put) {
    if (put.error() == meta::errc::bad_version) co_return replicate_outcome::not_yet;  // changed meanwhile: again later
    co_return fail(put.error());
  }
  co_return replicate_outcome::done;
}

}  // namespace magnetar::autorecovery
