#include "io/page_cache.h"

#include <fmt/format.h>

#include <cerrno>
#include <optional>
#include <vector>

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace magnetar::io {
namespace {

error os_error(const char* call, const std::string& path) {
  return error(std::error_code(errno, std::system_category()), fmt::format("{} {}", call, path));
}

}  // namespace

result<std::uint64_t> cached_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(os_error("open", path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    auto e = os_error("fstat", path);
    ::close(fd);
    return fail(std::move(e));
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return std::uint64_t{0};
  }
  void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (mapping == MAP_FAILED) return fail(os_error("mmap", path));
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  const int rc = ::mincore(mapping, size, resident.data());
  auto e = rc != 0 ? std::optional<error>(os_error("mincore", path)) : std::nullopt;
  ::munmap(mapping, size);
  if (e) return fail(std::move(*e));
  std::uint64_t bytes = 0;
  for (auto r : resident) bytes += (r & 1) ? page : 0;
  return bytes;
}

bool in_memory_file_system(const std::string& directory) {
  struct statfs fs {};
  if (::statfs(directory.c_str(), &fs) != 0) return false;
  return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

}  // namespace magnetar::io
