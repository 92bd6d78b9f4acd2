#!/usr/bin/env bash
# descendants() and ancestors() in FROM against SELECT count(*) over a table holding the same rows
# (the target: <= 2x), on graphs of VERTICES vertices as bench/questions.sh makes them: dag (random
# DAG), local (deep local DAG), rmat (R-MAT, edge factor 2: cycles, a giant component; needs
# build/grail_cli or GRAIL_CLI), text (the random DAG with text keys). Statements: SOURCES random
# sources (a count over a LATERAL join), unbounded and with max_depth 1 (few rows per call: the
# per-call fixed cost).
# Without --libs: in one session, RUNS rounds of (Grail Traversal Scan, the same statement through
# FunctionScan under grail.traversal_scan = off, the table), each after a warm-up run; medians.
# Interleaved, so that a shared machine's load falls on all three alike.
# With --libs: each library in turn (copied over the installed pg_grail.so, the cluster
# restarted), the function and the table, the median of RUNS runs after a warm-up run.
#   bench/traversal_scan.sh [--libs "OLD.so NEW.so"] [--vertices N] [--sources S] [--runs R] [--graphs LIST]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 degree=2 dag_degree=5 span=64 sources=100 runs=3 graphs="dag local rmat text" libs=""
cli=${GRAIL_CLI:-build/grail_cli}
parse_args "$0 [--libs LIST] [--vertices N] [--sources S] [--runs R] [--graphs LIST]" \
	vertices sources runs graphs libs -- "$@"
installed="$(pg_config --pkglibdir)/pg_grail.so"
saved=$(mktemp)
cp "$installed" "$saved"
trap 'scripts/cluster.sh stop >/dev/null; cp "$saved" "$installed"; rm -f "$saved"' EXIT
eval "$(scripts/cluster.sh start)"
db=grail_traversal_scan_bench
workdir=${TMPDIR:-/tmp}/grail-bench-traversal-scan
mkdir -p "$workdir"
psql -XAtq -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
P -c "CREATE EXTENSION pg_grail" >/dev/null
session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB';"
warm() {
	local file=$workdir/statement.sql
	{ echo "$session"; echo '\timing on'; for _ in $(seq $((runs + 1))); do echo "$1;"; done; } >"$file"
	P -f "$file" | awk '/^Time:/ { print $2 }' | tail -n "$runs" | median
}
use_lib() {
	scripts/cluster.sh stop >/dev/null
	cp "$1" "$installed"
	eval "$(scripts/cluster.sh start)"
}
for g in $graphs; do
	case $g in
	dag | text)
		P -c "SELECT setseed(0.11)" -c "CREATE TABLE e_$g AS SELECT least(x, y) AS source, greatest(x, y) AS target FROM (
		        SELECT (1 + random() * ($vertices - 1))::bigint AS x, (1 + random() * ($vertices - 1))::bigint AS y
		        FROM generate_series(1, $dag_degree * $vertices)) r WHERE x <> y" >/dev/null ;;
	local)
		P -c "SELECT setseed(0.12)" -c "CREATE TABLE e_$g AS SELECT i AS source, i + 1 + (random() * ($span - 1))::bigint AS target
		        FROM generate_series(1, $vertices) i, generate_series(1, $degree) k WHERE i + $span <= $vertices" >/dev/null ;;
	rmat)
		[ -x "$cli" ] || { echo "grail_cli not found at $cli (cmake --build build --target grail_cli)" >&2; exit 2; }
		scale=$(awk -v n="$vertices" 'BEGIN { s = 0; while (2 ^ s < n) s++; print s }')
		"$cli" generate rmat "$scale" "$degree" 13 >"$workdir/edges.txt"
		P -c "CREATE TABLE e_$g (source bigint, target bigint)" \
		  -c "\\copy e_$g FROM '$workdir/edges.txt' WITH (FORMAT text, DELIMITER ' ')" >/dev/null
		rm -f "$workdir/edges.txt" ;;
	*) echo "unknown graph $g (dag, local, rmat, text)" >&2; exit 2 ;;
	esac
	[ "$g" = text ] && P -c "ALTER TABLE e_text ALTER source TYPE text USING 'v' || source, ALTER target TYPE text USING 'v' || target" >/dev/null
	P -c "SELECT grail.create_graph('$g', 'e_$g')" -c "SELECT setseed(0.5)" \
	  -c "CREATE TABLE s_$g AS SELECT v FROM (SELECT source AS v FROM e_$g UNION SELECT target FROM e_$g) k ORDER BY random() LIMIT $sources" \
	  -c "CREATE TABLE d_$g AS SELECT s.v AS source, d.vertex, d.depth FROM s_$g s, grail.descendants('$g', s.v) d" \
	  -c "CREATE TABLE a_$g AS SELECT s.v AS source, a.vertex, a.depth FROM s_$g s, grail.ancestors('$g', s.v) a" \
	  -c "CREATE TABLE d1_$g AS SELECT * FROM d_$g WHERE depth <= 1" \
	  -c "VACUUM ANALYZE s_$g, d_$g, a_$g, d1_$g" >/dev/null
done
statements() { # graph -> "name:table:call" lines
	echo "descendants:d_$1:grail.descendants('$1', s.v)"
	echo "ancestors:a_$1:grail.ancestors('$1', s.v)"
	echo "descendants depth 1:d1_$1:grail.descendants('$1', s.v, 1)"
}
if [ -z "$libs" ]; then
	printf '%-6s %-20s %10s %9s %9s %9s %7s %7s\n' graph statement rows "scan ms" "fscan ms" "table ms" "scan/t" "fscan/t"
	for g in $graphs; do
		while IFS=: read -r name table call; do
			fn="SELECT count(*) FROM s_$g s, $call d"
			rows=$(P -c "$fn")
			[ "$rows" = "$(P -c "SELECT count(*) FROM $table")" ] || { echo "$g $name: rows differ from $table" >&2; exit 1; }
			file=$workdir/statement.sql
			{ echo "$session"; echo "$fn;"; echo "SET grail.traversal_scan = off;"; echo "$fn;"; echo "SELECT count(*) FROM $table;"
			  echo '\timing on'
			  for _ in $(seq "$runs"); do
				echo "SET grail.traversal_scan = on;"; echo "$fn;"; echo "SET grail.traversal_scan = off;"; echo "$fn;"
				echo "SELECT count(*) FROM $table;"
			  done; } >"$file"
			# Five timed statements a round (two SETs): the scan's, FunctionScan's, the table's.
			times=$(P -f "$file" | awk '/^Time:/ { print $2 }' | awk 'NR % 5 == 2 || NR % 5 == 4 || NR % 5 == 0')
			on=$(awk 'NR % 3 == 1' <<<"$times" | median)
			off=$(awk 'NR % 3 == 2' <<<"$times" | median)
			t=$(awk 'NR % 3 == 0' <<<"$times" | median)
			printf '%-6s %-20s %10s %9.1f %9.1f %9.2f %7s %7s\n' "$g" "$name" "$rows" "$on" "$off" "$t" "$(ratio "$t" "$on")" "$(ratio "$t" "$off")"
		done < <(statements "$g")
	done
	exit 0
fi
printf '%-6s %-22s %10s %10s %10s %7s %s\n' graph statement rows "fn ms" "table ms" ratio library
for lib in $libs; do
	use_lib "$lib"
	for g in $graphs; do
		while IFS=: read -r name table call; do
			fn="SELECT count(*) FROM s_$g s, $call d"
			rows=$(P -c "$fn")
			[ "$rows" = "$(P -c "SELECT count(*) FROM $table")" ] || { echo "$g $name: rows differ from $table" >&2; exit 1; }
			f=$(warm "$fn")
			t=$(warm "SELECT count(*) FROM $table")
			printf '%-6s %-22s %10s %10.1f %10.1f %7s %s\n' "$g" "$name" "$rows" "$f" "$t" "$(ratio "$t" "$f")" "$(basename "$lib")"
		done < <(statements "$g")
	done
done
