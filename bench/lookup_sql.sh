#!/usr/bin/env bash
# reachable() from SQL at the speed of a lookup: per-row and array calls over PAIRS pairs against
# the floors a user would compare them with, both sides in the same session (ratios only: the
# machine may be shared), on three DAGs of about VERTICES vertices whose ids are permuted (so that
# no id order is a topological order):
#   dag    a random DAG: EDGES edges, each from the smaller to the larger of two random numbers
#   local  a deep local DAG: vertex i to DEGREE random vertices of i + 1 .. i + SPAN
#   rmat   R-MAT (grail_cli generate rmat SCALE EDGE_FACTOR), each edge turned to go from the
#          smaller to the larger id (self-loops dropped): a DAG
# and two kinds of pairs on each: uniform (two random vertices of the edge table) and reachable
# (a random vertex, and the end of a random walk of 1 to 32 steps from it, as grail_cli
# bench-queries makes its known reachable pairs).
# For each graph and kind (medians of RUNS runs, each function's run followed by its floor's, after
# a warm-up of both):
#   per row   SELECT count(*) FROM pairs WHERE grail.reachable(g, a, b)
#             vs SELECT count(*) FROM pairs WHERE a = b                 (targets <= 5x uniform, <= 10x reachable)
#             as the session plans it (the Grail Reachability Filter answers the rows by batches),
#             then as "per row, one at a time" with grail.reachable_batch = off
#   array     SELECT count(*) FROM one, unnest(grail.reachable(g, one.a, one.b)) r WHERE r
#             vs SELECT count(*) FROM one, unnest(one.a, one.b) u(x, y) WHERE x = y   (target <= 2x)
#             with the session's grail.search_threads (its helper threads), then as "array, backend
#             alone" with grail.search_threads = 0 (the floor as before, in the same session)
# and, on the random DAG, the per-row call with integer keys (the int4 overload) and on a copy of
# the graph keyed by oid (the polymorphic overload) against the same floor, and each of those three
# with a key against itself (answered before the index is read: the call's own cost). Every count of a
# function is checked against the others (per row = array; reachable pairs all true).
# Uses the project's throwaway cluster (scripts/cluster.sh) and build/grail_cli (R-MAT).
#   bench/lookup_sql.sh [--vertices N] [--edges E] [--degree D] [--span S] [--scale S]
#                       [--edge_factor F] [--pairs P] [--runs R] [--graphs "dag local rmat"] [--reuse 1]
#                       [--libs "OLD.so NEW.so ..."]
# (--reuse 1 keeps the tables and graphs of an earlier run with the same arguments.)
# --libs: each graph's statements run once per library, in turn, each copied over the installed
# pg_grail.so with the cluster stopped, then started (the library is preloaded); the lines name the
# library. The installed one is left as the last of the list. For a private copy of PostgreSQL
# (one whose library directory is writable): it overwrites the installed pg_grail.so.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 edges=5000000 degree=5 span=2000 scale=20 edge_factor=8 pairs=100000 runs=5
graphs="dag local rmat" reuse=0 libs=""
parse_args "$0 [--vertices N] [--edges E] [--degree D] [--span S] [--scale S] [--edge_factor F] [--pairs P] [--runs R] [--graphs LIST] [--reuse 1] [--libs LIST]" \
	vertices edges degree span scale edge_factor pairs runs graphs reuse libs -- "$@"
for lib in $libs; do
	[ -f "$lib" ] || { echo "no library $lib" >&2; exit 2; }
done
cli=${GRAIL_CLI:-build/grail_cli}
eval "$(scripts/cluster.sh start)"
db=grail_lookup_bench_${vertices}_${edges}_${degree}_${span}_${scale}_${edge_factor}_${pairs}
workdir=${TMPDIR:-/tmp}/grail-bench-lookup
mkdir -p "$workdir"
bench_db "$reuse"
session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB'; SET grail.device = cpu;"
permuted_ids

make_graph() { # name -> table e_NAME (source, target) of permuted ids, graph NAME, pairs tables
	local g=$1
	exists "r1_$g" && return 0
	# What an interrupted run left of this graph.
	P -c "SELECT grail.drop_graph(name) FROM grail.graphs WHERE name IN ('$g', '${g}_oid')" \
	  -c "DROP TABLE IF EXISTS e_$g, eo_$g, u_$g, r_$g, u1_$g, u4_$g, uo_$g, ranked_$g" >/dev/null
	permuted_edges "$g"
	# Uniform pairs over the vertices of the edge table; reachable pairs by random walks.
	P -c "CREATE INDEX ON e_$g (source)" -c "VACUUM ANALYZE e_$g" \
	  -c "SELECT grail.create_graph('$g', 'e_$g')" \
	  -c "CREATE TEMP TABLE vert AS SELECT row_number() OVER (ORDER BY v) - 1 AS k, v FROM (SELECT source AS v FROM e_$g UNION SELECT target FROM e_$g) s" \
	  -c "CREATE UNIQUE INDEX ON vert (k)" -c "ANALYZE vert" \
	  -c "SELECT setseed(0.25)" \
	  -c "CREATE TEMP TABLE picks AS SELECT k, floor(random() * (SELECT count(*) FROM vert))::bigint AS ka,
	        floor(random() * (SELECT count(*) FROM vert))::bigint AS kb, 1 + floor(random() * 32)::int AS steps
	      FROM generate_series(1, $pairs) k" \
	  -c "CREATE TABLE u_$g AS SELECT p.k, va.v AS a, vb.v AS b FROM picks p JOIN vert va ON va.k = p.ka JOIN vert vb ON vb.k = p.kb ORDER BY p.k" \
	  -c "CREATE TEMP TABLE ranked AS SELECT source, target, row_number() OVER (PARTITION BY source) - 1 AS r,
	        count(*) OVER (PARTITION BY source) AS d FROM e_$g" \
	  -c "CREATE INDEX ON ranked (source, r)" -c "ANALYZE ranked" \
	  -c "CREATE TEMP TABLE degree AS SELECT DISTINCT source, d FROM ranked" -c "CREATE UNIQUE INDEX ON degree (source)" \
	  -c "ANALYZE degree" \
	  -c "CREATE TABLE r_$g AS WITH RECURSIVE w(k, a, v, steps) AS (
	        SELECT p.k, va.v, va.v, p.steps FROM picks p JOIN vert va ON va.k = p.ka
	        UNION ALL
	        SELECT w.k, w.a, n.target, w.steps - 1 FROM w, LATERAL (
	          SELECT x.target FROM (SELECT o.source, floor(random() * o.d)::bigint AS pick FROM degree o WHERE o.source = w.v OFFSET 0) q
	          JOIN ranked x ON x.source = q.source AND x.r = q.pick) n WHERE w.steps > 0)
	      SELECT DISTINCT ON (k) k, a, v AS b FROM w ORDER BY k, steps" >/dev/null
	for kind in u r; do
		P -c "CREATE TABLE ${kind}1_$g AS SELECT array_agg(a ORDER BY k) AS a, array_agg(b ORDER BY k) AS b FROM ${kind}_$g" \
		  -c "VACUUM ANALYZE ${kind}_$g, ${kind}1_$g" >/dev/null
	done
	if [ "$g" = dag ]; then
		# The same pairs as integer and as oid keys; a copy of the graph keyed by oid.
		P -c "CREATE TABLE u4_$g AS SELECT k, a::int AS a, b::int AS b FROM u_$g ORDER BY k" \
		  -c "CREATE TABLE uo_$g AS SELECT k, a::oid AS a, b::oid AS b FROM u_$g ORDER BY k" \
		  -c "CREATE TABLE eo_$g AS SELECT source::oid AS source, target::oid AS target FROM e_$g" \
		  -c "VACUUM ANALYZE u4_$g, uo_$g, eo_$g" -c "SELECT grail.create_graph('${g}_oid', 'eo_$g')" >/dev/null
	fi
}

# Medians of `runs` runs of statement A each followed by statement B, in one session after a
# warm-up of both: "A_ms B_ms A_result B_result".
paired() {
	local file=$workdir/statement.sql out
	{
		echo "$session"
		echo "${session_more:-}"
		echo "$1;"
		echo "$2;"
		echo '\timing on'
		for _ in $(seq "$runs"); do echo "$1;"; echo "$2;"; done
	} >"$file"
	out=$(P -f "$file")
	local times results
	times=$(echo "$out" | awk '/^Time:/ { print $2 }')
	results=$(echo "$out" | grep -v '^Time:' | grep -v '^SET' | tail -2 | tr '\n' ' ')
	echo "$(echo "$times" | awk 'NR % 2 == 1' | median) $(echo "$times" | awk 'NR % 2 == 0' | median) $results"
}

# The library the statements run with: copied over the installed one with the cluster stopped.
use_lib() {
	scripts/cluster.sh stop >/dev/null
	cp "$1" "$(pg_config --pkglibdir)/pg_grail.so"
	eval "$(scripts/cluster.sh start)"
}

# With --libs, a last column names the library (bench/report.sh reads the lines without it).
lib_name=
printf '%-6s %-9s %-32s %10s %10s %7s %7s %s%s\n' graph pairs form "fn ns" "floor ns" ratio target result "${libs:+ library}"
line() { # graph kind form target "fn_ms floor_ms fn_result floor_result"
	local f b r
	read -r f b r _ <<<"$5"
	printf '%-6s %-9s %-32s %10.0f %10.0f %7s %7s %s%s\n' "$1" "$2" "$3" "$(awk -v t="$f" -v n="$pairs" 'BEGIN { print t * 1e6 / n }')" \
		"$(awk -v t="$b" -v n="$pairs" 'BEGIN { print t * 1e6 / n }')" "$(ratio "$b" "$f")" "$4" "$r" "${lib_name:+ $lib_name}"
}
for g in $graphs; do
	make_graph "$g"
	for lib in ${libs:-installed}; do
		if [ -n "$libs" ]; then
			use_lib "$lib"
			lib_name=$(basename "$lib")
		fi
		for kind in u r; do
			name=$([ $kind = u ] && echo uniform || echo reachable)
			row=$(paired "SELECT count(*) FROM ${kind}_$g WHERE grail.reachable('$g', a, b)" "SELECT count(*) FROM ${kind}_$g WHERE a = b")
			target=$([ $kind = u ] && echo 5 || echo 10)
			line "$g" "$name" "per row, bigint" "<=$target" "$row"
			one=$(session_more="SET grail.reachable_batch = off;" paired "SELECT count(*) FROM ${kind}_$g WHERE grail.reachable('$g', a, b)" "SELECT count(*) FROM ${kind}_$g WHERE a = b")
			line "$g" "$name" "per row, one at a time" "" "$one"
			arr=$(paired "SELECT count(*) FROM ${kind}1_$g o, unnest(grail.reachable('$g', o.a, o.b)) r WHERE r" \
				"SELECT count(*) FROM ${kind}1_$g o, unnest(o.a, o.b) u(x, y) WHERE x = y")
			line "$g" "$name" "array" "<=2" "$arr"
			alone=$(session_more="SET grail.search_threads = 0;" paired \
				"SELECT count(*) FROM ${kind}1_$g o, unnest(grail.reachable('$g', o.a, o.b)) r WHERE r" \
				"SELECT count(*) FROM ${kind}1_$g o, unnest(o.a, o.b) u(x, y) WHERE x = y")
			line "$g" "$name" "array, backend alone" "" "$alone"
			read -r _ _ row_count _ <<<"$row"
			read -r _ _ arr_count _ <<<"$arr"
			read -r _ _ alone_count _ <<<"$alone"
			[ "$row_count" = "$arr_count" ] || echo "!!! $g $name: per row $row_count true, array $arr_count" >&2
			[ "$arr_count" = "$alone_count" ] || echo "!!! $g $name: array $arr_count true, backend alone $alone_count" >&2
			[ $kind = u ] || [ "$row_count" = "$pairs" ] || echo "!!! $g $name: $row_count of $pairs reachable pairs true" >&2
	done
	if [ "$g" = dag ]; then
		line "$g" uniform "per row, integer" "" "$(paired "SELECT count(*) FROM u4_$g WHERE grail.reachable('$g', a, b)" "SELECT count(*) FROM u4_$g WHERE a = b")"
		line "$g" uniform "per row, oid graph and keys" "" "$(paired "SELECT count(*) FROM uo_$g WHERE grail.reachable('${g}_oid', a, b)" "SELECT count(*) FROM uo_$g WHERE a = b")"
		# The call alone: a key against itself is answered before the index is read.
		line "$g" "same key" "per row, bigint (the call alone)" "" "$(paired "SELECT count(*) FROM u_$g WHERE grail.reachable('$g', a, a)" "SELECT count(*) FROM u_$g WHERE a = b")"
		line "$g" "same key" "per row, integer (the call alone)" "" "$(paired "SELECT count(*) FROM u4_$g WHERE grail.reachable('$g', a, a)" "SELECT count(*) FROM u4_$g WHERE a = b")"
		line "$g" "same key" "per row, oid (the call alone)" "" "$(paired "SELECT count(*) FROM uo_$g WHERE grail.reachable('${g}_oid', a, a)" "SELECT count(*) FROM uo_$g WHERE a = b")"
	fi
	done
done
