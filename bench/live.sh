#!/usr/bin/env bash
# Live graphs against their targets, side by side in one run on the project's throwaway cluster:
#   - per-row reachable() over PAIRS pairs on a graph with PENDING inserted and PENDING deleted
#     edges not yet merged, against the same count on an identical graph with none pending (and
#     the answers checked against a graph built from scratch over the changed rows);
#   - the first statement after the writes (it builds the overlay of the pending changes);
#   - bulk INSERT of BULK rows into an edge table with a live graph, against a table without one;
#   - single-row INSERT latency (pgbench, 1 client, CLIENT_SECONDS) with and without a live graph;
#   - grail.merge_graph() of the pending changes against create_graph over the same rows.
# The graph: a random DAG of VERTICES vertices and EDGES edges (each edge from a smaller id to a
# larger one); the writes: random edges from a smaller id to a larger one (the graph stays a DAG;
# with --cyclic, in random directions, which closes cycles) and random rows deleted. Medians of RUNS.
# Each bulk INSERT goes into a new one-row table (with a new live graph), the two kinds of table
# taking turns, once no background merge runs (the merge that a 1M-row INSERT sets off would
# otherwise run beside the next one), after a checkpoint (no dirty buffers of the last one left to
# write out). --writes-only measures the INSERTs alone.
#   bench/live.sh [--vertices N] [--edges M] [--pending K] [--pairs P] [--bulk B] [--runs R]
#                 [--client-seconds S] [--cyclic] [--writes-only]
set -euo pipefail
cd "$(dirname "$0")/.."
vertices=1000000 edges=5000000 pending=1000 pairs=1000000 bulk=1000000 runs=5 client_seconds=10 cyclic=0 writes_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--vertices) vertices=$2; shift 2 ;;
	--edges) edges=$2; shift 2 ;;
	--pending) pending=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--bulk) bulk=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--client-seconds) client_seconds=$2; shift 2 ;;
	--cyclic) cyclic=1; shift ;;
	--writes-only) writes_only=1; shift ;;
	*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
eval "$(scripts/cluster.sh start)"
db=grail_live_bench
# shellcheck source=bench/common.sh
source bench/common.sh
psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"

P -c "CREATE EXTENSION pg_grail"
if [ "$writes_only" = 0 ]; then
P -c "SELECT setseed(0.17)" \
  -c "CREATE TABLE base_edges AS SELECT s AS source, s + 1 + (random() * ($vertices - s - 1))::bigint AS target
      FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s FROM generate_series(1, $edges)) x" \
  -c "CREATE TABLE pairs AS SELECT (1 + random() * ($vertices - 1))::bigint AS a, (1 + random() * ($vertices - 1))::bigint AS b FROM generate_series(1, $pairs)" \
  -c "CREATE TABLE quiet_edges AS TABLE base_edges" -c "CREATE TABLE live_edges AS TABLE base_edges" \
  -c "VACUUM ANALYZE base_edges, quiet_edges, live_edges, pairs" >/dev/null
P -c "SELECT grail.create_graph('quiet_g', 'quiet_edges')" -c "SELECT grail.create_graph('live_g', 'live_edges')" \
  >/dev/null
if [ "$cyclic" = 1 ]; then
	inserted="SELECT (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint FROM generate_series(1, $pending)"
else
	inserted="SELECT s, s + 1 + (random() * ($vertices - s - 1))::bigint FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s FROM generate_series(1, $pending)) x"
fi
P -c "INSERT INTO live_edges $inserted" \
  -c "DELETE FROM live_edges WHERE ctid IN (SELECT ctid FROM live_edges TABLESAMPLE SYSTEM (1) ORDER BY random() LIMIT $pending)" >/dev/null
first=$(ms -c "SET max_parallel_workers_per_gather = 0" -c "SELECT grail.reachable('live_g', 1, 2)")
P -c "CREATE TABLE rebuilt_edges AS TABLE live_edges" -c "SELECT grail.create_graph('rebuilt_g', 'rebuilt_edges')" >/dev/null

declare -A count answers
for g in quiet live rebuilt; do
	count[$g]=$(for _ in $(seq "$runs"); do
		ms -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM pairs WHERE grail.reachable('${g}_g', a, b)"
	done | median)
done
answers[live]=$(P -c "SELECT count(*) FROM pairs WHERE grail.reachable('live_g', a, b)")
answers[rebuilt]=$(P -c "SELECT count(*) FROM pairs WHERE grail.reachable('rebuilt_g', a, b)")
wrong=$(P -c "SET max_parallel_workers_per_gather = 0" \
	-c "SELECT count(*) FROM pairs WHERE grail.reachable('live_g', a, b) IS DISTINCT FROM grail.reachable('rebuilt_g', a, b)")
pending_rows=$(P -c "SELECT pending_changes FROM grail.graphs WHERE name = 'live_g'")
fi

# Writes: bulk INSERT and single-row INSERT with and without a live graph over the table.
new_tables() {
	P -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS plain_w, live_w" \
	  -c "CREATE TABLE plain_w (source bigint, target bigint)" -c "CREATE TABLE live_w (source bigint, target bigint)" \
	  -c "INSERT INTO plain_w VALUES (1, 2)" -c "INSERT INTO live_w VALUES (1, 2)" \
	  -c "SELECT grail.create_graph('live_w_g', 'live_w')" >/dev/null
	until [ "$(P -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_grail merge worker'")" = 0 ]; do
		sleep 0.2
	done
	P -c "CHECKPOINT"
}
declare -A bulk_ms tps
for _ in $(seq "$runs"); do
	for t in plain live; do
		new_tables
		bulk_ms[$t]+="$(ms -c "INSERT INTO ${t}_w SELECT i, i + 1 FROM generate_series(1, $bulk) i") "
	done
done
for t in plain live; do
	bulk_ms[$t]=$(echo "${bulk_ms[$t]}" | tr ' ' '\n' | grep . | median)
done
new_tables
for t in plain live; do
	echo "INSERT INTO ${t}_w VALUES (random() * 1000000, random() * 1000000);" >/tmp/grail_live_bench_$t.sql
	tps[$t]=$(pgbench -n -c 1 -T "$client_seconds" -f /tmp/grail_live_bench_$t.sql "$db" 2>/dev/null |
		awk -F'= ' '/^latency average/ { split($2, x, " "); print x[1] }')
done

if [ "$writes_only" = 1 ]; then
	echo
	echo "bulk: $bulk rows into a new one-row table; median of $runs"
	printf '| %-58s | %10s | %10s | %7s |\n' "measure" "baseline" "live" "ratio"
	printf '|%s|%s|%s|%s|\n' "------------------------------------------------------------" "------------" "------------" "---------"
	printf '| %-58s | %10s | %10s | %7s |\n' "bulk INSERT of $bulk rows, ms (no graph)" "${bulk_ms[plain]}" "${bulk_ms[live]}" "$(ratio "${bulk_ms[plain]}" "${bulk_ms[live]}")"
	printf '| %-58s | %10s | %10s | %7s |\n' "single-row INSERT latency, ms (pgbench, 1 client)" "${tps[plain]}" "${tps[live]}" "$(ratio "${tps[plain]}" "${tps[live]}")"
	exit 0
fi

# A merge of the pending changes against create_graph over the same rows.
merge=$(ms -c "SELECT grail.merge_graph('live_g')")
create=$(ms -c "SELECT grail.refresh_graph('rebuilt_g')")

echo
echo "graph: random DAG, $vertices vertices, $edges edges; $pending rows inserted ($([ "$cyclic" = 1 ] && echo "random directions" || echo "forward")) and $pending deleted ($pending_rows pending changes); $pairs pairs; median of $runs"
printf '| %-58s | %10s | %10s | %7s |\n' "measure" "baseline" "live" "ratio"
printf '|%s|%s|%s|%s|\n' "------------------------------------------------------------" "------------" "------------" "---------"
printf '| %-58s | %10s | %10s | %7s |\n' "count over the pairs, per-row reachable, ms (none pending)" "${count[quiet]}" "${count[live]}" "$(ratio "${count[quiet]}" "${count[live]}")"
printf '| %-58s | %10s | %10s | %7s |\n' "  the same on a graph built over the changed rows, ms" "${count[rebuilt]}" "${count[live]}" "$(ratio "${count[rebuilt]}" "${count[live]}")"
printf '| %-58s | %10s | %10s | %7s |\n' "first statement after the writes (builds the overlay), ms" "" "$first" ""
printf '| %-58s | %10s | %10s | %7s |\n' "bulk INSERT of $bulk rows, ms (no graph)" "${bulk_ms[plain]}" "${bulk_ms[live]}" "$(ratio "${bulk_ms[plain]}" "${bulk_ms[live]}")"
printf '| %-58s | %10s | %10s | %7s |\n' "single-row INSERT latency, ms (pgbench, 1 client)" "${tps[plain]}" "${tps[live]}" "$(ratio "${tps[plain]}" "${tps[live]}")"
printf '| %-58s | %10s | %10s | %7s |\n' "merge_graph vs create_graph over the same rows, ms" "$create" "$merge" "$(ratio "$create" "$merge")"
echo "answers: live $((answers[live])) reachable, rebuilt ${answers[rebuilt]}; pairs answered differently: $wrong"
[ "$wrong" = 0 ] || { echo "live answers differ from a rebuild" >&2; exit 1; }
