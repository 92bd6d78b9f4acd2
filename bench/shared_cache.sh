#!/usr/bin/env bash
# The shared image cache against private copies and its targets, on one random graph:
#   - private memory a new backend gains by one reachable() call (Private_Clean + Private_Dirty of
#     /proc/PID/smaps_rollup), for NEW_BACKENDS backends in turn, the image resident;
#   - the time of that first call in a new backend;
#   - the first load of the image (into the cache, or into a private copy);
#   - a count over PAIRS rows of reachable() with and without parallel workers.
# Each measure is taken with grail.shared_cache_size at its default (shared) and at 0 (private),
# side by side in the same run. Uses the project's throwaway cluster (scripts/cluster.sh), which
# must run as a user whose /proc files this script can read (root can).
#   bench/shared_cache.sh [--vertices N] [--edges M] [--backends K] [--pairs P]
set -euo pipefail
cd "$(dirname "$0")/.."
vertices=1000000 edges=3000000 backends=16 pairs=2000000
while [ $# -gt 0 ]; do
	case "$1" in
	--vertices) vertices=$2; shift 2 ;;
	--edges) edges=$2; shift 2 ;;
	--backends) backends=$2; shift 2 ;;
	--pairs) pairs=$2; shift 2 ;;
	*) echo "usage: $0 [--vertices N] [--edges M] [--backends K] [--pairs P]" >&2; exit 2 ;;
	esac
done
eval "$(scripts/cluster.sh start)"
data=$(psql -XAtq -c 'SHOW data_directory')
db=grail_cache_bench
# shellcheck source=bench/common.sh
source bench/common.sh
psql -XAtq -c 'DROP DATABASE IF EXISTS grail_cache_bench' -c 'CREATE DATABASE grail_cache_bench'
P -c "CREATE EXTENSION pg_grail" \
  -c "SELECT setseed(0.42)" \
  -c "CREATE TABLE e AS SELECT (1 + random() * ($vertices - 1))::int AS source, (1 + random() * ($vertices - 1))::int AS target FROM generate_series(1, $edges)" \
  -c "CREATE TABLE pairs AS SELECT (1 + random() * ($vertices - 1))::int AS a, (1 + random() * ($vertices - 1))::int AS b FROM generate_series(1, $pairs)" \
  -c "VACUUM ANALYZE e, pairs" >/dev/null
P -c "SELECT grail.create_graph('g', 'e')" >/dev/null
image_mb=$(P -c "SELECT round(index_bytes / 1048576.0, 1) FROM grail.graphs WHERE name = 'g'")

set_cache() {
	psql -XAtq -c "ALTER SYSTEM SET grail.shared_cache_size = '$1'" -c 'SELECT pg_reload_conf()' >/dev/null
	rm -f "$data"/base/pgsql_tmp/pgsql_tmp_grail/*.img
	sleep 0.2
}
# One new backend: private kB before and after its first reachable(), and the call's ms.
one_backend() {
	P <<'SQL'
SELECT pg_backend_pid() AS pid \gset
\setenv PID :pid
\! awk '/^Private_(Clean|Dirty):/ { s += $2 } END { printf "%d ", s }' /proc/$PID/smaps_rollup
SELECT clock_timestamp() AS t0 \gset
SELECT grail.reachable('g', 1, 2) \g /dev/null
SELECT round(extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) * 1000, 2) AS ms \gset
\! awk '/^Private_(Clean|Dirty):/ { s += $2 } END { printf "%d ", s }' /proc/$PID/smaps_rollup
\echo :ms
SQL
}
count_ms() { # $1: max_parallel_workers_per_gather; median of 3
	for _ in 1 2 3; do
		P -c "SET max_parallel_workers_per_gather = $1" -c '\timing on' \
		  -c "SELECT count(*) FROM pairs WHERE grail.reachable('g', a, b)" | awk '/^Time:/ { print $2 }'
	done | median
}

declare -A first_load grow_med grow_max first_med count_par count_serial
for mode in shared private; do
	[ $mode = shared ] && set_cache 1GB || set_cache 0
	# The first load (a backend that finds no image file, or always, for private copies).
	first_load[$mode]=$(one_backend | awk '{ print $3 }')
	growth=() firsts=()
	# A first backend keeps the image mapped while the others are measured, as on a busy server.
	(P -c "SELECT grail.reachable('g', 1, 2), pg_sleep(3600)" >/dev/null 2>&1 &) ; sleep 1
	for _ in $(seq "$backends"); do
		read -r before after ms < <(one_backend)
		growth+=($(( (after - before) / 1024 ))) firsts+=("$ms")
	done
	psql -XAtq -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3600)%' AND pid <> pg_backend_pid()" >/dev/null
	grow_med[$mode]=$(printf '%s\n' "${growth[@]}" | median)
	grow_max[$mode]=$(printf '%s\n' "${growth[@]}" | sort -n | tail -1)
	first_med[$mode]=$(printf '%s\n' "${firsts[@]}" | median)
	count_serial[$mode]=$(count_ms 0)
	count_par[$mode]=$(count_ms 2)
done
set_cache 1GB
psql -XAtq -c 'ALTER SYSTEM RESET grail.shared_cache_size' -c 'SELECT pg_reload_conf()' >/dev/null

echo
echo "graph: $vertices vertices, $edges random edges, image $image_mb MB; $backends new backends; $pairs pairs"
printf '| %-52s | %12s | %12s |\n' "measure" "shared" "private"
printf '|%s|%s|%s|\n' "------------------------------------------------------" "--------------" "--------------"
printf '| %-52s | %12s | %12s |\n' "private memory a new backend gains, median (MB)" "${grow_med[shared]}" "${grow_med[private]}"
printf '| %-52s | %12s | %12s |\n' "private memory a new backend gains, max (MB)" "${grow_max[shared]}" "${grow_max[private]}"
printf '| %-52s | %12s | %12s |\n' "first reachable() of a new backend, median (ms)" "${first_med[shared]}" "${first_med[private]}"
printf '| %-52s | %12s | %12s |\n' "first load of the image (ms)" "${first_load[shared]}" "${first_load[private]}"
printf '| %-52s | %12s | %12s |\n' "count over the pairs, no parallel workers (ms)" "${count_serial[shared]}" "${count_serial[private]}"
printf '| %-52s | %12s | %12s |\n' "count over the pairs, 2 parallel workers (ms)" "${count_par[shared]}" "${count_par[private]}"
