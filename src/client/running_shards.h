// running_shards: the io threads of one client, or of several through client_resources,
// owned by shared_ptr so that they stop when their last user goes.
#pragma once

#include "io/shard.h"

#include <memory>

namespace magnetar::client_detail {

// Starts `threads` shards (at least one). The last reference stops and joins them; when
// it goes on one of the set's own threads (a callback dropped the last client), a thread
// of its own does that, since a thread cannot join itself.
std::shared_ptr<io::shard_set> start_shards(unsigned threads);

// Whether the calling thread is one of `shards`'.
bool runs_on(const io::shard_set& shards);

}  // namespace magnetar::client_detail
