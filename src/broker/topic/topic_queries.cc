// The topic's read-only questions: stats, internal stats, the last message id, and the
// position of a publish time.
#include "base/log.h"
#include "broker/api/client_channel.h"
#include "broker/api/errc.h"
#include "broker/topic/backlog_quota.h"
#include "broker/topic/client_stats.h"
#include "broker/topic/consumer.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/entry_format.h"
#include "broker/topic/producer.h"
#include "broker/topic/topic.h"

#include <fmt/format.h>

#include <limits>

namespace magnetar::broker {

namespace {

std::string upstream_ranges(const mledger::range_set& ranges) {
  std::string out = "[";
  for (const auto& r : ranges) out += fmt::format("({}..{}]", r.open_lower(), r.last);
  return out + "]";
}

}  // namespace

topic_stats topic::stats() const {
  auto out = topic_stats_from(_in);
  const auto ml = _ledger->stats();
  out.storage_size = ml.size_bytes;
  for (const auto& p : _producers) {
    out.publishers.push_back(publisher_stats_of(*p));
  }
  for (const auto& [name, s] : _subscriptions) {
    auto ss = s->stats();
    out.msg_rate_out += ss.msg_rate_out;
    out.msg_throughput_out += ss.msg_throughput_out;
    out.msg_out_counter += ss.msg_out_counter;
    out.bytes_out_counter += ss.bytes_out_counter;
    out.subscriptions.emplace(name, std::move(ss));
  }
  // Cursors without a subscription object (created by admin and never consumed) count too.
  for (auto* cursor : subscription_cursors(*_ledger)) {
    // Replicators' cursors are reported under replication.
    if (out.subscriptions.contains(cursor->name()) || cursor->name().starts_with(replicator_prefix)) continue;
    subscription_stats ss;
    ss.type = "Exclusive";
    ss.is_durable = cursor->is_durable();
    ss.msg_backlog = cursor->backlog();
    out.subscriptions.emplace(cursor->name(), std::move(ss));
  }
  // What the backlog quota measures (the deduplication cursor is no subscription).
  out.backlog_size = estimated_backlog_bytes(*_ledger);
  out.deduplication_status = std::string(_dedup->status_name());
  if (_replication) _replication->add_stats(out.replication);
  for (const auto& [cluster, meter] : _replicated_in) {
    auto& r = out.replication[cluster];
    r.msg_rate_in = meter.message_rate();
    r.msg_throughput_in = meter.byte_rate();
    r.msg_in_counter = meter.messages();
  }
  if (const auto& interval = _write_stats.last()) {
    out.storage_write_latency_us = interval->add_latency_us;
    out.storage_ledger_write_latency_us = interval->ledger_add_latency_us;
    out.entry_size = interval->entry_size;
  }
  return out;
}

topic_internal_stats topic::internal_stats() const {
  topic_internal_stats out;
  const auto ml = _ledger->stats();
  out.entries_added_counter = ml.adds_succeeded;
  out.number_of_entries = ml.entries;
  out.total_size = ml.size_bytes;
  out.last_confirmed_entry = fmt::format("{}", ml.last_confirmed);
  out.state = _closing                   ? "Closed"
              : _ledger->is_fenced()     ? "Fenced"
              : _ledger->is_terminated() ? "Terminated"
                                         : "LedgerOpened";
  for (const auto& l : _ledger->ledgers()) {
    out.ledgers.push_back({l.id.value(), l.entries, l.size, l.timestamp_ms});
  }
  if (ml.last_confirmed.ledger() == _ledger->current_ledger() && ml.last_confirmed.entry().value() >= 0) {
    out.current_ledger_entries = static_cast<std::uint64_t>(ml.last_confirmed.entry().value()) + 1;
  }
  if (!out.ledgers.empty()) {
    out.ledgers.back().entries = out.current_ledger_entries;
    std::uint64_t closed_size = 0;
    for (std::size_t i = 0; i + 1 < out.ledgers.size(); ++i) closed_size += out.ledgers[i].size;
    out.current_ledger_size = ml.size_bytes >= closed_size ? ml.size_bytes - closed_size : 0;
  }
  for (auto* cursor : _ledger->cursors()) {
    const auto cs = cursor->stats();
    cursor_internal_stats c;
    c.mark_delete_position = fmt::format("{}", cs.mark_delete_position);
    c.read_position = fmt::format("{}", cs.read_position);
    c.individually_deleted_message_ranges = upstream_ranges(cursor->individually_deleted());
    c.total_non_contiguous_deleted_messages_range = cs.individually_deleted_ranges;
    c.number_of_entries_since_first_not_acked_message =
        _ledger->entries_between(cs.mark_delete_position, ml.last_confirmed);
    c.messages_consumed_counter = ml.entries >= cs.backlog ? ml.entries - cs.backlog : 0;
    c.is_durable = cs.durable;
    out.cursors.emplace(cs.name, std::move(c));
  }
  return out;
}

proto::MessageIdData topic::message_id(mledger::position at) const {
  proto::MessageIdData id;
  id.set_ledgerid(static_cast<std::uint64_t>(at.ledger().value()));
  id.set_entryid(static_cast<std::uint64_t>(at.entry().value()));
  if (_name.partition() >= 0) id.set_partition(_name.partition());
  return id;
}

awaitable<result<proto::MessageIdData>> topic::last_message_id() {
  const auto last = _ledger->last_confirmed();
  // No entry in the current ledger means none readable (upstream answers the same).
  if (last.entry().value() < 0) co_return message_id(mledger::position{});
  auto id = message_id(last);
  MAGNETAR_CO_TRY(entries, co_await _ledger->read_entries(last, 1));
  if (!entries.empty()) {
    auto metadata = entry_metadata(entries.front().data);
    if (metadata && metadata.value().has_num_messages_in_batch()) {
      id.set_batch_index(messages_in(metadata.value()) - 1);
    }
  }
  co_return id;
}

awaitable<result<void>> topic::seek(consumer& c, const proto::CommandSeek& command) {
  auto* sub = c.sub();
  if (sub == nullptr || c.closed()) co_return fail(errc::consumer_busy, "the consumer is closed");
  auto keep = sub->shared_from_this();
  if (command.has_message_publish_time()) {
    MAGNETAR_CO_TRY(at, co_await find_by_publish_time(static_cast<std::int64_t>(command.message_publish_time())));
    co_return co_await keep->reset(at);
  }
  const auto& id = command.message_id();
  const auto l = static_cast<std::int64_t>(id.ledgerid());
  const auto e = static_cast<std::int64_t>(id.entryid());
  // Unsigned on the wire: earliest (-1) arrives as all ones, latest as INT64_MAX.
  mledger::position to{ledger_id(l), entry_id(e)};
  if (l == std::numeric_limits<std::int64_t>::max()) {
    to = mledger::position::latest();
  } else if (l < 0 || e < 0) {
    to = mledger::position::earliest();
  }
  co_return co_await keep->reset(to);
}

awaitable<result<mledger::position>> topic::find_by_publish_time(std::int64_t publish_time_ms) {
  // Every entry's position in order, as (ledger, entries) spans; the binary search runs
  // over the index into them.
  struct span {
    ledger_id ledger;
    std::uint64_t first_index;
    std::uint64_t entries;
  };
  std::vector<span> spans;
  std::uint64_t total = 0;
  const auto last = _ledger->last_confirmed();
  for (const auto& l : _ledger->ledgers()) {
    std::uint64_t entries = l.entries;
    if (l.id == last.ledger()) entries = static_cast<std::uint64_t>(last.entry().value() + 1);
    if (entries == 0) continue;
    spans.push_back({l.id, total, entries});
    total += entries;
  }
  auto position_at = [&](std::uint64_t index) {
    auto it = std::upper_bound(spans.begin(), spans.end(), index,
                               [](std::uint64_t i, const span& s) { return i < s.first_index; });
    --it;
    return mledger::position(it->ledger, entry_id(static_cast<std::int64_t>(index - it->first_index)));
  };
  std::uint64_t low = 0;
  std::uint64_t high = total;  // the answer lies in [low, high]; high = past the end
  while (low < high) {
    const std::uint64_t mid = low + (high - low) / 2;
    MAGNETAR_CO_TRY(entries, co_await _ledger->read_entries(position_at(mid), 1));
    if (entries.empty()) co_return fail(errc::persistence_error, "an entry inside the topic could not be read");
    MAGNETAR_CO_TRY(metadata, entry_metadata(entries.front().data));
    if (static_cast<std::int64_t>(metadata.publish_time()) >= publish_time_ms) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  if (low == total) co_return mledger::position::latest();
  co_return position_at(low);
}

}  // namespace magnetar::broker
