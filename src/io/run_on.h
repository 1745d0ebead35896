// Running work on another shard (or any executor) and awaiting its result.
//
//   auto stats = co_await run_on(topic_shard, [&]() -> awaitable<topic_stats> { ... });
//   auto n = co_await run_on(other_shard, [] { return 42; });
//
// The function runs on the target's thread; the caller resumes on its own
// executor with the value. Functions must not throw (house rule): errors are
// returned as result<T>. The function object is moved to the target, so what
// it captures by reference must outlive the co_await (it does: the caller is
// suspended until the result is back).
#pragma once

#include "io/asio.h"
#include "io/shard.h"

#include <optional>
#include <type_traits>
#include <utility>

namespace magnetar::io {

namespace detail {

// What co_await run_on(..., f) yields: T when f is a coroutine returning
// awaitable<T>, else whatever f returns.
template <class R>
struct unwrap_awaitable {
  using type = R;
  static constexpr bool is_coroutine = false;
};
template <class T>
struct unwrap_awaitable<asio::awaitable<T>> {
  using type = T;
  static constexpr bool is_coroutine = true;
};

template <class F>
using call_result_t = std::invoke_result_t<std::decay_t<F>&>;
template <class F>
using run_result_t = typename unwrap_awaitable<call_result_t<F>>::type;
template <class F>
constexpr bool is_coroutine = unwrap_awaitable<call_result_t<F>>::is_coroutine;

}  // namespace detail

// `fn` must capture by reference (or trivially destructible values only): with GCC 12
// and Asio 1.74, a function object whose captures own memory (a std::string, a
// shared_ptr) is destroyed twice on the way through co_spawn's use_awaitable
// initiation, a double free. The caller is suspended until `fn` has run, so what it
// references stays alive; pass owned values to a coroutine function's parameters.
template <class Executor, class F>
awaitable<detail::run_result_t<F>> run_on(Executor executor, F&& fn) {
  static_assert(std::is_trivially_destructible_v<std::decay_t<F>>,
                "run_on: capture by reference; see the comment above (GCC 12 double free)");
  using T = detail::run_result_t<F>;
  if constexpr (std::is_void_v<T>) {
    co_await asio::co_spawn(
        executor,
        [fn = std::forward<F>(fn)]() mutable -> awaitable<void> {
          if constexpr (detail::is_coroutine<F>) {
            co_await fn();
          } else {
            fn();
          }
        },
        asio::use_awaitable);
  } else {
    // Asio 1.74's co_spawn default-constructs the value on its error path, and
    // result<T> has no default; carry it in an optional.
    auto value = co_await asio::co_spawn(
        executor,
        [fn = std::forward<F>(fn)]() mutable -> awaitable<std::optional<T>> {
          if constexpr (detail::is_coroutine<F>) {
            co_return co_await fn();
          } else {
            co_return fn();
          }
        },
        asio::use_awaitable);
    co_return std::move(*value);
  }
}

template <class F>
awaitable<detail::run_result_t<F>> run_on(shard& target, F&& fn) {
  return run_on(target.executor(), std::forward<F>(fn));
}

// Starts the coroutine `fn()` on `executor` without waiting for it. Takes the
// function, not its awaitable: the function object (and so its captures) is
// kept alive until the coroutine ends, which a lambda temporary would not be.
// The coroutine's completion is its own business (it holds a gate pass when a
// service must wait for it).
template <class Executor, class F>
requires std::is_same_v<detail::call_result_t<F>, awaitable<void>>
void spawn(Executor executor, F&& fn) { asio::co_spawn(executor, std::forward<F>(fn), asio::detached); }

}  // namespace magnetar::io
