// producer_base: what the public producer handle calls, implemented by producer_impl
// (one topic or partition) and partitioned_producer (a producer per partition).
//
// close() runs on an io thread (the handle blocks on it with client_impl::block_on).
// Implementations are thread-safe.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "magnetar/producer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace magnetar::client_detail {

class client_impl;

class producer_base {
 public:
  virtual ~producer_base() = default;

  virtual void send_async(message m, send_callback done) = 0;
  virtual void flush_async(std::function<void(result<void>)> done) = 0;
  virtual awaitable<result<void>> close() = 0;
  // The client is closing: like close() but without waiting for receipts.
  virtual void shutdown() = 0;

  virtual const std::string& topic() const = 0;
  virtual std::string producer_name() const = 0;
  virtual std::int64_t last_sequence_id() const = 0;
  virtual bool is_connected() const = 0;
  virtual const std::shared_ptr<client_impl>& client() const = 0;
};

}  // namespace magnetar::client_detail
