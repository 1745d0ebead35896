// run_all: starts coroutines at once, each on one of the client's io threads, and
// resumes when every one is done, with their results in order. The producers and
// consumers of a topic's partitions start, flush and close this way, so N partitions
// cost one round trip, not N.
//
// Thread-safe; the caller resumes on its own executor.
#pragma once

#include "client/client_impl.h"
#include "io/await_callback.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace magnetar::client_detail {

template <class T>
using task = std::function<awaitable<result<T>>()>;

template <class T>
awaitable<std::vector<result<T>>> run_all(client_impl& client, std::vector<task<T>> tasks) {
  struct state {
    std::mutex mutex;
    std::vector<std::optional<result<T>>> results;
    std::size_t remaining = 0;
    std::function<void(bool)> done;
  };
  std::vector<result<T>> out;
  if (tasks.empty()) co_return out;
  auto s = std::make_shared<state>();
  s->results.resize(tasks.size());
  s->remaining = tasks.size();
  auto begin = [&](std::function<void(bool)> done) {
    s->done = std::move(done);
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      asio::co_spawn(
          client.next_shard().executor(),
          [s, i, work = std::move(tasks[i])]() -> awaitable<void> {
            auto r = co_await work();
            std::function<void(bool)> finish;
            {
              std::lock_guard lock(s->mutex);
              s->results[i].emplace(std::move(r));
              if (--s->remaining == 0) finish = std::move(s->done);
            }
            if (finish) finish(true);
          },
          asio::detached);
    }
  };
  co_await io::await_callback<bool>(begin);
  out.reserve(s->results.size());
  for (auto& r : s->results) out.push_back(std::move(*r));
  co_return out;
}

// The first failure among `results`, or success.
template <class T>
result<void> first_failure(const std::vector<result<T>>& results) {
  for (const auto& r : results) {
    if (!r) return r.error();
  }
  return success();
}

}  // namespace magnetar::client_detail
