#include "perf/workload/workload_files.h"

#include <fmt/format.h>

#include <fstream>

namespace magnetar::perf {

result<void> write_text_file(const std::filesystem::path& path, const std::string& content) {
  auto temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc | std::ios::binary);
    out << content;
    if (!out.flush()) return fail(base::errc::io_error, fmt::format("cannot write {}", temporary.string()));
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) return fail(base::errc::io_error, fmt::format("cannot write {}: {}", path.string(), ec.message()));
  return success();
}

}  // namespace magnetar::perf
