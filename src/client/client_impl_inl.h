// client_impl::block_on, kept out of client_impl.h for its includes.
#pragma once

#include "magnetar/errc.h"

#include <future>

namespace magnetar::client_detail {

template <class T>
result<T> client_impl::block_on(std::function<awaitable<result<T>>()> work) {
  if (on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking call on a client io thread would deadlock");
  }
  // Shared, so that set_value never touches a promise the woken caller has destroyed.
  auto promise = std::make_shared<std::promise<result<T>>>();
  auto future = promise->get_future();
  asio::co_spawn(
      next_shard().executor(),
      [work = std::move(work), promise]() -> awaitable<void> {
        auto r = co_await work();
        promise->set_value(std::move(r));
      },
      asio::detached);
  return future.get();
}

}  // namespace magnetar::client_detail
