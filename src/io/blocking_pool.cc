#include "io/blocking_pool.h"

namespace magnetar::io {

blocking_pool::blocking_pool(unsigned threads) : _thread_count(threads), _pool(threads) {}

blocking_pool::~blocking_pool() { stop(); }

void blocking_pool::stop() {
  if (_stopped.exchange(true, std::memory_order_acq_rel)) return;
  // join() lets queued calls finish: their callers are waiting for them.
  _pool.join();
}

}  // namespace magnetar::io
