#include "broker/replication/topic_replicators.h"

#include "base/log.h"

#include <algorithm>

namespace magnetar::broker {

topic_replicators::topic_replicators(wire::topic_name topic, std::string local_cluster, mledger::managed_ledger& ledger,
                                     io::shard& shard, replication_clients& clients, base::clock& clock,
                                     replicator_settings settings)
    : _topic(std::move(topic)),
      _local(std::move(local_cluster)),
      _ledger(ledger),
      _shard(shard),
      _clients(clients),
      _clock(clock),
      _settings(settings) {}

awaitable<void> topic_replicators::set_clusters(std::vector<std::string> clusters) {
  if (_closed) co_return;
  std::erase(clusters, _local);
  // Calls may interleave (a refresh and an admin change): each works on what is there
  // when it gets to it.
  std::vector<std::string> gone;
  for (const auto& [remote, r] : _replicators) {
    if (std::find(clusters.begin(), clusters.end(), remote) == clusters.end()) gone.push_back(remote);
  }
  for (const auto& remote : gone) {
    auto it = _replicators.find(remote);
    if (it == _replicators.end()) continue;
    auto r = std::move(it->second);
    _replicators.erase(it);
    co_await r->stop();
    auto deleted = co_await _ledger.delete_cursor(replicator::cursor_name(remote));
    if (!deleted) spdlog::warn("{}: deleting the replication cursor of {}: {}", _topic.full(), remote, deleted.error());
  }
  for (const auto& remote : clusters) {
    if (_closed || _replicators.contains(remote)) continue;
    auto r = std::make_shared<replicator>(_topic, _local, remote, _ledger, _shard, _clients, _clock, _settings);
    _replicators.emplace(remote, r);
    auto started = co_await r->start();
    if (!started) {
      // The next refresh of the policies tries again.
      spdlog::warn("{}: starting replication to {}: {}", _topic.full(), remote, started.error());
      if (auto it = _replicators.find(remote); it != _replicators.end() && it->second == r) _replicators.erase(it);
      co_await r->stop();
    }
  }
}

awaitable<void> topic_replicators::close() {
  _closed = true;
  auto replicators = std::move(_replicators);
  _replicators.clear();
  for (auto& [remote, r] : replicators) co_await r->stop();
}

void topic_replicators::add_stats(std::map<std::string, replicator_stats>& out) const {
  for (const auto& [remote, r] : _replicators) {
    auto s = r->stats();
    auto& into = out[remote];
    s.msg_rate_in = into.msg_rate_in;
    s.msg_throughput_in = into.msg_throughput_in;
    s.msg_in_counter = into.msg_in_counter;
    into = s;
  }
}

void topic_replicators::roll(base::clock::time_point now) {
  for (auto& [remote, r] : _replicators) r->roll(now);
}

}  // namespace magnetar::broker
