#include "broker/topic/storage_write_interval.h"

namespace magnetar::broker {

void storage_write_interval::tick(const mledger::storage_write_stats& totals) {
  if (_at_start && ++_ticks < ticks_per_interval) return;
  _ticks = 0;
  if (_at_start) {
    _last = mledger::storage_write_stats{
        .add_latency_us = totals.add_latency_us.since(_at_start->add_latency_us),
        .ledger_add_latency_us = totals.ledger_add_latency_us.since(_at_start->ledger_add_latency_us),
        .entry_size = totals.entry_size.since(_at_start->entry_size)};
  }
  _at_start = totals;
}

}  // namespace magnetar::broker
