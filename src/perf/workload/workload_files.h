// workload_files: small helpers the gateways and applications share for their output
// files.
#pragma once

#include "base/result.h"

#include <filesystem>
#include <string>

namespace magnetar::perf {

// Writes `content` to `path` (replacing it) through a temporary file and a rename.
result<void> write_text_file(const std::filesystem::path& path, const std::string& content);

}  // namespace magnetar::perf
