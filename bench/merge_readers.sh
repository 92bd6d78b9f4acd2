#!/usr/bin/env bash
# Merges of a live graph against their targets, on the project's throwaway cluster:
#   - grail.merge_graph() of PENDING inserted and PENDING deleted edges against create_graph over
#     the same rows (a graph that is not live over a copy of the table), with no readers;
#   - readers' answer rate before, during and after the merge: CLIENTS pgbench clients each asking
#     reachable() of one random pair per transaction, sampled every second (pgbench -P 1); the
#     merge (of new changes) starts once the readers have built their overlays and run WARMUP
#     seconds.
# The graph: a random DAG of VERTICES vertices and EDGES edges (each edge from a smaller id to a
# larger one); the writes: random forward edges inserted and random rows deleted. Each of RUNS
# rounds writes new changes and merges them; medians over the rounds.
#   bench/merge_readers.sh [--vertices N] [--edges M] [--pending K] [--clients C] [--warmup S] [--runs R]
set -euo pipefail
cd "$(dirname "$0")/.."
vertices=1000000 edges=5000000 pending=5000 clients=1 warmup=15 runs=3
while [ $# -gt 0 ]; do
	case "$1" in
	--vertices) vertices=$2; shift 2 ;;
	--edges) edges=$2; shift 2 ;;
	--pending) pending=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--warmup) warmup=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
eval "$(scripts/cluster.sh start)"
db=grail_merge_bench
# shellcheck source=bench/common.sh
source bench/common.sh
psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

P -c "CREATE EXTENSION pg_grail" -c "SELECT setseed(0.29)" \
  -c "CREATE TABLE live_edges AS SELECT s AS source, s + 1 + (random() * ($vertices - s - 1))::bigint AS target
      FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s FROM generate_series(1, $edges)) x" \
  -c "CREATE TABLE copy_edges AS TABLE live_edges" -c "VACUUM ANALYZE live_edges, copy_edges" \
  -c "SELECT grail.create_graph('live_g', 'live_edges')" \
  -c "SELECT grail.create_graph('copy_g', 'copy_edges', live => false)" >/dev/null
# The background worker must not take the changes first: off for the run (this cluster's setting).
psql -XAtq -c "ALTER SYSTEM SET grail.merge_threshold = 0" -c "SELECT pg_reload_conf()" >/dev/null
trap 'rm -rf "$work"; psql -XAtq -c "ALTER SYSTEM RESET grail.merge_threshold" -c "SELECT pg_reload_conf()" >/dev/null' EXIT
cat >"$work/read.sql" <<SQL
\\set a random(1, $vertices)
\\set b random(1, $vertices)
SELECT grail.reachable('live_g', :a, :b);
SQL

write_changes() {
	P -c "INSERT INTO live_edges SELECT s, s + 1 + (random() * ($vertices - s - 1))::bigint
	      FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s FROM generate_series(1, $pending)) x" \
	  -c "DELETE FROM live_edges WHERE ctid IN (SELECT ctid FROM live_edges TABLESAMPLE SYSTEM (1) ORDER BY random() LIMIT $pending)" >/dev/null
}

declare -a merge_ms create_ms loaded_merge_ms before during after
for round in $(seq "$runs"); do
	# With no readers: create_graph over a copy of the changed rows, then the merge of the changes.
	write_changes
	P -c "TRUNCATE copy_edges" -c "INSERT INTO copy_edges TABLE live_edges" -c "CHECKPOINT" >/dev/null
	create_ms+=("$(ms -c "SELECT grail.refresh_graph('copy_g')")")
	merge_ms+=("$(ms -c "SELECT grail.merge_graph('live_g')")")
	# New changes, and a merge of them while readers ask: warmup + the merge + 10 s; the merge's
	# start and end in seconds since the readers' start.
	write_changes
	pgbench -n -c "$clients" -j "$clients" -T 600 -P 1 -f "$work/read.sql" "$db" >"$work/pgbench.out" 2>"$work/progress.log" &
	bench=$!
	start=$(date +%s.%N)
	sleep "$warmup"
	m0=$(date +%s.%N)
	loaded_merge_ms+=("$(ms -c "SELECT grail.merge_graph('live_g')")")
	m1=$(date +%s.%N)
	sleep 10
	kill -TERM "$bench" 2>/dev/null || true
	wait "$bench" 2>/dev/null || true
	# progress: T s, X tps, ...: the second ending at T. Before: the 5 s before the merge; during:
	# the seconds whose middle falls inside it; after: from 3 s after it (the readers load the new
	# build).
	read -r b d a < <(awk -v s0="$(awk -v a="$start" -v b="$m0" 'BEGIN { print b - a }')" \
		-v s1="$(awk -v a="$start" -v b="$m1" 'BEGIN { print b - a }')" '
		/^progress:/ { t = $2 + 0; x = $4 + 0
			if (t <= s0 && t > s0 - 5) { bs += x; bn++ }
			else if (t - 0.5 >= s0 && t - 0.5 <= s1) { ds += x; dn++ }
			else if (t - 1 >= s1 + 3) { as += x; an++ } }
		END { printf "%.0f %.0f %.0f\n", bn ? bs / bn : 0, dn ? ds / dn : 0, an ? as / an : 0 }' "$work/progress.log")
	before+=("$b") during+=("$d") after+=("$a")
	echo "round $round: merge ${merge_ms[-1]} ms, create_graph ${create_ms[-1]} ms; with readers: merge ${loaded_merge_ms[-1]} ms, answers/s before $b, during $d, after $a" >&2
done
P -c "TRUNCATE copy_edges" -c "INSERT INTO copy_edges TABLE live_edges" -c "SELECT grail.refresh_graph('copy_g')" >/dev/null
wrong=$(P -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM (SELECT (random() * $vertices)::bigint a, (random() * $vertices)::bigint b FROM generate_series(1, 100000)) p
	WHERE grail.reachable('live_g', a, b) IS DISTINCT FROM grail.reachable('copy_g', a, b)")

m=$(printf '%s\n' "${merge_ms[@]}" | median) c=$(printf '%s\n' "${create_ms[@]}" | median)
b=$(printf '%s\n' "${before[@]}" | median) d=$(printf '%s\n' "${during[@]}" | median) a=$(printf '%s\n' "${after[@]}" | median)
echo
echo "graph: random DAG, $vertices vertices, $edges edges; $pending rows inserted and $pending deleted per round ($((2 * pending)) pending changes); $clients reader(s); median of $runs rounds"
printf '| %-52s | %10s | %10s | %7s |\n' "measure" "baseline" "merge" "ratio"
printf '|%s|%s|%s|%s|\n' "------------------------------------------------------" "------------" "------------" "---------"
printf '| %-52s | %10s | %10s | %7s |\n' "merge_graph vs create_graph over the same rows, ms" "$c" "$m" "$(ratio "$c" "$m")"
printf '| %-52s | %10s | %10s | %7s |\n' "  the merge while the readers ask, ms" "$c" "$(printf '%s\n' "${loaded_merge_ms[@]}" | median)" "$(ratio "$c" "$(printf '%s\n' "${loaded_merge_ms[@]}" | median)")"
printf '| %-52s | %10s | %10s | %7s |\n' "readers' answers/s: before vs during the merge" "$b" "$d" "$(ratio "$b" "$d")"
printf '| %-52s | %10s | %10s | %7s |\n' "readers' answers/s: before vs after the merge" "$b" "$a" "$(ratio "$b" "$a")"
echo "100,000 random pairs after the last merge answered differently from a build of the same rows: $wrong"
[ "$wrong" = 0 ]
