// Sockets: the parts of Boost.Asio that TCP servers and clients use, included after
// io/asio.h's fix. (Boost 1.74 has no as_tuple: await socket calls with
// asio::redirect_error(asio::use_awaitable, ec).)
#pragma once

#include "io/asio.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
