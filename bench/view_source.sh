#!/usr/bin/env bash
# What a graph over a plain view costs per statement: every statement reads the view as its role
# and builds the index of its rows (nothing is stored). A table of ROWS random edges among ROWS/2
# ids, a view keeping nine rows in ten (kind = 'p'), a graph over the view and, for comparison, a
# graph (live => false) over a table holding just those rows. pgbench, one client, TXNS statements
# each (latency average): count(*) of the view (the read alone), one reachable() on the view graph,
# 100 reachable() calls in one statement (read once), count(*) of descendants(), and one
# reachable() on the table graph (its stored build, mapped once per session).
#   bench/view_source.sh [ROWS] [TXNS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-100000} txns=${2:-20}
eval "$(scripts/cluster.sh start)"
db=grail_view_bench_${rows}
psql -qX -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
psql -qX -d "$db" <<SQL
CREATE EXTENSION pg_grail;
SELECT setseed(0.5);
CREATE TABLE big (a bigint, b bigint, kind text);
INSERT INTO big SELECT (random() * $rows / 2)::bigint, (random() * $rows / 2)::bigint,
                       CASE WHEN random() < 0.9 THEN 'p' ELSE 'd' END FROM generate_series(1, $rows);
CREATE TABLE big_p AS SELECT a, b FROM big WHERE kind = 'p';
ANALYZE;
CREATE VIEW bigv AS SELECT a AS source, b AS target FROM big WHERE kind = 'p';
SELECT grail.create_graph('bv', 'bigv');
SELECT grail.create_graph('bt', 'big_p', 'a', 'b', live => false);
SQL
work=$(mktemp -d)
echo "SELECT count(*) FROM bigv;" > "$work/scan.sql"
echo "SELECT grail.reachable('bv', 1, 2);" > "$work/view1.sql"
echo "SELECT count(*) FILTER (WHERE grail.reachable('bv', i, i + 1)) FROM generate_series(1, 100) i;" > "$work/view100.sql"
echo "SELECT count(*) FROM grail.descendants('bv', 1);" > "$work/descendants.sql"
echo "SELECT grail.reachable('bt', 1, 2);" > "$work/table1.sql"
for f in scan view1 view100 descendants table1; do
	printf '%-12s ' "$f"
	pgbench -n -d "$db" -f "$work/$f.sql" -t "$txns" -c 1 2>&1 | grep 'latency average'
done
rm -rf "$work"
