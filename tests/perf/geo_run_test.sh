#!/usr/bin/env bash
# End to end: geo-replication in a `magnetar-perf run` (issue 27): the tiny scenario with
# the geo-replication overlay, a local and a remote cluster in namespaces of their own.
#   geo_run_test.sh MAGNETAR_PERF MAGNETAR SCENARIO MODE
# run:      tiny-geo.yaml passes: every remote application got every replicated message in
#           order, replication-stats.csv shows a connected replicator, remote-topic-stats.csv
#           the remote subscriptions, the report its Remote applications section, the
#           progress line the remote side; nothing left behind (namespaces, links, processes).
# interrupt: SIGTERM to the launcher once the remote applications are ready: the three
#           workloads and both clusters stop, nothing is left behind.
# refused:  cluster.remote with --service-url: refused with the reason, exit 2 (no
#           namespaces needed).
# Exit 77 (skipped) where network namespaces cannot be made here (run only).
set -euo pipefail
perf=$1 magnetar=$2 scenario=$3 mode=$4
reports=$(mktemp -d /tmp/magnetar-geo-e2e.XXXXXX)
source "$(dirname "$0")/cluster_e2e_lib.sh"

run_args=(run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" --progress-interval 2)

case "$mode" in
  run)
    require_namespaces
    code=0
    "$perf" "${run_args[@]}" > "$reports/out.txt" 2>&1 || code=$?
    cat "$reports/out.txt"
    dir=$(run_dir)
    [[ -n "$dir" ]] || fail "no run directory"
    # Whatever the verdict, the run cleans up after itself.
    nothing_left "$dir"
    (( code == 0 )) || fail "the run failed (exit $code)"
    grep -q PASSED "$reports/out.txt" || fail "no PASSED"
    grep -q 'replication backlog:' "$reports/out.txt" || fail "the progress line lacks the remote side"
    [[ $(jq '.nodes | map(select(.cluster == "remote")) | length' "$dir/cluster.json") -ge 4 ]] ||
      fail "cluster.json lists no remote cluster"
    for summary in "$dir"/remote-applications/*/application-summary.json; do
      [[ -f "$summary" ]] || fail "no remote application summary"
      (( $(jq '.unique' "$summary") > 0 )) || fail "$summary: nothing received"
    done
    [[ $(jq '[.remoteMissingMessages[]] | add' "$dir/run-info.json") == 0 ]] || fail "remote messages missing"
    (( $(wc -l < "$dir/replication-stats.csv") > 1 )) || fail "replication-stats.csv has no row"
    grep -q ',true,' "$dir/replication-stats.csv" || fail "no connected replicator in replication-stats.csv"
    (( $(wc -l < "$dir/remote-topic-stats.csv") > 1 )) || fail "remote-topic-stats.csv has no row"
    grep -q '## Remote applications' "$dir/README.md" || fail "the report has no Remote applications section"
    ;;
  interrupt)
    require_namespaces
    "$perf" "${run_args[@]}" > "$reports/out.txt" 2>&1 &
    launcher_pid=$!
    wait_for_event remote-applications-ready || { cat "$reports/out.txt"; fail "the remote applications never got ready"; }
    kill -TERM "$launcher_pid"
    code=0; wait "$launcher_pid" || code=$?
    launcher_pid=
    cat "$reports/out.txt"
    (( code != 0 )) || fail "an interrupted run passed"
    grep -q 'interrupted' "$reports/out.txt" || fail "the verdict does not say it was interrupted"
    nothing_left "$(run_dir)"
    ;;
  refused)
    code=0
    "$perf" "${run_args[@]}" --service-url pulsar://127.0.0.1:1 --admin-url http://127.0.0.1:1 \
      > "$reports/out.txt" 2>&1 || code=$?
    cat "$reports/out.txt"
    (( code == 2 )) || fail "expected exit 2, got $code"
    grep -q "cluster.remote (geo-replication) starts two clusters" "$reports/out.txt" || fail "no reason given"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "PASS: $mode"
