#!/usr/bin/env bash
# The first reachable() after a new single-row write to a live graph with PENDING changes already
# logged (each its own row of the change log, as a stream of single-row writes leaves them), on a
# random graph of VERTICES vertices and EDGES edges, all in one session (the backend that keeps the
# overlay of the changes it saw last): RUNS rounds of one INSERT then one reachable() of a random
# pair, the reachable() timed. Beside it, in the same rounds: a second reachable() (no new write:
# the log read again, nothing to add), and where it goes: a count of the graph's rows of the change
# log the statement's snapshot sees (what a statement that reads the whole log reads). Then a new
# session's first reachable() (no overlay kept: the whole log read and the overlay made), RUNS
# times. Then, in the first session again: RUNS rounds of one single-row DELETE of a row of the
# build then one reachable() (the deleted edge taken into the kept overlay), and MERGES rounds of
# 100 single-row INSERTs, a merge_graph() by another session, 100 more INSERTs (pending after the
# merge) and one reachable() (the first statement of the session after the merge: the new build's
# image and an overlay of what the merge left pending). Medians in ms. The background merge is
# off for the run (grail.merge_threshold = 0, reset at the end). Runs on the project's throwaway
# cluster (scripts/cluster.sh).
#   bench/live_overlay.sh [--vertices N] [--edges M] [--pending K] [--runs R] [--merges M]
set -euo pipefail
cd "$(dirname "$0")/.."
vertices=200000 edges=1000000 pending=30000 runs=15 merges=3
# shellcheck source=bench/common.sh
source bench/common.sh
parse_args "bench/live_overlay.sh [--vertices N] [--edges M] [--pending K] [--runs R] [--merges M]" \
	vertices edges pending runs merges -- "$@"
eval "$(scripts/cluster.sh start)"
db=grail_live_overlay_bench
psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -XAtq -c "ALTER SYSTEM SET grail.merge_threshold = 0" -c "SELECT pg_reload_conf()" >/dev/null
trap 'psql -XAtq -c "ALTER SYSTEM RESET grail.merge_threshold" -c "SELECT pg_reload_conf()" >/dev/null' EXIT

P -c "CREATE EXTENSION pg_grail" -c "SELECT setseed(0.29)" \
  -c "CREATE TABLE edges AS SELECT s AS source, s + 1 + (random() * ($vertices - s - 1))::bigint AS target
      FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s FROM generate_series(1, $edges)) x" \
  -c "VACUUM ANALYZE edges" -c "SELECT grail.create_graph('g', 'edges')" >/dev/null
# The pending changes: one statement each (one log row each), forward edges (the graph stays a DAG).
P -c "DO \$\$ BEGIN FOR i IN 1..$pending LOOP
        INSERT INTO edges SELECT s, s + 1 + (random() * ($vertices - s - 1))::bigint
        FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s) x;
      END LOOP; END \$\$" >/dev/null
log_rows=$(P -c "SELECT count(*) FROM grail.pending_change")

# One session: a reachable() first (it makes the overlay of the changes so far), then the rounds.
script=$(mktemp)
trap 'rm -f "$script"; psql -XAtq -c "ALTER SYSTEM RESET grail.merge_threshold" -c "SELECT pg_reload_conf()" >/dev/null' EXIT
{
	echo "SET max_parallel_workers_per_gather = 0;"
	echo "SELECT grail.reachable('g', 1, 2);"
	echo '\timing on'
	for r in $(seq "$runs"); do
		echo "\\echo round $r"
		echo "INSERT INTO edges SELECT s, s + 1 + (random() * ($vertices - s - 1))::bigint FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s) x;"
		echo "\\echo first"
		echo "SELECT grail.reachable('g', (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint);"
		echo "\\echo second"
		echo "SELECT grail.reachable('g', (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint);"
		echo "\\echo log"
		echo "SELECT count(*) FROM grail.pending_change WHERE graph_id = (SELECT id FROM grail.graph WHERE name = 'g');"
	done
} >"$script"
# Then deletions and merges, in one session too (after the new sessions: a merge folds the pending
# changes they measure with).
script2=$(mktemp)
trap 'rm -f "$script" "$script2"; psql -XAtq -c "ALTER SYSTEM RESET grail.merge_threshold" -c "SELECT pg_reload_conf()" >/dev/null' EXIT
{
	echo "SET max_parallel_workers_per_gather = 0;"
	echo "SELECT grail.reachable('g', 1, 2);"
	echo '\timing on'
	for r in $(seq "$runs"); do
		echo "\\echo round $r"
		echo "DELETE FROM edges WHERE ctid = (SELECT ctid FROM edges TABLESAMPLE SYSTEM (0.1) REPEATABLE ($r) LIMIT 1);"
		echo "\\echo delete"
		echo "SELECT grail.reachable('g', (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint);"
	done
	insert100="INSERT INTO edges SELECT s, s + 1 + (random() * ($vertices - s - 1))::bigint FROM (SELECT 1 + (random() * ($vertices - 2))::bigint AS s) x;"
	for r in $(seq "$merges"); do
		for _ in $(seq 100); do echo "$insert100"; done
		echo "SELECT grail.reachable('g', 1, 2);"
		echo "\\! psql -XAtq -d $db -c \"SELECT count(*) FROM (SELECT grail.merge_graph('g')) m\" >/dev/null"
		for _ in $(seq 100); do echo "$insert100"; done
		echo "\\echo merge"
		echo "SELECT grail.reachable('g', (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint);"
		echo "\\echo after_merge_second"
		echo "SELECT grail.reachable('g', (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint);"
	done
} >"$script2"
out=$(P -f "$script")
declare -A time
for what in first second log; do
	time[$what]=$(echo "$out" | awk -v w="$what" '$0 == w { take = 1; next } /^Time:/ && take { print $2; take = 0 }' | median)
done
new_session=$(for _ in $(seq "$runs"); do
	ms -c "SET max_parallel_workers_per_gather = 0" \
	   -c "SELECT grail.reachable('g', (1 + random() * ($vertices - 1))::bigint, (1 + random() * ($vertices - 1))::bigint)"
done | median)
out=$(P -f "$script2")
for what in delete merge after_merge_second; do
	time[$what]=$(echo "$out" | awk -v w="$what" '$0 == w { take = 1; next } /^Time:/ && take { print $2; take = 0 }' | median)
done

echo
echo "graph: random DAG, $vertices vertices, $edges edges; $pending single-row changes pending ($log_rows log rows); median of $runs"
printf '| %-72s | %9s |\n' "measure" "ms"
printf '|%s|%s|\n' "--------------------------------------------------------------------------" "-----------"
printf '| %-72s | %9s |\n' "first reachable() after a single-row INSERT, same session" "${time[first]}"
printf '| %-72s | %9s |\n' "second reachable(), no new write" "${time[second]}"
printf '| %-72s | %9s |\n' "count(*) of the graph's change log rows (a whole read's floor)" "${time[log]}"
printf '| %-72s | %9s |\n' "first reachable() of a new session (whole log read, overlay made)" "$new_session"
printf '| %-72s | %9s |\n' "first reachable() after a single-row DELETE of a row of the build" "${time[delete]}"
printf '| %-72s | %9s |\n' "first reachable() after a merge by another session (median of $merges)" "${time[merge]}"
printf '| %-72s | %9s |\n' "second reachable() after that merge" "${time[after_merge_second]}"
