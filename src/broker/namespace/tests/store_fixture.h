// store_fixture: a started RocksDB metadata store in a fresh directory, and a shard to
// run coroutines on, for the namespace and admin tests (the real store: no mocks).
#pragma once

#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/rocksdb_store.h"

#include <gtest/gtest.h>

#include <memory>

namespace magnetar::broker::testing {

class store_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    store = std::make_unique<meta::rocksdb_store>(meta::rocksdb_store::options{.directory = dir / "meta"});
    auto started = io::block_on(shards[0], store->start());
    ASSERT_TRUE(started) << started.error();
  }
  void TearDown() override {
    if (store) io::block_on(shards[0], store->stop());
  }

  template <class T>
  T run(awaitable<T> work) {
    return io::block_on(shards[0], std::move(work));
  }

  io::temp_directory dir{"magnetar-admin-test"};
  io::running_shards shards{1};
  std::unique_ptr<meta::rocksdb_store> store;
};

}  // namespace magnetar::broker::testing
