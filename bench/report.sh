#!/usr/bin/env bash
# A benchmark report people can look at: runs the harness on the same tables and writes a markdown
# report with plots (SVG, matplotlib) to OUT (bench/reports/DATE-SCALE unless given):
#   - build time: grail.create_graph against CREATE INDEX ON e (source, target) on the same table;
#   - per-row and array reachable() by graph and pair kind, as ratios to count(*) WHERE a = b
#     (bench/lookup_sql.sh: random DAG, deep local DAG, R-MAT DAG; uniform and reachable pairs);
#   - reachable() against the recursive CTE (UNION) and pgRouting's pgr_dijkstra on the first
#     pairs of the same tables;
#   - descendants(), ancestors(), path() against the recursive CTE and pgr_dijkstra
#     (bench/questions.sh);
#   - the share of pairs each observation of the engine decides (grail_cli bench-queries);
#   - the engine alone on the same graphs and pairs, and side by side with BFL and O'Reach when
#     --bfl DIR / --oreach DIR point at their source trees (built in WORKDIR, never in the repo).
#   bench/report.sh [--scale tiny|small|full] [--out DIR] [--bfl DIR] [--oreach DIR] [--workdir DIR]
# tiny: seconds, for bench/report_smoke.sh; small: a few minutes on 2 cores; full: 1M vertices.
# Uses the project's throwaway cluster (scripts/cluster.sh) and build/grail_cli (GRAIL_CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
scale=small out='' bfl='' oreach='' workdir=${TMPDIR:-/tmp}/grail-report
parse_args "$0 [--scale tiny|small|full] [--out DIR] [--bfl DIR] [--oreach DIR] [--workdir DIR]" \
	scale out bfl oreach workdir -- "$@"
case $scale in
tiny)
	vertices=3000 edges=15000 span=200 rmat_scale=12 pairs=2000 runs=3
	q_vertices=2000 q_sources=5 q_pairs=50 q_pgr=2 q_runs=1 cte_pairs=4 pgr_pairs=2 build_runs=3
	;;
small)
	vertices=100000 edges=500000 span=2000 rmat_scale=17 pairs=20000 runs=3
	q_vertices=20000 q_sources=20 q_pairs=200 q_pgr=3 q_runs=3 cte_pairs=6 pgr_pairs=2 build_runs=3
	;;
full)
	vertices=1000000 edges=5000000 span=2000 rmat_scale=20 pairs=100000 runs=5
	q_vertices=1000000 q_sources=100 q_pairs=1000 q_pgr=20 q_runs=3 cte_pairs=10 pgr_pairs=3 build_runs=3
	;;
*)
	echo "--scale must be tiny, small or full" >&2
	exit 2
	;;
esac
degree=5 edge_factor=8 graphs="dag local rmat"
for d in "$bfl" "$oreach"; do
	[ -z "$d" ] || [ -d "$d" ] || { echo "no such source tree: $d" >&2; exit 2; }
done
[ -z "$bfl" ] || bfl=$(cd "$bfl" && pwd)
[ -z "$oreach" ] || oreach=$(cd "$oreach" && pwd)
out=${out:-bench/reports/$(date -u +%Y-%m-%d)-$scale}
mkdir -p "$out" "$workdir"
out=$(cd "$out" && pwd)
raw=$workdir/raw
rm -rf "$raw"
mkdir -p "$raw"

# What the report needs, installed as the README's commands do: matplotlib from Debian (for the
# system's python3, which a python3 earlier on the PATH, e.g. pyenv's, may not see).
py=
find_py() {
	local p
	for p in python3 /usr/bin/python3; do
		if command -v "$p" >/dev/null && "$p" -c 'import matplotlib' 2>/dev/null; then py=$p; return 0; fi
	done
	return 1
}
if ! find_py; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
		echo "report: installing python3-matplotlib" >&2
		apt-get install -y python3-matplotlib >/dev/null || { apt-get update >/dev/null && apt-get install -y python3-matplotlib >/dev/null; }
	fi
	find_py || { echo "matplotlib is missing: apt-get install python3-matplotlib" >&2; exit 2; }
fi
cli=${GRAIL_CLI:-build/grail_cli}
if [ ! -x "$cli" ]; then
	cmake -S . -B build -DGRAIL_WITH_CUDA=OFF >/dev/null && cmake --build build --target grail_cli >/dev/null
fi
cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
export GRAIL_CLI=$cli

# Results other than the harness's own printouts: one "section<TAB>graph<TAB>kind<TAB>metric<TAB>value" a line.
results=$raw/results.tsv
: >"$results"
put() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$results"; }
note() { echo "$*" >>"$raw/notes.txt"; echo "report: $*" >&2; }
: >"$raw/notes.txt"

{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "scale	$scale"
	echo "commit	$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
	echo "cpu	$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "cpus	$(nproc)"
	echo "memory	$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "kernel	$(uname -sr)"
	echo "parameters	lookup: $vertices vertices, $edges edges (dag), degree $degree span $span (local), R-MAT scale $rmat_scale edge factor $edge_factor, $pairs pairs, $runs runs; against the CTE: $cte_pairs pairs, pgr_dijkstra $pgr_pairs; questions: $q_vertices vertices, $q_sources sources, $q_pairs path pairs ($q_pgr through pgr_dijkstra), $q_runs runs"
} >"$raw/meta.tsv"
echo "load_start	$(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw/meta.tsv"

# pgRouting: listed and creatable (it needs PostGIS), or absent. bench/questions.sh creates it
# wherever it is listed, so a listed one that cannot be created stops the report here.
eval "$(scripts/cluster.sh start)"
pgr=$(psql -XAtq -d postgres -c "SELECT count(*) FROM pg_available_extensions WHERE name = 'pgrouting'")
if [ "$pgr" = 1 ]; then
	psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS grail_report_probe" -c "CREATE DATABASE grail_report_probe"
	if ! psql -XAtq -v ON_ERROR_STOP=1 -d grail_report_probe -c "CREATE EXTENSION pgrouting CASCADE" >/dev/null 2>"$raw/pgrouting.err"; then
		echo "pgRouting is listed by the server but cannot be created: $(head -1 "$raw/pgrouting.err") (install PostGIS too, or remove pgRouting)" >&2
		exit 2
	fi
	psql -XAtq -d postgres -c "DROP DATABASE grail_report_probe"
fi

# 1. reachable() per row and by array against the a = b floor (the harness); its tables stay.
echo "report: lookup_sql.sh (reachable() against the floor)" >&2
bash bench/lookup_sql.sh --vertices "$vertices" --edges "$edges" --degree "$degree" --span "$span" \
	--scale "$rmat_scale" --edge_factor "$edge_factor" --pairs "$pairs" --runs "$runs" --graphs "$graphs" \
	>"$raw/lookup.txt"
eval "$(scripts/cluster.sh start)"
# shellcheck disable=SC2034 # P (bench/common.sh) reads it
db=grail_lookup_bench_${vertices}_${edges}_${degree}_${span}_${rmat_scale}_${edge_factor}_${pairs}
echo "postgres	$(P -c 'SHOW server_version')" >>"$raw/meta.tsv"
if [ "$pgr" = 1 ]; then
	P -c "CREATE EXTENSION IF NOT EXISTS pgrouting CASCADE" >/dev/null
	echo "pgrouting	$(P -c "SELECT extversion FROM pg_extension WHERE extname = 'pgrouting'")" >>"$raw/meta.tsv"
else
	note "pgRouting is not installed in this PostgreSQL (apt-get install postgresql-15-pgrouting): its columns are left out"
fi
session="SET max_parallel_workers_per_gather = 0; SET jit = off; SET work_mem = '256MB'; SET grail.device = cpu;"

for g in $graphs; do
	# 2. Build: create_graph against a B-tree on (source, target) of the same table, interleaved.
	echo "report: $g: builds" >&2
	P -c "SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'bt_$g'" -c "DROP INDEX IF EXISTS bt_${g}_idx" >/dev/null
	gt=() bt=()
	for i in $(seq "$build_runs"); do
		gt+=("$(ms -c "$session" -c "SELECT grail.create_graph('bt_$g', 'e_$g')")")
		[ "$i" = "$build_runs" ] || P -c "SELECT grail.drop_graph('bt_$g')" >/dev/null
		bt+=("$(ms -c "$session" -c "CREATE INDEX bt_${g}_idx ON e_$g (source, target)")")
		P -c "DROP INDEX bt_${g}_idx" >/dev/null
	done
	put build "$g" - create_graph_ms "$(printf '%s\n' "${gt[@]}" | median)"
	put build "$g" - btree_ms "$(printf '%s\n' "${bt[@]}" | median)"
	P -F $'\t' -c "SELECT vertices, edges, components, build_ms, read_ms, scc_ms, label_ms, persist_ms, index_bytes FROM grail.graphs WHERE name = 'bt_$g'" |
		while IFS=$'\t' read -r v e c b r s l p ib; do
			put build "$g" - vertices "$v"; put build "$g" - edges "$e"; put build "$g" - components "$c"
			put build "$g" - build_ms "$b"; put build "$g" - read_ms "$r"; put build "$g" - scc_ms "$s"
			put build "$g" - label_ms "$l"; put build "$g" - persist_ms "$p"; put build "$g" - index_bytes "$ib"
		done
	P -c "CREATE INDEX bt_${g}_idx ON e_$g (source, target)" >/dev/null
	put build "$g" - btree_bytes "$(P -c "SELECT pg_relation_size('bt_${g}_idx')")"
	put build "$g" - table_bytes "$(P -c "SELECT pg_relation_size('e_$g')")"
	P -c "DROP INDEX bt_${g}_idx" -c "SELECT grail.drop_graph('bt_$g')" >/dev/null

	# 3. reachable() against the recursive CTE (UNION) and pgr_dijkstra on the first pairs.
	for kind in u r; do
		name=$([ $kind = u ] && echo uniform || echo reachable)
		echo "report: $g $name: recursive CTE and pgRouting" >&2
		first="(SELECT k, a, b FROM ${kind}_$g ORDER BY k LIMIT $cte_pairs) p"
		sql_fn="SELECT count(*) FROM $first WHERE grail.reachable('$g', p.a, p.b)"
		sql_cte="SELECT count(*) FROM $first WHERE EXISTS (WITH RECURSIVE r(v) AS (SELECT p.a UNION SELECT e.target FROM r JOIN e_$g e ON e.source = r.v) SELECT 1 FROM r WHERE r.v = p.b)"
		n_fn=$(P -c "$sql_fn")
		t_fn=$(ms -c "$session" -c "$sql_fn" -c "$sql_fn" -c "$sql_fn")
		if out_cte=$(P -c "$session" -c "SET statement_timeout = '120s'" -c '\timing on' -c "$sql_cte" 2>&1); then
			n_cte=$(echo "$out_cte" | grep -v '^Time:' | grep -v '^SET' | tail -1)
			t_cte=$(echo "$out_cte" | awk '/^Time:/ { print $2 }' | tail -1)
			[ "$n_cte" = "$n_fn" ] || { echo "$g $name: the recursive CTE finds $n_cte reachable pairs, reachable() $n_fn" >&2; exit 1; }
			put vs "$g" "$name" cte_ms_per_pair "$(awk -v t="$t_cte" -v n="$cte_pairs" 'BEGIN { print t / n }')"
		else
			put vs "$g" "$name" cte_ms_per_pair timeout
		fi
		put vs "$g" "$name" pairs "$cte_pairs"
		put vs "$g" "$name" reachable "$n_fn"
		put vs "$g" "$name" grail_ms_per_pair "$(awk -v t="$t_fn" -v n="$cte_pairs" 'BEGIN { print t / n }')"
		if [ "$pgr" = 1 ]; then
			firstp="(SELECT k, a, b FROM ${kind}_$g ORDER BY k LIMIT $pgr_pairs) p"
			sql_pgr="SELECT count(*) FROM $firstp WHERE p.a = p.b OR EXISTS (SELECT 1 FROM pgr_dijkstra('SELECT row_number() OVER () AS id, source, target, 1.0::float8 AS cost FROM e_$g', p.a, p.b, directed => true))"
			out_pgr=$(P -c "$session" -c '\timing on' -c "$sql_pgr")
			n_pgr=$(echo "$out_pgr" | grep -v '^Time:' | grep -v '^SET' | tail -1)
			t_pgr=$(echo "$out_pgr" | awk '/^Time:/ { print $2 }' | tail -1)
			n_mine=$(P -c "SELECT count(*) FROM $firstp WHERE grail.reachable('$g', p.a, p.b)")
			[ "$n_pgr" = "$n_mine" ] || { echo "$g $name: pgr_dijkstra finds $n_pgr reachable pairs, reachable() $n_mine" >&2; exit 1; }
			put vs "$g" "$name" pgr_ms_per_pair "$(awk -v t="$t_pgr" -v n="$pgr_pairs" 'BEGIN { print t / n }')"
			put vs "$g" "$name" pgr_pairs "$pgr_pairs"
		fi
	done

	# 4. The same graph and pairs as files with dense ids 0 .. n-1 for the engine alone and the
	# other indexes (bench/common.sh).
	echo "report: $g: files for the engine, BFL and O'Reach" >&2
	gd=$workdir/graphs/$g
	n=$(dense_files "$g" "$gd" "$py")
	put engine "$g" - vertices "$n"
	put engine "$g" - edges "$(wc -l <"$gd/edges.txt")"
	put engine "$g" - pairs "$pairs"
done

# 5. The engine alone: build (in process, as O'Reach's "init" is timed; one thread);
# bench-queries (the deciders, its own pairs drawn as the SQL pairs are); grail_cli query --time over
# the very pairs of the SQL runs (in process, the pairs read first): its answers are checked against
# reachable()'s counts.
for g in $graphs; do
	gd=$workdir/graphs/$g
	echo "report: $g: engine" >&2
	"$cli" build "$gd/edges.txt" -o "$gd/index.bin" >"$raw/engine_build_$g.txt"
	put engine "$g" - build_ms "$(awk '/^build total/ { print $3 * 1000 }' "$raw/engine_build_$g.txt")"
	put engine "$g" - index_bytes "$(stat -c %s "$gd/index.bin")"
	"$cli" bench-queries "$gd/index.bin" --queries "$pairs" >"$raw/deciders_$g.txt"
	for kind in u r; do
		times=()
		for _ in $(seq "$runs"); do
			times+=("$("$cli" query "$gd/index.bin" "$gd/$kind.pairs" --time 2>&1 >"$gd/$kind.answers" | awk '{ print $5 }')")
		done
		name=$([ $kind = u ] && echo uniform || echo reachable)
		put engine "$g" "$name" cli_us_per_query "$(printf '%s\n' "${times[@]}" | median | awk -v n="$pairs" '{ printf "%.4f", 1000 * $1 / n }')"
	done
	put engine "$g" uniform positives "$(grep -c '^1$' "$gd/u.answers" || true)"
	put engine "$g" reachable positives "$(grep -c '^1$' "$gd/r.answers" || true)"
	sql_u=$(awk -v g="$g" '$1 == g && $2 == "uniform" && $3 == "per" && $5 == "bigint" { print $NF }' "$raw/lookup.txt")
	[ -z "$sql_u" ] || [ "$sql_u" = "$(grep -c '^1$' "$gd/u.answers")" ] ||
		{ echo "$g: grail_cli query finds $(grep -c '^1$' "$gd/u.answers") reachable uniform pairs, reachable() in SQL $sql_u" >&2; exit 1; }
done

# 6. BFL and O'Reach from the source trees the user points at (copied into WORKDIR and built there).
if [ -n "$oreach" ]; then
	echo "report: building O'Reach from $oreach" >&2
	if oreach_bin=$(build_oreach "$oreach" "$workdir" "$raw/oreach_build.log"); then
		for g in $graphs; do
			gd=$workdir/graphs/$g
			"$oreach_bin" "$gd/graph.metis" --pbibfs --seed 1 \
				--queries "$gd/u.query.txt" --queries "$gd/r.query.t.txt" >"$raw/oreach_$g.txt" 2>&1 ||
				note "O'Reach failed on $g (see $raw/oreach_$g.txt)"
		done
	else
		note "O'Reach did not build from $oreach (cmake, Boost needed; log: $raw/oreach_build.log)"
	fi
fi
if [ -n "$bfl" ]; then
	echo "report: building BFL from $bfl" >&2
	rm -rf "$workdir/bfl-src"
	cp -r "$bfl" "$workdir/bfl-src"
	(
		cd "$workdir/bfl-src"
		if [ -f Makefile ] || [ -f makefile ]; then
			make
		elif [ -f CMakeLists.txt ]; then
			cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j "$(nproc)"
		else
			g++ -O3 -std=c++11 -o bfl ./*.cpp
		fi
	) >"$raw/bfl_build.log" 2>&1 || true
	# The executable the build made: BFL_BIN if set, else one named like bfl, else the first new one.
	cands=$(find "$workdir/bfl-src" -type f -perm -u+x ! -name '*.sh' ! -name '*.py' ! -name '*.o' ! -path '*/CMakeFiles/*' ! -path '*/.git/*' -newer "$raw/meta.tsv")
	bin=${BFL_BIN:+$workdir/bfl-src/$BFL_BIN}
	bin=${bin:-$(echo "$cands" | grep -i 'bfl[^/]*$' | head -1 || true)}
	bin=${bin:-$(echo "$cands" | head -1)}
	if [ -n "$bin" ]; then
		for g in $graphs; do
			gd=$workdir/graphs/$g
			for kind in u r; do
				"$bin" "$gd/graph.gra" "$gd/$kind.bfl.txt" >"$raw/bfl_${g}_$kind.txt" 2>&1 ||
					note "BFL failed on $g $kind (see $raw/bfl_${g}_$kind.txt)"
			done
		done
	else
		note "BFL did not build from $bfl (log: $raw/bfl_build.log)"
	fi
fi

# 7. descendants(), ancestors(), path() against the recursive CTE and pgr_dijkstra.
echo "report: questions.sh (traversals against the recursive CTE)" >&2
bash bench/questions.sh --vertices "$q_vertices" --sources "$q_sources" --pairs "$q_pairs" --pgr_pairs "$q_pgr" \
	--runs "$q_runs" --cte_runs 1 --graphs "dag local rmat" >"$raw/questions.txt"

echo "load_end	$(cut -d' ' -f1-3 /proc/loadavg)" >>"$raw/meta.tsv"
if [ -n "$bfl" ]; then echo "bfl	$bfl" >>"$raw/meta.tsv"; fi
if [ -n "$oreach" ]; then echo "oreach	$oreach" >>"$raw/meta.tsv"; fi
"$py" bench/report.py render --raw "$raw" --out "$out"
echo "report: $out/report.md" >&2
