// Helpers shared by the cluster's and the launcher's tests: a temporary directory per test, and waiting
// for a condition with a deadline (a condition, not a duration, ends the wait).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace magnetar::perf::testing {

inline std::filesystem::path make_temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "magnetar-launcher-test.XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return made;
}

// A temporary directory, removed at the end of the test.
class temp_dir {
 public:
  temp_dir() : _path(make_temp_dir()) {}
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(_path, ec);
  }
  const std::filesystem::path& path() const { return _path; }

 private:
  std::filesystem::path _path;
};

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// True once `condition` holds; false when `limit` passes first. Checks every 10 ms.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace magnetar::perf::testing
