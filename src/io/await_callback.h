// await_callback: lets a coroutine wait for an operation that reports through a
// callback:
//   auto begin = [&](std::function<void(result<int>)> done) { start(std::move(done)); };
//   auto r = co_await await_callback<result<int>>(begin);
// (the lambda is a named local: GCC 12 mishandles temporaries inside co_await).
//
// The callback may be called from any thread, exactly once; the coroutine resumes on its
// own executor (the callback posts there). A callback never called leaves the coroutine
// suspended, so every operation used this way must complete on timeout and on close.
#pragma once

#include "io/asio.h"

#include <functional>
#include <memory>
#include <utility>

namespace magnetar::io {

template <class T, class Start>
awaitable<T> await_callback(Start start) {
  return asio::async_initiate<const asio::use_awaitable_t<>, void(T)>(
      [start = std::move(start)](auto handler) mutable {
        using handler_type = decltype(handler);
        auto shared = std::make_shared<handler_type>(std::move(handler));
        auto executor = asio::get_associated_executor(*shared);
        start(std::function<void(T)>([shared, executor](T value) mutable {
          asio::post(executor, [shared, value = std::move(value)]() mutable { (*shared)(std::move(value)); });
        }));
      },
      asio::use_awaitable);
}

}  // namespace magnetar::io
