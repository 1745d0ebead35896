#!/usr/bin/env bash
# End-to-end checks of `magnetar admin` against a running broker (a standalone, or
# upstream Pulsar's for comparison): every verb once, in an order that builds up and
# tears down its own tenant, so it can run against a server that holds other data.
#
# Usage: admin_cli_test.sh <path to magnetar> [admin URL, default http://localhost:8080]
# Not registered with CTest yet: that needs `magnetar standalone` to start a server first.
set -uo pipefail
magnetar=$1
url=${2:-http://localhost:8080}
tenant=admin-cli-$$-$RANDOM
ns=$tenant/ns
topic=persistent://$ns/plain
partitioned=persistent://$ns/parted
failures=0

# expect <name> <expected exit code> <regex the combined output must match> -- <admin args...>
expect() {
  local name=$1 code=$2 pattern=$3
  shift 4
  local output status
  output=$("$magnetar" admin --admin-url "$url" "$@" 2>&1)
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

if ! "$magnetar" admin --admin-url "$url" clusters list >/dev/null 2>&1; then
  echo "admin_cli_test: no admin API answers at $url; start a standalone first" >&2
  exit 1
fi

expect clusters_list_names_the_cluster 0 '^standalone$' -- clusters list
expect tenant_create 0 '' -- tenants create "$tenant"
expect tenant_is_listed 0 "^$tenant\$" -- tenants list
expect tenant_create_twice_is_a_conflict 1 '\(HTTP 409\)' -- tenants create "$tenant"
expect namespace_create 0 '' -- namespaces create "$ns"
expect namespace_is_listed 0 "^$ns\$" -- namespaces list "$tenant"
expect namespace_policies_are_json 0 '^\{' -- namespaces policies "$ns"
expect namespace_of_a_missing_tenant 1 '\(HTTP 404\)' -- namespaces list "missing-$tenant"

# Geo-replication's setup: a remote cluster, allowed by the tenant, named by the namespace.
remote=remote-$$-$RANDOM
expect cluster_create 0 '' -- clusters create "$remote" --url http://127.0.0.1:1 --broker-url pulsar://127.0.0.1:1
expect cluster_get 0 'pulsar://127.0.0.1:1' -- clusters get "$remote"
expect cluster_create_twice_is_a_conflict 1 '\(HTTP 409\)' -- clusters create "$remote" --broker-url pulsar://127.0.0.1:2
expect cluster_update_with_tls_urls 0 '' -- clusters update "$remote" --url-secure https://127.0.0.1:1 \
  --broker-url-secure pulsar+ssl://127.0.0.1:1
expect cluster_get_names_the_tls_url 0 'pulsar\+ssl://127.0.0.1:1' -- clusters get "$remote"
expect cluster_update_without_a_broker_url 1 'broker-url' -- clusters update "$remote" --url http://127.0.0.1:1
expect set_clusters_not_allowed_by_the_tenant 1 '\(HTTP 403\)' -- namespaces set-clusters "$ns" -c "standalone,$remote"
expect tenant_update_allows_the_cluster 0 '' -- tenants update "$tenant" -c "standalone,$remote"
expect set_clusters_of_an_unknown_cluster 1 '\(HTTP 403\)' -- namespaces set-clusters "$ns" -c standalone,nowhere
expect set_clusters 0 '' -- namespaces set-clusters "$ns" -c standalone
expect get_clusters 0 '^standalone$' -- namespaces get-clusters "$ns"
expect cluster_allowed_by_a_tenant_is_not_deleted 1 '\(HTTP 412\)' -- clusters delete "$remote"
expect tenant_update_forgets_the_cluster 0 '' -- tenants update "$tenant" -c standalone
expect cluster_delete 0 '' -- clusters delete "$remote"
expect cluster_is_gone 1 '\(HTTP 404\)' -- clusters get "$remote"

expect topic_create 0 '' -- topics create "$topic"
expect topic_is_listed 0 "^$topic\$" -- topics list "$ns"
expect partitioned_create 0 '' -- topics create-partitioned-topic "$partitioned" -p 3
expect partitioned_metadata 0 '"partitions": 3' -- topics get-partitioned-topic-metadata "$partitioned"
expect partitioned_is_listed 0 "^$partitioned\$" -- topics list-partitioned-topics "$ns"
expect partitions_are_listed 0 "^$partitioned-partition-2\$" -- topics list "$ns"

expect subscription_create 0 '' -- topics create-subscription "$topic" -s sub-1
expect subscription_from_earliest 0 '' -- topics create-subscription "$topic" -s sub-2 -m earliest
expect subscriptions_are_listed 0 '^sub-1$' -- topics subscriptions "$topic"
expect stats_show_the_subscription 0 '"sub-1"' -- topics stats "$topic"
expect internal_stats_are_json 0 '"entriesAddedCounter"' -- topics stats-internal "$topic"
expect partitioned_stats_are_json 0 '^\{' -- topics partitioned-stats "$partitioned"
expect skip 0 '' -- topics skip "$topic" -s sub-1 -n 1
expect clear_backlog 0 '' -- topics clear-backlog "$topic" -s sub-1
expect reset_cursor_by_time 0 '' -- topics reset-cursor "$topic" -s sub-1 --time 10m
expect reset_cursor_by_message_id 0 '' -- topics reset-cursor "$topic" -s sub-1 --messageId earliest
expect unsubscribe 0 '' -- topics unsubscribe "$topic" -s sub-2
expect unsubscribe_missing_gives_the_reason 1 '\(HTTP 404\)' -- topics unsubscribe "$topic" -s sub-2

expect stats_of_a_missing_topic_gives_the_reason 1 '^magnetar admin: .+ \(HTTP 404\)' -- \
  topics stats "persistent://$ns/missing"
expect tenant_with_namespaces_is_not_deleted 1 '\(HTTP 409\)' -- tenants delete "$tenant"

scalable=topic://$ns/orders
expect scalable_create 0 '' -- scalable-topics create "$scalable" -n 2
expect scalable_is_listed 0 "^$scalable\$" -- scalable-topics list "$ns"
expect scalable_layout_shows_segments 0 '"nextSegmentId": 2' -- scalable-topics get "$scalable"
expect scalable_split 0 '' -- scalable-topics split "$scalable" --segment 0
expect scalable_split_of_a_sealed_segment 1 '\(HTTP 412\)' -- scalable-topics split "$scalable" --segment 0
expect scalable_merge_of_non_adjacent 1 'not adjacent' -- scalable-topics merge "$scalable" --segments 2,1
expect scalable_merge 0 '' -- scalable-topics merge "$scalable" --segments 3,1
expect scalable_persistent_name_is_refused 1 'not a scalable topic' -- scalable-topics get "$topic"
expect scalable_delete 0 '' -- scalable-topics delete "$scalable"

expect topic_delete 0 '' -- topics delete "$topic" --force
expect partitioned_delete 0 '' -- topics delete-partitioned-topic "$partitioned" --force
expect namespace_delete 0 '' -- namespaces delete "$ns"
expect tenant_delete 0 '' -- tenants delete "$tenant"
expect tenant_is_gone 0 '' -- tenants list
if "$magnetar" admin --admin-url "$url" tenants list 2>/dev/null | grep -qx "$tenant"; then
  echo "FAIL tenant_is_gone: $tenant is still listed"
  failures=$((failures + 1))
fi

exit $((failures > 0))
