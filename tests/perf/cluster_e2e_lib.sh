# Shared by the launcher's cluster end-to-end tests (sourced, not run): the run directory,
# waiting for its events, cleanup on any exit, and the skip where namespaces cannot be
# made. The caller sets perf (magnetar-perf) and reports (a temporary directory) first.
launcher_pid=
fail() { echo "FAIL: $*" >&2; exit 1; }
run_dir() { find "$reports" -name run-id.txt -printf '%h\n' 2>/dev/null | head -1; }
cleanup() {
  [[ -n "$launcher_pid" ]] && kill -KILL "$launcher_pid" 2>/dev/null || true
  local dir; dir=$(run_dir)
  [[ -n "$dir" && -f "$dir/cluster.json" ]] && "$perf" cluster down "$dir" > /dev/null 2>&1 || true
  [[ -n "${KEEP_REPORTS:-}" ]] || rm -rf "$reports"
}
trap cleanup EXIT

# Exits 77 (CTest's skip) unless this process can make a network namespace.
require_namespaces() {
  if ! ip netns add "mg-e2e-probe-$$" 2> /dev/null; then
    echo "SKIP: network namespaces cannot be made here (needs root or CAP_SYS_ADMIN and CAP_NET_ADMIN)"
    exit 77
  fi
  ip netns delete "mg-e2e-probe-$$" 2> /dev/null || true
}

# Fails unless the run left nothing behind: no namespace of the run, no process of its
# cluster.json (a zombie, reparented and not reaped yet, has ended), no delay forwarder
# or workload of the run, no router link in the launcher's namespace.
nothing_left() {
  local dir=$1 prefix pid state
  prefix="mg-$(cut -c1-8 "$dir/run-id.txt")-"
  if ip netns list | grep -q "^$prefix"; then ip netns list; fail "namespaces of the run are left"; fi
  if [[ -f "$dir/cluster.json" ]]; then
    for pid in $(jq -r '.nodes[].pid // empty' "$dir/cluster.json"); do
      state=$(awk '{print $3}' "/proc/$pid/stat" 2> /dev/null || true)
      [[ -z "$state" || "$state" == Z ]] || fail "process $pid of cluster.json still runs"
    done
  fi
  ! pgrep -f "$dir/cluster/" > /dev/null || fail "a node of the run still runs"
  ! pgrep -f "netem-forward.*$dir" > /dev/null || fail "a delay forwarder of the run still runs"
  ! pgrep -f "iot-(produce|consume).*$dir" > /dev/null || fail "a workload of the run still runs"
  ! ip -o link | grep -q ' v-' || fail "a router link is left in the launcher's namespace"
}

# Waits (up to 120 s) for an event in the run's events.csv, while the launcher runs.
wait_for_event() {
  for _ in $(seq 1200); do
    local dir; dir=$(run_dir)
    [[ -n "$dir" ]] && grep -q ",$1\$" "$dir/events.csv" 2> /dev/null && return 0
    kill -0 "$launcher_pid" 2> /dev/null || return 1
    sleep 0.1
  done
  return 1
}
