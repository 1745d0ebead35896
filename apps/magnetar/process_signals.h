// What every long-running subcommand (standalone, bookie) does around its service:
// log to a file, take SIGTERM/SIGINT on the main thread only, and tell scripts it is
// ready through a file. Used from main()'s thread only.
#pragma once

#include <csignal>
#include <string>

namespace magnetar::app {

// Sends the default logger to `path`; false (and a message on stderr naming `who`) if
// the file can't be opened.
bool log_to_file(const std::string& path, const std::string& who);

// Blocks SIGTERM and SIGINT in this thread, before any other starts, so that every
// thread inherits the mask and only wait_for_stop_signal takes them.
sigset_t block_stop_signals();
// Returns once SIGTERM or SIGINT arrives; logs which.
void wait_for_stop_signal(const sigset_t& signals);

// Writes `text` and a newline to `path` through a temporary name, so a reader never
// sees half a file; false (and a message on stderr) when it can't.
bool write_ready_file(const std::string& path, const std::string& text);

}  // namespace magnetar::app
