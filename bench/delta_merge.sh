#!/usr/bin/env bash
# WAL written by merges of a 1M-edge live graph (random edges over 200k vertices): one new edge, then
# 1% of the edges changed (delta builds), against refresh_graph (a full image); and the first
# reachable() of a new session after each (the merge leaves its image in the cache), and after a
# restart (the image made from the base and the delta). Uses the cluster that psql reaches;
# --restart CMD restarts it (e.g. "scripts/cluster.sh restart"); --runs N merges one new edge N
# times (each a delta from the same base) and prints each merge's time.
#   bench/delta_merge.sh [--edges N] [--runs N] [--restart CMD]
set -euo pipefail
edges=1000000
restart=""
runs=1
while [ $# -gt 0 ]; do
	case "$1" in
	--edges) edges=$2; shift 2 ;;
	--restart) restart=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	*) echo "unknown argument $1" >&2; exit 2 ;;
	esac
done
vertices=$((edges / 5))
q() { psql -XqAt -v ON_ERROR_STOP=1 -c "$1"; }
wal_of() { # the WAL bytes of one statement
	local lsn
	lsn=$(q "SELECT pg_current_wal_lsn()")
	q "$1" >/dev/null
	q "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')"
}
first_read() { # ms of the first reachable() of a new session
	psql -XqAt -c '\timing on' -c "SELECT grail.reachable('dm_bench', 1, 2)" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}
q "CREATE EXTENSION IF NOT EXISTS pg_grail" >/dev/null
q "DROP TABLE IF EXISTS dm_bench CASCADE" >/dev/null
q "SELECT grail.drop_graph('dm_bench') FROM grail.graphs WHERE name = 'dm_bench'" >/dev/null
q "CREATE TABLE dm_bench (source bigint, target bigint)"
q "SELECT setseed(0.1); INSERT INTO dm_bench SELECT (random() * $vertices)::int, (random() * $vertices)::int FROM generate_series(1, $edges)" >/dev/null
q "SELECT grail.create_graph('dm_bench', 'dm_bench')" >/dev/null
image=$(q "SELECT index_bytes FROM grail.graph WHERE name = 'dm_bench'")
echo "graph: $edges edges, image $image bytes"
for run in $(seq 1 "$runs"); do
	q "INSERT INTO dm_bench VALUES ($run, $((vertices + run)))"
	t0=$(date +%s.%N)
	wal=$(wal_of "SELECT grail.merge_graph('dm_bench')")
	t1=$(date +%s.%N)
	echo "merge of 1 edge: WAL $wal bytes ($(awk "BEGIN{printf \"%.3f\", 100*$wal/$image}")% of the image), $(awk "BEGIN{printf \"%.2f\", $t1-$t0}") s; stored: $(q "SELECT coalesce('delta of ' || delta_changes || ' changes, ' || delta_bytes || ' bytes', 'full') FROM grail.graph WHERE name = 'dm_bench'")"
done
echo "first read of a new session: $(first_read) ms"
changes=$((edges / 200))
q "DELETE FROM dm_bench WHERE ctid IN (SELECT ctid FROM dm_bench ORDER BY random() LIMIT $changes)" >/dev/null
q "INSERT INTO dm_bench SELECT (random() * $vertices)::int, (random() * $vertices)::int FROM generate_series(1, $changes)" >/dev/null
t0=$(date +%s.%N)
wal=$(wal_of "SELECT grail.merge_graph('dm_bench')")
t1=$(date +%s.%N)
echo "merge of 1% of the edges changed ($changes deleted, $changes inserted): WAL $wal bytes ($(awk "BEGIN{printf \"%.2f\", 100*$wal/$image}")%), $(awk "BEGIN{printf \"%.2f\", $t1-$t0}") s; stored: $(q "SELECT coalesce('delta of ' || delta_changes || ' changes, ' || delta_bytes || ' bytes', 'full') FROM grail.graph WHERE name = 'dm_bench'")"
echo "first read of a new session: $(first_read) ms"
if [ -n "$restart" ]; then
	$restart >/dev/null
	echo "first read after a restart (image made from base + delta): $(first_read) ms"
	echo "second session after it: $(first_read) ms"
fi
wal=$(wal_of "SELECT grail.refresh_graph('dm_bench')")
echo "refresh_graph (full image): WAL $wal bytes ($(awk "BEGIN{printf \"%.1f\", 100*$wal/$image}")%)"
q "SELECT grail.drop_graph('dm_bench')" >/dev/null
q "DROP TABLE dm_bench" >/dev/null
