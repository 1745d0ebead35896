// The ids that cross library boundaries. Storage ids are signed because
// BookKeeper and Pulsar use -1 for "none" (no entry yet, no ledger).
#pragma once

#include "base/strong_id.h"

#include <cstdint>

namespace magnetar {

using ledger_id = base::strong_id<struct ledger_id_tag, std::int64_t>;
using entry_id = base::strong_id<struct entry_id_tag, std::int64_t>;

}  // namespace magnetar
