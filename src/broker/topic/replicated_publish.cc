// A SEND from another cluster's replicator (its producer is named "pulsar.repl.<cluster>",
// as upstream names it): deduplicated by the original producer's name and sequence ids
// in the entry's metadata, whatever the namespace's deduplication policy says, so that
// a replicator's resends after a broken link never store an entry twice; and counted as
// replication in from that cluster.
#include "base/log.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/entry_format.h"
#include "broker/topic/producer.h"
#include "broker/topic/topic.h"

#include <algorithm>

namespace magnetar::broker {

std::optional<topic::dedup_ticket> topic::replicated_ticket(const producer& p, const wire::shared_bytes& entry,
                                                            int messages) {
  const auto& name = p.name();
  if (!name.starts_with(replicator_prefix) || name.size() <= replicator_prefix.size() ||
      name[replicator_prefix.size()] != '.') {
    return std::nullopt;
  }
  auto metadata = entry_metadata(entry);
  if (!metadata || !metadata.value().has_replicated_from()) return std::nullopt;
  const auto& m = metadata.value();
  _replicated_in[m.replicated_from()].record(static_cast<std::uint64_t>(messages), entry.size());
  const auto first = static_cast<std::int64_t>(m.sequence_id());
  return dedup_ticket{dedup_name(m), first, std::max(first, static_cast<std::int64_t>(m.highest_sequence_id()))};
}

}  // namespace magnetar::broker
