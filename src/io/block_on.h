// block_on: a plain thread (main(), a test body) waits for a coroutine that
// runs on an executor it does not drive itself.
//
// Never call it from the executor's own thread: that thread would wait for
// work only it can run. Thread-safe otherwise.
#pragma once

#include "base/assert.h"
#include "io/asio.h"
#include "io/shard.h"

#include <future>
#include <optional>
#include <type_traits>

namespace magnetar::io {

template <class T, class Executor>
T block_on(Executor executor, awaitable<T> work) {
  if constexpr (std::is_same_v<Executor, shard::executor_type>) {
    MAGNETAR_ASSERT(!executor.running_in_this_thread(), "block_on from the executor's own thread");
  }
  using stored = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;
  std::promise<stored> done;
  auto finished = done.get_future();
  asio::co_spawn(
      executor,
      [&done, work = std::move(work)]() mutable -> awaitable<void> {
        if constexpr (std::is_void_v<T>) {
          co_await std::move(work);
          done.set_value(true);
        } else {
          done.set_value(co_await std::move(work));
        }
      },
      asio::detached);
  if constexpr (std::is_void_v<T>) {
    finished.get();
  } else {
    return std::move(*finished.get());
  }
}

template <class T>
T block_on(shard& target, awaitable<T> work) {
  return block_on(target.executor(), std::move(work));
}

}  // namespace magnetar::io
