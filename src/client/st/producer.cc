#include "magnetar/st/producer.h"

#include "client/st/st_producer.h"
#include "magnetar/errc.h"

namespace magnetar::st {

namespace {
const std::string& no_name() {
  static const std::string empty;
  return empty;
}
error closed_error() { return error(client_errc::already_closed, "not a producer"); }
}  // namespace

producer::producer() = default;
producer::~producer() = default;
producer::producer(const producer&) = default;
producer& producer::operator=(const producer&) = default;
producer::producer(producer&&) noexcept = default;
producer& producer::operator=(producer&&) noexcept = default;
producer::producer(std::shared_ptr<detail::st_producer> impl) : _impl(std::move(impl)) {}

void producer::send_async(magnetar::message m, send_callback done) {
  if (!_impl) {
    if (done) done(closed_error());
    return;
  }
  _impl->send_async(std::move(m), std::move(done));
}

std::future<result<message_id>> producer::send_future(magnetar::message m) {
  auto promise = std::make_shared<std::promise<result<message_id>>>();
  auto future = promise->get_future();
  send_async(std::move(m), [promise](result<message_id> r) { promise->set_value(std::move(r)); });
  return future;
}

result<message_id> producer::send(magnetar::message m) {
  if (_impl && _impl->client()->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking send on a client io thread would deadlock");
  }
  return send_future(std::move(m)).get();
}

void producer::flush_async(std::function<void(result<void>)> done) {
  if (!_impl) {
    done(closed_error());
    return;
  }
  _impl->flush_async(std::move(done));
}

result<void> producer::flush() {
  if (!_impl) return closed_error();
  if (_impl->client()->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking flush on a client io thread would deadlock");
  }
  auto promise = std::make_shared<std::promise<result<void>>>();
  auto future = promise->get_future();
  _impl->flush_async([promise](result<void> r) { promise->set_value(std::move(r)); });
  return future.get();
}

result<void> producer::close() {
  if (!_impl) return success();
  auto impl = _impl;
  return impl->client()->block_on<void>([impl]() { return impl->close(); });
}

const std::string& producer::topic() const { return _impl ? _impl->topic() : no_name(); }
const std::string& producer::producer_name() const { return _impl ? _impl->producer_name() : no_name(); }
std::int64_t producer::last_sequence_id() const { return _impl ? _impl->last_sequence_id() : -1; }

}  // namespace magnetar::st
