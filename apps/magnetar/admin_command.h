// admin_command: `magnetar admin`, a pulsar-admin-like client of the admin REST API.
//
//   magnetar admin [--admin-url http://host:8080] <group> <verb> [args]
//   groups: clusters, tenants, namespaces, topics (verbs named as pulsar-admin names them)
//
// Arguments are checked before any request is sent (topic names in every form Pulsar
// accepts, message ids, times), so a typo gets its own error rather than a 404.
// Output follows pulsar-admin: lists one item per line, objects as indented JSON,
// nothing for a successful change. An HTTP error prints the server's `reason` and the
// command exits with 1; a server that can't be reached is an error naming the URL.
// Used from main() only: single-threaded.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>

namespace magnetar::app {

class admin_command {
 public:
  // Adds `admin` and its subcommands to `app`.
  explicit admin_command(CLI::App& app);
  ~admin_command();
  admin_command(const admin_command&) = delete;
  admin_command& operator=(const admin_command&) = delete;

  // True when the command line chose `admin`.
  bool parsed() const;
  // Runs the chosen verb; the process's exit code.
  int run() const;

  struct state;

 private:
  CLI::App* _command;
  std::unique_ptr<state> _state;
};

}  // namespace magnetar::app
