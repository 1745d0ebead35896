#include "bookie_node/cookie.h"

#include "base/errc.h"
#include "base/properties.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

namespace magnetar::bookie_node {

namespace {

constexpr const char* cookie_file = "magnetar-cookie.json";
constexpr const char* instance_path = "/ledgers/INSTANCEID";

auto refuse(std::string why) {
  return fail(base::errc::invalid_argument,
              fmt::format("{} (a bookie's cookie binds its directories to its id; see docs/cluster-storage.md)", why));
}

std::string new_instance_id() {
  std::random_device random;
  return fmt::format("{:08x}-{:08x}", random(), random());
}

// The cookie file of one directory, or nullopt when it has none.
result<std::optional<cookie>> read_local(const std::string& directory) {
  const auto path = std::filesystem::path(directory) / cookie_file;
  if (!std::filesystem::exists(path)) return std::optional<cookie>();
  MAGNETAR_TRY(text, base::read_text_file(path.string()));
  MAGNETAR_TRY(parsed, cookie_from_json(text, path.string()));
  return std::optional<cookie>(std::move(parsed));
}

result<void> write_local(const std::string& directory, const cookie& c) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) return fail(ec, fmt::format("creating {}", directory));
  const auto path = std::filesystem::path(directory) / cookie_file;
  const auto temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << to_json(c) << '\n';
    if (!out.flush()) return fail(base::errc::io_error, fmt::format("writing {}", temporary));
  }
  std::filesystem::rename(temporary, path, ec);
  if (ec) return fail(ec, fmt::format("renaming {}", temporary));
  return success();
}

}  // namespace

std::string to_json(const cookie& c) {
  return nlohmann::json{{"bookieId", c.bookie_id},
                        {"journalDirs", c.journal_directories},
                        {"ledgerDirs", c.ledger_directories},
                        {"instanceId", c.instance_id}}
      .dump();
}

result<cookie> cookie_from_json(std::string_view text, std::string_view source) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("bookieId")) {
    return fail(base::errc::corrupt_data, fmt::format("{}: not a bookie cookie", source));
  }
  cookie c;
  c.bookie_id = json.value("bookieId", "");
  c.journal_directories = json.value("journalDirs", std::vector<std::string>{});
  c.ledger_directories = json.value("ledgerDirs", std::vector<std::string>{});
  c.instance_id = json.value("instanceId", "");
  return c;
}

awaitable<result<void>> check_cookies(meta::store& store, const std::string& bookie_id,
                                      const std::vector<std::string>& journal_directories,
                                      const std::vector<std::string>& ledger_directories) {
  auto instance = co_await store.get(instance_path);
  if (!instance) co_return fail(instance.error());
  std::string instance_id;
  if (instance.value()) {
    instance_id = instance.value()->value;
  } else {
    instance_id = new_instance_id();
    auto made = co_await store.put(instance_path, instance_id, -1);
    if (!made) {
      auto again = co_await store.get(instance_path);  // another bookie made it first
      if (!again || !again.value()) co_return fail(made.error());
      instance_id = again.value()->value;
    }
  }
  const cookie expected{bookie_id, journal_directories, ledger_directories, instance_id};
  const auto record_path = "/ledgers/cookies/" + bookie_id;
  auto record = co_await store.get(record_path);
  if (!record) co_return fail(record.error());

  std::vector<std::string> directories = journal_directories;
  directories.insert(directories.end(), ledger_directories.begin(), ledger_directories.end());
  std::vector<std::string> without_cookie;
  for (const auto& directory : directories) {
    auto local = read_local(directory);
    if (!local) co_return fail(local.error());
    if (!local.value()) {
      without_cookie.push_back(directory);
      continue;
    }
    if (local.value()->bookie_id != bookie_id) {
      co_return refuse(
          fmt::format("directory {} belongs to bookie {}, not to {}", directory, local.value()->bookie_id, bookie_id));
    }
    if (*local.value() != expected) {
      co_return refuse(fmt::format("directory {} has a cookie that differs from this bookie's settings: {}", directory,
                                   to_json(*local.value())));
    }
  }
  if (!record.value()) {
    if (without_cookie.size() != directories.size()) {
      co_return refuse(fmt::format("bookie {} has cookies in its directories but none in the metadata store at {}",
                                   bookie_id, record_path));
    }
    for (const auto& directory : directories) {
      MAGNETAR_CO_TRY(write_local(directory, expected));
    }
    auto stored = co_await store.put(record_path, to_json(expected), -1);
    if (!stored) co_return fail(stored.error());
    spdlog::info("bookie {}: new cookie written ({})", bookie_id, to_json(expected));
    co_return success();
  }
  if (!without_cookie.empty()) {
    co_return refuse(
        fmt::format("bookie {} is known to the metadata store, but directory {} has no cookie: its "
                    "data was wiped or this is another disk",
                    bookie_id, without_cookie.front()));
  }
  auto stored = cookie_from_json(record.value()->value, record_path);
  if (!stored) co_return fail(stored.error());
  if (stored.value() != expected) {
    co_return refuse(
        fmt::format("the metadata store's cookie for bookie {} ({}) differs from this bookie's settings "
                    "({})",
                    bookie_id, record.value()->value, to_json(expected)));
  }
  co_return success();
}

}  // namespace magnetar::bookie_node
