#include "ledger/bookie_channel.h"

#include "base/assert.h"
#include "io/frame_reader.h"
#include "io/run_on.h"

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <spdlog/spdlog.h>

namespace magnetar::ledger::detail {

namespace bp = bookie_protocol;

namespace {

// How often calls past their timeout are looked for.
constexpr auto sweep_interval = std::chrono::milliseconds(200);

void append_frame(std::string& out, const bp::request& request) {
  const auto size = request.ByteSizeLong();
  request.SerializeToArray(io::append_frame_header(out, size), static_cast<int>(size));
}

// An add whose body comes separately: the request (its add's body empty), then a
// second `add` field holding only the body, which the bookie's parser merges into the
// first (protobuf merges repeated occurrences of an embedded message; the later body
// wins). The body is copied once, into the outbox; built into the request it was
// copied into the request, zero-filled and copied again into the frame, for each
// bookie of the ensemble (at 1 MiB entries, most of the owning broker's shard).
void append_add_frame(std::string& out, const bp::request& request, std::string_view body) {
  using coded = google::protobuf::io::CodedOutputStream;
  constexpr std::uint8_t add_tag = (10 << 3) | 2;  // request.add, length-delimited
  constexpr std::uint8_t body_tag = (4 << 3) | 2;  // add_request.body
  const std::string head = request.SerializeAsString();
  const auto body_size = static_cast<std::uint32_t>(body.size());
  const std::uint32_t inner = 1 + coded::VarintSize32(body_size) + body_size;
  const std::size_t total = head.size() + 1 + coded::VarintSize32(inner) + inner;
  std::uint8_t prefix[4 + 1 + 5 + 1 + 5];
  std::uint8_t* at = prefix;
  for (int shift = 24; shift >= 0; shift -= 8) *at++ = static_cast<std::uint8_t>(total >> shift);
  out.append(reinterpret_cast<const char*>(prefix), 4);
  out.append(head);
  at = prefix;
  *at++ = add_tag;
  at = coded::WriteVarint32ToArray(inner, at);
  *at++ = body_tag;
  at = coded::WriteVarint32ToArray(body_size, at);
  out.append(reinterpret_cast<const char*>(prefix), static_cast<std::size_t>(at - prefix));
  out.append(body);
}

}  // namespace

template <class Handler>
struct bookie_channel::handler_sink final : answer_sink {
  explicit handler_sink(Handler h) : handler(std::move(h)) {}
  // dispatch: inline when the channel runs on the caller's thread.
  void deliver(result<bp::response> answer) override {
    auto executor = asio::get_associated_executor(handler);
    asio::dispatch(executor, [h = std::move(handler), answer = std::move(answer)]() mutable { h(std::move(answer)); });
  }
  Handler handler;
};

struct bookie_channel::function_sink final : answer_sink {
  explicit function_sink(std::function<void(result<bp::response>)> f) : done(std::move(f)) {}
  void deliver(result<bp::response> answer) override { done(std::move(answer)); }
  std::function<void(result<bp::response>)> done;
};

bookie_channel::bookie_channel(asio::any_io_executor executor, io::shard* home, remote_bookie_options options)
    : _executor(std::move(executor)), _home(home), _options(std::move(options)), _socket(_executor) {}

awaitable<result<bp::response>> bookie_channel::call(bp::request request, std::optional<wire::shared_bytes> add_body) {
  // The initiation captures by reference only (see io/run_on.h on GCC 12): this
  // coroutine stays suspended, and `request` alive, until it has run.
  co_return co_await asio::async_initiate<decltype(asio::use_awaitable), void(result<bp::response>)>(
      [&](auto handler) {
        auto sink = std::make_unique<handler_sink<decltype(handler)>>(std::move(handler));
        if (_home != nullptr && _home->is_current()) {
          submit(std::move(sink), std::move(request), std::move(add_body));
          return;
        }
        asio::post(_executor, [self = shared_from_this(), sink = std::move(sink), request = std::move(request),
                               add_body = std::move(add_body)]() mutable {
          self->submit(std::move(sink), std::move(request), std::move(add_body));
        });
      },
      asio::use_awaitable);
}

void bookie_channel::call_here(bp::request request, std::optional<wire::shared_bytes> add_body,
                               std::function<void(result<bp::response>)> done) {
  MAGNETAR_ASSERT(_home != nullptr && _home->is_current(), "bookie {}: call_here off the channel's shard",
                  _options.address);
  submit(std::make_unique<function_sink>(std::move(done)), std::move(request), std::move(add_body));
}

void bookie_channel::submit(std::unique_ptr<answer_sink> sink, bp::request request,
                            std::optional<wire::shared_bytes> add_body) {
  const auto txn = _next_txn++;
  request.set_txn_id(txn);
  _in_flight.emplace(txn, pending{std::move(sink), std::chrono::steady_clock::now() + _options.timeout});
  if (add_body) {
    append_add_frame(_outbox, request, add_body->as_chars());
  } else {
    append_frame(_outbox, request);
  }
  if (!_sweeping) {
    _sweeping = true;
    io::spawn(_executor, [self = shared_from_this()]() { return self->sweep_loop(); });
  }
  if (_state == state::idle) {
    _state = state::connecting;
    io::spawn(_executor, [self = shared_from_this()]() { return self->connect_and_read(); });
  } else if (_state == state::open && !_writing) {
    _writing = true;
    io::spawn(_executor, [self = shared_from_this()]() { return self->write_loop(); });
  }
}

awaitable<void> bookie_channel::connect_and_read() {
  const auto generation = ++_generation;
  const auto colon = _options.address.rfind(':');
  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(_executor);
  auto endpoints =
      co_await resolver.async_resolve(_options.address.substr(0, colon), _options.address.substr(colon + 1),
                                      asio::redirect_error(asio::use_awaitable, ec));
  if (!ec) {
    asio::steady_timer limit(_executor, _options.connect_timeout);
    limit.async_wait([this](boost::system::error_code waited) {
      if (!waited && _state == state::connecting) _socket.close();
    });
    co_await asio::async_connect(_socket, endpoints, asio::redirect_error(asio::use_awaitable, ec));
    limit.cancel();
  }
  if (ec) {
    _state = state::idle;
    _socket = asio::ip::tcp::socket(_executor);
    _outbox.clear();
    fail_all(error(std::make_error_code(std::errc::host_unreachable),
                   fmt::format("bookie {}: connect: {}", _options.address, ec.message())));
    co_return;
  }
  _socket.set_option(asio::ip::tcp::no_delay(true), ec);
  if (_options.tls) {
    if (auto secured = co_await start_tls(); !secured) {
      _state = state::idle;
      _tls.reset();
      _outbox.clear();
      fail_all(secured.error());
      co_return;
    }
  }
  _state = state::open;
  if (!_outbox.empty() && !_writing) {
    _writing = true;
    io::spawn(_executor, [self = shared_from_this()]() { return self->write_loop(); });
  }
  // Answers are small but a range read's may be large: as large as a frame can be.
  io::frame_reader frames(std::size_t{1} << 30);
  const auto tls = _tls;  // this connection's, whatever a reconnect makes meanwhile
  for (;;) {
    result<std::string_view> frame = fail(std::make_error_code(std::errc::not_connected), "");
    if (tls) {
      frame = co_await frames.next(*tls);
    } else {
      frame = co_await frames.next(_socket);
    }
    if (!frame) break;
    bp::response response;
    if (!response.ParseFromArray(frame.value().data(), static_cast<int>(frame.value().size()))) break;
    if (response.txn_id() == 0) {
      spdlog::warn("bookie {} refused the connection: {}", _options.address, response.message());
      break;
    }
    const auto txn = response.txn_id();
    finish(txn, std::move(response));
  }
  if (generation != _generation || _state != state::open) co_return;  // closed already
  close();
}

awaitable<result<void>> bookie_channel::start_tls() {
  const auto failed = [&](std::string_view why) {
    return fail(std::make_error_code(std::errc::connection_refused),
                fmt::format("bookie {}: TLS: {}", _options.address, why));
  };
  if (!_tls_context) {
    auto made = tls::make_client_context(*_options.tls);
    if (!made) co_return failed(made.error().detail());
    _tls_context = std::move(made).value();
  }
  _tls = std::make_shared<tls::ssl::stream<asio::ip::tcp::socket>>(std::move(_socket), *_tls_context);
  _socket = asio::ip::tcp::socket(_executor);
  const auto host = _options.address.substr(0, _options.address.rfind(':'));
  if (auto prepared = tls::prepare_client(_tls->native_handle(), *_options.tls, host); !prepared) {
    co_return failed(prepared.error().detail());
  }
  const auto tls = _tls;
  asio::steady_timer limit(_executor, _options.connect_timeout);
  limit.async_wait([tls](boost::system::error_code waited) {
    boost::system::error_code ignored;
    if (!waited) tls->next_layer().close(ignored);  // a bookie that never answers the handshake
  });
  boost::system::error_code ec;
  co_await tls->async_handshake(tls::ssl::stream_base::client, asio::redirect_error(asio::use_awaitable, ec));
  limit.cancel();
  if (ec) co_return failed(fmt::format("handshake: {}", ec.message()));
  co_return success();
}

awaitable<void> bookie_channel::write_loop() {
  while (!_outbox.empty() && _state == state::open) {
    // A write that fails after its connection was replaced must not close the new one.
    const auto generation = _generation;
    std::string batch;
    batch.swap(_outbox);
    boost::system::error_code ec;
    if (const auto tls = _tls) {
      co_await asio::async_write(*tls, asio::buffer(batch), asio::redirect_error(asio::use_awaitable, ec));
    } else {
      co_await asio::async_write(_socket, asio::buffer(batch), asio::redirect_error(asio::use_awaitable, ec));
    }
    if (ec) {
      if (generation == _generation) close();
      break;
    }
  }
  _writing = false;
}

awaitable<void> bookie_channel::sweep_loop() {
  asio::steady_timer timer(_executor);
  while (!_in_flight.empty()) {
    timer.expires_after(sweep_interval);
    co_await timer.async_wait(asio::use_awaitable);
    const auto now = std::chrono::steady_clock::now();
    std::vector<std::uint64_t> late;
    for (const auto& [txn, p] : _in_flight) {
      if (p.deadline <= now) late.push_back(txn);
    }
    for (auto txn : late) {
      finish(txn, error(std::make_error_code(std::errc::timed_out),
                        fmt::format("bookie {}: no answer within {} ms", _options.address, _options.timeout.count())));
    }
  }
  _sweeping = false;
}

void bookie_channel::finish(std::uint64_t txn, result<bp::response> answer) {
  auto it = _in_flight.find(txn);
  if (it == _in_flight.end()) return;  // timed out already
  auto sink = std::move(it->second.sink);
  _in_flight.erase(it);
  sink->deliver(std::move(answer));
}

void bookie_channel::fail_all(const error& e) {
  auto failing = std::move(_in_flight);
  _in_flight.clear();
  for (auto& [txn, p] : failing) p.sink->deliver(fail(e));
}

void bookie_channel::close() {
  boost::system::error_code ignored;
  if (_tls) _tls->next_layer().close(ignored);
  _tls.reset();
  _socket.close(ignored);
  _socket = asio::ip::tcp::socket(_executor);
  _state = state::idle;
  _outbox.clear();
  // Their answers can't come on another connection.
  fail_all(error(std::make_error_code(std::errc::connection_reset),
                 fmt::format("bookie {}: connection lost", _options.address)));
}

}  // namespace magnetar::ledger::detail
