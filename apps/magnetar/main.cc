// magnetar: one binary, one subcommand per role.
//
//   magnetar version      print the version and exit
//   magnetar admin ...    administer a broker through its REST API (admin_command.h)
//   magnetar standalone   broker + bookie + metadata store in one process (standalone_command.h)
//   magnetar bookie       a cluster's storage node, registered in ZooKeeper (bookie_command.h)
//   magnetar broker       one broker of a cluster (broker_command.h)
//   magnetar initialize-cluster-metadata   a new cluster's first metadata (initialize_command.h)
//   magnetar tokens ...   authentication tokens and their keys (tokens_command.h)
//
// Each subcommand's own --help explains its options.
#include "admin_command.h"
#include "base/log.h"
#include "base/version.h"
#include "bookie_command.h"
#include "broker_command.h"
#include "initialize_command.h"
#include "standalone_command.h"
#include "tokens_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

struct common_options {
  std::optional<std::string> log_level;
};

void add_common_options(CLI::App& app, common_options& options) {
  app.add_option("--log-level", options.log_level,
                 "Log verbosity: trace, debug, info, warn, error, critical or off. "
                 "The MAGNETAR_LOG_LEVEL environment variable overrides it.");
}

int run_version() {
  fmt::print("{}\n", magnetar::base::version_banner());
  return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"magnetar: a streaming platform that speaks Apache Pulsar's binary protocol"};
  // Not require_subcommand(1): CLI11 would then call a misspelt subcommand
  // "missing" instead of naming the word it did not expect.
  app.require_subcommand(0, 1);
  common_options options;
  add_common_options(app, options);

  auto* version = app.add_subcommand("version", "Print the version and build of this binary and exit");
  magnetar::app::admin_command admin(app);
  magnetar::app::standalone_command standalone(app);
  magnetar::app::bookie_command bookie(app);
  magnetar::app::broker_command broker(app);
  magnetar::app::initialize_command initialize(app);
  magnetar::app::tokens_command tokens(app);

  CLI11_PARSE(app, argc, argv);
  if (app.get_subcommands().empty()) {
    fmt::print(stderr, "magnetar: a subcommand is required\n\n{}", app.help());
    return EXIT_FAILURE;
  }

  auto logging = magnetar::base::init_logging(
      "magnetar", options.log_level ? std::optional<std::string_view>(*options.log_level) : std::nullopt);
  if (!logging) {
    fmt::print(stderr, "magnetar: {}\n", logging.error());
    return EXIT_FAILURE;
  }

  if (version->parsed()) return run_version();
  if (admin.parsed()) return admin.run();
  if (standalone.parsed()) return standalone.run();
  if (bookie.parsed()) return bookie.run();
  if (broker.parsed()) return broker.run();
  if (initialize.parsed()) return initialize.run();
  if (tokens.parsed()) return tokens.run();
  return EXIT_FAILURE;
}
