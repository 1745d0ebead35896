#include "autorecovery/underreplication.h"

#include "meta/errc.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace magnetar::autorecovery {
namespace {

std::string node_of(ledger_id ledger) { return fmt::format("{}/L{:010}", underreplicated_path, ledger.value()); }

result<underreplicated_ledger> parse(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ledgerId") || !j.contains("missingReplicas")) {
    return fail(meta::errc::corrupt_record, fmt::format("not an under-replicated ledger record: {}", text));
  }
  underreplicated_ledger l;
  l.id = ledger_id(j.at("ledgerId").get<std::int64_t>());
  for (const auto& b : j.at("missingReplicas")) l.missing.insert(b.get<std::string>());
  l.marked_ms = j.value("ctime", std::int64_t{0});
  return l;
}

std::string render(const underreplicated_ledger& l) {
  return nlohmann::json{{"ledgerId", l.id.value()}, {"missingReplicas", l.missing}, {"ctime", l.marked_ms}}.dump();
}

}  // namespace

awaitable<result<void>> mark_underreplicated(meta::store& store, ledger_id ledger, const std::set<std::string>& missing,
                                             std::int64_t now_ms) {
  const auto path = node_of(ledger);
  for (;;) {
    MAGNETAR_CO_TRY(existing, co_await store.get(path));
    underreplicated_ledger record{ledger, missing, now_ms};
    std::int64_t version = -1;
    if (existing) {
      MAGNETAR_CO_TRY(listed, parse(existing->value));
      record.missing.insert(listed.missing.begin(), listed.missing.end());
      record.marked_ms = listed.marked_ms;
      if (record.missing == listed.missing) co_return success();
      version = existing->st.version;
    }
    auto put = co_await store.put(path, render(record), version);
    if (put) co_return success();
    if (put.error() != meta::errc::bad_version) co_return fail(put.error());  // else a race: read again
  }
}

awaitable<result<std::vector<underreplicated_ledger>>> list_underreplicated(meta::store& store) {
  std::vector<underreplicated_ledger> out;
  MAGNETAR_CO_TRY(names, co_await store.children(underreplicated_path));
  for (const auto& name : names) {
    MAGNETAR_CO_TRY(node, co_await store.get(fmt::format("{}/{}", underreplicated_path, name)));
    if (!node) continue;  // replicated meanwhile
    MAGNETAR_CO_TRY(l, parse(node->value));
    out.push_back(std::move(l));
  }
  co_return out;
}

awaitable<result<void>> mark_replicated(meta::store& store, ledger_id ledger) {
  auto removed = co_await store.remove(node_of(ledger), std::nullopt);
  if (!removed && removed.error() != meta::errc::not_found) co_return fail(removed.error());
  co_return success();
}

awaitable<result<std::set<std::string>>> registered_bookies(meta::store& store) {
  std::set<std::string> out;
  MAGNETAR_CO_TRY(writable, co_await store.children("/ledgers/available"));
  for (auto& b : writable) {
    if (b != "readonly") out.insert(std::move(b));
  }
  MAGNETAR_CO_TRY(read_only, co_await store.children("/ledgers/available/readonly"));
  out.insert(read_only.begin(), read_only.end());
  co_return out;
}

}  // namespace magnetar::autorecovery
