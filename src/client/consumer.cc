#include "magnetar/consumer.h"

#include "client/client_impl.h"
#include "client/consumer_base.h"
#include "magnetar/errc.h"

#include <future>
#include <memory>

namespace magnetar {

namespace {
const std::string& empty_string() {
  static const std::string empty;
  return empty;
}
error closed_error() { return error(client_errc::already_closed, "not a consumer"); }
error listener_error() {
  return error(client_errc::invalid_argument, "the consumer has a message listener, which takes its messages");
}
}  // namespace

consumer::consumer() = default;
consumer::~consumer() = default;
consumer::consumer(const consumer&) = default;
consumer& consumer::operator=(const consumer&) = default;
consumer::consumer(consumer&&) noexcept = default;
consumer& consumer::operator=(consumer&&) noexcept = default;
consumer::consumer(std::shared_ptr<client_detail::consumer_base> impl, bool has_listener)
    : _impl(std::move(impl)), _has_listener(has_listener) {}

result<message> consumer::receive() {
  if (!_impl) return closed_error();
  if (_has_listener) return listener_error();
  return _impl->receive(std::nullopt);
}

result<message> consumer::receive(std::chrono::milliseconds timeout) {
  if (!_impl) return closed_error();
  if (_has_listener) return listener_error();
  return _impl->receive(timeout);
}

void consumer::receive_async(std::function<void(result<message>)> done) {
  if (!_impl || _has_listener) {
    done(_impl ? listener_error() : closed_error());
    return;
  }
  _impl->receive_async(std::move(done));
}

result<std::vector<message>> consumer::batch_receive(const batch_receive_policy& policy) {
  if (!_impl) return closed_error();
  if (_has_listener) return listener_error();
  return _impl->batch_receive(policy);
}

result<void> consumer::acknowledge(const message_id& id) {
  if (!_impl) return closed_error();
  return _impl->acknowledge(id);
}

result<void> consumer::acknowledge_cumulative(const message_id& id) {
  if (!_impl) return closed_error();
  return _impl->acknowledge_cumulative(id);
}

result<void> consumer::redeliver_unacknowledged() {
  if (!_impl) return closed_error();
  return _impl->redeliver_unacknowledged();
}

result<void> consumer::negative_acknowledge(const message_id& id) {
  if (!_impl) return closed_error();
  return _impl->negative_acknowledge(id);
}

result<void> consumer::reconsume_later(const message& m, std::chrono::milliseconds delay) {
  if (!_impl) return closed_error();
  if (_impl->client()->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking reconsume_later on a client io thread would deadlock");
  }
  auto promise = std::make_shared<std::promise<result<void>>>();
  auto future = promise->get_future();
  _impl->reconsume_later(m, delay, [promise](result<void> r) { promise->set_value(std::move(r)); });
  return future.get();
}

void consumer::reconsume_later_async(const message& m, std::chrono::milliseconds delay,
                                     std::function<void(result<void>)> done) {
  if (!_impl) {
    done(closed_error());
    return;
  }
  _impl->reconsume_later(m, delay, std::move(done));
}

result<void> consumer::seek(const message_id& id) {
  if (!_impl) return closed_error();
  auto impl = _impl;
  return impl->client()->block_on<void>([impl, id]() { return impl->seek(id, std::nullopt); });
}

result<void> consumer::seek(std::uint64_t publish_time_ms) {
  if (!_impl) return closed_error();
  auto impl = _impl;
  return impl->client()->block_on<void>(
      [impl, publish_time_ms]() { return impl->seek(std::nullopt, publish_time_ms); });
}

result<message_id> consumer::get_last_message_id() {
  if (!_impl) return closed_error();
  auto impl = _impl;
  return impl->client()->block_on<message_id>([impl]() { return impl->get_last_message_id(); });
}

result<void> consumer::unsubscribe() {
  if (!_impl) return closed_error();
  auto impl = _impl;
  return impl->client()->block_on<void>([impl]() { return impl->unsubscribe(); });
}

result<void> consumer::close() {
  if (!_impl) return success();
  auto impl = _impl;
  return impl->client()->block_on<void>([impl]() { return impl->close(); });
}

const std::string& consumer::topic() const { return _impl ? _impl->topic() : empty_string(); }
const std::string& consumer::subscription() const { return _impl ? _impl->subscription() : empty_string(); }
std::string consumer::consumer_name() const { return _impl ? _impl->consumer_name() : std::string(); }
bool consumer::is_active() const { return _impl && _impl->is_active(); }
bool consumer::is_connected() const { return _impl && _impl->is_connected(); }
bool consumer::has_reached_end_of_topic() const { return _impl && _impl->has_reached_end_of_topic(); }

}  // namespace magnetar
