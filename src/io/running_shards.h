// running_shards: a shard_set that runs for the lifetime of the object, for
// tests, benchmarks and tools that need shards without a service around them.
// Created and destroyed by one thread.
#pragma once

#include "io/block_on.h"
#include "io/shard.h"

namespace magnetar::io {

class running_shards {
 public:
  explicit running_shards(unsigned count) : _shards(count) { _shards.start(); }
  ~running_shards() { _shards.stop(); }
  running_shards(const running_shards&) = delete;
  running_shards& operator=(const running_shards&) = delete;

  shard& operator[](unsigned index) { return _shards[index]; }
  shard_set& set() { return _shards; }

  // Returns once every handler posted to the shard before this call has run.
  void drain(unsigned index) {
    block_on(_shards[index], []() -> awaitable<void> { co_return; }());
  }

 private:
  shard_set _shards;
};

}  // namespace magnetar::io
