#!/usr/bin/env bash
# descendants() and ancestors() of random vertices against what a user would write without them,
# on one random DAG (grail_cli generate dag: the harness's graph), side by side in the same run:
#   - grail.descendants / grail.ancestors of SOURCES random vertices (one statement, a count);
#   - the recursive CTE a user would write (UNION, not UNION ALL, over an indexed edge table),
#     whose counts must agree;
#   - SELECT count(*) over a table holding the same rows (vertex, source, depth): the floor of
#     returning that many rows at all.
# Each is timed in one session after a warm-up run of the same statement (buffers warm, the
# graph's build and its reversed edges loaded in the backend), median of RUNS; the first call of a
# fresh session (which maps the image and, for ancestors, makes the reversed edges) is reported
# too. Uses the project's throwaway cluster (scripts/cluster.sh) and build/grail_cli.
#   bench/traversal.sh [--vertices N] [--degree D] [--sources S] [--runs R] [--seed X]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 degree=5 sources=100 runs=3 seed=42
parse_args "$0 [--vertices N] [--degree D] [--sources S] [--runs R] [--seed X]" vertices degree sources runs seed -- "$@"
cli=${GRAIL_CLI:-build/grail_cli}
[ -x "$cli" ] || { echo "grail_cli not found at $cli (cmake --build build --target grail_cli)" >&2; exit 2; }
eval "$(scripts/cluster.sh start)"
db=grail_traversal_bench
workdir=${TMPDIR:-/tmp}/grail-bench-traversal
mkdir -p "$workdir"
"$cli" generate dag "$vertices" "$degree" "$seed" >"$workdir/edges.txt"

psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
P -c "CREATE EXTENSION pg_grail" \
  -c "CREATE TABLE edges (source bigint, target bigint)" \
  -c "\\copy edges FROM '$workdir/edges.txt' WITH (FORMAT text, DELIMITER ' ')" \
  -c "CREATE INDEX ON edges (source)" -c "CREATE INDEX ON edges (target)" \
  -c "SELECT setseed(0.5)" \
  -c "CREATE TABLE sources AS SELECT v FROM (SELECT source AS v FROM edges UNION SELECT target FROM edges) k ORDER BY random() LIMIT $sources" \
  -c "VACUUM ANALYZE edges, sources" \
  -c "SELECT grail.create_graph('g', 'edges')" \
  -c "CREATE TABLE descendant_rows AS SELECT s.v AS source, d.vertex, d.depth FROM sources s, grail.descendants('g', s.v) d" \
  -c "CREATE TABLE ancestor_rows AS SELECT s.v AS source, a.vertex, a.depth FROM sources s, grail.ancestors('g', s.v) a" \
  -c "VACUUM ANALYZE descendant_rows, ancestor_rows" >/dev/null
rm -f "$workdir/edges.txt"

session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB';"
# The median of `runs` runs of one statement in one session, after a warm-up run of it.
warm() {
	local file=$workdir/statement.sql
	{ echo "$session"; echo '\timing on'; for _ in $(seq $((runs + 1))); do echo "$1;"; done; } >"$file"
	P -f "$file" | awk '/^Time:/ { print $2 }' | tail -n "$runs" | median
}
cold() { ms -c "$session" -c "$1"; }

declare -A grail_q cte_q table_q
grail_q[descendants]="SELECT count(*) FROM sources s, grail.descendants('g', s.v) d"
grail_q[ancestors]="SELECT count(*) FROM sources s, grail.ancestors('g', s.v) a"
cte_q[descendants]="SELECT count(*) FROM sources s CROSS JOIN LATERAL (WITH RECURSIVE r(v) AS (SELECT s.v UNION SELECT e.target FROM r JOIN edges e ON e.source = r.v) SELECT v FROM r) d"
cte_q[ancestors]="SELECT count(*) FROM sources s CROSS JOIN LATERAL (WITH RECURSIVE r(v) AS (SELECT s.v UNION SELECT e.source FROM r JOIN edges e ON e.target = r.v) SELECT v FROM r) a"
table_q[descendants]="SELECT count(*) FROM descendant_rows"
table_q[ancestors]="SELECT count(*) FROM ancestor_rows"

declare -A rows t_grail t_cold t_cte t_table
for fn in descendants ancestors; do
	rows[$fn]=$(P -c "${grail_q[$fn]}")
	cte_rows=$(P -c "$session" -c "${cte_q[$fn]}")
	[ "${rows[$fn]}" = "$cte_rows" ] || { echo "$fn: grail gives ${rows[$fn]} rows, the recursive CTE $cte_rows" >&2; exit 1; }
	t_cold[$fn]=$(cold "${grail_q[$fn]}")
	t_grail[$fn]=$(warm "${grail_q[$fn]}")
	t_cte[$fn]=$(warm "${cte_q[$fn]}")
	t_table[$fn]=$(warm "${table_q[$fn]}")
done
edge_rows=$(P -c "SELECT count(*) FROM edges")

echo
echo "random DAG (grail_cli generate dag $vertices $degree $seed): $edge_rows edges; $sources random vertices; median of $runs warm runs"
printf '| %-12s | %10s | %12s | %12s | %14s | %14s | %10s | %10s |\n' "function" "rows" "grail, ms" "first call" "recursive CTE" "count(*) table" "vs CTE" "vs table"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "--------------" "------------" "--------------" "--------------" "----------------" "----------------" "------------" "------------"
for fn in descendants ancestors; do
	printf '| %-12s | %10s | %12s | %12s | %14s | %14s | %10s | %10s |\n' "$fn" "${rows[$fn]}" "${t_grail[$fn]}" "${t_cold[$fn]}" \
		"${t_cte[$fn]}" "${t_table[$fn]}" "$(ratio "${t_cte[$fn]}" "${t_grail[$fn]}")" "$(ratio "${t_table[$fn]}" "${t_grail[$fn]}")"
done
echo "(vs CTE, vs table: grail's time over theirs; targets <= 0.1 and <= 2)"
