// page_cache: how much of a file the kernel holds in memory, for the tests and
// diagnostics of code that tells the kernel which pages it may drop (file::drop_cached).
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>

namespace magnetar::io {

// Bytes of `path` in the page cache now (whole pages; mincore over a mapping).
result<std::uint64_t> cached_bytes(const std::string& path);

// True where a directory's files live only in memory (tmpfs, ramfs): their pages can't be
// dropped, so cached_bytes stays at the file's size whatever the advice.
bool in_memory_file_system(const std::string& directory);

}  // namespace magnetar::io
