// raw_client: a test's plain TCP connection to a broker, speaking frames by hand.
//
// send() writes one command frame; expect() reads frames until one of the wanted type
// arrives (skipping none: a frame of another type fails the test), with a deadline so
// a broker that never answers fails the test instead of hanging it. Blocking; one
// thread at a time.
#pragma once

#include "io/net.h"
#include "proto/pulsar_api.pb.h"
#include "wire/frame.h"
#include "wire/frame_decoder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace magnetar::broker::testing {

class raw_client {
 public:
  explicit raw_client(std::uint16_t port) : _socket(_io) {
    boost::system::error_code ec;
    _socket.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    EXPECT_FALSE(ec) << ec.message();
  }

  void send(const proto::BaseCommand& command) { write(wire::encode_command(command)); }
  void send_payload(const proto::BaseCommand& command, const proto::MessageMetadata& metadata,
                    const std::string& payload) {
    write(wire::encode_payload_command(command, metadata, std::as_bytes(std::span(payload))));
  }
  void write(const std::vector<std::byte>& bytes) {
    boost::system::error_code ec;
    asio::write(_socket, asio::buffer(bytes.data(), bytes.size()), ec);
    EXPECT_FALSE(ec) << ec.message();
  }

  // The next frame, or nullopt when the connection closed or the deadline passed.
  std::optional<wire::frame> next(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto frame = _decoder.next();
      if (!frame) {
        ADD_FAILURE() << "bad frame from the broker: " << frame.error().message();
        return std::nullopt;
      }
      if (frame.value()) return std::move(*frame.value());
      if (!read_some(deadline)) return std::nullopt;
    }
  }

  // The next frame, which must be of `type`.
  wire::frame expect(proto::BaseCommand::Type type, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    auto frame = next(timeout);
    if (!frame) {
      ADD_FAILURE() << "expected " << proto::BaseCommand::Type_Name(type) << ", got nothing";
      return {};
    }
    EXPECT_EQ(frame->command.type(), type) << frame->command.DebugString();
    return std::move(*frame);
  }

  // True once the broker closed the connection (reads end), within the timeout.
  bool closed_by_peer(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!read_some(deadline)) return _eof;
      while (true) {
        auto frame = _decoder.next();
        if (!frame || !frame.value()) break;
      }
    }
    return false;
  }

  // CONNECT, answered CONNECTED; `client_version` as the client names itself.
  void connect(const std::string& client_version = "raw-test") {
    proto::BaseCommand command;
    command.set_type(proto::BaseCommand::CONNECT);
    command.mutable_connect()->set_client_version(client_version);
    command.mutable_connect()->set_protocol_version(21);
    send(command);
    expect(proto::BaseCommand::CONNECTED);
  }

 private:
  bool read_some(std::chrono::steady_clock::time_point deadline) {
    auto room = _decoder.prepare();
    std::size_t got = 0;
    boost::system::error_code result = asio::error::timed_out;
    _socket.async_read_some(asio::buffer(room.data(), room.size()), [&](boost::system::error_code ec, std::size_t n) {
      result = ec;
      got = n;
    });
    _io.restart();
    _io.run_until(deadline);
    if (!_io.stopped()) {
      _socket.cancel();
      _io.restart();
      _io.run();
      return false;
    }
    if (result) {
      _eof = result == asio::error::eof || result == asio::error::connection_reset;
      return false;
    }
    _decoder.commit(got);
    return true;
  }

  asio::io_context _io;
  asio::ip::tcp::socket _socket;
  wire::frame_decoder _decoder{64 << 20};
  bool _eof = false;
};

}  // namespace magnetar::broker::testing
