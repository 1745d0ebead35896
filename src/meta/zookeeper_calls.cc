#include "meta/zookeeper_calls.h"

#include "io/oneshot_signal.h"

#include <memory>
#include <utility>

namespace magnetar::meta::zk {

namespace {

// What a request shares with its completion: the reply, the caller's
// wake-up, and what the client reads while the request is outstanding.
struct pending {
  explicit pending(asio::any_io_executor executor) : done(std::move(executor)) {}
  io::oneshot_signal done;
  reply result;
  std::vector<zoo_op_t> ops;
  std::vector<zoo_op_result_t> op_results;
};

// The completion's `data` owns one reference to the pending request.
using ticket = std::shared_ptr<pending>;

ticket take(const void* data) {
  auto* held = static_cast<ticket*>(const_cast<void*>(data));
  ticket owned = std::move(*held);
  delete held;
  return owned;
}

void copy_stat(reply& r, const Stat* st) {
  if (st) r.st = *st;
}

void on_void(int rc, const void* data) {
  auto p = take(data);
  p->result.rc = rc;
  p->done.fire();
}

void on_stat(int rc, const Stat* st, const void* data) {
  auto p = take(data);
  p->result.rc = rc;
  copy_stat(p->result, st);
  p->done.fire();
}

void on_data(int rc, const char* value, int length, const Stat* st, const void* data) {
  auto p = take(data);
  p->result.rc = rc;
  if (value && length > 0) p->result.data.assign(value, static_cast<std::size_t>(length));
  copy_stat(p->result, st);
  p->done.fire();
}

void on_children(int rc, const String_vector* names, const Stat* st, const void* data) {
  auto p = take(data);
  p->result.rc = rc;
  if (names) {
    for (int i = 0; i < names->count; ++i) p->result.names.emplace_back(names->data[i]);
  }
  copy_stat(p->result, st);
  p->done.fire();
}

void on_created(int rc, const char* path, const Stat* st, const void* data) {
  auto p = take(data);
  p->result.rc = rc;
  if (path) p->result.path = path;
  copy_stat(p->result, st);
  p->done.fire();
}

void ignore_stat(int, const Stat*, const void*) {}
void ignore_children(int, const String_vector*, const Stat*, const void*) {}

// Issues the request with a fresh ticket and waits for its completion. When
// the client refuses the request, no completion comes: the ticket is ours.
template <class Issue>
awaitable<reply> call(Issue issue, std::shared_ptr<pending> p = nullptr) {
  if (!p) p = std::make_shared<pending>(co_await asio::this_coro::executor);
  auto* held = new ticket(p);
  const int rc = issue(static_cast<const void*>(held));
  if (rc != ZOK) {
    delete held;
    p->result.rc = rc;
    co_return std::move(p->result);
  }
  co_await p->done.wait();
  co_return std::move(p->result);
}

}  // namespace

awaitable<reply> get(zhandle_t* zh, const std::string& path, bool watch) {
  co_return co_await call([&](const void* t) { return zoo_aget(zh, path.c_str(), watch ? 1 : 0, on_data, t); });
}

awaitable<reply> exists(zhandle_t* zh, const std::string& path, bool watch) {
  co_return co_await call([&](const void* t) { return zoo_aexists(zh, path.c_str(), watch ? 1 : 0, on_stat, t); });
}

awaitable<reply> get_children(zhandle_t* zh, const std::string& path, bool watch) {
  co_return co_await call(
      [&](const void* t) { return zoo_aget_children2(zh, path.c_str(), watch ? 1 : 0, on_children, t); });
}

awaitable<reply> create(zhandle_t* zh, const std::string& path, const std::string& value, int flags) {
  co_return co_await call([&](const void* t) {
    return zoo_acreate2(zh, path.c_str(), value.data(), static_cast<int>(value.size()), &ZOO_OPEN_ACL_UNSAFE, flags,
                        on_created, t);
  });
}

awaitable<reply> set(zhandle_t* zh, const std::string& path, const std::string& value, int version) {
  co_return co_await call([&](const void* t) {
    return zoo_aset(zh, path.c_str(), value.data(), static_cast<int>(value.size()), version, on_stat, t);
  });
}

awaitable<reply> remove(zhandle_t* zh, const std::string& path, int version) {
  co_return co_await call([&](const void* t) { return zoo_adelete(zh, path.c_str(), version, on_void, t); });
}

awaitable<reply> remove_all(zhandle_t* zh, const std::vector<std::string>& paths) {
  auto p = std::make_shared<pending>(co_await asio::this_coro::executor);
  p->ops.resize(paths.size());
  p->op_results.resize(paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) zoo_delete_op_init(&p->ops[i], paths[i].c_str(), -1);
  co_return co_await call(
      [&](const void* t) {
        return zoo_amulti(zh, static_cast<int>(p->ops.size()), p->ops.data(), p->op_results.data(), on_void, t);
      },
      p);
}

void arm_data_watch(zhandle_t* zh, const std::string& path) { zoo_aexists(zh, path.c_str(), 1, ignore_stat, nullptr); }

void arm_child_watch(zhandle_t* zh, const std::string& path) {
  zoo_aget_children2(zh, path.c_str(), 1, ignore_children, nullptr);
}

stat to_stat(const std::string& path, const Stat& st) {
  return stat{.path = path,
              .version = st.version,
              .created_ms = st.ctime,
              .modified_ms = st.mtime,
              .ephemeral = st.ephemeralOwner != 0,
              .owner = session_id(st.ephemeralOwner)};
}

std::string rc_name(int rc) {
  switch (rc) {
    case ZOK: return "ZOK";
    case ZCONNECTIONLOSS: return "ZCONNECTIONLOSS";
    case ZOPERATIONTIMEOUT: return "ZOPERATIONTIMEOUT";
    case ZSESSIONEXPIRED: return "ZSESSIONEXPIRED";
    case ZINVALIDSTATE: return "ZINVALIDSTATE";
    case ZNONODE: return "ZNONODE";
    case ZNODEEXISTS: return "ZNODEEXISTS";
    case ZBADVERSION: return "ZBADVERSION";
    case ZNOTEMPTY: return "ZNOTEMPTY";
    case ZNOCHILDRENFOREPHEMERALS: return "ZNOCHILDRENFOREPHEMERALS";
    case ZMARSHALLINGERROR: return "ZMARSHALLINGERROR";
    case ZBADARGUMENTS: return "ZBADARGUMENTS";
    case ZCLOSING: return "ZCLOSING";
    default: return std::string(zerror(rc)) + " (" + std::to_string(rc) + ")";
  }
}

}  // namespace magnetar::meta::zk
