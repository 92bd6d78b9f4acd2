#!/usr/bin/env bash
# Per-row reachable() over a large table as PostgreSQL plans it by default: one process, or a
# parallel plan (a Gather over each process's share of a Parallel Seq Scan), each with the call
# row by row (grail.reachable_batch = off) and by the Grail Reachability Filter (one filter a
# process, answering its share by batches). A random DAG of VERTICES vertices and EDGES edges
# (ids permuted, as bench/lookup_sql.sh makes them), ROWS uniform pairs of its vertices:
#   SELECT count(*) FROM pairs WHERE grail.reachable('dag', a, b)
# with max_parallel_workers_per_gather = each of WORKERS (0: no parallel plan), medians of RUNS
# runs of each form, the forms interleaved in one session after a warm-up; the planned workers
# (EXPLAIN) and the `a = b` floor under the same setting. Ratios: row by row / filter.
# Uses the project's throwaway cluster (scripts/cluster.sh); the server's max_worker_processes and
# max_parallel_workers bound the workers launched. --device sets grail.device (cpu unless told:
# auto on a GPU host without the GPU service shows what each process's own GPU costs it).
#   bench/lookup_parallel.sh [--vertices N] [--edges E] [--rows R] [--workers "0 2 4"] [--runs R] [--reuse 1]
#                            [--device cpu|auto|gpu]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 edges=5000000 rows=2000000 workers="0 2 4" runs=5 reuse=0 scale=0 device=cpu
parse_args "$0 [--vertices N] [--edges E] [--rows R] [--workers LIST] [--runs R] [--reuse 1] [--device D]" \
	vertices edges rows workers runs reuse device -- "$@"
eval "$(scripts/cluster.sh start)"
db=grail_lookup_parallel_${vertices}_${edges}_${rows}
bench_db "$reuse"
permuted_ids
if ! exists pairs; then
	P -c "SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'dag'" -c "DROP TABLE IF EXISTS e_dag" >/dev/null
	permuted_edges dag
	P -c "SELECT count(*) FROM (SELECT grail.create_graph('dag', 'e_dag')) g" \
	  -c "CREATE TEMP TABLE vert AS SELECT row_number() OVER (ORDER BY v) - 1 AS k, v FROM (SELECT source AS v FROM e_dag UNION SELECT target FROM e_dag) s" \
	  -c "CREATE UNIQUE INDEX ON vert (k)" -c "ANALYZE vert" -c "SELECT setseed(0.27)" \
	  -c "CREATE TABLE pairs AS SELECT va.v AS a, vb.v AS b FROM (SELECT floor(random() * (SELECT count(*) FROM vert))::bigint AS ka,
	        floor(random() * (SELECT count(*) FROM vert))::bigint AS kb FROM generate_series(1, $rows)) p
	      JOIN vert va ON va.k = p.ka JOIN vert vb ON vb.k = p.kb" \
	  -c "VACUUM ANALYZE pairs" >/dev/null
fi
session="SET jit = off; SET grail.device = $device;"
query="SELECT count(*) FROM pairs WHERE grail.reachable('dag', a, b)"
file=$(mktemp)
trap 'rm -f "$file"' EXIT
printf '%-8s %8s %14s %12s %12s %8s %s\n' workers planned "row by row ms" "filter ms" "floor ms" ratio result
for w in $workers; do
	planned=$(P -c "SET max_parallel_workers_per_gather = $w" -c "EXPLAIN $query" | awk '/Workers Planned/ { print $3 }')
	{
		echo "$session SET max_parallel_workers_per_gather = $w;"
		echo "SET grail.reachable_batch = off; $query; SET grail.reachable_batch = on; $query; SELECT count(*) FROM pairs WHERE a = b;"
		for _ in $(seq "$runs"); do
			echo "SET grail.reachable_batch = off;"; echo '\timing on'; echo "$query;"; echo '\timing off'
			echo "SET grail.reachable_batch = on;"; echo '\timing on'; echo "$query;"; echo '\timing off'
			echo '\timing on'; echo "SELECT count(*) FROM pairs WHERE a = b;"; echo '\timing off'
		done
	} >"$file"
	out=$(P -f "$file")
	times=$(echo "$out" | awk '/^Time:/ { print $2 }')
	counts=$(echo "$out" | grep -v '^Time:' | grep -E '^[0-9]+$' | tail -3 | tr '\n' ' ')
	by_row=$(echo "$times" | awk 'NR % 3 == 1' | median)
	filter=$(echo "$times" | awk 'NR % 3 == 2' | median)
	floor=$(echo "$times" | awk 'NR % 3 == 0' | median)
	read -r row_count filter_count _ <<<"$counts"
	[ "$row_count" = "$filter_count" ] || echo "!!! $w workers: row by row $row_count true, filter $filter_count" >&2
	printf '%-8s %8s %14.0f %12.0f %12.1f %8s %s\n' "$w" "${planned:-0}" "$by_row" "$filter" "$floor" "$(ratio "$filter" "$by_row")" "$filter_count"
done
