#include "io/shard.h"

#include "base/assert.h"

#include <spdlog/spdlog.h>

#include <pthread.h>

#include <string>

namespace magnetar::io {
namespace {
thread_local shard* current_shard = nullptr;
}  // namespace

shard::shard(unsigned id) : _id(id) {}

bool shard::is_current() const { return current_shard == this; }

shard* shard::current() { return current_shard; }

void shard::start() {
  MAGNETAR_ASSERT(!_thread.joinable(), "shard {} started twice", _id);
  _context.restart();
  _keep_running.emplace(_context.get_executor());
  _thread = std::thread([this] {
    const auto name = "shard-" + std::to_string(_id);
    pthread_setname_np(pthread_self(), name.c_str());
    current_shard = this;
    _context.run();
    current_shard = nullptr;
  });
}

void shard::stop() {
  if (!_thread.joinable()) return;
  _keep_running.reset();
  _context.stop();
  _thread.join();
}

shard_set::shard_set(unsigned count) {
  MAGNETAR_ASSERT(count > 0, "a shard set needs at least one shard");
  _shards.reserve(count);
  for (unsigned i = 0; i < count; ++i) _shards.push_back(std::make_unique<shard>(i));
}

shard_set::~shard_set() { stop(); }

unsigned shard_set::default_count() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : cores;
}

void shard_set::start() {
  MAGNETAR_ASSERT(!_started, "shard set started twice");
  _started = true;
  for (auto& s : _shards) s->start();
  spdlog::debug("started {} shards", _shards.size());
}

void shard_set::stop() {
  if (!_started) return;
  for (auto& s : _shards) s->stop();
  _started = false;
}

}  // namespace magnetar::io
