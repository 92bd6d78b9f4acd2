#!/usr/bin/env bash
# pg_grail benchmark harness: generate a graph, load it into PostgreSQL, build the index, time
# reachable() against trivial and recursive-CTE baselines and the engine alone. See bench/README.md.
#
#   bench/run.sh                       random DAG, 1M vertices, average degree 5 (5M edges)
#   bench/run.sh --small               random DAG, 100k vertices, 500k edges, 100k pairs
#   bench/run.sh --graph rmat --scale 20 --edge-factor 8
#   bench/run.sh --graph grid --rows 1000 --cols 1000 [--both]
#   bench/run.sh --help
#
# Exit status: 0 done (targets missed are reported, not fatal unless --strict), 1 a disagreement
# between answers (recursive CTE vs reachable(), per-row vs batch), 2 a setup or usage error.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")

graph=dag
vertices=1000000
degree=5
scale=20
edge_factor=8
rows=1000
cols=1000
both=0
seed=1
pairs=1000000
runs=5
batch_size=1000
labels=2
cte_pairs=20
cte_timeout=10s
name=bench_g
db=${BENCH_DB:-grail_bench}
workdir=${BENCH_WORKDIR:-/tmp/grail-bench}
cli=${GRAIL_CLI:-$repo/build/grail_cli}
engine_queries=100000
strict=0
skip_engine=0
skip_cte=0
pairs_from=vertices
keep_cluster=0
cluster_root=${BENCH_PG_ROOT:-/tmp/pg_grail_bench}
cluster_port=${BENCH_PG_PORT:-54339}

usage() {
	sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
	cat <<'EOF'
Options (defaults in brackets):
  --graph dag|rmat|grid   graph kind [dag]
  --vertices N            dag: vertices [1000000]
  --degree D              dag: average out-degree, edges = N * D [5]
  --scale S               rmat: 2^S vertices [20]
  --edge-factor E         rmat: E * 2^S edges [8]
  --rows R --cols C       grid size [1000 x 1000]
  --both                  grid: edges in both directions (one SCC)
  --seed S                generator seed [1]
  --small                 dag 100000 x 5, 100000 pairs
  --pairs P               random pairs for the SQL query timings [1000000]
  --pairs-from vertices|range   pair ids uniform over the graph's vertices, or over the
                          generator's id range (ids without edges included) [vertices]
  --runs K                timed runs per query, medians reported [5]
  --batch-size B          pairs per array in the batch form [1000]
  --labels D              GRAIL labels [2]
  --cte-pairs K           pairs for the recursive-CTE comparison, half random, half
                          known reachable by a random walk [20]
  --cte-timeout T         statement_timeout per CTE query [10s]
  --engine-queries Q      queries per set for grail_cli bench-queries [100000]
  --no-engine             skip the grail_cli build / bench-queries part
  --no-cte                skip the recursive-CTE comparison
  --db NAME               benchmark database, dropped and recreated [grail_bench]
  --workdir DIR           edge file, engine index [/tmp/grail-bench]
  --strict                exit 1 when a target is missed
  --keep-cluster          leave the throwaway cluster running at exit
Environment: PGHOST/PGPORT/PGUSER: use that server; otherwise the harness starts its own
throwaway cluster with scripts/cluster.sh in $BENCH_PG_ROOT [/tmp/pg_grail_bench] on port
$BENCH_PG_PORT [54339] and stops it at exit. GRAIL_CLI (path of grail_cli), BENCH_DB,
BENCH_WORKDIR.
EOF
}

die() {
	echo "bench: $*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	--graph) graph=$2; shift ;;
	--vertices) vertices=$2; shift ;;
	--degree) degree=$2; shift ;;
	--scale) scale=$2; shift ;;
	--edge-factor) edge_factor=$2; shift ;;
	--rows) rows=$2; shift ;;
	--cols) cols=$2; shift ;;
	--both) both=1 ;;
	--seed) seed=$2; shift ;;
	--small) graph=dag; vertices=100000; degree=5; pairs=100000 ;;
	--pairs) pairs=$2; shift ;;
	--pairs-from) pairs_from=$2; shift ;;
	--runs) runs=$2; shift ;;
	--batch-size) batch_size=$2; shift ;;
	--labels) labels=$2; shift ;;
	--cte-pairs) cte_pairs=$2; shift ;;
	--cte-timeout) cte_timeout=$2; shift ;;
	--engine-queries) engine_queries=$2; shift ;;
	--no-engine) skip_engine=1 ;;
	--no-cte) skip_cte=1 ;;
	--db) db=$2; shift ;;
	--workdir) workdir=$2; shift ;;
	--strict) strict=1 ;;
	--keep-cluster) keep_cluster=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown option $1" ;;
	esac
	shift
done

for v in vertices scale edge_factor rows cols seed pairs runs batch_size labels cte_pairs engine_queries; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "--${v//_/-} must be a non-negative integer, not '${!v}'"
done
[[ $degree =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--degree must be a number, not '$degree'"
[[ $pairs_from =~ ^(vertices|range)$ ]] || die "--pairs-from must be vertices or range"
[[ $db =~ ^[a-z_][a-z0-9_]*$ ]] || die "--db must be a plain lower-case identifier"
[[ $name =~ ^[a-z_][a-z0-9_]*$ ]] || die "bad graph name"
if [ "$runs" -lt 1 ] || [ "$pairs" -lt 1 ] || [ "$batch_size" -lt 1 ]; then
	die "--runs, --pairs, --batch-size must be >= 1"
fi

case "$graph" in
dag)
	gen_args=(dag "$vertices" "$degree" "$seed")
	id_range=$vertices
	title="random DAG, $vertices vertices, average degree $degree, seed $seed"
	;;
rmat)
	gen_args=(rmat "$scale" "$edge_factor" "$seed")
	id_range=$((1 << scale))
	title="R-MAT scale $scale ($id_range vertices), edge factor $edge_factor, seed $seed"
	;;
grid)
	gen_args=(grid "$rows" "$cols")
	[ "$both" -eq 0 ] || gen_args+=(--both)
	id_range=$((rows * cols))
	title="grid $rows x $cols$([ "$both" -eq 0 ] || echo ', both directions')"
	;;
*) die "--graph must be dag, rmat or grid" ;;
esac
[ "$id_range" -ge 1 ] || die "empty graph"

# ----------------------------------------------------------------------------------------------
# Helpers

now_ns() {
	date +%s%N
}
# elapsed milliseconds since a now_ns value, 1 decimal
ms_since() {
	awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'
}
calc() {
	awk "BEGIN { printf $1 }"
}
# median of the numbers on stdin, one a line (blank lines ignored), or n/a
median() {
	sort -g | awk 'NF { v[++n] = $1 }
		END { if (n == 0) print "n/a"; else if (n % 2) printf "%.1f", v[(n + 1) / 2]; else printf "%.1f", (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
section() {
	printf '\n== %s\n' "$*"
}
say() {
	printf '   %s\n' "$*"
}

[ -x "$cli" ] || die "grail_cli not found at $cli (build it: cmake -S . -B build -DGRAIL_WITH_CUDA=OFF && cmake --build build --target grail_cli; or set GRAIL_CLI)"

# ----------------------------------------------------------------------------------------------
# Server

if [ -z "${PGHOST:-}" ] && [ -z "${PGPORT:-}" ]; then
	# Our own throwaway cluster (scripts/cluster.sh with its own directory and port), so that the
	# timings are not disturbed by, and do not disturb, the project's test cluster.
	[ -x "$repo/scripts/cluster.sh" ] || die "no PGHOST/PGPORT given and no scripts/cluster.sh to start a cluster"
	export GRAIL_PG_ROOT=$cluster_root GRAIL_PG_PORT=$cluster_port
	cluster_env=$("$repo/scripts/cluster.sh" start) || die "scripts/cluster.sh start failed (GRAIL_PG_ROOT=$cluster_root)"
	eval "$cluster_env"
	if [ "$keep_cluster" -eq 1 ]; then
		server_note="throwaway cluster in $cluster_root, left running (GRAIL_PG_ROOT=$cluster_root GRAIL_PG_PORT=$cluster_port scripts/cluster.sh stop|destroy)"
	else
		trap '"$repo/scripts/cluster.sh" stop' EXIT
		server_note="throwaway cluster in $cluster_root, stopped at exit"
	fi
else
	server_note="server from the environment"
fi
pgbin=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin)
PSQL=$pgbin/psql
[ -x "$PSQL" ] || PSQL=psql
# Per-row costs are measured in one process: no parallel workers, no JIT compilation (both would
# make the a = b baseline and reachable() incomparable from one query to the next).
export PGOPTIONS="${PGOPTIONS:-} -c max_parallel_workers_per_gather=0 -c jit=off"

maint_db=${PGDATABASE:-postgres}
[ "$maint_db" != "$db" ] || maint_db=postgres
psql_maint() {
	"$PSQL" -X -q -At -v ON_ERROR_STOP=1 -d "$maint_db" "$@"
}
P() {
	"$PSQL" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"
}

psql_maint -c "SELECT 1" >/dev/null || die "cannot connect to PostgreSQL (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-})"
server_version=$(psql_maint -c "SHOW server_version")
case "$server_version" in 15.*) ;; *) echo "bench: warning: PostgreSQL $server_version, pg_grail targets 15" >&2 ;; esac
psql_maint -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
mkdir -p "$workdir"
P -c "CREATE EXTENSION pg_grail" 2>"$workdir.ext.err" || {
	cat "$workdir.ext.err" >&2
	die "CREATE EXTENSION pg_grail failed: run 'make install' first (as root, with the pg_config of this server)"
}
rm -f "$workdir.ext.err"
P -f "$here/bench.sql" >/dev/null

mkdir -p "$workdir"
edges_file=$workdir/edges.txt
index_file=$workdir/index.bin

echo "pg_grail benchmark: $title"
say "server: PostgreSQL $server_version, $server_note, database $db"
say "machine: $(nproc) CPUs, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(uname -m); pg_grail $(P -c "SELECT extversion FROM pg_extension WHERE extname = 'pg_grail'")"
say "session: max_parallel_workers_per_gather=0, jit=off; $runs timed runs per query, medians"

# ----------------------------------------------------------------------------------------------
section "generate edges ($cli generate ${gen_args[*]})"
t=$(now_ns)
"$cli" generate "${gen_args[@]}" >"$edges_file"
gen_ms=$(ms_since "$t")
edge_rows=$(wc -l <"$edges_file")
say "$edge_rows edges in $gen_ms ms -> $edges_file ($(du -h "$edges_file" | cut -f1))"
[ "$edge_rows" -ge 1 ] || die "the generator made no edges"

# ----------------------------------------------------------------------------------------------
section "load into PostgreSQL: COPY into edges(source bigint, target bigint)"
P -c "CREATE TABLE edges (source bigint NOT NULL, target bigint NOT NULL)"
t=$(now_ns)
P -c "\\copy edges FROM '$edges_file' WITH (FORMAT text, DELIMITER ' ')"
copy_ms=$(ms_since "$t")
loaded=$(P -c "SELECT count(*) FROM edges")
[ "$loaded" -eq "$edge_rows" ] || die "COPY loaded $loaded rows, the file has $edge_rows"
say "COPY $loaded rows: $copy_ms ms ($(calc "\"%.2f\", $loaded / $copy_ms / 1000") M rows/s, client-side \\copy)"
# VACUUM sets hint bits and the visibility map, so that create_graph's heap scan measures reading,
# not the first-touch writes every fresh table pays once.
t=$(now_ns)
P -c "VACUUM (ANALYZE) edges"
vacuum_ms=$(ms_since "$t")
table_bytes=$(P -c "SELECT pg_table_size('edges')")
say "VACUUM ANALYZE: $vacuum_ms ms; table $(calc "\"%.1f\", $table_bytes / 1048576") MiB"

# ----------------------------------------------------------------------------------------------
section "build: grail.create_graph('$name', 'edges', labels => $labels)"
t=$(now_ns)
summary=$(P -c "SELECT grail.create_graph('$name', 'edges', labels => $labels)" 2>&1)
create_ms=$(ms_since "$t")
printf '%s\n' "$summary" | sed 's/^/   /'
say "create_graph wall time (client): $create_ms ms"
IFS='|' read -r g_vertices g_edges g_components g_dag_edges build_ms read_ms scc_ms label_ms persist_ms index_bytes <<<"$(
	P -c "SELECT vertices, edges, components, dag_edges, build_ms, read_ms, scc_ms, label_ms, persist_ms, index_bytes
	      FROM grail.graphs WHERE name = '$name'")"
[ -n "${index_bytes:-}" ] || die "graph $name not found in grail.graphs after create_graph"
ingest=$(calc "\"%.2f\", $edge_rows / $read_ms / 1000")
say "graph: $g_vertices vertices, $g_edges distinct edges, $g_components components, condensation $g_dag_edges edges"
say "phases (grail.graphs): read $read_ms ms, ids+csr+scc $scc_ms ms, labels $label_ms ms, persist $persist_ms ms; build_ms $build_ms"
say "ingest: $edge_rows rows / read_ms = $ingest M edges/s; index $(calc "\"%.1f\", $index_bytes / 1048576") MiB"

# First call in a fresh backend: loads the index from its table into the backend's cache.
load_ms=$(P -c "SELECT round(ms::numeric, 1) FROM bench.time_once(\$q\$SELECT grail.reachable('$name', 0, 1)\$q\$)")
load2_ms=$(P -c "SELECT round(ms::numeric, 3) FROM bench.time_once(\$q\$SELECT grail.reachable('$name', 0, 1)\$q\$)")
say "first reachable() in a new backend (index load): $load_ms ms; a new backend again: $load2_ms ms"

# ----------------------------------------------------------------------------------------------
if [ "$pairs_from" = vertices ]; then
	# Ids drawn uniformly from the vertices of the edge table (R-MAT leaves many ids of its range
	# without edges, and those would be trivial queries); numbered in id order, so repeatable.
	pairs_desc="ids uniform over the $g_vertices vertices of the edge table"
	pairs_sql="CREATE TEMP TABLE vert AS
SELECT row_number() OVER (ORDER BY v) - 1 AS k, v
FROM (SELECT source AS v FROM edges UNION SELECT target FROM edges) s;
SELECT setseed(0.25);
CREATE TABLE pairs AS
SELECT va.v AS a, vb.v AS b
FROM (SELECT floor(random() * $g_vertices)::bigint AS ka, floor(random() * $g_vertices)::bigint AS kb
      FROM generate_series(1, $pairs)) r
JOIN vert va ON va.k = r.ka
JOIN vert vb ON vb.k = r.kb;"
else
	pairs_desc="ids uniform in the generator's range [0, $id_range)"
	pairs_sql="SELECT setseed(0.25);
CREATE TABLE pairs AS
SELECT floor(random() * $id_range)::bigint AS a, floor(random() * $id_range)::bigint AS b
FROM generate_series(1, $pairs);"
fi
section "SQL queries: $pairs random pairs, $pairs_desc"
t=$(now_ns)
P >/dev/null <<SQL
$pairs_sql
CREATE TABLE pairs_batch AS
SELECT batch, array_agg(a) AS a, array_agg(b) AS b
FROM (SELECT (row_number() OVER () - 1) / $batch_size AS batch, a, b FROM pairs) s
GROUP BY batch;
CREATE TABLE pairs_one AS SELECT array_agg(a) AS a, array_agg(b) AS b FROM pairs;
VACUUM ANALYZE pairs, pairs_batch, pairs_one;
SQL
batches=$(P -c "SELECT count(*) FROM pairs_batch")
[ "$(P -c "SELECT count(*) FROM pairs")" -eq "$pairs" ] || die "pairs table has the wrong size"
say "pairs, $batches arrays of $batch_size and one array of $pairs made in $(ms_since "$t") ms"

q_base="SELECT count(*) FROM pairs WHERE a = b"
q_reach="SELECT count(*) FROM pairs WHERE grail.reachable('$name', a, b)"
q_bbase="SELECT count(*) FROM pairs_batch p, unnest(p.a, p.b) AS u(x, y) WHERE x = y"
q_breach="SELECT count(*) FROM pairs_batch p, unnest(grail.reachable('$name', p.a, p.b)) AS r WHERE r"
q_obase="SELECT count(*) FROM pairs_one p, unnest(p.a, p.b) AS u(x, y) WHERE x = y"
q_oreach="SELECT count(*) FROM pairs_one p, unnest(grail.reachable('$name', p.a, p.b)) AS r WHERE r"
qs=("$q_base" "$q_reach" "$q_bbase" "$q_breach" "$q_obase" "$q_oreach")
labels_q=("per row, a = b" "per row, reachable()" "batch $batch_size, unnest a = b" "batch $batch_size, reachable(arrays)"
	"one array, unnest a = b" "one array, reachable(arrays)")
for k in "${!qs[@]}"; do
	say "$(printf '%-36s %s' "${labels_q[k]}:" "${qs[k]}")"
done
# the queries as an SQL array of dollar-quoted strings
# shellcheck disable=SC2016
array_sql="ARRAY[$(for q in "${qs[@]}"; do printf '%s$q$%s$q$' "${sep:-}" "$q"; sep=,; done)]"
declare -a med res
timings=$(P -c "SELECT query, median_ms, min_ms, max_ms, result FROM bench.medians($array_sql, $runs)") ||
	die "the timed queries failed"
while IFS='|' read -r k m mn mx r; do
	med[k]=$m
	res[k]=$r
	say "$(printf '%-36s median %9.1f ms  (min %.1f, max %.1f)  count %s' "${labels_q[k - 1]}" "$m" "$mn" "$mx" "$r")"
done <<<"$timings"
[ "${#res[@]}" -eq 6 ] || die "expected 6 timed queries, got ${#res[@]}"

fail=0
for k in 1 2 3 4 5 6; do
	case "${res[$k]}" in INCONSISTENT*)
		echo "!!! DISAGREEMENT: query $k gave different results in different runs: ${res[$k]}" >&2
		fail=1
		;;
	esac
done
if [ "${res[2]}" != "${res[4]}" ] || [ "${res[2]}" != "${res[6]}" ]; then
	echo "!!! DISAGREEMENT: per-row reachable() counts ${res[2]} true, batch ${res[4]}, one array ${res[6]}" >&2
	fail=1
fi
row_base_ns=$(calc "\"%.0f\", ${med[1]} * 1e6 / $pairs")
row_reach_ns=$(calc "\"%.0f\", ${med[2]} * 1e6 / $pairs")
row_ratio=$(calc "\"%.2f\", ${med[2]} / ${med[1]}")
batch_base_ns=$(calc "\"%.0f\", ${med[3]} * 1e6 / $pairs")
batch_reach_ns=$(calc "\"%.0f\", ${med[4]} * 1e6 / $pairs")
batch_ratio=$(calc "\"%.2f\", ${med[4]} / ${med[3]}")
one_base_ns=$(calc "\"%.0f\", ${med[5]} * 1e6 / $pairs")
one_reach_ns=$(calc "\"%.0f\", ${med[6]} * 1e6 / $pairs")
reach_frac=$(calc "\"%.2f\", 100 * ${res[2]} / $pairs")
say "reachable pairs: ${res[2]} of $pairs ($reach_frac%)"
say "per row: a = b $row_base_ns ns, reachable() $row_reach_ns ns, ratio $row_ratio"
say "batch of $batch_size ($batches arrays): unnest a = b $batch_base_ns ns/pair, reachable(arrays) $batch_reach_ns ns/pair, ratio $batch_ratio"
say "one array of $pairs: unnest a = b $one_base_ns ns/pair, reachable(arrays) $one_reach_ns ns/pair"

# ----------------------------------------------------------------------------------------------
engine_lines=()
if [ "$skip_engine" -eq 0 ]; then
	section "engine alone: grail_cli build + bench-queries --queries $engine_queries"
	t=$(now_ns)
	"$cli" build "$edges_file" -o "$index_file" --labels "$labels" | sed 's/^/   /'
	say "grail_cli build wall time: $(ms_since "$t") ms"
	engine_out=$("$cli" bench-queries "$index_file" --queries "$engine_queries")
	printf '%s\n' "$engine_out" | sed 's/^/   /'
	while IFS= read -r line; do engine_lines+=("$line"); done < <(printf '%s\n' "$engine_out" | grep 'queries/s' || true)
fi

# ----------------------------------------------------------------------------------------------
cte_summary="skipped"
if [ "$skip_cte" -eq 0 ] && [ "$cte_pairs" -gt 0 ]; then
	section "recursive CTE baseline: $cte_pairs pairs, statement_timeout $cte_timeout each"
	t=$(now_ns)
	P -c "CREATE INDEX edges_source_idx ON edges (source)" -c "ANALYZE edges"
	say "CREATE INDEX on edges (source) for the CTE: $(ms_since "$t") ms (not needed by pg_grail)"
	n_random=$((cte_pairs / 2))
	n_walk=$((cte_pairs - n_random))
	# Half the pairs come from the random pairs (mostly unreachable on a DAG: the CTE must exhaust
	# the reachable set), half are known reachable: the end of a random walk of 1..8 steps along
	# the edge table from a random vertex with out-edges (independent of pg_grail).
	P >/dev/null <<SQL
SELECT setseed(0.5);
CREATE TABLE cte_pairs AS
SELECT row_number() OVER () AS i, 'random' AS kind, a, b FROM (SELECT a, b FROM pairs ORDER BY random() LIMIT $n_random) s;
CREATE TEMP TABLE starts AS
SELECT row_number() OVER () AS k, a AS v, 1 + floor(random() * 8)::int AS len
FROM (SELECT a FROM pairs p WHERE EXISTS (SELECT 1 FROM edges e WHERE e.source = p.a) ORDER BY random() LIMIT $n_walk) s;
INSERT INTO cte_pairs
WITH RECURSIVE walk(k, step, len, v) AS (
	SELECT k, 0, len, v FROM starts
	UNION ALL
	SELECT w.k, w.step + 1, w.len, nxt.target
	FROM walk w
	CROSS JOIN LATERAL (SELECT e.target FROM edges e WHERE e.source = w.v ORDER BY random() LIMIT 1) nxt
	WHERE w.step < w.len
)
SELECT $n_random + s.k, 'walk', s.v, w.v
FROM starts s
JOIN LATERAL (SELECT v FROM walk WHERE walk.k = s.k ORDER BY step DESC LIMIT 1) w ON true;
SQL
	declare -A cte_res cte_ms ours
	script=$workdir/cte.sql
	{
		echo "SET statement_timeout = '$cte_timeout';"
		P -c "SELECT i FROM cte_pairs ORDER BY i" | while read -r i; do
			echo "SELECT '$i|' || bench.cte_reachable(a, b) FROM cte_pairs WHERE i = $i;"
		done
	} >"$script"
	while IFS='|' read -r i r m; do
		cte_res[$i]=$r
		cte_ms[$i]=$m
	done < <(P -v ON_ERROR_STOP=0 -v VERBOSITY=terse -f "$script" 2>"$workdir/cte.err" || true)
	if grep -v 'statement timeout' "$workdir/cte.err" | grep -q 'ERROR\|FATAL\|server'; then
		cat "$workdir/cte.err" >&2
		die "the recursive-CTE queries failed for a reason other than statement_timeout"
	fi
	ours_out=$(P -c "SELECT i, grail.reachable('$name', a, b) FROM cte_pairs ORDER BY i")
	while IFS='|' read -r i r; do ours[$i]=$r; done <<<"$ours_out"
	cte_list=$(P -c "SELECT i, kind, a, b FROM cte_pairs ORDER BY i")
	q_cte="SELECT count(*) FROM cte_pairs WHERE grail.reachable('$name', a, b)"
	ours_ms=$(P -c "SELECT median_ms FROM bench.medians(ARRAY[\$q\$$q_cte\$q\$], $runs)")
	agree=0 disagree=0 timeouts=0 cte_times=()
	printf '   %4s %-6s %12s %12s  %-8s %-11s %s\n' i kind a b cte reachable "cte ms"
	while IFS='|' read -r i kind a b; do
		c=${cte_res[$i]:-timeout}
		o=${ours[$i]:-missing}
		[ "$o" = t ] && o=true
		[ "$o" = f ] && o=false
		mark=""
		if [ "$c" = timeout ]; then
			timeouts=$((timeouts + 1))
		elif [ "$c" = "$o" ]; then
			agree=$((agree + 1))
			cte_times+=("${cte_ms[$i]}")
		else
			disagree=$((disagree + 1))
			mark="  <-- DISAGREEMENT"
		fi
		printf '   %4s %-6s %12s %12s  %-8s %-11s %s%s\n' "$i" "$kind" "$a" "$b" "$c" "$o" "${cte_ms[$i]:--}" "$mark"
	done <<<"$cte_list"
	if [ "$timeouts" -gt 0 ]; then
		say "$timeouts CTE queries hit statement_timeout $cte_timeout (not compared):"
		grep 'ERROR' "$workdir/cte.err" | sed 's/^/   /' || true
	fi
	cte_median=$(printf '%s\n' "${cte_times[@]:-}" | median)
	n_cte=$(P -c "SELECT count(*) FROM cte_pairs")
	ours_us=$(calc "\"%.1f\", $ours_ms * 1000 / $n_cte")
	say "agree $agree, disagree $disagree, timed out $timeouts; CTE median $cte_median ms per pair (completed ones), reachable() $ours_us us per pair"
	cte_summary="$agree agree, $disagree disagree, $timeouts timeouts; CTE median $cte_median ms vs reachable() $ours_us us"
	if [ "$disagree" -gt 0 ]; then
		echo "!!! DISAGREEMENT: reachable() and the recursive CTE differ on $disagree of $n_cte pairs (see the table above)" >&2
		fail=1
	fi
	[ $((agree + disagree)) -gt 0 ] || echo "bench: warning: no CTE query finished within $cte_timeout; nothing compared" >&2
fi

# ----------------------------------------------------------------------------------------------
section "summary: $title"
missed=0
check() { # value op target -> PASS / MISS
	if awk -v v="$1" -v t="$3" "BEGIN { exit !(v $2 t) }"; then
		echo PASS
	else
		missed=$((missed + 1))
		echo MISS
	fi
}
t_ingest=$(check "$ingest" ">=" 5)
t_build=$(check "$build_ms" "<=" 5000)
t_ratio=$(check "$row_ratio" "<=" 3)
row() {
	printf '   %-40s %-42s %s\n' "$1" "$2" "${3:-}"
}
row "metric" "value" "target"
row "edges (rows) / graph vertices" "$edge_rows / $g_vertices"
row "generate (grail_cli)" "$gen_ms ms"
row "COPY edges" "$copy_ms ms ($(calc "\"%.2f\", $edge_rows / $copy_ms / 1000") M rows/s)"
row "create_graph wall" "$create_ms ms"
row "build_ms (read+scc+label+persist)" "$build_ms ms ($read_ms+$scc_ms+$label_ms+$persist_ms)" "<= 5000 ms  $t_build"
row "ingest (rows / read_ms)" "$ingest M edges/s" ">= 5 M/s    $t_ingest"
row "index size" "$(calc "\"%.1f\", $index_bytes / 1048576") MiB"
row "index load, new backend" "$load_ms ms"
row "per row: a = b baseline" "$row_base_ns ns"
row "per row: reachable()" "$row_reach_ns ns (ratio $row_ratio)" "<= 3x       $t_ratio"
row "batch of $batch_size: reachable(arrays)" "$batch_reach_ns ns/pair (unnest a = b $batch_base_ns)"
row "one array of $pairs: reachable(arrays)" "$one_reach_ns ns/pair (unnest a = b $one_base_ns)"
row "reachable among random pairs" "$reach_frac % (pairs from $pairs_from)"
for line in "${engine_lines[@]:-}"; do
	[ -n "$line" ] || continue
	row "engine: ${line%%:*}" "$(sed -E 's/.* ([0-9.]+ queries\/s).*/\1/' <<<"$line")"
done
row "recursive CTE check" "$cte_summary"
if [ "$fail" -ne 0 ]; then
	echo "bench: FAILED: answers disagree (see the lines marked !!! above)" >&2
	exit 1
fi
if [ "$missed" -gt 0 ] && [ "$strict" -eq 1 ]; then
	echo "bench: $missed target(s) missed (--strict)" >&2
	exit 1
fi
