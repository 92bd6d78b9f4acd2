#!/usr/bin/env bash
# What a filter costs: a build over ROWS rows of which a filter keeps one in FRACTION_INV
# (kind = 'prod'), against the unfiltered build of the same table and the build of a table that
# holds only the rows the filter keeps; then per-row reachable() over PAIRS random pairs of the
# kept rows' vertices on the filtered graph and on the graph of the table of just those rows.
# Builds: refresh_graph() (the same read and build create_graph does), in turns, median of RUNS
# each, under grail.device = cpu; wall time and the backend's CPU time. The table of just the
# kept rows is the floor of a filtered build: the filter can save the reading and indexing of the
# rows it drops, not the index of those it keeps. Targets: the filtered build at most 0.4x the unfiltered one; reachable() on
# the filtered graph as fast as on the table of just its rows (a ratio near 1.00).
# The graph: random edges between ROWS/4 vertex ids. --correlated 1: the kept rows are edges among
# the first fifth of the ids only (production packages depend on production packages), so the
# filtered graph has a fraction of the vertices too; without it the kept rows spread over all the
# ids, and the filtered graph has nearly as many vertices as the whole one (the index's labelling
# costs by vertices, which the filter does not cut then).
# Uses the project's throwaway cluster (scripts/cluster.sh); --reuse 1 keeps the database of an
# earlier run with the same sizes.
#   bench/filter.sh [--rows N] [--fraction_inv K] [--pairs P] [--runs R] [--correlated 1] [--reuse 1]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
rows=5000000 fraction_inv=5 pairs=200000 runs=3 correlated=0 reuse=0
parse_args "$0 [--rows N] [--fraction_inv K] [--pairs P] [--runs R] [--correlated 1] [--reuse 1]" \
	rows fraction_inv pairs runs correlated reuse -- "$@"
eval "$(scripts/cluster.sh start)"
db=grail_filter_bench_${rows}_${fraction_inv}_${pairs}_${correlated}
span="CASE WHEN $correlated = 1 AND i % $fraction_inv = 0 THEN $rows / 20 ELSE $rows / 4 END"
session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET grail.device = cpu;"

if [ "$reuse" != 1 ] || [ -z "$(psql -XAtq -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
	psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
	# Vertices 0..rows/4, random edges; kind 'prod' on every fraction_inv-th row, spread over the
	# table, 'dev' or 'optional' elsewhere.
	P -c "CREATE EXTENSION pg_grail" \
	  -c "SELECT setseed(0.5)" \
	  -c "CREATE TABLE edges (source bigint, target bigint, kind text)" \
	  -c "INSERT INTO edges SELECT (random() * ($span))::bigint, (random() * ($span))::bigint,
	             CASE WHEN i % $fraction_inv = 0 THEN 'prod' WHEN i % 2 = 0 THEN 'dev' ELSE 'optional' END
	      FROM generate_series(1, $rows) i" \
	  -c "CREATE TABLE prod_edges AS SELECT source, target, kind FROM edges WHERE kind = 'prod'" \
	  -c "VACUUM ANALYZE edges, prod_edges" \
	  -c "SELECT grail.create_graph('whole', 'edges', live => false)" \
	  -c "SELECT grail.create_graph('filtered', 'edges', live => false, filter => 'kind = ''prod''')" \
	  -c "SELECT grail.create_graph('copied', 'prod_edges', live => false)" \
	  -c "CREATE TABLE vertices AS SELECT row_number() OVER (ORDER BY v) AS i, v FROM (SELECT source AS v FROM prod_edges UNION SELECT target FROM prod_edges) k" \
	  -c "CREATE UNIQUE INDEX ON vertices (i)" \
	  -c "CREATE TABLE picks AS SELECT g, 1 + floor(random() * (SELECT count(*) FROM vertices))::bigint AS ia,
	             1 + floor(random() * (SELECT count(*) FROM vertices))::bigint AS ib FROM generate_series(1, $pairs) g" \
	  -c "CREATE TABLE pairs AS SELECT va.v AS a, vb.v AS b FROM picks p JOIN vertices va ON va.i = p.ia JOIN vertices vb ON vb.i = p.ib
	      ORDER BY p.g" \
	  -c "VACUUM ANALYZE pairs" >/dev/null
fi

echo "rows $rows, filter keeps 1 in $fraction_inv ($(P -c "SELECT count(*) FROM prod_edges") rows), pairs $(P -c "SELECT count(*) FROM pairs"), runs $runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
# One refresh of a graph: "wall_ms cpu_ms", cpu_ms the backend's own user and system time (from
# /proc/self/stat, as the cluster's superuser reads it; - where it cannot), which the other
# processes of a loaded machine inflate far less than the wall clock.
ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_sql="SELECT (a[14]::bigint + a[15]::bigint) * 1000 / $ticks AS ms FROM pg_catalog.string_to_array(pg_catalog.pg_read_file('/proc/self/stat'), ' ') a"
if [ -n "$(P -c "$cpu_sql" 2>/dev/null)" ]; then has_cpu=1; else has_cpu=0; fi
build_once() {
	if [ "$has_cpu" = 1 ]; then
		P -v graph="$1" <<-SQL
			$session
			$cpu_sql \gset cpu0_
			SELECT pg_catalog.clock_timestamp() AS t0 \gset
			SELECT grail.refresh_graph(:'graph') \g /dev/null
			SELECT round(extract(epoch FROM pg_catalog.clock_timestamp() - :'t0'::timestamptz) * 1000, 1) || ' ' || (($cpu_sql) - :cpu0_ms);
		SQL
	else
		echo "$(ms -c "$session" -c "SELECT grail.refresh_graph('$1')") -"
	fi
}
# The builds in turns (one of each per run), medians of wall and CPU ms.
: >"${TMPDIR:-/tmp}/grail-filter-build.txt"
for _ in $(seq "$runs"); do
	echo "$(build_once whole) $(build_once filtered) $(build_once copied)" >>"${TMPDIR:-/tmp}/grail-filter-build.txt"
done
column_median() { awk -v k="$1" '{ print $k }' "${TMPDIR:-/tmp}/grail-filter-build.txt" | median; }
whole=$(column_median 1) whole_cpu=$(column_median 2)
filtered=$(column_median 3) filtered_cpu=$(column_median 4)
copied=$(column_median 5) copied_cpu=$(column_median 6)
echo "build ms: unfiltered $whole, filtered $filtered ($(ratio "$whole" "$filtered")x the unfiltered), table of the kept rows $copied ($(ratio "$copied" "$filtered")x it, $(ratio "$whole" "$copied")x the unfiltered)"
echo "build cpu ms: unfiltered $whole_cpu, filtered $filtered_cpu ($(ratio "$whole_cpu" "$filtered_cpu")x the unfiltered), table of the kept rows $copied_cpu ($(ratio "$copied_cpu" "$filtered_cpu")x it, $(ratio "$whole_cpu" "$copied_cpu")x the unfiltered)"
echo "load average after the builds: $(cut -d' ' -f1-3 /proc/loadavg)"
P -c "SELECT name, input_rows, vertices, edges, components, round(read_ms::numeric) AS read_ms, round((graph_ms + scc_ms)::numeric) AS graph_scc_ms, round(label_ms::numeric) AS label_ms, round(persist_ms::numeric) AS persist_ms, pg_size_pretty(index_bytes) AS image FROM grail.graph ORDER BY name"

# Per-row reachable() over the pairs on the filtered graph and on the table of the kept rows, in
# turns (one of each per run, after a warm-up of both), medians in ms.
reach_ms() { ms -c "$session" -c "SELECT count(*) FILTER (WHERE grail.reachable('$1', a, b)) FROM pairs"; }
reach_ms filtered >/dev/null
reach_ms copied >/dev/null
: >"${TMPDIR:-/tmp}/grail-filter-reach.txt"
for _ in $(seq "$runs"); do echo "$(reach_ms filtered) $(reach_ms copied)" >>"${TMPDIR:-/tmp}/grail-filter-reach.txt"; done
on_filtered=$(awk '{ print $1 }' "${TMPDIR:-/tmp}/grail-filter-reach.txt" | median)
on_copied=$(awk '{ print $2 }' "${TMPDIR:-/tmp}/grail-filter-reach.txt" | median)
echo "per-row reachable() over $pairs pairs, ms: filtered graph $on_filtered, table of the kept rows $on_copied ($(ratio "$on_copied" "$on_filtered")x)"
echo "answers agree: $(P -c "SELECT count(*) = 0 FROM pairs WHERE grail.reachable('filtered', a, b) IS DISTINCT FROM grail.reachable('copied', a, b)")"
