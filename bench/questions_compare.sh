#!/usr/bin/env bash
# Two builds of pg_grail side by side on the graphs bench/questions.sh made (its database is kept):
# the module BASELINE (a pg_grail.so built from another commit) and the one installed now, each
# installed in turn and the cluster restarted, alternating for RUNS rounds; per round and graph,
# each statement once after a warm-up run of it in one session, and the median over the rounds:
#   - descendants() / ancestors() of the sources (a count), and SELECT count(*) over a table of the
#     same rows (the floor: target <= 2x);
#   - path() over the reachable pairs (the sum of the lengths), reachable() over them (a count),
#     reachable() plus the length of the path bfs() gives (the target's "reachable() plus returning
#     the path's length", here measured as what the user would write without path(): bfs(g, a)
#     cut at b, i.e. bfs(g, a, max_depth => the distance) and the row of b), and find_cycle()
#     through the pairs' sources.
# Run bench/questions.sh first (same --graphs). The cluster is scripts/cluster.sh's.
#   bench/questions_compare.sh --baseline PATH [--runs R] [--graphs "dag local rmat text"]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
baseline="" runs=3 graphs="dag local rmat text"
parse_args "$0 --baseline PATH [--runs R] [--graphs LIST]" baseline runs graphs -- "$@"
[ -f "$baseline" ] || { echo "no baseline module at '$baseline'" >&2; exit 2; }
eval "$(scripts/cluster.sh start)"
db=grail_questions_bench
libdir=$(pg_config --pkglibdir)
workdir=${TMPDIR:-/tmp}/grail-bench-questions-compare
mkdir -p "$workdir"
cp "$libdir/pg_grail.so" "$workdir/current.so"
cp "$baseline" "$workdir/baseline.so"
# A module replaced by a new file (never written over in place: running backends map it).
use() {
	scripts/cluster.sh stop >/dev/null
	cp "$workdir/$1.so" "$libdir/pg_grail.so.new" && mv "$libdir/pg_grail.so.new" "$libdir/pg_grail.so"
	scripts/cluster.sh start >/dev/null
}
trap 'use current' EXIT

session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB';"
once() { # one timed run of a statement after a warm-up run of it, in one session
	local file=$workdir/statement.sql
	{ echo "$session"; echo '\timing on'; echo "$1;"; echo "$1;"; } >"$file"
	P -f "$file" | awk '/^Time:/ { print $2 }' | tail -n 1
}

declare -A q
for g in $graphs; do
	P -c "DROP TABLE IF EXISTS l_$g" \
	  -c "CREATE TABLE l_$g AS SELECT a, b, cardinality(grail.path('$g', a, b)) - 1 AS len FROM p_$g" \
	  -c "VACUUM ANALYZE l_$g" >/dev/null
	q[$g.descendants]="SELECT count(*) FROM s_$g s, grail.descendants('$g', s.v) d"
	q[$g.ancestors]="SELECT count(*) FROM s_$g s, grail.ancestors('$g', s.v) d"
	q[$g.desc_table]="SELECT count(*) FROM d_$g"
	q[$g.anc_table]="SELECT count(*) FROM a_$g"
	q[$g.reachable]="SELECT count(*) FROM p_$g WHERE grail.reachable('$g', a, b)"
	q[$g.path]="SELECT sum(cardinality(grail.path('$g', a, b)) - 1) FROM p_$g"
	q[$g.bfs_cut]="SELECT sum(x.depth) FROM l_$g l CROSS JOIN LATERAL (SELECT depth FROM grail.bfs('$g', l.a, l.len) WHERE vertex = l.b) x"
	q[$g.find_cycle]="SELECT count(grail.find_cycle('$g', a)) FROM p_$g"
done
measures="descendants desc_table ancestors anc_table reachable path bfs_cut find_cycle"
declare -A t
for round in $(seq "$runs"); do
	for lib in baseline current; do
		use $lib
		for g in $graphs; do
			for m in $measures; do
				t[$lib.$g.$m]="${t[$lib.$g.$m]:-} $(once "${q[$g.$m]}")"
			done
		done
	done
	echo "round $round done" >&2
done
med() { echo "$1" | tr ' ' '\n' | grep . | median; }
echo
echo "medians of $runs rounds (each a warm run), ms; baseline: $baseline"
printf '| %-6s | %-12s | %10s | %10s | %7s |\n' graph measure baseline current "cur/base"
printf '|%s|%s|%s|%s|%s|\n' -------- -------------- ------------ ------------ ---------
for g in $graphs; do
	for m in $measures; do
		b=$(med "${t[baseline.$g.$m]}") c=$(med "${t[current.$g.$m]}")
		printf '| %-6s | %-12s | %10s | %10s | %7s |\n' "$g" "$m" "$b" "$c" "$(ratio "$b" "$c")"
	done
	for lib in baseline current; do
		d=$(med "${t[$lib.$g.descendants]}") dt=$(med "${t[$lib.$g.desc_table]}")
		a=$(med "${t[$lib.$g.ancestors]}") at=$(med "${t[$lib.$g.anc_table]}")
		r=$(med "${t[$lib.$g.reachable]}") p=$(med "${t[$lib.$g.path]}") c=$(med "${t[$lib.$g.bfs_cut]}")
		echo "$g $lib: descendants $(ratio "$dt" "$d")x table, ancestors $(ratio "$at" "$a")x table, path $(ratio "$r" "$p")x reachable(), $(ratio "$c" "$p")x bfs() cut at b"
	done
done
echo "load average at the end (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
