#include "magnetar/reader.h"

#include "client/client_impl.h"
#include "client/consumer_base.h"
#include "magnetar/errc.h"

namespace magnetar {

reader::reader() = default;

result<message> reader::read_next() { return _consumer.receive(); }
result<message> reader::read_next(std::chrono::milliseconds timeout) { return _consumer.receive(timeout); }

result<bool> reader::has_message_available() {
  auto impl = _consumer._impl;
  if (!impl) return fail(client_errc::already_closed, "not a reader");
  return impl->client()->block_on<bool>([impl]() { return impl->has_message_available(); });
}

result<void> reader::seek(const message_id& id) { return _consumer.seek(id); }
result<void> reader::seek(std::uint64_t publish_time_ms) { return _consumer.seek(publish_time_ms); }
result<void> reader::close() { return _consumer.close(); }
const std::string& reader::topic() const { return _consumer.topic(); }
bool reader::is_connected() const { return _consumer.is_connected(); }

}  // namespace magnetar
