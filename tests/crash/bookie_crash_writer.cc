// A bookie in a process of its own, for the crash test: appends entries to
// ledger 1 and prints "ack <entry>" for each acknowledged one, until killed;
// or checks what survived. Usage:
//   bookie_crash_writer write  <dir>   resume after the last stored entry
//   bookie_crash_writer verify <dir> <n>   entries 0..n must all be there, intact
#include "bookie/bookie.h"
#include "io/block_on.h"
#include "io/oneshot_signal.h"
#include "io/run_on.h"
#include "io/running_shards.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

using namespace magnetar;

namespace {

constexpr ledger_id ledger{1};

// Each payload names its entry and fills out with a pattern, so that a torn
// or misplaced entry cannot pass as the right one.
std::string payload_of(std::int64_t entry) {
  auto text = fmt::format("entry {} ", entry);
  text.resize(200 + static_cast<std::size_t>(entry % 300), static_cast<char>('a' + entry % 26));
  return text;
}

std::unique_ptr<bookie::bookie> open_bookie(const std::string& dir, io::running_shards& shards,
                                            io::blocking_pool& pool) {
  bookie::bookie_options options;
  options.journal_directories = {dir + "/journal"};
  options.ledger_directory = dir + "/ledgers";
  options.checkpoint_interval = std::chrono::milliseconds(200);
  auto b = bookie::bookie::open(options, shards.set(), pool, base::system_clock());
  if (!b) {
    fmt::print(stderr, "open: {}\n", b.error());
    std::exit(2);
  }
  return std::move(b).value();
}

int write(const std::string& dir) {
  io::running_shards shards(2);
  io::blocking_pool pool(2);
  auto b = open_bookie(dir, shards, pool);
  b->start();
  // Resume after the last entry any earlier run stored.
  std::int64_t next = 0;
  while (io::block_on(shards[0], b->read_entry(ledger, entry_id(next)))) ++next;
  fmt::print("resume {}\n", next);
  std::fflush(stdout);
  io::block_on(shards[0], [&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    // Keep many adds in flight, as a broker does; acks print in entry order.
    std::int64_t acked = next;
    std::set<std::int64_t> done;
    std::shared_ptr<io::oneshot_signal> room;  // set while the window is full
    for (std::int64_t e = next;; ++e) {
      while (e - acked >= 64) {
        room = std::make_shared<io::oneshot_signal>(executor);
        auto waiting = room;
        co_await waiting->wait();
      }
      io::spawn(executor, [&, e]() -> awaitable<void> {
        const auto text = payload_of(e);
        auto added = co_await b->add_entry(ledger, entry_id(e), entry_id(e - 1),
                                           wire::shared_bytes::copy_of(std::as_bytes(std::span(text))));
        if (!added) {
          fmt::print(stderr, "add {}: {}\n", e, added.error());
          std::exit(3);
        }
        done.insert(e);
        while (done.count(acked)) {
          fmt::print("ack {}\n", acked);
          done.erase(acked++);
        }
        std::fflush(stdout);
        if (room) std::exchange(room, nullptr)->fire();
      });
    }
  }());
  return 0;
}

int verify(const std::string& dir, std::int64_t last) {
  io::running_shards shards(2);
  io::blocking_pool pool(2);
  auto b = open_bookie(dir, shards, pool);
  for (std::int64_t e = 0; e <= last; ++e) {
    auto entry = io::block_on(shards[0], b->read_entry(ledger, entry_id(e)));
    if (!entry) {
      fmt::print("MISSING {}: {}\n", e, entry.error());
      return 1;
    }
    if (entry.value().as_chars() != payload_of(e)) {
      fmt::print("CORRUPT {}\n", e);
      return 1;
    }
  }
  fmt::print("verified 0..{}\n", last);
  io::block_on(shards[1], b->stop());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 3) return write(argv[2]);
  if (mode == "verify" && argc == 4) return verify(argv[2], std::stoll(argv[3]));
  fmt::print(stderr, "usage: {} write <dir> | verify <dir> <last entry>\n", argv[0]);
  return 2;
}
