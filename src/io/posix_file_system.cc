#include "io/file_system.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace magnetar::io {
namespace {

std::error_code os_error(int err) { return {err, std::system_category()}; }

error os_failure(std::string_view what, const std::string& path, int err = errno) {
  return error(os_error(err), fmt::format("{} {}", what, path));
}

class posix_file final : public file {
 public:
  posix_file(std::string path, int fd) : file(std::move(path)), _fd(fd) {}
  ~posix_file() override { ::close(_fd); }

  result<void> write_at(std::uint64_t offset, std::span<const std::byte> bytes) override {
    while (!bytes.empty()) {
      const auto written = ::pwrite(_fd, bytes.data(), bytes.size(), static_cast<off_t>(offset));
      if (written < 0) {
        if (errno == EINTR) continue;
        return fail(os_failure("write", path()));
      }
      bytes = bytes.subspan(static_cast<std::size_t>(written));
      offset += static_cast<std::uint64_t>(written);
    }
    return success();
  }

  result<std::size_t> read_at(std::uint64_t offset, std::span<std::byte> out) override {
    std::size_t total = 0;
    while (total < out.size()) {
      const auto got = ::pread(_fd, out.data() + total, out.size() - total, static_cast<off_t>(offset + total));
      if (got < 0) {
        if (errno == EINTR) continue;
        return fail(os_failure("read", path()));
      }
      if (got == 0) break;
      total += static_cast<std::size_t>(got);
    }
    return total;
  }

  result<void> sync() override {
    if (::fdatasync(_fd) != 0) return fail(os_failure("fdatasync", path()));
    return success();
  }

  result<void> truncate(std::uint64_t size) override {
    if (::ftruncate(_fd, static_cast<off_t>(size)) != 0) return fail(os_failure("truncate", path()));
    return success();
  }

  result<std::uint64_t> size() override {
    struct stat st {};
    if (::fstat(_fd, &st) != 0) return fail(os_failure("stat", path()));
    return static_cast<std::uint64_t>(st.st_size);
  }

  result<void> allocate(std::uint64_t offset, std::uint64_t length) override {
    if (length == 0) return success();
    // Unwritten extents: no zeros to write now and none for a sync to flush later.
    for (;;) {
      if (::fallocate(_fd, 0, static_cast<off_t>(offset), static_cast<off_t>(length)) == 0) return success();
      if (errno == EINTR) continue;
      if (errno == EOPNOTSUPP || errno == ENOSYS) return file::allocate(offset, length);
      return fail(os_failure("fallocate", path()));
    }
  }

  result<void> zero_uncached(std::uint64_t offset, std::uint64_t length) override {
    // A handle of its own on the same file (not a dup, which would share the status
    // flags and make the other handle's writes direct too).
    const auto self = fmt::format("/proc/self/fd/{}", _fd);
    const int direct = ::open(self.c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    if (direct < 0) {
      if (errno == EINVAL) return file::zero_uncached(offset, length);  // no O_DIRECT here (tmpfs)
      return fail(os_failure("open for direct writes", path()));
    }
    alignas(4096) static const std::byte zeros[1 << 20]{};
    result<void> written = success();
    while (length > 0) {
      const auto n = std::min<std::uint64_t>(length, sizeof zeros);
      const auto done = ::pwrite(direct, zeros, n, static_cast<off_t>(offset));
      if (done < 0) {
        if (errno == EINTR) continue;
        written = fail(os_failure("direct write", path()));
        break;
      }
      offset += static_cast<std::uint64_t>(done);
      length -= static_cast<std::uint64_t>(done);
    }
    ::close(direct);
    return written;
  }

  void drop_cached(std::uint64_t offset, std::uint64_t length) override {
    // Advice only: a failure leaves the pages cached, which is harmless.
    (void)::posix_fadvise(_fd, static_cast<off_t>(offset), static_cast<off_t>(length), POSIX_FADV_DONTNEED);
  }

 private:
  int _fd;
};

class posix_file_system_impl final : public file_system {
 public:
  result<std::unique_ptr<file>> open(const std::string& path, open_mode mode) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case open_mode::read_only: flags |= O_RDONLY; break;
      case open_mode::read_write: flags |= O_RDWR; break;
      case open_mode::create: flags |= O_RDWR | O_CREAT; break;
      case open_mode::create_new: flags |= O_RDWR | O_CREAT | O_EXCL; break;
    }
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return fail(os_failure("open", path));
    return std::unique_ptr<file>(std::make_unique<posix_file>(path, fd));
  }

  result<void> remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return fail(os_failure("remove", path));
    return success();
  }

  result<void> rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return fail(os_failure("rename to " + to, from));
    return success();
  }

  result<void> sync_directory(const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return fail(os_failure("open directory", path));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) return fail(os_failure("fsync directory", path, err));
    return success();
  }

  result<void> create_directories(const std::string& path) override {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec) return fail(ec, "create directory " + path);
    return success();
  }

  result<std::vector<std::string>> list(const std::string& directory) override {
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
      names.push_back(entry.path().filename().string());
    }
    if (ec) return fail(ec, "list " + directory);
    std::sort(names.begin(), names.end());
    return names;
  }

  result<bool> exists(const std::string& path) override {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT) return false;
    return fail(os_failure("stat", path));
  }
};

}  // namespace

file_system& posix_file_system() {
  static posix_file_system_impl instance;
  return instance;
}

}  // namespace magnetar::io
