#!/usr/bin/env bash
# End to end: network impairments in a `magnetar-perf run` on the tiny cluster, and the
# engine's own check between real namespaces.
#   network_run_test.sh MAGNETAR_PERF MAGNETAR SCENARIO MODE
# run:        tiny-network.yaml passes; every impairment acted (network-summary.json,
#             network-events.jsonl, the report's section); nothing left behind.
# interrupt:  SIGTERM to the launcher while a timed partition and the whole-run delay act:
#             it stops, and no namespace, forwarder or node process is left.
# refused:    --no-namespaces with a network section: refused with the reason, exit 2.
# check:      `magnetar-perf network-check` passes (ping, iperf3, TCP and UDP between
#             namespaces).
# Exit 77 (skipped) where network namespaces cannot be made here.
set -euo pipefail
perf=$1 magnetar=$2 scenario=$3 mode=$4
reports=$(mktemp -d /tmp/magnetar-network-e2e.XXXXXX)
source "$(dirname "$0")/cluster_e2e_lib.sh"
require_namespaces

run_args=(run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" --progress-interval 2)

case "$mode" in
  run)
    "$perf" "${run_args[@]}" > "$reports/out.txt" 2>&1 || { cat "$reports/out.txt"; fail "the run failed"; }
    cat "$reports/out.txt"
    dir=$(run_dir)
    grep -q PASSED "$reports/out.txt" || fail "no PASSED"
    summary="$dir/network-summary.json"
    [[ -f "$summary" ]] || fail "no network-summary.json"
    for name in wan uplink cut rst nat; do
      [[ $(jq -r ".impairments[] | select(.name == \"$name\") | .state" "$summary") == ended ]] ||
        fail "impairment $name did not act and end: $(jq -c ".impairments[] | select(.name == \"$name\")" "$summary")"
      [[ -n $(jq -c "select(.impairment == \"$name\" and .action == \"applied\")" "$dir/network-events.jsonl") ]] ||
        fail "no applied event for $name"
    done
    # The timed ones acted at their time, after the measurement's start.
    applied=$(jq '.impairments[] | select(.name == "cut") | .appliedMillis' "$summary")
    (( applied >= 1900 && applied <= 4000 )) || fail "cut applied at $applied ms, not about 2000"
    (( $(jq '.impairments[] | select(.name == "rst") | .matchedConnections' "$summary") >= 1 )) ||
      fail "the reset found no connection"
    (( $(jq '.impairments[] | select(.name == "wan") | .forwarder.packets' "$summary") > 0 )) ||
      fail "the delay forwarder passed no packet"
    grep -q ',network-applied-cut$' "$dir/events.csv" || fail "events.csv lacks network-applied-cut"
    grep -q '## Network conditions' "$dir/README.md" || fail "the report has no Network conditions section"
    nothing_left "$dir"
    ;;
  interrupt)
    "$perf" "${run_args[@]}" > "$reports/out.txt" 2>&1 &
    launcher_pid=$!
    wait_for_event network-applied-cut || { cat "$reports/out.txt"; fail "the partition never acted"; }
    kill -TERM "$launcher_pid"
    code=0; wait "$launcher_pid" || code=$?
    launcher_pid=
    cat "$reports/out.txt"
    (( code != 0 )) || fail "an interrupted run passed"
    dir=$(run_dir)
    [[ -n $(jq -c 'select(.action == "removed")' "$dir/network-events.jsonl") ]] || fail "no impairment was removed"
    nothing_left "$dir"
    ;;
  refused)
    code=0
    "$perf" "${run_args[@]}" --no-namespaces > "$reports/out.txt" 2>&1 || code=$?
    cat "$reports/out.txt"
    (( code == 2 )) || fail "expected exit 2, got $code"
    grep -q "network section needs the cluster in network namespaces" "$reports/out.txt" || fail "no reason given"
    ;;
  check)
    "$perf" network-check > "$reports/out.txt" 2>&1 || { cat "$reports/out.txt"; fail "network-check failed"; }
    cat "$reports/out.txt"
    ! ip netns list | grep -q "^mgck-" || fail "network-check left namespaces"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "PASS: $mode"
