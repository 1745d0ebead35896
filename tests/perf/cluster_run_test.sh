#!/usr/bin/env bash
# End to end: `magnetar-perf run` on a cluster the launcher starts (tiny-cluster.yaml: 2
# brokers, 3 bookies, 1 ZooKeeper server), and that nothing is left behind after each kind
# of ending.
#   cluster_run_test.sh MAGNETAR_PERF MAGNETAR SCENARIO MODE
# pass:         the run passes; every node ran in its own namespace (checked while it
#               runs, with --leave-running), `cluster down` stops it; nothing left.
# kill-broker:  broker-1 gets SIGKILL during the measurement; the run still passes
#               (nothing acknowledged is lost), records the node's exit; nothing left.
# interrupt:    the launcher gets SIGTERM during the measurement; it stops, says so,
#               and leaves nothing.
# broken-node:  a broker refuses its configuration: the run fails saying why, and the
#               nodes that started are stopped.
# unprivileged: without CAP_NET_ADMIN/CAP_SYS_ADMIN the launcher says so in one line and
#               runs the cluster on 127.0.0.1; the run passes.
# "Nothing left": no namespace of the run, no process of cluster.json alive, no veth in
# the launcher's namespace. Exit 77 (skipped) where namespaces cannot be made here.
set -euo pipefail
perf=$1 magnetar=$2 scenario=$3 mode=$4
reports=$(mktemp -d /tmp/magnetar-cluster-e2e.XXXXXX)
source "$(dirname "$0")/cluster_e2e_lib.sh"
[[ "$mode" == unprivileged ]] || require_namespaces

run_args=(run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" --progress-interval 2)

case "$mode" in
  pass)
    "$perf" "${run_args[@]}" --leave-running > "$reports/out.txt" 2>&1 || { cat "$reports/out.txt"; fail "the run failed"; }
    cat "$reports/out.txt"
    dir=$(run_dir)
    grep -q PASSED "$reports/out.txt" || fail "no PASSED"
    [[ $(jq '.nodes | length' "$dir/cluster.json") == 9 ]] || fail "cluster.json does not list 9 nodes"
    [[ $(jq -r .inNamespaces "$dir/cluster.json") == true ]] || fail "the cluster did not run in namespaces"
    # Every process still runs, each in the namespace cluster.json names.
    for row in $(jq -r '.nodes[] | select(.pid) | "\(.pid)=\(.namespace)"' "$dir/cluster.json"); do
      pid=${row%%=*} ns=${row#*=}
      [[ $(ip netns identify "$pid") == "$ns" ]] || fail "pid $pid is not in $ns"
    done
    grep -q "magnetar-perf cluster down $dir" "$reports/out.txt" || fail "--leave-running did not say how to stop it"
    [[ -s "$dir/gateways/pulsar-client.log.txt" || -f "$dir/gateways/pulsar-client.log.txt" ]] || fail "no pulsar-client.log.txt"
    "$perf" cluster down "$dir" || fail "cluster down failed"
    nothing_left "$dir"
    ;;
  kill-broker)
    "$perf" "${run_args[@]}" > "$reports/out.txt" 2>&1 &
    launcher_pid=$!
    wait_for_event measurement-started || { cat "$reports/out.txt"; fail "the measurement never started"; }
    dir=$(run_dir)
    victim=$(jq -r '.nodes[] | select(.name == "broker-1") | .pid' "$dir/cluster.json")
    kill -KILL "$victim"
    code=0; wait "$launcher_pid" || code=$?
    launcher_pid=
    cat "$reports/out.txt"
    grep -q ',node-exited-broker-1$' "$dir/events.csv" || fail "no node-exited-broker-1 event"
    (( code == 0 )) || fail "the run failed after broker-1 was killed (exit $code)"
    nothing_left "$dir"
    ;;
  interrupt)
    "$perf" "${run_args[@]}" > "$reports/out.txt" 2>&1 &
    launcher_pid=$!
    wait_for_event measurement-started || { cat "$reports/out.txt"; fail "the measurement never started"; }
    kill -TERM "$launcher_pid"
    code=0; wait "$launcher_pid" || code=$?
    launcher_pid=
    cat "$reports/out.txt"
    (( code != 0 )) || fail "an interrupted run passed"
    grep -q "interrupted" "$reports/out.txt" || fail "the launcher did not say it was interrupted"
    nothing_left "$(run_dir)"
    ;;
  unprivileged)
    setpriv --bounding-set=-net_admin,-sys_admin --inh-caps=-net_admin,-sys_admin \
      "$perf" run --scenario "$scenario" --reports-dir "$reports" --magnetar-bin "$magnetar" \
      > "$reports/out.txt" 2>&1 || { cat "$reports/out.txt"; fail "the run failed"; }
    cat "$reports/out.txt"
    dir=$(run_dir)
    [[ $(grep -c "no network namespaces here" "$reports/out.txt") == 1 ]] || fail "the fallback was not said in one line"
    [[ $(jq -r .inNamespaces "$dir/cluster.json") == false ]] || fail "cluster.json says namespaces"
    nothing_left "$dir"
    ;;
  broken-node)
    # A broker that refuses its configuration: the run fails before the workloads, names
    # the broker and the key, and stops the nodes that did start.
    if "$perf" "${run_args[@]}" --set cluster.brokers.env.noSuchBrokerSetting=1 > "$reports/out.txt" 2>&1; then
      cat "$reports/out.txt"; fail "a run whose brokers cannot start passed"
    fi
    cat "$reports/out.txt"
    grep -q "broker-0" "$reports/out.txt" || fail "the failure does not name the broker"
    grep -q "noSuchBrokerSetting" "$reports/out.txt" || fail "the failure does not quote the broker's complaint"
    dir=$(run_dir)
    prefix="mg-$(cut -c1-8 "$dir/run-id.txt")-"
    ! ip netns list | grep -q "^$prefix" || fail "namespaces of the failed run are left"
    ! pgrep -f "$dir/cluster/" > /dev/null || fail "a node of the failed run still runs"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "PASS: $mode"
