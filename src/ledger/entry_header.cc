#include "ledger/entry_header.h"

#include "bookie/byte_order.h"
#include "ledger/errc.h"

#include <fmt/format.h>
#include <algorithm>
#include <memory>

namespace magnetar::ledger {

wire::shared_bytes with_entry_header(std::uint64_t ledger_length, const wire::shared_bytes& payload) {
  const auto size = entry_header_size + payload.size();
  std::shared_ptr<std::byte[]> buffer = std::make_shared_for_overwrite<std::byte[]>(size);
  bookie::store_be64(buffer.get(), ledger_length);
  std::copy(payload.data(), payload.data() + payload.size(), buffer.get() + entry_header_size);
  const std::byte* data = buffer.get();
  return wire::shared_bytes(std::move(buffer), {data, size});
}

namespace {

result<void> check_holds_header(const wire::shared_bytes& stored) {
  if (stored.size() >= entry_header_size) return success();
  return fail(errc::bad_entry,
              fmt::format("{} bytes stored, the entry header alone takes {}", stored.size(), entry_header_size));
}

}  // namespace

result<std::uint64_t> ledger_length_of(const wire::shared_bytes& stored) {
  MAGNETAR_TRY(check_holds_header(stored));
  return bookie::load_be64(stored.data());
}

result<wire::shared_bytes> payload_of(const wire::shared_bytes& stored) {
  MAGNETAR_TRY(check_holds_header(stored));
  return stored.slice(entry_header_size);
}

}  // namespace magnetar::ledger
