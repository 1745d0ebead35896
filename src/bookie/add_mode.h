// add_mode: how a bookie takes an add. A recovery add (BookKeeper's recovery
// flag) comes from the client that fenced the ledger, bringing an entry to its
// write quorum or onto a bookie that replaces a lost one: it passes the fence
// that stops the old writer.
#pragma once

namespace magnetar::bookie {

enum class add_mode { normal, recovery };

}  // namespace magnetar::bookie
