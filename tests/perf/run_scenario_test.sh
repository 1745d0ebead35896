#!/usr/bin/env bash
# End to end: `magnetar-perf run` of the tiny scenario against a standalone of its own.
#   run_scenario_test.sh MAGNETAR_PERF MAGNETAR SCENARIO pass|drop|bad-key|catch-up
# pass:    the run passes, and its report (README.md, index.html, charts) exists;
#          `magnetar-perf report` writes it again; the workloads ran below the launcher's
#          priority.
# catch-up: a scenario with late applications (tiny-catch-up.yaml) passes; every late
#          application joined and caught up, the report's Catch-up section has a row for
#          each, and the broker's cache counters were sampled.
# drop:    the applications forget one received message (--drop-one-message); the run
#          must fail, saying that a message is missing.
# bad-key: an unknown key in the scenario is refused before anything starts, naming it.
set -euo pipefail
perf=$1 magnetar=$2 scenario=$3 mode=$4
reports=$(mktemp -d /tmp/magnetar-perf-e2e.XXXXXX)
trap '[[ -n "${KEEP_REPORTS:-}" ]] || rm -rf "$reports"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

case "$mode" in
  pass)
    "$perf" run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" --progress-interval 2 \
      > "$reports/out.txt" 2>&1 || { cat "$reports/out.txt"; fail "the run failed"; }
    cat "$reports/out.txt"
    run_dir=$(find "$reports" -name run-info.json -printf '%h\n' | head -1)
    [[ -n "$run_dir" ]] || fail "no run directory"
    for f in README.md index.html resolved-config.yaml run-id.txt events.csv topic-stats.csv \
             gateways/gateways-summary.json gateways/gateways-latency.hgrm gateways/gateways-state.bin; do
      [[ -s "$run_dir/$f" ]] || fail "missing $f"
    done
    ls "$run_dir"/applications/*/application-summary.json > /dev/null || fail "no application summary"
    ls "$run_dir"/charts/*.png > /dev/null || fail "no charts"
    grep -q PASSED "$run_dir/README.md" || fail "README.md does not say PASSED"
    grep -q '"passed": true' "$run_dir/run-info.json" || fail "run-info.json does not say passed"
    grep -q "$run_dir" "$reports/out.txt" || fail "the report's path was not printed"
    # The workloads ran 10 nice steps below the launcher (fewer only near nice 19).
    own_nice=$(nice)
    expected_steps=$(( own_nice + 10 > 19 ? 19 - own_nice : 10 ))
    [[ $(jq .workloadNice "$run_dir/run-info.json") == "$expected_steps" ]] || fail "run-info.json's workloadNice is not $expected_steps"
    ! grep -q "could not lower" "$run_dir"/workloads/*.log || fail "a workload could not lower its priority"
    # `report` writes the report again from the run's files.
    rm "$run_dir/README.md" "$run_dir/index.html"
    "$perf" report "$run_dir" > "$reports/report.txt" 2>&1 || { cat "$reports/report.txt"; fail "report failed"; }
    grep -q "$run_dir/index.html" "$reports/report.txt" || fail "report did not print the report's path"
    grep -q PASSED "$run_dir/README.md" || fail "the rewritten README.md does not say PASSED"
    ;;
  catch-up)
    "$perf" run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" --progress-interval 2 \
      > "$reports/out.txt" 2>&1 || { cat "$reports/out.txt"; fail "the run failed"; }
    run_dir=$(find "$reports" -name run-info.json -printf '%h\n' | head -1)
    [[ -n "$run_dir" ]] || fail "no run directory"
    [[ -s "$run_dir/broker-metrics.csv" ]] || fail "no broker-metrics.csv"
    grep -q '^## Catch-up' "$run_dir/README.md" || fail "README.md has no Catch-up section"
    late=0
    for summary in "$run_dir"/applications/*/application-summary.json; do
      sub=$(basename "$(dirname "$summary")")
      join_seconds=$(jq .joinSeconds "$summary")
      (( join_seconds > 0 )) || continue
      late=$((late + 1))
      (( $(jq .joinEpochMillis "$summary") > 0 )) || fail "$sub did not join"
      (( $(jq .caughtUpEpochMillis "$summary") >= $(jq .joinEpochMillis "$summary") )) || fail "$sub did not catch up"
      (( $(jq .messagesWhenCaughtUp "$summary") > 0 )) || fail "$sub caught up with no message"
      grep -q "| \`$sub\` | " "$run_dir/README.md" || fail "the Catch-up section has no row for $sub"
      grep -q "application-joined-$sub" "$run_dir/events.csv" || fail "no join event for $sub"
    done
    (( late == 2 )) || fail "expected 2 late applications, found $late"
    grep -A3 'application-caught-up' "$run_dir/events.csv" > /dev/null || fail "no caught-up event"
    grep -q PASSED "$run_dir/README.md" || fail "README.md does not say PASSED"
    ;;
  drop)
    if "$perf" run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" --drop-one-message \
      > "$reports/out.txt" 2>&1; then
      cat "$reports/out.txt"; fail "a run with a dropped message passed"
    fi
    cat "$reports/out.txt"
    grep -qi "missing" "$reports/out.txt" || fail "the failure does not name the missing message"
    run_dir=$(find "$reports" -name run-info.json -printf '%h\n' | head -1)
    grep -q FAILED "$run_dir/README.md" || fail "README.md does not say FAILED"
    grep -qi "missing" "$run_dir/README.md" || fail "README.md does not give the reason"
    ;;
  bad-key)
    if "$perf" run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" \
      --set workloads.iotTelemetry.gatewayz=3 > "$reports/out.txt" 2>&1; then
      fail "an unknown key was accepted"
    fi
    cat "$reports/out.txt"
    grep -q "gatewayz" "$reports/out.txt" || fail "the error does not name the key"
    [[ -z "$(find "$reports" -name run-info.json)" ]] || fail "a run started despite the bad key"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo PASS
