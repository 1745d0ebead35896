#include "bookie/bookie_requests.h"

#include "bookie/errc.h"

#include <fmt/format.h>

namespace magnetar::bookie {

namespace bp = bookie_protocol;

namespace {

bp::response answer(const bp::request& request, bp::status_code status, std::string message = {}) {
  bp::response response;
  response.set_txn_id(request.txn_id());
  response.set_status(status);
  if (!message.empty()) response.set_message(std::move(message));
  return response;
}

bp::response failed(const bp::request& request, const error& e) {
  return answer(request, status_of(e), fmt::format("{}", e));
}

awaitable<bp::response> add(bookie& b, const request_context& context, bp::request& request) {
  const auto& add = request.add();
  if (context.read_only) co_return answer(request, bp::BK_EREADONLY, "the bookie is read-only");
  // The body moves out of the request into the entry's buffer: no copy.
  auto body = std::make_shared<const std::string>(std::move(*request.mutable_add()->mutable_body()));
  wire::shared_bytes payload(body, std::as_bytes(std::span(body->data(), body->size())));
  auto added =
      co_await b.add_entry(ledger_id(add.ledger_id()), entry_id(add.entry_id()), entry_id(add.last_add_confirmed()),
                           std::move(payload), add.recovery_add() ? add_mode::recovery : add_mode::normal);
  if (!added) co_return failed(request, added.error());
  co_return answer(request, bp::BK_EOK);
}

awaitable<bp::response> read(bookie& b, const bp::request& request) {
  const auto& read = request.read();
  const ledger_id ledger(read.ledger_id());
  if (read.fence()) {
    auto fenced = co_await b.fence(ledger);
    if (!fenced) co_return failed(request, fenced.error());
    auto response = answer(request, bp::BK_EOK);
    response.mutable_read()->set_last_entry_id(fenced.value().last_entry.value());
    response.mutable_read()->set_last_add_confirmed(fenced.value().last_add_confirmed.value());
    co_return response;
  }
  if (read.has_last_entry_id()) {
    if (read.last_entry_id() < read.entry_id()) {
      co_return answer(request, bp::BK_EBADREQ,
                       fmt::format("range {}..{} is empty", read.entry_id(), read.last_entry_id()));
    }
    auto entries = co_await b.read_range(ledger, entry_id(read.entry_id()), entry_id(read.last_entry_id()));
    if (!entries) co_return failed(request, entries.error());
    auto response = answer(request, bp::BK_EOK);
    for (const auto& e : entries.value()) response.mutable_read()->add_entries(std::string(e.as_chars()));
    co_return response;
  }
  auto entry = co_await b.read_entry(ledger, entry_id(read.entry_id()));
  if (!entry) co_return failed(request, entry.error());
  auto response = answer(request, bp::BK_EOK);
  response.mutable_read()->add_entries(std::string(entry.value().as_chars()));
  co_return response;
}

awaitable<bp::response> read_lac(bookie& b, const bp::request& request) {
  const auto& read = request.read_lac();
  if (read.has_previous_lac() && (!read.has_timeout_ms() || read.timeout_ms() < 0 || read.timeout_ms() > 60'000)) {
    co_return answer(request, bp::BK_EBADREQ, "a long poll needs timeout_ms in [0, 60000]");
  }
  // (Two awaits, not one ?: with an await on each side: GCC 12 frees the
  // result twice in that form.)
  result<entry_id> lac = entry_id(-1);
  if (read.has_previous_lac()) {
    lac = co_await b.wait_last_add_confirmed(ledger_id(read.ledger_id()), entry_id(read.previous_lac()),
                                             std::chrono::milliseconds(read.timeout_ms()));
  } else {
    lac = co_await b.read_last_add_confirmed(ledger_id(read.ledger_id()));
  }
  if (!lac) co_return failed(request, lac.error());
  auto response = answer(request, bp::BK_EOK);
  response.set_last_add_confirmed(lac.value().value());
  co_return response;
}

awaitable<bp::response> delete_ledger(bookie& b, const request_context& context, const bp::request& request) {
  if (context.read_only) co_return answer(request, bp::BK_EREADONLY, "the bookie is read-only");
  auto removed = co_await b.delete_ledger(ledger_id(request.delete_ledger().ledger_id()));
  if (!removed) co_return failed(request, removed.error());
  co_return answer(request, bp::BK_EOK);
}

// Every add is journaled and synced before it is answered, so a force has
// nothing left to do: it answers once the adds sent before it are answered
// (the client sends it after them on the same connection).
bp::response force_ledger(const bp::request& request) { return answer(request, bp::BK_EOK); }

bp::response info(bookie& b, const request_context& context, const bp::request& request) {
  auto response = answer(request, bp::BK_EOK);
  auto* info = response.mutable_info();
  info->set_bookie_id(context.bookie_id);
  info->set_read_only(context.read_only);
  const auto stats = b.stats();
  info->set_adds(stats.adds);
  info->set_reads(stats.reads);
  return response;
}

}  // namespace

bp::status_code status_of(const error& e) {
  if (e == errc::entry_not_found) return bp::BK_ENOENTRY;
  if (e == errc::ledger_not_found || e == errc::ledger_deleted) return bp::BK_ENOLEDGER;
  if (e == errc::ledger_fenced) return bp::BK_EFENCED;
  if (e == errc::journal_failed || e == errc::storage_full) return bp::BK_EREADONLY;
  if (e == errc::too_large) return bp::BK_EBADREQ;
  return bp::BK_EIO;
}

awaitable<bp::response> serve_request(bookie& b, request_context context, bp::request request) {
  if (request.version() != 1) {
    co_return answer(request, bp::BK_EBADVERSION,
                     fmt::format("protocol version {} (this bookie speaks 1)", request.version()));
  }
  const int operations = request.has_add() + request.has_read() + request.has_read_lac() + request.has_delete_ledger() +
                         request.has_force_ledger() + request.has_info();
  if (operations != 1) {
    co_return answer(request, bp::BK_EBADREQ, fmt::format("a request names {} operations, not one", operations));
  }
  if (request.has_add()) co_return co_await add(b, context, request);
  if (request.has_read()) co_return co_await read(b, request);
  if (request.has_read_lac()) co_return co_await read_lac(b, request);
  if (request.has_delete_ledger()) co_return co_await delete_ledger(b, context, request);
  if (request.has_force_ledger()) co_return force_ledger(request);
  co_return info(b, context, request);
}

}  // namespace magnetar::bookie
