#!/usr/bin/env bash
# What rows cost: set-returning functions against generate_series() of as many rows, and batched
# reachable() against a scan of the same arrays, side by side in the same session (each run of a
# function followed by its floor, after a warm-up of both), median of RUNS:
#   - count(*) FROM grail.bfs(g, hub), descendants, ancestors (hub: the vertex of most out-edges)
#     against count(*) FROM generate_series(1, n), n the rows each gives;
#   - count(*) FROM grail.scc_components(g) against generate_series(1, vertices);
#   (each in elapsed time and in the backend's own CPU time, which a busy machine disturbs less;)
#   - reachable(g, a[], b[]) over PAIRS random pairs of vertices under grail.device = cpu against
#     count(*) FROM unnest(a, b) x(a, b) WHERE x.a = x.b over the same arrays; the engine's own
#     time (label filters and searches, from the function's DEBUG1 line) reported apart.
# The graph: grail_cli generate rmat SCALE EDGE_FACTOR SEED loaded into a bigint edge table.
# Uses the project's throwaway cluster (scripts/cluster.sh) and build/grail_cli; --reuse keeps the
# database of an earlier run with the same graph.
#   bench/rows.sh [--scale S] [--edge-factor E] [--seed X] [--pairs P] [--runs R] [--reuse]
set -euo pipefail
cd "$(dirname "$0")/.."
scale=20 edge_factor=16 seed=1 pairs=1000000 runs=5 reuse=0
while [ $# -gt 0 ]; do
	case "$1" in
	--scale) scale=$2; shift 2 ;;
	--edge-factor) edge_factor=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--reuse) reuse=1; shift ;;
	*) echo "usage: $0 [--scale S] [--edge-factor E] [--seed X] [--pairs P] [--runs R] [--reuse]" >&2; exit 2 ;;
	esac
done
cli=${GRAIL_CLI:-build/grail_cli}
[ -x "$cli" ] || { echo "grail_cli not found at $cli (cmake --build build --target grail_cli)" >&2; exit 2; }
eval "$(scripts/cluster.sh start)"
db=grail_rows_bench_${scale}_${edge_factor}_${seed}_${pairs}
# shellcheck source=bench/common.sh
source bench/common.sh
workdir=${TMPDIR:-/tmp}/grail-bench-rows
mkdir -p "$workdir"

if [ $reuse -eq 0 ] || [ -z "$(psql -XAtq -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
	"$cli" generate rmat "$scale" "$edge_factor" "$seed" >"$workdir/edges.txt"
	psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	P -c "CREATE EXTENSION pg_grail" \
	  -c "CREATE TABLE edges (source bigint, target bigint)" \
	  -c "\\copy edges FROM '$workdir/edges.txt' WITH (FORMAT text, DELIMITER ' ')" \
	  -c "VACUUM ANALYZE edges" \
	  -c "SELECT grail.create_graph('g', 'edges')" \
	  -c "CREATE TABLE hub AS SELECT source AS v FROM edges GROUP BY source ORDER BY count(*) DESC, source LIMIT 1" \
	  -c "CREATE TABLE vertices AS SELECT row_number() OVER (ORDER BY v) AS i, v FROM (SELECT source AS v FROM edges UNION SELECT target FROM edges) k" \
	  -c "CREATE UNIQUE INDEX ON vertices (i)" \
	  -c "SELECT setseed(0.25)" \
	  -c "CREATE TABLE picks AS SELECT g, 1 + floor(random() * (SELECT count(*) FROM vertices))::bigint AS ia, 1 + floor(random() * (SELECT count(*) FROM vertices))::bigint AS ib FROM generate_series(1, $pairs) g" \
	  -c "CREATE TABLE arrays AS SELECT array_agg(va.v ORDER BY p.g) AS a, array_agg(vb.v ORDER BY p.g) AS b FROM picks p JOIN vertices va ON va.i = p.ia JOIN vertices vb ON vb.i = p.ib" \
	  -c "VACUUM ANALYZE hub, arrays" >/dev/null
	rm -f "$workdir/edges.txt"
fi
hub=$(P -c "SELECT v FROM hub")
session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET grail.device = cpu;"

# Times of `runs` runs of statement A each followed by statement B, in one session after a warm-up
# of both: "A_ms B_ms A_cpu_ms B_cpu_ms" medians. The CPU times are the backend's own (the first
# field of /proc/PID/schedstat before and after each statement, the server being local), which a
# busy machine disturbs far less than the elapsed times; "-" where that file cannot be read.
paired() {
	local file=$workdir/statement.sql cpu=$workdir/cpu.txt
	rm -f "$cpu"
	{
		echo "$session"
		echo "SELECT pg_backend_pid() AS bpid \\gset"
		echo "\\setenv BPID :bpid"
		echo "$1;"
		echo "$2;"
		echo '\timing on'
		for _ in $(seq "$runs"); do
			for s in "$1" "$2"; do
				echo "\\! cut -d' ' -f1 /proc/\$BPID/schedstat >>$cpu 2>/dev/null"
				echo "$s;"
				echo "\\! cut -d' ' -f1 /proc/\$BPID/schedstat >>$cpu 2>/dev/null"
			done
		done
	} >"$file"
	local times cpus
	times=$(P -f "$file" 2>"$workdir/stderr" | awk '/^Time:/ { print $2 }')
	# Pairs of lines (before, after) per statement, A and B alternating.
	cpus=$(awk 'NR % 2 == 1 { b = $1 } NR % 2 == 0 { printf "%.2f\n", ($1 - b) / 1e6 }' "$cpu" 2>/dev/null)
	local a_cpu=- b_cpu=-
	if [ "$(echo "$cpus" | grep -c .)" -eq $((2 * runs)) ]; then
		a_cpu=$(echo "$cpus" | awk 'NR % 2 == 1' | median) b_cpu=$(echo "$cpus" | awk 'NR % 2 == 0' | median)
	fi
	echo "$(echo "$times" | awk 'NR % 2 == 1' | median) $(echo "$times" | awk 'NR % 2 == 0' | median) $a_cpu $b_cpu"
}

declare -a names rows fn_ms floor_ms fn_cpu floor_cpu
row() {
	names+=("$1")
	rows+=("$2")
	read -r f b fc bc <<<"$3"
	fn_ms+=("$f")
	floor_ms+=("$b")
	fn_cpu+=("$fc")
	floor_cpu+=("$bc")
}
for fn in bfs descendants ancestors; do
	n=$(P -c "$session" -c "SELECT count(*) FROM grail.$fn('g', $hub)")
	row "count(*) FROM $fn(g, hub)" "$n" "$(paired "SELECT count(*) FROM grail.$fn('g', $hub)" "SELECT count(*) FROM generate_series(1, $n)")"
done
n=$(P -c "SELECT count(*) FROM grail.scc_components('g')")
row "count(*) FROM scc_components(g)" "$n" "$(paired "SELECT count(*) FROM grail.scc_components('g')" "SELECT count(*) FROM generate_series(1, $n)")"
row "reachable(g, a[], b[]), device cpu" "$pairs" "$(paired "SET client_min_messages = debug1; SELECT cardinality(grail.reachable('g', a, b)) FROM arrays" "SELECT count(*) FROM arrays, unnest(a, b) x(a, b) WHERE x.a = x.b")"
# The engine's share of reachable() (label filters and searches): its DEBUG1 lines of those runs.
engine=$(sed -n 's/.*grail.reachable: .*engine \([0-9.]*\) ms.*/\1/p' "$workdir/stderr" | tail -n "$runs" | median)
searched=$(sed -n 's/.*grail.reachable: [0-9]* pairs, \([0-9]*\) searched.*/\1/p' "$workdir/stderr" | tail -1)
echo
echo "graph: R-MAT $scale-$edge_factor (seed $seed), $(P -c "SELECT count(*) FROM edges") edge rows, hub $hub; median of $runs, each run next to its floor"
printf '| %-38s | %9s | %9s | %9s | %6s | %9s | %9s | %6s |\n' "function" "rows" "ms" "floor ms" "ratio" "cpu ms" "floor cpu" "ratio"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------" "-----------" "-----------" "-----------" "--------" "-----------" "-----------" "--------"
for i in "${!names[@]}"; do
	printf '| %-38s | %9s | %9s | %9s | %6s | %9s | %9s | %6s |\n' "${names[$i]}" "${rows[$i]}" "${fn_ms[$i]}" "${floor_ms[$i]}" \
		"$(ratio "${floor_ms[$i]}" "${fn_ms[$i]}")" "${fn_cpu[$i]}" "${floor_cpu[$i]}" "$(ratio "${floor_cpu[$i]}" "${fn_cpu[$i]}")"
done
echo "floor: count(*) FROM generate_series(1, rows); for reachable, count(*) FROM unnest(a, b) WHERE a = b"
echo "cpu: the backend's CPU time of the statement (/proc/PID/schedstat), medians; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "reachable(): engine (label filters and $searched searches) $engine ms of the call"
