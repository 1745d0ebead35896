// config_file: reads a broker's settings from a Pulsar-style .conf file.
//
// The format is what Pulsar's broker.conf and standalone.conf use: one `key=value` per
// line; lines starting with `#` or `!` are comments; blank lines are skipped; key and
// value are trimmed of spaces and tabs. As in Pulsar, an empty value (`numIOThreads=`)
// keeps the default, and a key given twice takes its last value. Line continuations
// with a trailing backslash (Java properties) are not supported: no Pulsar file uses
// them, and a stray backslash is better reported than silently joined.
//
// Keys are judged in three groups:
// - implemented (the fields of broker_config, plus magnetar's own `dataDir`): the value
//   is checked (number, range, port, boolean, choice) and applied;
// - known upstream keys magnetar does not implement (pulsar_config_keys.h): accepted
//   and reported, so that an operator's existing standalone.conf starts as it is;
//   load_broker_config() logs one warning that lists them;
// - anything else: an error, with the closest known key suggested (typos must not be
//   ignored silently, or a misspelt setting would quietly keep its default).
// Every error names the file, the line and the key. Settings are not read from the
// environment.
//
// Thread-safety: pure functions; load_* read the file and log, nothing else.
#pragma once

#include "base/result.h"
#include "broker/api/broker_config.h"

#include <string>
#include <string_view>
#include <vector>

namespace magnetar::broker {

// What apply_config_setting() did with one key.
enum class setting_outcome {
  applied,          // a magnetar setting, now set to the value
  kept_default,     // a magnetar setting with an empty value: unchanged
  not_implemented,  // an upstream Pulsar key magnetar ignores
};

// Applies one `key=value`. base::errc::invalid_argument for an unknown key or a bad value; the
// detail starts with the key ("brokerServicePort: '70000' is not a port (0..65535)").
result<setting_outcome> apply_config_setting(broker_config& config, std::string_view key, std::string_view value);

// Checks that need several settings (quorums: ack <= write <= ensemble).
result<void> validate_broker_config(const broker_config& config);

struct parsed_broker_config {
  broker_config config;
  // Upstream keys that were set (with a non-empty value) but are not implemented, in
  // the order of their first appearance.
  std::vector<std::string> not_implemented;
};

// Parses a whole file's text; `source` names it in errors ("<source>:<line>: ...").
result<parsed_broker_config> parse_broker_config(std::string_view text, std::string_view source);

// Reads and parses the file at `path`. A file that can't be read fails with the
// system's error and the path.
result<parsed_broker_config> read_broker_config(std::string_view path);

// read_broker_config(), logging one warning that lists the ignored upstream keys.
result<broker_config> load_broker_config(std::string_view path);

// The warning load_broker_config() logs; empty when nothing was ignored.
std::string not_implemented_warning(std::string_view source, const std::vector<std::string>& keys);

// The keys magnetar implements, in the order of broker_config's fields.
std::vector<std::string_view> implemented_config_keys();

// The known key (implemented or upstream) closest to `key`, or empty when none is close
// enough to be a likely typo.
std::string_view closest_config_key(std::string_view key);

}  // namespace magnetar::broker
