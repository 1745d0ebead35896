#!/usr/bin/env bash
# End-to-end checks of the magnetar binary's command line: real process,
# real exit codes, real output. Usage: magnetar_cli_test.sh <path to magnetar>
set -uo pipefail
magnetar=$1
failures=0

# expect <name> <expected exit code> <regex the combined output must match> -- <args...>
expect() {
  local name=$1 code=$2 pattern=$3
  shift 4
  local output status
  output=$("$magnetar" "$@" 2>&1)
  status=$?
  if [[ $status -ne $code ]]; then
    echo "FAIL $name: exit code $status, expected $code; output: $output"
    failures=$((failures + 1))
  elif ! grep -Eq -- "$pattern" <<<"$output"; then
    echo "FAIL $name: output does not match /$pattern/: $output"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

expect version_prints_the_banner 0 '^magnetar [0-9]+\.[0-9]+\.[0-9]+ \(' -- version
expect help_lists_the_subcommands 0 'version +Print the version' -- --help
expect missing_subcommand_is_an_error 1 'a subcommand is required' --
expect bad_log_level_names_the_choices 1 "unknown log level 'loud' \(use trace, debug" -- --log-level=loud version
MAGNETAR_LOG_LEVEL=noisy expect environment_log_level_is_checked 1 'MAGNETAR_LOG_LEVEL: unknown log level' -- version
expect unknown_subcommand_is_named 109 'not expected: frobnicate' -- frobnicate

exit $((failures > 0))
