// The public st::queue_consumer and st::stream_consumer handles.
#include "client/st/st_queue_consumer.h"
#include "client/st/st_stream_consumer.h"
#include "magnetar/errc.h"
#include "magnetar/st/queue_consumer.h"
#include "magnetar/st/stream_consumer.h"

namespace magnetar::st {

namespace {
const std::string& no_name() {
  static const std::string empty;
  return empty;
}
error closed_error() { return error(client_errc::already_closed, "not a consumer"); }
}  // namespace

queue_consumer::queue_consumer() = default;
queue_consumer::~queue_consumer() = default;
queue_consumer::queue_consumer(const queue_consumer&) = default;
queue_consumer& queue_consumer::operator=(const queue_consumer&) = default;
queue_consumer::queue_consumer(queue_consumer&&) noexcept = default;
queue_consumer& queue_consumer::operator=(queue_consumer&&) noexcept = default;
queue_consumer::queue_consumer(std::shared_ptr<detail::st_queue_consumer> impl) : _impl(std::move(impl)) {}

result<message> queue_consumer::receive() {
  if (!_impl) return closed_error();
  return _impl->receive(std::nullopt);
}
result<message> queue_consumer::receive(std::chrono::milliseconds timeout) {
  if (!_impl) return closed_error();
  return _impl->receive(timeout);
}
void queue_consumer::receive_async(std::function<void(result<message>)> done) {
  if (!_impl) return done(closed_error());
  _impl->receive_async(std::move(done));
}
result<std::vector<message>> queue_consumer::receive_multi(std::size_t max, std::chrono::milliseconds timeout) {
  if (!_impl) return closed_error();
  return _impl->receive_multi(max, timeout);
}
result<void> queue_consumer::acknowledge(const message_id& id) {
  if (!_impl) return closed_error();
  return _impl->acknowledge(id);
}
result<void> queue_consumer::negative_acknowledge(const message_id& id) {
  if (!_impl) return closed_error();
  return _impl->negative_acknowledge(id);
}
result<void> queue_consumer::close() {
  if (!_impl) return success();
  auto impl = _impl;
  return impl->client()->block_on<void>([impl]() { return impl->close(); });
}
const std::string& queue_consumer::topic() const { return _impl ? _impl->topic() : no_name(); }
const std::string& queue_consumer::subscription() const { return _impl ? _impl->subscription() : no_name(); }

stream_consumer::stream_consumer() = default;
stream_consumer::~stream_consumer() = default;
stream_consumer::stream_consumer(const stream_consumer&) = default;
stream_consumer& stream_consumer::operator=(const stream_consumer&) = default;
stream_consumer::stream_consumer(stream_consumer&&) noexcept = default;
stream_consumer& stream_consumer::operator=(stream_consumer&&) noexcept = default;
stream_consumer::stream_consumer(std::shared_ptr<detail::st_stream_consumer> impl) : _impl(std::move(impl)) {}

result<message> stream_consumer::receive() {
  if (!_impl) return closed_error();
  return _impl->receive(std::nullopt);
}
result<message> stream_consumer::receive(std::chrono::milliseconds timeout) {
  if (!_impl) return closed_error();
  return _impl->receive(timeout);
}
void stream_consumer::receive_async(std::function<void(result<message>)> done) {
  if (!_impl) return done(closed_error());
  _impl->receive_async(std::move(done));
}
result<std::vector<message>> stream_consumer::receive_multi(std::size_t max, std::chrono::milliseconds timeout) {
  if (!_impl) return closed_error();
  return _impl->receive_multi(max, timeout);
}
result<void> stream_consumer::acknowledge_cumulative(const message_id& id) {
  if (!_impl) return closed_error();
  return _impl->acknowledge_cumulative(id);
}
result<void> stream_consumer::close() {
  if (!_impl) return success();
  auto impl = _impl;
  return impl->client()->block_on<void>([impl]() { return impl->close(); });
}
const std::string& stream_consumer::topic() const { return _impl ? _impl->topic() : no_name(); }
const std::string& stream_consumer::subscription() const { return _impl ? _impl->subscription() : no_name(); }
const std::string& stream_consumer::consumer_name() const { return _impl ? _impl->consumer_name() : no_name(); }

}  // namespace magnetar::st
