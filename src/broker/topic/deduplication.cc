#include "broker/topic/deduplication.h"

#include "base/log.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/entry_format.h"

#include <charconv>
#include <map>

namespace magnetar::broker {

namespace {

constexpr std::size_t replay_batch = 100;

// A chunk other than the last carries its message's sequence id too: only the last one
// completes the message, so only it counts (else the message's own later chunks would
// look like duplicates).
bool is_partial_chunk(const proto::MessageMetadata& m) {
  return m.has_num_chunks_from_msg() && m.num_chunks_from_msg() > 1 && m.chunk_id() + 1 < m.num_chunks_from_msg();
}

}  // namespace

deduplication::deduplication(mledger::managed_ledger& ml, const broker_config& config, std::string topic_name)
    : _ml(ml), _config(config), _topic(std::move(topic_name)) {}

std::string_view deduplication::status_name() const {
  switch (_status) {
    case status::disabled: return "Disabled";
    case status::recovering: return "Recovering";
    case status::enabled: return "Enabled";
    case status::removing: return "Removing";
    case status::failed: return "Failed";
  }
  return "Failed";
}

awaitable<result<void>> deduplication::set_enabled(bool on) {
  auto guard = co_await _changing.acquire();
  if (on && _status != status::enabled) co_return co_await enable();
  if (!on && _status != status::disabled) co_return co_await disable();
  co_return success();
}

awaitable<result<void>> deduplication::enable() {
  _status = status::recovering;
  _pushed.clear();
  _persisted.clear();
  auto cursor = co_await _ml.open_cursor(std::string(dedup_cursor_name), mledger::initial_position::latest);
  if (!cursor) {
    _status = status::failed;
    co_return fail(std::move(cursor).error());
  }
  _cursor = cursor.value();
  for (const auto& [producer, text] : _cursor->properties()) {
    std::int64_t id = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || end != text.data() + text.size()) {
      spdlog::warn("{}: deduplication snapshot has a bad sequence id '{}' for {}", _topic, text, producer);
      continue;
    }
    record(producer, id);
  }
  _last_persisted = _cursor->mark_delete_position();
  auto replayed = co_await replay_after(_last_persisted);
  if (!replayed) {
    _status = status::failed;
    co_return replayed;
  }
  _since_snapshot = 0;
  _status = status::enabled;
  // What was replayed goes into a snapshot, so the next recovery starts from here.
  if (_cursor->mark_delete_position() < _last_persisted) snapshot();
  spdlog::info("{}: deduplication enabled ({} producers)", _topic, _persisted.size());
  co_return success();
}

awaitable<result<void>> deduplication::replay_after(mledger::position from) {
  // Up to the last entry as it is when the replay ends, not as it was when it began:
  // on a loaded topic, adds go on while the replay reads.
  auto next = _ml.next_valid_position(from);
  while (next <= _ml.last_confirmed()) {
    MAGNETAR_CO_TRY(entries, co_await _ml.read_entries(next, replay_batch));
    if (entries.empty()) break;
    for (const auto& e : entries) {
      auto metadata = entry_metadata(e.data);
      if (!metadata) {
        spdlog::warn("{}: deduplication replay skips entry {}: {}", _topic, e.pos, metadata.error());
      } else if (!is_partial_chunk(metadata.value()) && metadata.value().has_producer_name()) {
        const auto& m = metadata.value();
        const auto highest =
            std::max(static_cast<std::int64_t>(m.sequence_id()), static_cast<std::int64_t>(m.highest_sequence_id()));
        record(dedup_name(m), highest);
      }
      _last_persisted = e.pos;
    }
    next = _ml.next_valid_position(entries.back().pos);
  }
  co_return success();
}

awaitable<result<void>> deduplication::disable() {
  _status = status::removing;
  _pushed.clear();
  _persisted.clear();
  _cursor = nullptr;
  if (_ml.find_cursor(dedup_cursor_name) != nullptr) {
    auto removed = co_await _ml.delete_cursor(dedup_cursor_name);
    if (!removed) {
      _status = status::failed;
      co_return removed;
    }
  }
  _status = status::disabled;
  spdlog::info("{}: deduplication disabled", _topic);
  co_return success();
}

void deduplication::record(const std::string& producer, std::int64_t highest) {
  auto& persisted = _persisted[producer];
  persisted = std::max(persisted, highest);
  auto& pushed = _pushed[producer];
  pushed = std::max(pushed, highest);
}

std::string dedup_name(const proto::MessageMetadata& m) {
  return m.has_replicated_from() ? m.replicated_from() + "/" + m.producer_name() : m.producer_name();
}

deduplication::verdict deduplication::check(const std::string& producer, std::int64_t sequence_id,
                                            std::int64_t highest) {
  if (!enabled()) return verdict::publish;
  auto pushed = _pushed.find(producer);
  if (pushed != _pushed.end() && sequence_id <= pushed->second) {
    auto persisted = _persisted.find(producer);
    if (persisted != _persisted.end() && sequence_id <= persisted->second) return verdict::duplicate;
    return verdict::unknown;
  }
  _pushed[producer] = std::max(sequence_id, highest);
  return verdict::publish;
}

void deduplication::persisted(const std::string& producer, std::int64_t highest, mledger::position at) {
  if (!enabled()) return;
  auto& persisted = _persisted[producer];
  persisted = std::max(persisted, highest);
  if (at > _last_persisted) _last_persisted = at;
  if (++_since_snapshot >= _config.broker_deduplication_entries_interval) snapshot();
}

void deduplication::publish_failed(const std::string& producer) {
  if (!enabled()) return;
  auto persisted = _persisted.find(producer);
  if (persisted == _persisted.end()) {
    _pushed.erase(producer);
  } else {
    _pushed[producer] = persisted->second;
  }
}

std::int64_t deduplication::last_sequence_id(const std::string& producer) const {
  auto it = _pushed.find(producer);
  return it == _pushed.end() ? -1 : it->second;
}

void deduplication::snapshot() {
  if (!enabled() || _cursor == nullptr) return;
  _since_snapshot = 0;
  // At most brokerDeduplicationMaxNumberOfProducers producers, as upstream bounds the
  // snapshot; one left out is recovered by the replay only if it published after it.
  std::map<std::string, std::string> ids;
  for (const auto& [producer, id] : _persisted) {
    if (static_cast<std::int64_t>(ids.size()) >= _config.broker_deduplication_max_number_of_producers) break;
    ids.emplace(producer, std::to_string(id));
  }
  _cursor->set_properties(std::move(ids));
  if (_last_persisted.ledger().value() < 0) return;
  if (auto moved = _cursor->mark_delete(_last_persisted); !moved) {
    spdlog::warn("{}: deduplication snapshot at {}: {}", _topic, _last_persisted, moved.error());
  }
}

void deduplication::snapshot_if_behind() {
  if (_since_snapshot > 0) snapshot();
}

void deduplication::purge_inactive(const std::vector<std::string>& connected, base::clock::time_point now,
                                   base::clock::duration timeout) {
  if (!enabled()) return;
  for (const auto& name : connected) _last_seen[name] = now;
  std::vector<std::string> gone;
  for (const auto& [name, id] : _pushed) {
    // A name first met here (recovered, or it published between two calls) starts now.
    auto seen = _last_seen.try_emplace(name, now).first;
    if (now - seen->second > timeout) gone.push_back(name);
  }
  for (const auto& name : gone) {
    spdlog::info("{}: deduplication forgets producer {} (inactive)", _topic, name);
    _pushed.erase(name);
    _persisted.erase(name);
    _last_seen.erase(name);
  }
}

}  // namespace magnetar::broker
