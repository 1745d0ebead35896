#!/usr/bin/env bash
# Token authentication and authorization end to end, as an operator sets them up:
# `magnetar tokens` makes the key and the tokens, a standalone runs with upstream's keys
# (authenticationEnabled, tokenSecretKey, authorizationEnabled, superUserRoles), the
# super user grants permissions with `magnetar admin`, and `magnetar-perf` produces and
# consumes as the granted role.
#
# Usage: security_test.sh <path to magnetar> <path to magnetar-perf>
set -uo pipefail
magnetar=$1
perf=$2
here=$(cd "$(dirname "$0")" && pwd)

if [[ ${1:-} != --checks ]]; then
  dir=$(mktemp -d /tmp/magnetar-security-XXXXXX)
  trap 'rm -rf "$dir"' EXIT
  "$magnetar" tokens create-secret-key -o "$dir/secret.key" || exit 1
  cat >"$dir/standalone.conf" <<CONF
authenticationEnabled=true
authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken
tokenSecretKey=file://$dir/secret.key
authorizationEnabled=true
superUserRoles=admin
CONF
  for role in admin app; do
    "$magnetar" tokens create -k "file://$dir/secret.key" -s "$role" >"$dir/$role.token" || exit 1
  done
  MAGNETAR_STANDALONE_CONFIG="$dir/standalone.conf" "$here/with_standalone.sh" "$magnetar" \
    "$0" --checks "$magnetar" "$perf" "$dir"
  exit $?
fi

magnetar=$2
perf=$3
dir=$4
failures=0
# expect <name> <expected exit code> <regex the combined output must match> -- <command...>
expect() {
  local name=$1 code=$2 pattern=$3
  shift 4
  local output status
  output=$("$@" 2>&1)
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
admin_as() {  # admin_as <role> <admin args...>
  local role=$1
  shift
  "$magnetar" admin --admin-url "$MAGNETAR_WEB_URL" --auth-params "file://$dir/$role.token" "$@"
}
perf_as() {  # perf_as <role> <perf command> <args...>
  local role=$1 command=$2
  shift 2
  "$perf" "$command" -u "$MAGNETAR_SERVICE_URL" --auth-params "file://$dir/$role.token" "$@"
}

expect admin_without_a_token_is_refused 1 'Authentication required \(HTTP 401\)' -- \
  "$magnetar" admin --admin-url "$MAGNETAR_WEB_URL" tenants list
expect admin_with_a_forged_token_is_refused 1 'HTTP 401' -- \
  "$magnetar" admin --admin-url "$MAGNETAR_WEB_URL" --auth-params "token:e30.e30.sig" tenants list
expect super_user_lists_tenants 0 '^public$' -- admin_as admin tenants list
expect plain_role_may_not_list_tenants 1 'requires super-user access \(HTTP 401\)' -- admin_as app tenants list
expect produce_without_permission_is_refused 1 'Client is not authorized.*AuthorizationError' -- perf_as app produce -t secured -d 1 -r 100
expect super_user_grants_produce_and_consume 0 '^$' -- \
  admin_as admin namespaces grant-permission public/default --role app --actions produce,consume
expect permissions_show_the_grant 0 '"app": \[' -- admin_as admin namespaces permissions public/default
expect granted_role_produces 0 'produced [1-9][0-9]* msgs' -- perf_as app produce -t secured -d 1 -r 200
expect granted_role_reads_the_topic_stats 0 '"msgInCounter": [1-9]' -- admin_as app topics stats secured
expect super_user_revokes 0 '^$' -- admin_as admin namespaces revoke-permission public/default --role app
expect revoked_role_is_refused_again 1 'Client is not authorized.*AuthorizationError' -- perf_as app produce -t secured -d 1 -r 100
[[ $failures -eq 0 ]]
