#include "ledger/remote_bookie_client.h"

#include "bookie/errc.h"
#include "ledger/bookie_channel.h"

#include <fmt/format.h>

namespace magnetar::ledger {

namespace bp = bookie_protocol;

namespace {

// A bookie's status as the bookie error the ledger client already knows from
// the embedded bookie.
error error_of(const bp::response& response, const std::string& bookie) {
  const auto why = fmt::format("bookie {}: {}", bookie, response.message());
  switch (response.status()) {
    case bp::BK_ENOENTRY: return error(bookie::errc::entry_not_found, why);
    case bp::BK_ENOLEDGER: return error(bookie::errc::ledger_not_found, why);
    case bp::BK_EFENCED: return error(bookie::errc::ledger_fenced, why);
    case bp::BK_EREADONLY: return error(bookie::errc::storage_full, why);
    case bp::BK_EBADREQ: return error(std::make_error_code(std::errc::invalid_argument), why);
    default:
      return error(bookie::errc::journal_failed,
                   fmt::format("{} (status {})", why, static_cast<int>(response.status())));
  }
}

bp::request read_of(ledger_id ledger, entry_id entry) {
  bp::request request;
  request.mutable_read()->set_ledger_id(ledger.value());
  request.mutable_read()->set_entry_id(entry.value());
  return request;
}

// A read answer's entries as slices of the answer itself, which they keep alive:
// no copy of a byte.
std::vector<wire::shared_bytes> entries_of(bp::response response) {
  auto owner = std::make_shared<const bp::response>(std::move(response));
  std::vector<wire::shared_bytes> entries;
  entries.reserve(static_cast<std::size_t>(owner->read().entries_size()));
  for (const auto& e : owner->read().entries())
    entries.emplace_back(owner, std::as_bytes(std::span(e.data(), e.size())));
  return entries;
}

}  // namespace

remote_bookie_client::remote_bookie_client(asio::any_io_executor executor, remote_bookie_options options)
    : _executor(std::move(executor)), _options(std::move(options)) {
  _channels.push_back(std::make_shared<detail::bookie_channel>(_executor, nullptr, _options));
}

remote_bookie_client::~remote_bookie_client() {
  for (auto& channel : _channels) asio::post(channel->executor(), [channel] { channel->close(); });
}

detail::bookie_channel& remote_bookie_client::channel() {
  auto* shard = io::shard::current();
  std::lock_guard lock(_mutex);
  if (shard == nullptr) return *_channels.front();
  for (std::size_t i = 1; i < _channels.size(); ++i) {
    if (_channels[i]->home() == shard) return *_channels[i];
  }
  return *_channels.emplace_back(std::make_shared<detail::bookie_channel>(shard->executor(), shard, _options));
}

namespace {

bp::request add_of(ledger_id ledger, entry_id entry, entry_id lac, bookie::add_mode mode) {
  bp::request request;
  auto* add = request.mutable_add();
  add->set_ledger_id(ledger.value());
  add->set_entry_id(entry.value());
  add->set_last_add_confirmed(lac.value());
  add->set_body(std::string());  // sent beside the request (bookie_channel::call's add_body)
  if (mode == bookie::add_mode::recovery) add->set_recovery_add(true);
  return request;
}

}  // namespace

awaitable<result<void>> remote_bookie_client::add_entry(ledger_id ledger, entry_id entry, entry_id lac,
                                                        wire::shared_bytes payload, bookie::add_mode mode) {
  MAGNETAR_CO_TRY(response, co_await channel().call(add_of(ledger, entry, lac, mode), std::move(payload)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  co_return success();
}

void remote_bookie_client::start_add_entry(ledger_id ledger, entry_id entry, entry_id lac, wire::shared_bytes payload,
                                           bookie::add_mode mode, asio::any_io_executor executor, add_done done) {
  auto& here = channel();
  // Only a shard's own channel answers on the caller's thread.
  if (here.home() == nullptr) {
    bookie_client::start_add_entry(ledger, entry, lac, std::move(payload), mode, std::move(executor), std::move(done));
    return;
  }
  here.call_here(add_of(ledger, entry, lac, mode), std::move(payload),
                 [this, done = std::move(done)](result<bp::response> response) {
                   if (!response) return done(fail(std::move(response).error()));
                   if (response.value().status() != bp::BK_EOK)
                     return done(fail(error_of(response.value(), _options.address)));
                   done(success());
                 });
}

awaitable<result<wire::shared_bytes>> remote_bookie_client::read_entry(ledger_id ledger, entry_id entry) {
  MAGNETAR_CO_TRY(response, co_await channel().call(read_of(ledger, entry)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  if (response.read().entries_size() != 1) {
    co_return fail(bookie::errc::corrupt_record, fmt::format("bookie {}: a read answered {} entries", _options.address,
                                                             response.read().entries_size()));
  }
  co_return std::move(entries_of(std::move(response)).front());
}

awaitable<result<std::vector<wire::shared_bytes>>> remote_bookie_client::read_range(ledger_id ledger, entry_id first,
                                                                                    entry_id last) {
  auto request = read_of(ledger, first);
  request.mutable_read()->set_last_entry_id(last.value());
  MAGNETAR_CO_TRY(response, co_await channel().call(std::move(request)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  co_return entries_of(std::move(response));
}

awaitable<result<entry_id>> remote_bookie_client::read_last_add_confirmed(ledger_id ledger) {
  bp::request request;
  request.mutable_read_lac()->set_ledger_id(ledger.value());
  MAGNETAR_CO_TRY(response, co_await channel().call(std::move(request)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  co_return entry_id(response.last_add_confirmed());
}

awaitable<result<entry_id>> remote_bookie_client::wait_last_add_confirmed(ledger_id ledger, entry_id previous,
                                                                          std::chrono::milliseconds timeout) {
  bp::request request;
  auto* read = request.mutable_read_lac();
  read->set_ledger_id(ledger.value());
  read->set_previous_lac(previous.value());
  read->set_timeout_ms(timeout.count());
  MAGNETAR_CO_TRY(response, co_await channel().call(std::move(request)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  co_return entry_id(response.last_add_confirmed());
}

awaitable<result<fence_response>> remote_bookie_client::fence(ledger_id ledger) {
  auto request = read_of(ledger, entry_id(-1));
  request.mutable_read()->set_fence(true);
  MAGNETAR_CO_TRY(response, co_await channel().call(std::move(request)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  co_return fence_response{entry_id(response.read().last_entry_id()), entry_id(response.read().last_add_confirmed())};
}

awaitable<result<void>> remote_bookie_client::delete_ledger(ledger_id ledger) {
  bp::request request;
  request.mutable_delete_ledger()->set_ledger_id(ledger.value());
  MAGNETAR_CO_TRY(response, co_await channel().call(std::move(request)));
  if (response.status() != bp::BK_EOK) co_return fail(error_of(response, _options.address));
  co_return success();
}

}  // namespace magnetar::ledger
