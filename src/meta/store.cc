#include "meta/store.h"

#include "meta/path.h"

namespace magnetar::meta {

awaitable<result<std::optional<versioned_value>>> store::get(std::string path) {
  MAGNETAR_CO_TRY(check_path(path));
  co_return co_await do_get(std::move(path));
}

awaitable<result<bool>> store::exists(std::string path) {
  MAGNETAR_CO_TRY(check_path(path));
  co_return co_await do_exists(std::move(path));
}

awaitable<result<std::vector<std::string>>> store::children(std::string path) {
  MAGNETAR_CO_TRY(check_path(path));
  co_return co_await do_children(std::move(path));
}

awaitable<result<stat>> store::put(std::string path, std::string value, std::optional<std::int64_t> expected_version,
                                   create_options options) {
  if (options.sequential) {
    MAGNETAR_CO_TRY(check_sequential_prefix(path));
  } else {
    MAGNETAR_CO_TRY(check_node_path(path));
  }
  co_return co_await do_put(std::move(path), std::move(value), expected_version, options);
}

awaitable<result<void>> store::remove(std::string path, std::optional<std::int64_t> expected_version) {
  MAGNETAR_CO_TRY(check_node_path(path));
  co_return co_await do_remove(std::move(path), expected_version);
}

awaitable<result<void>> store::remove_recursive(std::string path) {
  MAGNETAR_CO_TRY(check_node_path(path));
  co_return co_await do_remove_recursive(std::move(path));
}

}  // namespace magnetar::meta
