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

# admin: help, argument checks (before any request) and a server that isn't there.
# Port 1 on loopback: nothing listens there, so the connection is refused at once.
closed=http://127.0.0.1:1
expect admin_help_lists_the_groups 0 'topics +Topics, partitioned topics' -- admin --help
expect admin_topics_help_lists_the_verbs 0 'reset-cursor +Move a subscription' -- admin topics --help
expect admin_verb_help_shows_its_options 0 '--messageId' -- admin topics reset-cursor --help
expect admin_without_a_verb_shows_the_group 1 'a subcommand is required' -- admin tenants
expect admin_unreachable_server_names_the_url 1 \
  "^magnetar admin: cannot connect to the admin API at $closed: Connection refused" -- \
  admin --admin-url $closed clusters list
MAGNETAR_ADMIN_URL=$closed expect admin_url_from_the_environment 1 "admin API at $closed" -- admin tenants list
expect admin_url_after_the_verb 1 "admin API at $closed" -- admin topics stats my-topic --admin-url $closed
expect admin_bad_url_is_explained 1 "bad admin URL 'ftp://x': expected http\[s\]://" -- \
  admin --admin-url ftp://x clusters list
expect admin_bad_topic_name_is_refused_before_sending 1 'invalid topic name .a/b/c/d.' -- \
  admin --admin-url $closed topics stats a/b/c/d
expect admin_bad_namespace_is_refused 1 "invalid namespace 'public': expected tenant/namespace" -- \
  admin --admin-url $closed topics list public
expect admin_bare_small_time_is_refused 1 'before 2000; for a time back from now give a unit' -- \
  admin --admin-url $closed topics reset-cursor t -s sub --time 3600
expect admin_reset_cursor_needs_a_target 1 'needs either --time or --messageId' -- \
  admin --admin-url $closed topics reset-cursor t -s sub
expect admin_bad_message_id_is_explained 1 "invalid message id '7': expected earliest, latest or ledgerId:entryId" -- \
  admin --admin-url $closed topics create-subscription t -s sub -m 7
expect admin_partitions_must_be_positive 105 'partitions: Value 0 not in range' -- \
  admin topics create-partitioned-topic t -p 0

# tokens: keys written as upstream's tool writes them, tokens made, shown and checked.
keys=$(mktemp -d)
trap 'rm -rf "$keys"' EXIT
expect tokens_secret_key_is_written 0 '^$' -- tokens create-secret-key -o "$keys/secret.key"
[[ $(stat -c %s "$keys/secret.key") -eq 32 ]] || { echo "FAIL tokens_secret_key_is_32_raw_bytes"; failures=$((failures + 1)); }
token=$("$magnetar" tokens create -k "file://$keys/secret.key" -s alice -e 1h)
expect tokens_show_prints_the_claims 0 '^\{"exp":[0-9]+,"sub":"alice"\}$' -- tokens show "$token"
expect tokens_validate_takes_its_own_key 0 '"sub":"alice"' -- tokens validate -k "file://$keys/secret.key" "$token"
"$magnetar" tokens create-secret-key -o "$keys/other.key"
expect tokens_validate_refuses_another_key 1 'invalid token' -- tokens validate -k "file://$keys/other.key" "$token"
expect tokens_key_pair_is_written 0 '^$' -- \
  tokens create-key-pair -a ES256 --output-private-key "$keys/p.key" --output-public-key "$keys/pub.key"
pair_token=$("$magnetar" tokens create -p "$keys/p.key" -a ES256 -s bob)
expect tokens_validate_takes_a_public_key 0 '"sub":"bob"' -- tokens validate -p "$keys/pub.key" "$pair_token"
expect tokens_bad_expiry_is_explained 1 "expiry-time '5q'" -- tokens create -k "file://$keys/secret.key" -s x -e 5q
expect tokens_expired_token_is_refused 1 'expired' -- \
  tokens validate -k "file://$keys/secret.key" "$("$magnetar" tokens create -k "file://$keys/secret.key" -s x -e 0)"

exit $((failures > 0))
