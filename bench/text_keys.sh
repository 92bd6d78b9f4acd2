#!/usr/bin/env bash
# Text keys against bigint keys and their targets, on one random graph loaded twice: once with
# bigint endpoints in 1..VERTICES, once with each endpoint written as a package-like name
# ('pkg-<n>-<md5 prefix>'), the same edges. Side by side in the same run:
#   - create_graph time (median of RUNS refreshes);
#   - per-row reachable() over PAIRS pairs (a count with no parallel workers, median of RUNS).
# Uses the project's throwaway cluster (scripts/cluster.sh).
#   bench/text_keys.sh [--vertices N] [--edges M] [--pairs P] [--runs R]
set -euo pipefail
cd "$(dirname "$0")/.."
vertices=1000000 edges=5000000 pairs=1000000 runs=3
while [ $# -gt 0 ]; do
	case "$1" in
	--vertices) vertices=$2; shift 2 ;;
	--edges) edges=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "usage: $0 [--vertices N] [--edges M] [--pairs P] [--runs R]" >&2; exit 2 ;;
	esac
done
eval "$(scripts/cluster.sh start)"
db=grail_keys_bench
# shellcheck source=bench/common.sh
source bench/common.sh
psql -XAtq -c 'DROP DATABASE IF EXISTS grail_keys_bench' -c 'CREATE DATABASE grail_keys_bench'
P -c "CREATE EXTENSION pg_grail" \
  -c "SELECT setseed(0.42)" \
  -c "CREATE FUNCTION name_of(bigint) RETURNS text IMMUTABLE LANGUAGE sql AS \$\$SELECT 'pkg-' || \$1 || '-' || substr(md5(\$1::text), 1, 6)\$\$" \
  -c "CREATE TABLE int_edges AS SELECT (1 + random() * ($vertices - 1))::bigint AS source, (1 + random() * ($vertices - 1))::bigint AS target FROM generate_series(1, $edges)" \
  -c "CREATE TABLE text_edges AS SELECT name_of(source) AS source, name_of(target) AS target FROM int_edges" \
  -c "CREATE TABLE int_pairs AS SELECT (1 + random() * ($vertices - 1))::bigint AS a, (1 + random() * ($vertices - 1))::bigint AS b FROM generate_series(1, $pairs)" \
  -c "CREATE TABLE text_pairs AS SELECT name_of(a) AS a, name_of(b) AS b FROM int_pairs" \
  -c "VACUUM ANALYZE int_edges, text_edges, int_pairs, text_pairs" >/dev/null
P -c "SELECT grail.create_graph('int_g', 'int_edges')" -c "SELECT grail.create_graph('text_g', 'text_edges')" >/dev/null

declare -A build count answers
for kind in int text; do
	build[$kind]=$(for _ in $(seq "$runs"); do ms -c "SELECT grail.refresh_graph('${kind}_g')"; done | median)
	count[$kind]=$(for _ in $(seq "$runs"); do
		ms -c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM ${kind}_pairs WHERE grail.reachable('${kind}_g', a, b)"
	done | median)
	answers[$kind]=$(P -c "SELECT count(*) FROM ${kind}_pairs WHERE grail.reachable('${kind}_g', a, b)")
done
[ "${answers[int]}" = "${answers[text]}" ] || { echo "answers differ: bigint ${answers[int]}, text ${answers[text]}" >&2; exit 1; }
image_int=$(P -c "SELECT round(index_bytes / 1048576.0, 1) FROM grail.graphs WHERE name = 'int_g'")
image_text=$(P -c "SELECT round(index_bytes / 1048576.0, 1) FROM grail.graphs WHERE name = 'text_g'")

echo
echo "graph: $vertices vertices, $edges random edges; $pairs pairs (${answers[int]} reachable, same for both); median of $runs"
printf '| %-44s | %10s | %10s | %7s |\n' "measure" "bigint" "text" "ratio"
printf '|%s|%s|%s|%s|\n' "----------------------------------------------" "------------" "------------" "---------"
printf '| %-44s | %10s | %10s | %7s |\n' "create_graph (refresh_graph), ms" "${build[int]}" "${build[text]}" "$(ratio "${build[int]}" "${build[text]}")"
printf '| %-44s | %10s | %10s | %7s |\n' "count over the pairs, per-row reachable, ms" "${count[int]}" "${count[text]}" "$(ratio "${count[int]}" "${count[text]}")"
printf '| %-44s | %10s | %10s | %7s |\n' "index image, MB" "$image_int" "$image_text" "$(ratio "$image_int" "$image_text")"
