// ready_file: waiting for the file a started program writes once it serves (magnetar's
// `--ready-file`: the standalone, a bookie, a broker), or for its early exit, whichever
// comes first.
//
//   auto text = wait_for_ready_file(child, dir / "ready.json", deadline);
//   if (!text && text.error().code() == base::errc::timed_out) ...
//
// The file arrives by rename into its directory: inotify on the directory wakes the wait,
// the child's pidfd an exit; no polling loop.
//
// Thread-safety: a free function; one caller per child.
#pragma once

#include "base/result.h"
#include "perf/cluster/child_process.h"

#include <chrono>
#include <filesystem>
#include <string>

namespace magnetar::perf {

// The file's text once it exists. io_error "exited with code N before it was ready" when
// the child ends first; timed_out "not ready after N s" at the deadline (the child is
// left running: the caller decides).
result<std::string> wait_for_ready_file(child_process& child, const std::filesystem::path& file,
                                        std::chrono::steady_clock::time_point deadline);

// The whole of a small text file; empty when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace magnetar::perf
