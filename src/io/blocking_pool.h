// blocking_pool: a few threads for calls that block (fdatasync, RocksDB
// writes, file opens), so that no shard thread ever blocks.
//
//   auto synced = co_await pool.run([&] { return file.sync(); });
//
// The call runs on a pool thread; the caller resumes on its own executor.
// run() is thread-safe. stop() waits for calls already running and refuses
// new ones; the destructor stops.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "io/errc.h"
#include "io/run_on.h"

#include <atomic>
#include <type_traits>

namespace magnetar::io {

class blocking_pool {
 public:
  explicit blocking_pool(unsigned threads = 4);
  ~blocking_pool();
  blocking_pool(const blocking_pool&) = delete;
  blocking_pool& operator=(const blocking_pool&) = delete;

  unsigned thread_count() const { return _thread_count; }

  // Runs `fn` (which returns result<T>) on a pool thread. After stop() it
  // fails with io::errc::pool_stopped without running `fn`.
  template <class F>
  requires std::is_invocable_v<F&> awaitable<std::invoke_result_t<F&>> run(F fn) {
    if (_stopped.load(std::memory_order_acquire)) {
      co_return fail(errc::pool_stopped, "blocking call refused");
    }
    co_return co_await run_on(_pool.get_executor(), std::move(fn));
  }

  void stop();

 private:
  const unsigned _thread_count;
  asio::thread_pool _pool;
  std::atomic<bool> _stopped{false};
};

}  // namespace magnetar::io
