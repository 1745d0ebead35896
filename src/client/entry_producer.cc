#include "client/entry_producer.h"

#include "client/client_impl.h"
#include "client/producer_impl.h"

namespace magnetar::client_detail {

struct client_access {
  static std::shared_ptr<client_impl> impl(const client& c) { return c._impl; }
};

void entry_producer::start_async(const client& c, std::string topic, producer_config config,
                                 std::function<void(result<std::shared_ptr<entry_producer>>)> done) {
  auto impl = client_access::impl(c);
  if (!impl || impl->is_closed()) {
    done(fail(client_errc::already_closed, "the client is closed"));
    return;
  }
  asio::co_spawn(
      impl->next_shard().executor(),
      [impl, topic = std::move(topic), config = std::move(config), done = std::move(done)]() -> awaitable<void> {
        auto p = std::make_shared<producer_impl>(impl, topic, config);
        auto started = co_await p->start();
        if (!started) {
          done(started.error());
          co_return;
        }
        impl->add(std::weak_ptr<producer_base>(p));
        done(std::make_shared<entry_producer>(std::move(p)));
      },
      asio::detached);
}

entry_producer::entry_producer(std::shared_ptr<producer_impl> impl) : _impl(std::move(impl)) {}

entry_producer::~entry_producer() { close(); }

void entry_producer::send_async(proto::MessageMetadata metadata, std::vector<std::byte> payload,
                                std::uint64_t sequence_id, send_callback done) {
  _impl->send_entry_async(std::move(metadata), std::move(payload), sequence_id, std::move(done));
}

bool entry_producer::is_connected() const { return _impl->is_connected(); }

void entry_producer::close() {
  if (_impl) _impl->shutdown();
}

}  // namespace magnetar::client_detail
