#!/usr/bin/env bash
# The questions a user asks next, against what that user would write without pg_grail, side by side
# in the same run (ratios only: the machine may be shared), on four graphs of VERTICES vertices:
#   dag    a random DAG (DAG_DEGREE edges per vertex, each from the smaller to the larger id)
#   local  a deep local DAG (DEGREE edges per vertex i, to i + 1 .. i + SPAN: depth about n / SPAN)
#   rmat   R-MAT (grail_cli generate rmat, edge factor DEGREE; cycles, a giant component)
#   text   the random DAG again with text keys ('v' || id)
# For each graph:
#   - descendants() and ancestors() of SOURCES random vertices (a count over them) vs the recursive
#     CTE a user would write (UNION, over an edge table indexed both ways; counts must agree) and vs
#     SELECT count(*) over a table holding the same rows (targets <= 0.1x and <= 2x), and vs the
#     same count of rows from generate_series(1, n) joined to a table of each source's n: what any
#     set-returning function in FROM pays for its rows (a tuplestore, the function scan), the floor
#     of a function's rows where the table's count pays none of it;
#   - path() for PAIRS random reachable pairs (the sum of their lengths) vs reachable() over the same
#     pairs plus returning each path's length (reachable() per row over a table that holds each
#     pair's path, summing their cardinalities; target <= 2x), vs reachable() alone (a count), and
#     vs pgRouting's pgr_dijkstra (unit costs, directed) where
#     it is installed, over the first PGR_PAIRS of those pairs (0: none), per pair (target <=
#     0.01x); the lengths must agree;
#   - the planner's row estimate for a reachable() join over 10,000 random pairs vs the actual rows
#     (target within 10x).
# Each timing: the median of RUNS runs in one session after a warm-up run of the same statement.
# Uses the project's throwaway cluster (scripts/cluster.sh) and build/grail_cli (for R-MAT).
#   bench/questions.sh [--vertices N] [--degree D] [--dag_degree D] [--span S] [--sources S] [--pairs P]
#                      [--pgr_pairs Q] [--runs R] [--cte_runs C] [--graphs "dag local rmat text"]
# (cte_runs: the recursive CTE's runs, RUNS unless given, without a warm-up run: on a 1M-vertex
# graph one run of it over 100 sources takes many minutes; 0 leaves the CTE out.)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 degree=2 dag_degree=5 span=64 sources=100 pairs=1000 pgr_pairs=20 runs=3 cte_runs= graphs="dag local rmat text"
parse_args "$0 [--vertices N] [--degree D] [--dag_degree D] [--span S] [--sources S] [--pairs P] [--pgr_pairs Q] [--runs R] [--cte_runs C] [--graphs LIST]" \
	vertices degree dag_degree span sources pairs pgr_pairs runs cte_runs graphs -- "$@"
cte_runs=${cte_runs:-$runs}
cli=${GRAIL_CLI:-build/grail_cli}
eval "$(scripts/cluster.sh start)"
db=grail_questions_bench
workdir=${TMPDIR:-/tmp}/grail-bench-questions
mkdir -p "$workdir"
psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
P -c "CREATE EXTENSION pg_grail" >/dev/null
pgr=$(P -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pgrouting'")
[ "$pgr" = 1 ] && P -c "CREATE EXTENSION pgrouting CASCADE" >/dev/null

session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB';"
# The median of `runs` runs of one statement in one session, after a warm-up run of it.
warm() {
	local file=$workdir/statement.sql
	{ echo "$session"; echo '\timing on'; for _ in $(seq $((runs + 1))); do echo "$1;"; done; } >"$file"
	P -f "$file" | awk '/^Time:/ { print $2 }' | tail -n "$runs" | median
}

make_graph() { # name -> table e_NAME (id, source, target), graph NAME
	local g=$1 key=bigint
	case $g in
	dag | text)
		P -c "SELECT setseed(0.11)" -c "CREATE TABLE e_$g AS SELECT least(x, y) AS source, greatest(x, y) AS target FROM (
		        SELECT (1 + random() * ($vertices - 1))::bigint AS x, (1 + random() * ($vertices - 1))::bigint AS y
		        FROM generate_series(1, $dag_degree * $vertices)) r WHERE x <> y" >/dev/null
		;;
	local)
		P -c "SELECT setseed(0.12)" -c "CREATE TABLE e_$g AS SELECT i AS source, i + 1 + (random() * ($span - 1))::bigint AS target
		        FROM generate_series(1, $vertices) i, generate_series(1, $degree) k WHERE i + $span <= $vertices" >/dev/null
		;;
	rmat)
		[ -x "$cli" ] || { echo "grail_cli not found at $cli (cmake --build build --target grail_cli)" >&2; exit 2; }
		local scale
		scale=$(awk -v n="$vertices" 'BEGIN { s = 0; while (2 ^ s < n) s++; print s }')
		"$cli" generate rmat "$scale" "$degree" 13 >"$workdir/edges.txt"
		P -c "CREATE TABLE e_$g (source bigint, target bigint)" \
		  -c "\\copy e_$g FROM '$workdir/edges.txt' WITH (FORMAT text, DELIMITER ' ')" >/dev/null
		rm -f "$workdir/edges.txt"
		;;
	esac
	if [ "$g" = text ]; then
		key=text
		P -c "ALTER TABLE e_text ALTER source TYPE text USING 'v' || source, ALTER target TYPE text USING 'v' || target" >/dev/null
	fi
	P -c "ALTER TABLE e_$g ADD COLUMN id bigserial" \
	  -c "CREATE INDEX ON e_$g (source)" -c "CREATE INDEX ON e_$g (target)" \
	  -c "VACUUM ANALYZE e_$g" \
	  -c "SELECT grail.create_graph('$g', 'e_$g')" \
	  -c "SELECT setseed(0.5)" \
	  -c "CREATE TABLE s_$g AS SELECT v FROM (SELECT source AS v FROM e_$g UNION SELECT target FROM e_$g) k ORDER BY random() LIMIT $sources" \
	  -c "CREATE TABLE d_$g AS SELECT s.v AS source, d.vertex, d.depth FROM s_$g s, grail.descendants('$g', s.v) d" \
	  -c "CREATE TABLE a_$g AS SELECT s.v AS source, a.vertex, a.depth FROM s_$g s, grail.ancestors('$g', s.v) a" \
	  -c "CREATE TABLE nd_$g AS SELECT source, count(*) AS n FROM d_$g GROUP BY source" \
	  -c "CREATE TABLE na_$g AS SELECT source, count(*) AS n FROM a_$g GROUP BY source" \
	  -c "CREATE TABLE c_$g AS SELECT x.v AS a, y.v AS b FROM
	        (SELECT v, row_number() OVER () AS i FROM (SELECT v FROM (SELECT source AS v FROM e_$g UNION SELECT target FROM e_$g) k ORDER BY random() LIMIT 40 * $pairs) z) x
	        JOIN (SELECT v, row_number() OVER () AS i FROM (SELECT v FROM (SELECT source AS v FROM e_$g UNION SELECT target FROM e_$g) k ORDER BY random() LIMIT 40 * $pairs) z) y USING (i)" \
	  -c "CREATE TABLE p_$g AS SELECT row_number() OVER () AS i, a, b FROM c_$g WHERE a <> b AND grail.reachable('$g', a, b) LIMIT $pairs" \
	  -c "CREATE TABLE pp_$g AS SELECT i, a, b, grail.path('$g', a, b) AS path FROM p_$g" \
	  -c "CREATE TABLE r_$g AS SELECT a, b FROM c_$g LIMIT 10000" \
	  -c "VACUUM ANALYZE s_$g, d_$g, a_$g, nd_$g, na_$g, p_$g, pp_$g, r_$g" >/dev/null
	echo "$key"
}

printf '| %-6s | %-11s | %10s | %10s | %12s | %12s | %12s | %8s | %8s | %8s |\n' graph function rows "grail, ms" "CTE, ms" "table, ms" "SRF, ms" "vs CTE" "vs table" "vs SRF"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------- ------------- ------------ ------------ -------------- -------------- -------------- ---------- ---------- ----------
declare -A summary
for g in $graphs; do
	key=$(make_graph "$g")
	for fn in descendants ancestors; do
		if [ $fn = descendants ]; then from=source to=target t=d_$g; else from=target to=source t=a_$g; fi
		q_srf="SELECT count(*) FROM n${t%%_*}_$g s, generate_series(1, s.n) d"
		q_grail="SELECT count(*) FROM s_$g s, grail.$fn('$g', s.v) d"
		q_cte="SELECT count(*) FROM s_$g s CROSS JOIN LATERAL (WITH RECURSIVE r(v) AS (SELECT s.v UNION SELECT e.$to FROM r JOIN e_$g e ON e.$from = r.v) SELECT v FROM r) d"
		q_table="SELECT count(*) FROM $t"
		n=$(P -c "$q_grail")
		# The CTE's runs (cold: no warm-up run of it, which on 1M vertices takes minutes) give its count too;
		# --cte_runs 0 leaves it out (its column "-"), the rows then checked against the table's count.
		if [ "$cte_runs" -gt 0 ]; then
			args=(-c "$session" -c '\timing on')
			for _ in $(seq "$cte_runs"); do args+=(-c "$q_cte"); done
			cte=$(P "${args[@]}")
			n_cte=$(echo "$cte" | grep -v '^Time:' | tail -1)
			tc=$(echo "$cte" | awk '/^Time:/ { print $2 }' | median)
		else
			n_cte=$(P -c "SELECT count(*) FROM $t") tc=-
		fi
		[ "$n" = "$n_cte" ] || { echo "$g $fn: grail gives $n rows, the recursive CTE (or the table) $n_cte" >&2; exit 1; }
		tg=$(warm "$q_grail") tt=$(warm "$q_table") ts=$(warm "$q_srf")
		printf '| %-6s | %-11s | %10s | %10s | %12s | %12s | %12s | %8s | %8s | %8s |\n' "$g" "$fn" "$n" "$tg" "$tc" "$tt" "$ts" \
			"$(ratio "$tc" "$tg")" "$(ratio "$tt" "$tg")" "$(ratio "$ts" "$tg")"
	done
	found=$(P -c "SELECT count(*) FROM p_$g")
	t_reach=$(warm "SELECT count(*) FROM p_$g WHERE grail.reachable('$g', a, b)")
	t_reach_length=$(warm "SELECT sum(cardinality(path) - 1) FROM pp_$g WHERE grail.reachable('$g', a, b)")
	t_path=$(warm "SELECT sum(cardinality(grail.path('$g', a, b)) - 1) FROM p_$g")
	lengths=$(P -c "SELECT round(avg(cardinality(grail.path('$g', a, b)) - 1), 1) FROM p_$g")
	line="path: $found pairs, mean length $lengths; path() $t_path ms vs reachable() plus the length $t_reach_length ms: $(ratio "$t_reach_length" "$t_path")x, vs reachable() alone $t_reach ms: $(ratio "$t_reach" "$t_path")x"
	if [ "$pgr" = 1 ] && [ "$key" = bigint ] && [ "$pgr_pairs" -gt 0 ]; then
		q_pgr="SELECT sum(d.agg_cost) FROM p_$g p CROSS JOIN LATERAL pgr_dijkstra('SELECT id, source, target, 1.0::float8 AS cost FROM e_$g', p.a, p.b, directed => true) d WHERE p.i <= $pgr_pairs AND d.node = p.b"
		q_mine="SELECT sum(cardinality(grail.path('$g', a, b)) - 1) FROM p_$g WHERE i <= $pgr_pairs"
		[ "$(P -c "$q_pgr")" = "$(P -c "$q_mine")" ] || { echo "$g: pgr_dijkstra and path() disagree on lengths" >&2; exit 1; }
		t_pgr=$(runs=1 warm "$q_pgr")
		t_mine=$(warm "$q_mine")
		line="$line; over $pgr_pairs pairs pgr_dijkstra $t_pgr ms, path() $t_mine ms: $(ratio "$t_pgr" "$t_mine")x"
	fi
	actual=$(P -c "SELECT count(*) FROM r_$g WHERE grail.reachable('$g', a, b)")
	estimate=$(P -c "EXPLAIN (FORMAT JSON) SELECT * FROM r_$g WHERE grail.reachable('$g', a, b)" | grep -o '"Plan Rows": [0-9]*' | head -1 | grep -o '[0-9]*$')
	line="$line; reachable() join over 10000 random pairs: estimate $estimate rows, actual $actual"
	summary[$g]=$line
	echo "$g: $line" >&2
done
echo
for g in $graphs; do echo "$g ($vertices vertices, degree $([ $g = dag ] || [ $g = text ] && echo $dag_degree || echo $degree)): ${summary[$g]}"; done
echo "(vs CTE, vs table, vs SRF: grail's time over theirs (SRF: generate_series of each source's row count); medians of $runs warm runs, the CTE's of $cte_runs runs; pgr_dijkstra one warm run)"
# Ratios of one run are comparable on a shared machine, absolute times less so: say how busy it was.
echo "load average at the end (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
