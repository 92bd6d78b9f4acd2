#!/usr/bin/env bash
# path() against reachable() on the same pairs: a random graph of VERTICES vertices and EDGES
# edges, PAIRS random pairs that reachable() says are reachable (drawn from 20x as many random
# pairs), side by side in the same run, median of RUNS:
#   - reachable(): a count over the pairs, per row;
#   - path(): the sum of the paths' lengths over the same pairs, per row;
#   - find_cycle() through the pairs' sources, per row.
# Uses the project's throwaway cluster (scripts/cluster.sh).
#   bench/paths.sh [--vertices N] [--edges M] [--pairs P] [--runs R]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 edges=2000000 pairs=1000 runs=3
parse_args "$0 [--vertices N] [--edges M] [--pairs P] [--runs R]" vertices edges pairs runs -- "$@"
eval "$(scripts/cluster.sh start)"
db=grail_paths_bench
psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
P -c "CREATE EXTENSION pg_grail" \
  -c "SELECT setseed(0.42)" \
  -c "CREATE TABLE edges AS SELECT (1 + random() * ($vertices - 1))::bigint AS source, (1 + random() * ($vertices - 1))::bigint AS target FROM generate_series(1, $edges)" \
  -c "SELECT grail.create_graph('g', 'edges')" \
  -c "CREATE TABLE candidates AS SELECT (1 + random() * ($vertices - 1))::bigint AS a, (1 + random() * ($vertices - 1))::bigint AS b FROM generate_series(1, 20 * $pairs)" \
  -c "CREATE TABLE pairs AS SELECT a, b FROM candidates WHERE grail.reachable('g', a, b) AND a <> b LIMIT $pairs" \
  -c "VACUUM ANALYZE edges, pairs" >/dev/null
found=$(P -c "SELECT count(*) FROM pairs")
reach=$(for _ in $(seq "$runs"); do
	ms -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM pairs WHERE grail.reachable('g', a, b)"
done | median)
path=$(for _ in $(seq "$runs"); do
	ms -c "SET max_parallel_workers_per_gather = 0" -c "SELECT sum(cardinality(grail.path('g', a, b)) - 1) FROM pairs"
done | median)
cycle=$(for _ in $(seq "$runs"); do
	ms -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(grail.find_cycle('g', a)) FROM pairs"
done | median)
lengths=$(P -c "SELECT round(avg(cardinality(grail.path('g', a, b)) - 1), 2) || ' avg, ' || max(cardinality(grail.path('g', a, b)) - 1) || ' max' FROM pairs")
cycles=$(P -c "SELECT count(grail.find_cycle('g', a)) FROM pairs")

echo
echo "graph: $vertices vertices, $edges random edges; $found reachable pairs (path lengths $lengths; $cycles sources on a cycle); median of $runs"
printf '| %-48s | %10s | %7s |\n' "measure" "ms" "ratio"
printf '|%s|%s|%s|\n' "--------------------------------------------------" "------------" "---------"
printf '| %-48s | %10s | %7s |\n' "reachable() over the pairs" "$reach" "1.00"
printf '| %-48s | %10s | %7s |\n' "path() over the pairs, sum of lengths" "$path" "$(ratio "$reach" "$path")"
printf '| %-48s | %10s | %7s |\n' "find_cycle() through the pairs' sources" "$cycle" "$(ratio "$reach" "$cycle")"
