#include "magnetar/client_resources.h"

#include "client/running_shards.h"
#include "io/shard.h"

namespace magnetar {

std::shared_ptr<client_resources> client_resources::create(unsigned io_threads) {
  return std::shared_ptr<client_resources>(new client_resources(client_detail::start_shards(io_threads)));
}

unsigned client_resources::io_threads() const { return _shards->size(); }

}  // namespace magnetar
