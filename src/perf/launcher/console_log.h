// console_log: what the launcher prints, on the terminal and in the run's
// console.log.txt, line for line (the report and a later reader see what the user saw).
//
// Before the run directory exists the lines go to the terminal only; attach() starts
// the copy. Thread-safety: every member may be called from any thread (the progress
// monitor and the sampler print from their own threads); lines never interleave.
#pragma once

#include "base/result.h"

#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string_view>

namespace magnetar::perf {

class console_log {
 public:
  // `terminal` is where lines go besides the file (stdout; a test passes a temporary file).
  explicit console_log(std::FILE* terminal = stdout) : _terminal(terminal) {}
  console_log(const console_log&) = delete;
  console_log& operator=(const console_log&) = delete;
  ~console_log();

  // From now on every line is also appended to `file`.
  result<void> attach(const std::filesystem::path& file);

  // Prints `text` and a newline.
  void line(std::string_view text);
  // The same on stderr (failures), copied to the file too.
  void error_line(std::string_view text);

 private:
  void write(std::FILE* terminal, std::string_view text);

  std::mutex _mutex;
  std::FILE* _terminal;
  std::FILE* _file = nullptr;
};

}  // namespace magnetar::perf
