#!/usr/bin/env bash
# A reader beside a writer on a live graph, as a user would try it with pgbench: one client asking
# reachable() of one random pair per statement on a random graph of VERTICES vertices and EDGES
# edges, SECONDS alone, then SECONDS beside a second client inserting single rows as fast as it
# goes. The reader's latencies per statement (pgbench -l): median and 99th percentile, alone and
# beside the writer, and their ratios; the writer's rate; the merges that ran (grail.graphs).
# grail.merge_threshold as the cluster has it (--merge-threshold sets it for the run and resets it
# after). The reader's backend's time on a CPU and waiting for one (/proc/PID/schedstat, Linux),
# alone and beside the writer. --keep DIR keeps the reader's pgbench logs (DIR/alone, DIR/beside),
# the writer's output and, with --causes, each statement's latency beside its overlay line
# (DIR/paired); READER_PGOPTIONS, the reader's session settings (e.g. "-c client_min_messages=error
# -c log_min_messages=debug1" for the overlay's line per statement).
# --reader floor runs a reader that asks no graph (SELECT :a = :b, one random pair a statement)
# under the same writer and merges: what any statement's latency does beside this writer on this
# machine (its CPUs shared with the writer, its client and the merge worker). --reader static asks
# reachable() of a second graph over a copy of the rows that nobody writes: the same statement
# with no pending changes, so what the writer's graph costs a reader beyond sharing the CPUs. --causes 1 logs the
# reader's overlay line per statement (log_min_messages = debug1) and sums up its statements beside
# the writer by how each came by its overlay (kept, extended, carried across a build, made again):
# how many, their log rows, time and CPU time, records widened, and how many took over 1.5 ms; then
# the slowest 1% and 2% of its statements (pgbench's latency, each paired with its own line) by
# cause, with the part that getting the overlay took and, of its CPU time, reading the log. Counts
# of slow statements by cause move less with the machine's load than the percentiles do.
# Runs on the project's throwaway cluster (scripts/cluster.sh).
#   bench/live_pgbench.sh [--vertices N] [--edges M] [--seconds S] [--merge-threshold T] [--keep DIR]
#                         [--reader reachable|floor|static] [--causes 1]
set -euo pipefail
cd "$(dirname "$0")/.."
vertices=200000 edges=1000000 seconds=60 merge_threshold= keep= reader=reachable causes=
# shellcheck source=bench/common.sh
source bench/common.sh
parse_args "bench/live_pgbench.sh [--vertices N] [--edges M] [--seconds S] [--merge-threshold T] [--keep DIR] [--reader reachable|floor|static] [--causes 1]" \
	vertices edges seconds merge_threshold keep reader causes -- "$@"
case $reader in
reachable) question="SELECT grail.reachable('g', :a, :b);" ;;
floor) question="SELECT :a = :b;" ;;
static) question="SELECT grail.reachable('unwritten', :a, :b);" ;;
*) echo "--reader: reachable, floor or static, not $reader" >&2 && exit 2 ;;
esac
eval "$(scripts/cluster.sh start)"
server_log=${GRAIL_PG_ROOT:-/tmp/pg_grail_cluster}/server.log
[ -z "$causes" ] || READER_PGOPTIONS="${READER_PGOPTIONS:-} -c client_min_messages=error -c log_min_messages=debug1"
db=grail_live_pgbench
work=$(mktemp -d)
cleanup() {
	if [ -n "$keep" ]; then
		mkdir -p "$keep" && cp -r "$work"/alone "$work"/beside "$work"/paired "$keep"/ 2>/dev/null || true
		cp "$work"/writer.out "$keep"/ 2>/dev/null || true
	fi
	rm -rf "$work"
	[ -z "$merge_threshold" ] || psql -XAtq -c "ALTER SYSTEM RESET grail.merge_threshold" -c "SELECT pg_reload_conf()" >/dev/null
}
trap cleanup EXIT
if [ -n "$merge_threshold" ]; then
	psql -XAtq -c "ALTER SYSTEM SET grail.merge_threshold = $merge_threshold" -c "SELECT pg_reload_conf()" >/dev/null
fi
psql -XAtq -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db"
P -c "CREATE EXTENSION pg_grail" -c "SELECT setseed(0.31)" \
  -c "CREATE TABLE edges AS SELECT s AS source, s + 1 + (random() * ($vertices - s - 1))::bigint AS target
      FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s FROM generate_series(1, $edges)) x" \
  -c "VACUUM ANALYZE edges" -c "SELECT grail.create_graph('g', 'edges')" >/dev/null
[ "$reader" != static ] || P -c "CREATE TABLE unwritten_edges AS TABLE edges" -c "VACUUM ANALYZE unwritten_edges" \
	-c "SELECT grail.create_graph('unwritten', 'unwritten_edges')" >/dev/null
cat >"$work/reader.sql" <<EOF
\\set a random(1, $vertices)
\\set b random(1, $vertices)
$question
EOF
cat >"$work/writer.sql" <<EOF
\\set s random(1, $((vertices - 1)))
\\set t random(:s + 1, $vertices)
INSERT INTO edges VALUES (:s, :t);
EOF
# Latencies in ms of the reader's statements, from pgbench's log (column 3, microseconds).
percentile() { awk '{ print $3 / 1000 }' "$1"/reader_log.* | sort -g | awk -v p="$2" '{ v[NR] = $1 } END { i = int(NR * p); if (i < 1) i = 1; print v[i] }'; }
# The reader's backend's /proc/PID/schedstat (ns on a CPU, ns waiting for one, time slices), last
# read while it runs, into $work/$1/schedstat.
watch_reader() {
	local pid=
	while [ -z "$pid" ]; do
		sleep 0.2
		pid=$(psql -XAtq -d "$db" -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'grail_reader' LIMIT 1")
	done
	while cat "/proc/$pid/schedstat" >"$work/$1/schedstat.next" 2>/dev/null; do
		mv "$work/$1/schedstat.next" "$work/$1/schedstat"
		sleep 0.5
	done
}
run_reader() {
	mkdir -p "$work/$1"
	watch_reader "$1" &
	local watcher=$!
	(cd "$work/$1" && PGAPPNAME=grail_reader PGOPTIONS="${READER_PGOPTIONS:-${PGOPTIONS:-}}" pgbench -n -c 1 -T "$seconds" -l --log-prefix=reader_log -f "$work/reader.sql" "$db" >/dev/null 2>&1)
	wait "$watcher" 2>/dev/null || true
}
# The reader backend's seconds on a CPU and waiting for one.
sched() { [ -f "$work/$1/schedstat" ] && awk -v f="$2" '{ printf "%.1f", $f / 1e9 }' "$work/$1/schedstat" || echo -; }
P -c "SELECT grail.reachable('g', 1, 2)" >/dev/null # the image into the shared cache
[ "$reader" != static ] || P -c "SELECT grail.reachable('unwritten', 1, 2)" >/dev/null
run_reader alone
merges_before=$(P -c "SELECT merge_count + background_merge_count FROM grail.graphs WHERE name = 'g'")
(cd "$work" && pgbench -n -c 1 -T "$seconds" -f "$work/writer.sql" "$db" >"$work/writer.out" 2>&1) &
writer=$!
log_from=$(($(stat -c %s "$server_log" 2>/dev/null || echo 0) + 1))
run_reader beside
wait "$writer"
merges=$(( $(P -c "SELECT merge_count + background_merge_count FROM grail.graphs WHERE name = 'g'") - merges_before ))
writes=$(awk -F'= ' '/^tps/ { split($2, x, " "); print x[1]; exit }' "$work/writer.out")
declare -A median p99
for run in alone beside; do
	median[$run]=$(percentile "$work/$run" 0.5)
	p99[$run]=$(percentile "$work/$run" 0.99)
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "graph: random DAG, $vertices vertices, $edges edges; ${seconds} s each; writer: $writes single-row INSERTs/s, $merges merges during the run"
printf '| %-44s | %9s | %9s | %7s |\n' "reader's statement ($reader), ms" "alone" "beside" "ratio"
printf '|%s|%s|%s|%s|\n' "----------------------------------------------" "-----------" "-----------" "---------"
printf '| %-44s | %9s | %9s | %7s |\n' "median" "${median[alone]}" "${median[beside]}" "$(ratio "${median[alone]}" "${median[beside]}")"
printf '| %-44s | %9s | %9s | %7s |\n' "99th percentile" "${p99[alone]}" "${p99[beside]}" "$(ratio "${p99[alone]}" "${p99[beside]}")"
printf '| %-44s | %9s | %9s | %7s |\n' "reader backend on a CPU, s" "$(sched alone 1)" "$(sched beside 1)" ""
printf '| %-44s | %9s | %9s | %7s |\n' "reader backend waiting for a CPU, s" "$(sched alone 2)" "$(sched beside 2)" ""
printf '| %-44s | %9s | %9s | %7s |\n' "statements" "$(cat "$work"/alone/reader_log.* | wc -l)" "$(cat "$work"/beside/reader_log.* | wc -l)" ""
if [ -n "$causes" ]; then
	# The reader's overlay lines beside the writer, one a statement in the order it ran them, as
	# cause|log rows|overlay ms|overlay CPU ms|records widened|edges left unwidened|of the CPU ms, reading
	# the log.
	tail -c "+$log_from" "$server_log" | grep 'pg_grail overlay of graph' |
		sed -E 's/.*overlay of graph [0-9]+: (.*), ([0-9]+) log rows read, ([0-9.]+) ms, ([0-9.]+) ms on the CPU \(([0-9.]+) reading the log\), ([0-9]+) records widened, ([0-9]+) edges left unwidened.*/\1|\2|\3|\4|\6|\7|\5/; s/across build [0-9]+/across a build/' >"$work/causes"
	echo
	printf '| %-44s | %9s | %9s | %9s | %9s | %9s | %9s |\n' "reader's statements beside, by overlay" "count" "log rows" "ms" "CPU ms" "widened" "> 1.5 ms"
	printf '|%s|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------" "-----------" "-----------" "-----------" "-----------" "-----------" "-----------"
	awk -F'|' '{ n[$1]++; r[$1] += $2; w[$1] += $3; c[$1] += $4; g[$1] += $5; if ($3 > 1.5) s[$1]++ }
		END { for (k in n) printf "| %-44s | %9d | %9.1f | %9.3f | %9.3f | %9.0f | %9d |\n", k, n[k], r[k] / n[k], w[k] / n[k], c[k] / n[k], g[k] / n[k], s[k] }' "$work/causes" | sort
	# The slowest statements (pgbench's latency), each beside its own overlay line (the n-th
	# statement's is the n-th line): by cause, how many, their latency, and the part of it that
	# getting the overlay took (on a CPU and in all); the rest is the query and waiting for a CPU.
	statements=$(cat "$work"/beside/reader_log.* | wc -l)
	[ "$statements" -eq "$(wc -l <"$work/causes")" ] ||
		echo "(statements $statements, overlay lines $(wc -l <"$work/causes"): paired in order all the same)"
	awk '{ print $3 / 1000 }' "$work"/beside/reader_log.* | paste -d'|' - "$work/causes" >"$work/paired"
	for share in 0.01 0.02; do
		slow=$(awk -v s="$share" -v n="$statements" 'BEGIN { k = int(n * s); print k < 1 ? 1 : k }')
		echo
		printf '| %-44s | %9s | %9s | %9s | %9s | %9s | %9s | %9s |\n' "slowest $(awk -v s="$share" 'BEGIN { print s * 100 }')% ($slow statements) by overlay" "count" "ms" "overlay ms" "its CPU" "log rows" "widened" "read CPU"
		printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------" "-----------" "-----------" "-----------" "-----------" "-----------" "-----------" "-----------"
		sort -t'|' -k1,1gr "$work/paired" | head -n "$slow" |
			awk -F'|' '{ n[$2]++; l[$2] += $1; w[$2] += $4; c[$2] += $5; r[$2] += $3; g[$2] += $6; d[$2] += $8 }
				END { for (k in n) printf "| %-44s | %9d | %9.3f | %9.3f | %9.3f | %9.1f | %9.0f | %9.3f |\n", k, n[k], l[k] / n[k], w[k] / n[k], c[k] / n[k], r[k] / n[k], g[k] / n[k], d[k] / n[k] }' | sort -t'|' -k3,3nr
	done
fi
