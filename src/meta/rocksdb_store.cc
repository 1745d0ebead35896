#include "meta/rocksdb_store.h"

#include "base/assert.h"
#include "meta/errc.h"
#include "meta/rocksdb_tree.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::meta {

namespace {

// Metadata writes are serialised by the tree's mutex, so more threads would
// only help concurrent reads.
constexpr unsigned own_pool_threads = 2;

}  // namespace

rocksdb_store::rocksdb_store(options opts)
    : _options(std::move(opts)),
      _own_pool(_options.pool ? nullptr : std::make_unique<io::blocking_pool>(own_pool_threads)),
      _pool(_options.pool ? *_options.pool : *_own_pool) {}

rocksdb_store::~rocksdb_store() {
  if (_tree) {
    // stop() wasn't awaited: close here rather than leave the WAL unflushed.
    if (auto closed = _tree->close(); !closed) spdlog::warn("metadata store: {}", closed.error());
  }
}

template <class F>
awaitable<std::invoke_result_t<F&, rocksdb_tree&>> rocksdb_store::on_tree(F fn) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  if (!_open.load(std::memory_order_acquire)) {
    co_return fail(errc::not_started, fmt::format("metadata store in '{}'", _options.directory.string()));
  }
  co_return co_await _pool.run([this, &fn] { return fn(*_tree); });
}

awaitable<result<void>> rocksdb_store::start() {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  MAGNETAR_ASSERT(!_start_called.exchange(true), "metadata store started twice");
  auto opened =
      co_await _pool.run([this] { return rocksdb_tree::open(_options.directory, _options.clock, _listeners); });
  if (!opened) co_return fail(opened.error());
  _tree = std::move(opened).value();
  _open.store(true, std::memory_order_release);
  co_return success();
}

awaitable<void> rocksdb_store::stop() {
  if (_gate.is_closed()) co_return;
  co_await _gate.close();
  if (!_tree) co_return;
  _open.store(false, std::memory_order_release);
  auto closed = co_await _pool.run([this] { return _tree->close(); });
  if (!closed && closed.error() == io::errc::pool_stopped) {
    // The shared pool stopped first; closing flushes, so do it here rather than not at all.
    closed = _tree->close();
  }
  if (!closed) spdlog::warn("metadata store: {}", closed.error());
  _tree.reset();
}

awaitable<result<std::optional<versioned_value>>> rocksdb_store::do_get(std::string path) {
  co_return co_await on_tree([&](rocksdb_tree& tree) { return tree.get(path); });
}

awaitable<result<bool>> rocksdb_store::do_exists(std::string path) {
  co_return co_await on_tree([&](rocksdb_tree& tree) { return tree.exists(path); });
}

awaitable<result<std::vector<std::string>>> rocksdb_store::do_children(std::string path) {
  co_return co_await on_tree([&](rocksdb_tree& tree) { return tree.children(path); });
}

awaitable<result<stat>> rocksdb_store::do_put(std::string path, std::string value,
                                              std::optional<std::int64_t> expected_version, create_options opts) {
  co_return co_await on_tree([&](rocksdb_tree& tree) { return tree.put(path, value, expected_version, opts); });
}

awaitable<result<void>> rocksdb_store::do_remove(std::string path, std::optional<std::int64_t> expected_version) {
  co_return co_await on_tree([&](rocksdb_tree& tree) { return tree.remove(path, expected_version); });
}

awaitable<result<void>> rocksdb_store::do_remove_recursive(std::string path) {
  co_return co_await on_tree([&](rocksdb_tree& tree) { return tree.remove_recursive(path); });
}

awaitable<result<session_id>> rocksdb_store::open_session() {
  co_return co_await on_tree([](rocksdb_tree& tree) { return tree.open_session(); });
}

awaitable<result<void>> rocksdb_store::close_session(session_id id) {
  co_return co_await on_tree([id](rocksdb_tree& tree) { return tree.close_session(id); });
}

listener_handle rocksdb_store::register_listener(asio::any_io_executor executor,
                                                 std::function<void(const notification&)> fn) {
  return _listeners.add(std::move(executor), std::move(fn));
}

listener_handle rocksdb_store::register_session_listener(asio::any_io_executor executor,
                                                         std::function<void(const session_event&)> fn) {
  return _session_listeners.add(std::move(executor), std::move(fn));
}

}  // namespace magnetar::meta
