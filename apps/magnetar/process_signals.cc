#include "process_signals.h"

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <pthread.h>
#include <cstdio>

namespace magnetar::app {

bool log_to_file(const std::string& path, const std::string& who) {
  try {
    auto file = spdlog::basic_logger_mt("magnetar-file", path);
    file->set_level(spdlog::default_logger()->level());
    spdlog::set_default_logger(file);
    // Warnings are written at once (base/log.cc); the rest within a second, so that a
    // user tailing the file, or a test reading it, sees what happened.
    spdlog::flush_every(std::chrono::seconds(1));
    return true;
  } catch (const spdlog::spdlog_ex& e) {
    fmt::print(stderr, "{}: --log-file {}: {}\n", who, path, e.what());
    return false;
  }
}

sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

void wait_for_stop_signal(const sigset_t& signals) {
  int signal = 0;
  sigwait(&signals, &signal);
  spdlog::info("{}: stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
}

bool write_ready_file(const std::string& path, const std::string& text) {
  const auto temporary = path + ".tmp";
  std::FILE* file = std::fopen(temporary.c_str(), "w");
  const bool written = file != nullptr && std::fputs(text.c_str(), file) >= 0 && std::fputc('\n', file) != EOF;
  if (file != nullptr) std::fclose(file);
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    fmt::print(stderr, "magnetar: cannot write --ready-file {}\n", path);
    return false;
  }
  return true;
}

}  // namespace magnetar::app
