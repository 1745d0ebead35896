// cookie: binds a bookie's directories to its identity, as BookKeeper's
// cookies do, so that a bookie started on another bookie's disks, or with a
// wiped or swapped directory, refuses to start instead of serving holes.
//
// The cookie (JSON: bookie id, journal and ledger directories, the cluster's
// instance id) is kept twice: in the metadata store at
// /ledgers/cookies/<bookie id>, and as magnetar-cookie.json in each of the
// bookie's directories. A first start writes both; every later start needs
// them all present and equal. /ledgers/INSTANCEID names the cluster; the first
// bookie creates it.
// Thread-safety: call from one coroutine at start-up.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "meta/store.h"

#include <string>
#include <vector>

namespace magnetar::bookie_node {

struct cookie {
  std::string bookie_id;
  std::vector<std::string> journal_directories;
  std::vector<std::string> ledger_directories;
  std::string instance_id;

  friend bool operator==(const cookie&, const cookie&) = default;
};

std::string to_json(const cookie& c);
result<cookie> cookie_from_json(std::string_view text, std::string_view source);

// Checks this bookie's cookies (writing them on its first start). Fails with
// base::errc::invalid_argument saying which directory or record disagrees.
awaitable<result<void>> check_cookies(meta::store& store, const std::string& bookie_id,
                                      const std::vector<std::string>& journal_directories,
                                      const std::vector<std::string>& ledger_directories);

}  // namespace magnetar::bookie_node
