#include "client/st/tests/fake_st_broker.h"

#include "wire/frame.h"
#include "wire/frame_decoder.h"

#include <fmt/format.h>
#include <boost/asio/write.hpp>

#include <condition_variable>
#include <future>

namespace magnetar::st::testing {

struct fake_st_broker::connection {
  explicit connection(asio::ip::tcp::socket s) : socket(std::move(s)) {}
  asio::ip::tcp::socket socket;
  std::map<std::uint64_t, std::string> producers;     // id -> topic
  std::map<std::uint64_t, consumer_state> consumers;  // id -> state
  std::map<std::uint64_t, std::string> sessions;      // session id -> topic
  std::set<std::uint64_t> registered;                 // stream consumer ids

  void send(const proto::BaseCommand& c) {
    auto bytes = wire::encode_command(c);
    boost::system::error_code ec;
    asio::write(socket, asio::buffer(bytes.data(), bytes.size()), ec);
  }
  void send(const std::vector<std::byte>& bytes) {
    boost::system::error_code ec;
    asio::write(socket, asio::buffer(bytes.data(), bytes.size()), ec);
  }
};

fake_st_broker::fake_st_broker() : _acceptor(_io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
  asio::co_spawn(_io, accept(), asio::detached);
  _thread = std::thread([this] { _io.run(); });
}

fake_st_broker::~fake_st_broker() {
  std::promise<void> closed;
  asio::post(_io, [this, &closed] {
    boost::system::error_code ec;
    _acceptor.close(ec);
    for (auto& c : _connections) c->socket.close(ec);
    closed.set_value();
  });
  closed.get_future().wait();
  _io.stop();
  _thread.join();
}

std::string fake_st_broker::url() const {
  return fmt::format("pulsar://127.0.0.1:{}", _acceptor.local_endpoint().port());
}

void fake_st_broker::changed() { _changed.notify_all(); }

bool fake_st_broker::wait_until(const std::function<bool()>& ready, std::chrono::milliseconds timeout) {
  std::unique_lock lock(_mutex);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    lock.unlock();
    if (ready()) return true;
    lock.lock();
    if (_changed.wait_until(lock, deadline) == std::cv_status::timeout) {
      lock.unlock();
      return ready();
    }
  }
}

awaitable<void> fake_st_broker::accept() {
  while (true) {
    boost::system::error_code ec;
    auto socket = co_await _acceptor.async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    socket.set_option(asio::ip::tcp::no_delay(true), ec);
    auto c = std::make_shared<connection>(std::move(socket));
    _connections.push_back(c);
    asio::co_spawn(_io, serve(c), asio::detached);
  }
}

awaitable<void> fake_st_broker::serve(std::shared_ptr<connection> c) {
  wire::frame_decoder decoder;
  while (true) {
    auto buffer = decoder.prepare(4096);
    boost::system::error_code ec;
    const std::size_t n = co_await c->socket.async_read_some(asio::buffer(buffer.data(), buffer.size()),
                                                             asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    decoder.commit(n);
    while (true) {
      auto next = decoder.next();
      if (!next || !next.value()) break;
      auto& f = *next.value();
      std::string payload(reinterpret_cast<const char*>(f.payload.data()), f.payload.size());
      handle(c, f.command, f.metadata.partition_key(), payload);
    }
  }
}

std::uint64_t fake_st_broker::ledger_of(const std::string& topic) {
  auto it = _ledgers.find(topic);
  if (it != _ledgers.end()) return it->second;
  const std::uint64_t id = _ledgers.size() + 10;
  _ledgers[topic] = id;
  return id;
}

void fake_st_broker::handle(const std::shared_ptr<connection>& c, const proto::BaseCommand& cmd, const std::string& key,
                            const std::string& payload) {
  proto::BaseCommand out;
  auto success = [&](std::uint64_t request_id) {
    out.set_type(proto::BaseCommand::SUCCESS);
    out.mutable_success()->set_request_id(request_id);
    c->send(out);
  };
  auto refuse = [&](std::uint64_t request_id, proto::ServerError e, const std::string& message) {
    out.set_type(proto::BaseCommand::ERROR);
    out.mutable_error()->set_request_id(request_id);
    out.mutable_error()->set_error(e);
    out.mutable_error()->set_message(message);
    c->send(out);
  };
  switch (cmd.type()) {
    case proto::BaseCommand::CONNECT:
      out.set_type(proto::BaseCommand::CONNECTED);
      out.mutable_connected()->set_server_version("fake");
      out.mutable_connected()->set_protocol_version(21);
      out.mutable_connected()->mutable_feature_flags()->set_supports_scalable_topics(_supports_scalable);
      c->send(out);
      return;
    case proto::BaseCommand::PING:
      out.set_type(proto::BaseCommand::PONG);
      out.mutable_pong();
      c->send(out);
      return;
    case proto::BaseCommand::PARTITIONED_METADATA:
      out.set_type(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE);
      out.mutable_partitionmetadataresponse()->set_request_id(cmd.partitionmetadata().request_id());
      out.mutable_partitionmetadataresponse()->set_partitions(0);
      c->send(out);
      return;
    case proto::BaseCommand::LOOKUP:
      out.set_type(proto::BaseCommand::LOOKUP_RESPONSE);
      out.mutable_lookuptopicresponse()->set_request_id(cmd.lookuptopic().request_id());
      out.mutable_lookuptopicresponse()->set_response(proto::CommandLookupTopicResponse::Connect);
      out.mutable_lookuptopicresponse()->set_brokerserviceurl(url());
      out.mutable_lookuptopicresponse()->set_authoritative(true);
      c->send(out);
      return;
    case proto::BaseCommand::PRODUCER: {
      const auto& p = cmd.producer();
      bool sealed;
      {
        std::lock_guard lock(_mutex);
        sealed = _sealed.contains(p.topic());
      }
      if (sealed) return refuse(p.request_id(), proto::TopicTerminatedError, "topic is terminated");
      c->producers[p.producer_id()] = p.topic();
      out.set_type(proto::BaseCommand::PRODUCER_SUCCESS);
      out.mutable_producer_success()->set_request_id(p.request_id());
      out.mutable_producer_success()->set_producer_name(
          p.has_producer_name() ? p.producer_name() : fmt::format("fake-{}", p.producer_id()));
      c->send(out);
      return;
    }
    case proto::BaseCommand::SEND: {
      const auto& s = cmd.send();
      const auto topic = c->producers[s.producer_id()];
      bool sealed;
      stored m;
      {
        std::lock_guard lock(_mutex);
        sealed = _sealed.contains(topic);
        if (!sealed) {
          m = stored{topic, key, payload, ledger_of(topic), _messages[topic].size()};
          _messages[topic].push_back(m);
          _all.push_back(m);
        }
      }
      if (sealed) {
        {
          std::lock_guard lock(_mutex);
          ++_refused;
        }
        changed();
        out.set_type(proto::BaseCommand::SEND_ERROR);
        out.mutable_send_error()->set_producer_id(s.producer_id());
        out.mutable_send_error()->set_sequence_id(s.sequence_id());
        out.mutable_send_error()->set_error(proto::TopicTerminatedError);
        out.mutable_send_error()->set_message("topic is terminated");
        c->send(out);
        return;
      }
      out.set_type(proto::BaseCommand::SEND_RECEIPT);
      out.mutable_send_receipt()->set_producer_id(s.producer_id());
      out.mutable_send_receipt()->set_sequence_id(s.sequence_id());
      out.mutable_send_receipt()->mutable_message_id()->set_ledgerid(m.ledger);
      out.mutable_send_receipt()->mutable_message_id()->set_entryid(m.entry);
      c->send(out);
      changed();
      deliver_all(topic);
      return;
    }
    case proto::BaseCommand::CLOSE_PRODUCER:
      c->producers.erase(cmd.close_producer().producer_id());
      return success(cmd.close_producer().request_id());
    case proto::BaseCommand::SUBSCRIBE: {
      const auto& s = cmd.subscribe();
      {
        std::lock_guard lock(_mutex);
        _subscriptions.push_back(s.topic());
        const auto key = std::make_pair(s.topic(), s.subscription());
        c->consumers[s.consumer_id()] = consumer_state{s.topic(), s.subscription(), 0, _cursors[key]};
      }
      changed();
      return success(s.request_id());
    }
    case proto::BaseCommand::FLOW:
      if (auto it = c->consumers.find(cmd.flow().consumer_id()); it != c->consumers.end()) {
        it->second.permits += cmd.flow().messagepermits();
        deliver(c, cmd.flow().consumer_id());
      }
      return;
    case proto::BaseCommand::ACK: {
      const auto& a = cmd.ack();
      auto it = c->consumers.find(a.consumer_id());
      if (it == c->consumers.end()) return;
      {
        std::lock_guard lock(_mutex);
        for (const auto& id : a.message_id()) {
          _acks.push_back(ack{it->second.topic, it->second.subscription, a.ack_type() == proto::CommandAck::Cumulative,
                              id.ledgerid(), id.entryid()});
          if (a.ack_type() == proto::CommandAck::Cumulative) {
            auto& cursor = _cursors[{it->second.topic, it->second.subscription}];
            cursor = std::max<std::size_t>(cursor, id.entryid() + 1);
          }
        }
      }
      changed();
      return;
    }
    case proto::BaseCommand::CLOSE_CONSUMER:
      c->consumers.erase(cmd.close_consumer().consumer_id());
      return success(cmd.close_consumer().request_id());
    case proto::BaseCommand::SCALABLE_TOPIC_LOOKUP: {
      const auto& l = cmd.scalabletopiclookup();
      c->sessions[l.session_id()] = l.topic();
      {
        std::lock_guard lock(_mutex);
        ++_layout_lookups;
      }
      changed();
      push_layout(c, l.session_id(), l.topic());
      return;
    }
    case proto::BaseCommand::SCALABLE_TOPIC_CLOSE:
      c->sessions.erase(cmd.scalabletopicclose().session_id());
      {
        std::lock_guard lock(_mutex);
        _closed_sessions.insert(cmd.scalabletopicclose().session_id());
      }
      changed();
      return;
    case proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE: {
      const auto& s = cmd.scalabletopicsubscribe();
      out.set_type(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE);
      auto& r = *out.mutable_scalabletopicsubscriberesponse();
      r.set_request_id(s.request_id());
      std::lock_guard lock(_mutex);
      ++_scalable_subscribes;
      if (!_assignment) {
        r.set_error(proto::TopicNotFound);
        r.set_message("no such scalable topic");
      } else {
        *r.mutable_assignment() = *_assignment;
        c->registered.insert(s.consumer_id());
      }
      c->send(out);
      changed();
      return;
    }
    default: return;
  }
}

void fake_st_broker::push_layout(const std::shared_ptr<connection>& c, std::uint64_t session,
                                 const std::string& topic) {
  proto::BaseCommand out;
  out.set_type(proto::BaseCommand::SCALABLE_TOPIC_UPDATE);
  auto& u = *out.mutable_scalabletopicupdate();
  u.set_session_id(session);
  std::string canonical = topic.starts_with("topic://") ? topic : "topic://public/default/" + topic;
  {
    std::lock_guard lock(_mutex);
    auto it = _layouts.find(canonical);
    if (it == _layouts.end()) {
      u.set_error(proto::TopicNotFound);
      u.set_message("no such scalable topic");
    } else {
      *u.mutable_dag() = it->second;
      u.set_resolved_topic_name(canonical);
    }
  }
  c->send(out);
}

void fake_st_broker::deliver(const std::shared_ptr<connection>& c, std::uint64_t consumer_id) {
  auto& st = c->consumers[consumer_id];
  std::vector<stored> todo;
  {
    std::lock_guard lock(_mutex);
    const auto& all = _messages[st.topic];
    while (st.permits > 0 && st.next < all.size()) {
      todo.push_back(all[st.next]);
      ++st.next;
      --st.permits;
    }
  }
  for (const auto& m : todo) {
    proto::BaseCommand cmd;
    cmd.set_type(proto::BaseCommand::MESSAGE);
    cmd.mutable_message()->set_consumer_id(consumer_id);
    cmd.mutable_message()->mutable_message_id()->set_ledgerid(m.ledger);
    cmd.mutable_message()->mutable_message_id()->set_entryid(m.entry);
    proto::MessageMetadata md;
    md.set_producer_name("fake");
    md.set_sequence_id(m.entry);
    md.set_publish_time(1);
    if (!m.key.empty()) md.set_partition_key(m.key);
    c->send(wire::encode_payload_command(
        cmd, md, std::span<const std::byte>(reinterpret_cast<const std::byte*>(m.payload.data()), m.payload.size())));
  }
}

void fake_st_broker::deliver_all(const std::string& topic) {
  for (auto& c : _connections) {
    for (auto& [id, st] : c->consumers) {
      if (st.topic == topic) deliver(c, id);
    }
  }
}

void fake_st_broker::set_layout(const std::string& topic, proto::ScalableTopicDAG dag) {
  {
    std::lock_guard lock(_mutex);
    _layouts[topic] = std::move(dag);
  }
  asio::post(_io, [this, topic] {
    for (auto& c : _connections) {
      for (const auto& [session, watched] : c->sessions) {
        const std::string canonical = watched.starts_with("topic://") ? watched : "topic://public/default/" + watched;
        if (canonical == topic) push_layout(c, session, watched);
      }
    }
  });
}

void fake_st_broker::seal(const std::string& segment_topic) {
  std::lock_guard lock(_mutex);
  _sealed.insert(segment_topic);
}

void fake_st_broker::set_assignment(proto::ScalableConsumerAssignment a) {
  {
    std::lock_guard lock(_mutex);
    _assignment = a;
  }
  asio::post(_io, [this, a] {
    for (auto& c : _connections) {
      for (auto id : c->registered) {
        proto::BaseCommand out;
        out.set_type(proto::BaseCommand::SCALABLE_TOPIC_ASSIGNMENT_UPDATE);
        out.mutable_scalabletopicassignmentupdate()->set_consumer_id(id);
        *out.mutable_scalabletopicassignmentupdate()->mutable_assignment() = a;
        c->send(out);
      }
    }
  });
}

void fake_st_broker::publish(const std::string& topic, const std::string& key, const std::string& payload) {
  asio::post(_io, [this, topic, key, payload] {
    {
      std::lock_guard lock(_mutex);
      stored m{topic, key, payload, ledger_of(topic), _messages[topic].size()};
      _messages[topic].push_back(m);
      _all.push_back(m);
    }
    changed();
    deliver_all(topic);
  });
}

std::vector<fake_st_broker::stored> fake_st_broker::stored_messages() const {
  std::lock_guard lock(_mutex);
  return _all;
}

std::vector<fake_st_broker::ack> fake_st_broker::acks() const {
  std::lock_guard lock(_mutex);
  return _acks;
}

std::set<std::uint64_t> fake_st_broker::closed_sessions() const {
  std::lock_guard lock(_mutex);
  return _closed_sessions;
}

void fake_st_broker::drop_connections() {
  std::promise<void> done;
  asio::post(_io, [this, &done] {
    boost::system::error_code ec;
    for (auto& c : _connections) c->socket.close(ec);
    _connections.clear();
    done.set_value();
  });
  done.get_future().wait();
}

std::size_t fake_st_broker::layout_lookups() const {
  std::lock_guard lock(_mutex);
  return _layout_lookups;
}

std::size_t fake_st_broker::scalable_subscribes() const {
  std::lock_guard lock(_mutex);
  return _scalable_subscribes;
}

std::size_t fake_st_broker::refused_sends() const {
  std::lock_guard lock(_mutex);
  return _refused;
}

std::vector<std::string> fake_st_broker::subscriptions() const {
  std::lock_guard lock(_mutex);
  return _subscriptions;
}

}  // namespace magnetar::st::testing
