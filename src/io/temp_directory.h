// temp_directory: a fresh, empty directory that is removed with the object.
// For tests, benchmarks and tools. Created and destroyed by one thread.
#pragma once

#include "base/assert.h"

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace magnetar::io {

class temp_directory {
 public:
  explicit temp_directory(std::string_view prefix = "magnetar") {
    auto pattern = (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    MAGNETAR_ASSERT(::mkdtemp(pattern.data()) != nullptr, "mkdtemp {} failed", pattern);
    _path = pattern;
  }
  ~temp_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(_path, ignored);
  }
  temp_directory(const temp_directory&) = delete;
  temp_directory& operator=(const temp_directory&) = delete;

  const std::string& path() const { return _path; }
  // The path of `name` inside the directory.
  std::string operator/(std::string_view name) const { return _path + "/" + std::string(name); }

 private:
  std::string _path;
};

}  // namespace magnetar::io
