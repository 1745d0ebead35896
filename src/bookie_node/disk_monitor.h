// disk_monitor: when a bookie turns read-only and back (BookKeeper's
// LedgerDirsMonitor). Read-only once a directory's file system is used past
// diskUsageThreshold, or once an add failed because the bookie could not
// write (ENOSPC before the threshold was seen, a failed journal); writable
// again when every directory is below diskUsageLwmThreshold, unless a write
// failed: only a restart clears that, as the journal that failed is not
// reopened. Read-only, the bookie still serves reads.
// Pure functions apart from measure(); thread-safe.
#pragma once

#include "base/result.h"
#include "bookie_node/bookie_status.h"

#include <string>
#include <vector>

namespace magnetar::bookie_node {

struct disk_thresholds {
  double full = 0.95;       // diskUsageThreshold
  double low_water = 0.90;  // diskUsageLwmThreshold
};

// The file system's size and what the bookie may still use of it (statvfs).
result<directory_usage> measure_directory(const std::string& path);

bool next_read_only(bool read_only, const std::vector<directory_usage>& directories, bool write_failed,
                    disk_thresholds thresholds);

}  // namespace magnetar::bookie_node
