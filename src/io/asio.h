// The one header through which magnetar includes Boost.Asio.
//
// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>,
// so <utility> must come first; every file that needs Asio includes this
// header instead of Boost's, so the fix lives in one place.
#pragma once

#include <utility>  // must precede boost/asio/awaitable.hpp (Boost 1.74)

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace magnetar {

namespace asio = boost::asio;

template <class T>
using awaitable = asio::awaitable<T>;

}  // namespace magnetar
