#include "ledger/bookie_channel.h"

#include "io/frame_reader.h"
#include "io/run_on.h"

#include <fmt/format.h>
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

}  // namespace

bookie_channel::bookie_channel(asio::any_io_executor executor, remote_bookie_options options)
    : _executor(std::move(executor)), _options(std::move(options)), _socket(_executor) {}

awaitable<result<bp::response>> bookie_channel::call(bp::request request) {
  auto p = std::make_shared<pending>(co_await asio::this_coro::executor);
  asio::post(_executor, [self = shared_from_this(), p, request = std::move(request)]() mutable {
    self->submit(std::move(p), std::move(request));
  });
  co_await p->done.wait();
  co_return std::move(*p->answer);
}

void bookie_channel::submit(std::shared_ptr<pending> p, bp::request request) {
  const auto txn = _next_txn++;
  request.set_txn_id(txn);
  p->deadline = std::chrono::steady_clock::now() + _options.timeout;
  _in_flight.emplace(txn, std::move(p));
  append_frame(_outbox, request);
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
  _state = state::open;
  if (!_outbox.empty() && !_writing) {
    _writing = true;
    io::spawn(_executor, [self = shared_from_this()]() { return self->write_loop(); });
  }
  // Answers are small but a range read's may be large: as large as a frame can be.
  io::frame_reader frames(std::size_t{1} << 30);
  for (;;) {
    auto frame = co_await frames.next(_socket);
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

awaitable<void> bookie_channel::write_loop() {
  while (!_outbox.empty() && _state == state::open) {
    std::string batch;
    batch.swap(_outbox);
    boost::system::error_code ec;
    co_await asio::async_write(_socket, asio::buffer(batch), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      close();
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
      if (p->deadline <= now) late.push_back(txn);
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
  auto p = std::move(it->second);
  _in_flight.erase(it);
  p->answer = std::move(answer);
  p->done.fire();
}

void bookie_channel::fail_all(const error& e) {
  auto failing = std::move(_in_flight);
  _in_flight.clear();
  for (auto& [txn, p] : failing) {
    p->answer = fail(e);
    p->done.fire();
  }
}

void bookie_channel::close() {
  boost::system::error_code ignored;
  _socket.close(ignored);
  _socket = asio::ip::tcp::socket(_executor);
  _state = state::idle;
  _outbox.clear();
  // Their answers can't come on another connection.
  fail_all(error(std::make_error_code(std::errc::connection_reset),
                 fmt::format("bookie {}: connection lost", _options.address)));
}

}  // namespace magnetar::ledger::detail
