#!/usr/bin/env bash
# create_graph against the B-tree a user would build instead: on the same edge table, in the same
# session, RUNS alternating runs of
#   CREATE INDEX ON e (source, target)          (then DROP INDEX)
#   SELECT grail.create_graph(g, e)             (then grail.drop_graph)
# each after a CHECKPOINT (so neither pays the other's dirty buffers), with the server's settings
# for both (parallel maintenance workers included); medians, the ratio create_graph / B-tree
# (target <= 1.0), the sizes (the B-tree's relation, the graph's image and what grail.index_chunk
# holds of it with its TOAST), and create_graph's phases as its build recorded them in grail.graph
# (read: the heap scan into ids; graph: keys to dense ids and the CSR; scc: components and the
# condensation; labels: GRAIL, lookup and Bloom records; persist: the chunks into
# grail.index_chunk; rest: the statement's time outside those, the serialization and the
# catalog's work). The graphs are lookup_sql.sh's, ids permuted (no id order is a topological
# order):
#   local  a deep local DAG: vertex i to DEGREE random vertices of i + 1 .. i + SPAN
#   dag    a random DAG: EDGES edges, each from the smaller to the larger of two random numbers
#   rmat   R-MAT (grail_cli generate rmat SCALE EDGE_FACTOR), each edge from the smaller to the
#          larger id (self-loops dropped)
# The load average is printed before and after: the ratio is what to compare on a shared machine.
# --threads T sets grail.build_threads (create_graph's helper threads; the server's setting
# otherwise: -1 by default, 2 helpers) where the installed pg_grail has it; the B-tree keeps the server's
# max_parallel_maintenance_workers.
# Uses the project's throwaway cluster (scripts/cluster.sh) and build/grail_cli (R-MAT).
#   bench/build_vs_btree.sh [--vertices N] [--edges E] [--degree D] [--span S] [--scale S]
#                           [--edge_factor F] [--runs R] [--graphs "local dag rmat"] [--reuse 1]
#                           [--threads T] [--before BINDIR]
# (--reuse 1 keeps the tables of an earlier run with the same arguments; --graphs takes commas or
# spaces, "random" for dag. --before BINDIR: the same runs first on another PostgreSQL copy's
# binaries with an older pg_grail installed, e.g. /work/pg-old/usr/lib/postgresql/15/bin: the
# cluster is restarted on them, then on this PATH's, and both tables are printed, the same tables
# and load for both.)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 edges=5000000 degree=5 span=2000 scale=20 edge_factor=8 runs=3
graphs="local dag rmat" reuse=0 threads="" before=""
parse_args "$0 [--vertices N] [--edges E] [--degree D] [--span S] [--scale S] [--edge_factor F] [--runs R] [--graphs LIST] [--reuse 1] [--threads T] [--before BINDIR]" \
	vertices edges degree span scale edge_factor runs graphs reuse threads before -- "$@"
graphs=$(echo "$graphs" | tr ',' ' ' | sed 's/\brandom\b/dag/g')
cli=${GRAIL_CLI:-build/grail_cli}
eval "$(scripts/cluster.sh start)"
db=grail_build_bench_${vertices}_${edges}_${degree}_${span}_${scale}_${edge_factor}
workdir=${TMPDIR:-/tmp}/grail-bench-build
mkdir -p "$workdir"
bench_db "$reuse"
permuted_ids

make_table() { # name -> table e_NAME (source, target) of permuted ids, vacuumed (hint bits set)
	local g=$1
	exists "e_$g" && return 0
	permuted_edges "$g"
	P -c "VACUUM ANALYZE e_$g" >/dev/null
}

say() { echo "$*"; }
for g in $graphs; do make_table "$g"; done
measure() { # label: one table of every graph on the running server
say "== $1: load average $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
say "settings: $(P -c "SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings WHERE name IN
	('maintenance_work_mem', 'max_parallel_maintenance_workers', 'shared_buffers', 'wal_level', 'fsync', 'default_toast_compression', 'grail.device', 'grail.build_threads')")${threads:+ (create_graph: grail.build_threads=$threads)}"
printf '%-6s %9s %9s %10s %10s %6s %9s %9s %9s | %7s %7s %7s %7s %7s %7s\n' graph vertices edges "btree ms" "grail ms" ratio \
	"btree MB" "image MB" "chunk MB" read graph scc labels persist rest
for g in $graphs; do
	P -c "SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'bb_$g'" -c "DROP INDEX IF EXISTS e_${g}_bt" >/dev/null
	file=$workdir/runs.sql
	{
		echo "SET grail.device = cpu;"
		[ -z "$threads" ] || echo "SELECT set_config('grail.build_threads', '$threads', false) FROM pg_settings WHERE name = 'grail.build_threads';"
		for _ in $(seq "$runs"); do
			echo "CHECKPOINT;"
			echo '\timing on'
			echo "CREATE INDEX e_${g}_bt ON e_$g (source, target);"
			echo '\timing off'
			echo "SELECT 'btree_bytes', pg_relation_size('e_${g}_bt');"
			echo "DROP INDEX e_${g}_bt;"
			echo "CHECKPOINT;"
			echo '\timing on'
			echo "SELECT 'created', grail.create_graph('bb_$g', 'e_$g');"
			echo '\timing off'
			echo "SELECT 'phases', g.read_ms, g.graph_ms, g.scc_ms, g.label_ms, g.persist_ms, g.index_bytes, g.vertices, g.edges,
			        pg_total_relation_size('grail.index_chunk') FROM grail.graph g WHERE g.name = 'bb_$g';"
			echo "SELECT grail.drop_graph('bb_$g');"
			echo "VACUUM grail.index_chunk;"
		done
	} >"$file"
	out=$(P -F ' ' -f "$file")
	btree=$(echo "$out" | awk '/^Time:/ { n++; if (n % 2 == 1) print $2 }' | median)
	grail=$(echo "$out" | awk '/^Time:/ { n++; if (n % 2 == 0) print $2 }' | median)
	gms=$(echo "$out" | awk '/^Time:/ { n++; if (n % 2 == 0) print $2 }' | tr '\n' ' ')
	col() { echo "$out" | awk -v c="$1" '$1 == "phases" { print $c }' | median; }
	bt_bytes=$(echo "$out" | awk '$1 == "btree_bytes" { print $2 }' | median)
	read_ms=$(col 2) graph_ms=$(col 3) scc_ms=$(col 4) label_ms=$(col 5) persist_ms=$(col 6)
	rest=$(awk -v t="$grail" -v a="$read_ms" -v b="$graph_ms" -v c="$scc_ms" -v d="$label_ms" -v e="$persist_ms" 'BEGIN { print t - a - b - c - d - e }')
	printf '%-6s %9d %9d %10.0f %10.0f %6s %9.1f %9.1f %9.1f | %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f\n' "$g" "$(col 8)" "$(col 9)" \
		"$btree" "$grail" "$(ratio "$btree" "$grail")" "$(awk -v b="$bt_bytes" 'BEGIN { print b / 1e6 }')" \
		"$(awk -v b="$(col 7)" 'BEGIN { print b / 1e6 }')" "$(awk -v b="$(col 10)" 'BEGIN { print b / 1e6 }')" \
		"$read_ms" "$graph_ms" "$scc_ms" "$label_ms" "$persist_ms" "$rest"
	say "       create_graph runs (ms): $gms"
done
}
say "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
if [ -n "$before" ]; then
	now_bin=$(pg_config --bindir)
	PATH=$before:$PATH scripts/cluster.sh stop
	PATH=$before:$PATH scripts/cluster.sh start >/dev/null
	measure "before ($before)"
	scripts/cluster.sh stop
	scripts/cluster.sh start >/dev/null
	measure "after ($now_bin)"
else
	measure "this build"
fi
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
