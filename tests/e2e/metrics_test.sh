#!/usr/bin/env bash
# After a short magnetar-perf run, the topic's stats (admin API) and /metrics show the
# traffic under Pulsar's names. Runs inside with_standalone.sh.
# Usage: metrics_test.sh <path to magnetar> <path to magnetar-perf>
set -uo pipefail
magnetar=$1
perf=$2
failures=0
check() {  # check <name> <regex> <text>
  if grep -Eq -- "$2" <<<"$3"; then echo "ok   $1"; else echo "FAIL $1: no /$2/"; failures=$((failures + 1)); fi
}

"$perf" pubsub -u "$MAGNETAR_SERVICE_URL" -t metrics-topic -s 100 -d 2 -r 2000 >/dev/null || { echo "FAIL perf run"; exit 1; }
stats=$("$magnetar" admin --admin-url "$MAGNETAR_WEB_URL" topics stats metrics-topic)
check stats_counts_messages_in '"msgInCounter": [1-9]' "$stats"
check stats_counts_messages_out '"msgOutCounter": [1-9]' "$stats"
check stats_lists_the_subscription '"perf-sub"' "$stats"
check stats_reports_storage '"storageSize": [1-9]' "$stats"
internal=$("$magnetar" admin --admin-url "$MAGNETAR_WEB_URL" topics stats-internal metrics-topic)
check internal_stats_list_ledgers '"ledgers"' "$internal"
check internal_stats_list_the_cursor '"perf-sub"' "$internal"
metrics=$(curl -sf "$MAGNETAR_WEB_URL/metrics")
check metrics_have_messages_in 'pulsar_in_messages_total\{[^}]*topic="persistent://public/default/metrics-topic"[^}]*\} [1-9]' "$metrics"
check metrics_have_storage_size 'pulsar_storage_size\{[^}]*metrics-topic' "$metrics"
check metrics_have_the_subscription_backlog 'pulsar_subscription_back_log\{[^}]*subscription="perf-sub"' "$metrics"
check metrics_count_connections 'pulsar_connection_created_total_count\{[^}]*\} [1-9]' "$metrics"
[[ $failures -eq 0 ]]
