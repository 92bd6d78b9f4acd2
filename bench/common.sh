# Shell helpers the benchmarks share; P and ms use $db, the script's database, set before their
# first call (the GPU scripts, which run no SQL, use median and ratio only).
#   parse_args USAGE NAME... -- "$@"
#                  each --NAME VALUE of the arguments sets $NAME (its default set before); any
#                  other argument, or a NAME without a value, prints "usage: USAGE" and exits 2
#   P ARGS...      psql on $db, unaligned, quiet, stopping at the first error
#   ms ARGS...     the time of the last statement of P ARGS..., in ms (psql's \timing)
#   median         the median of the numbers on stdin, one per line (nan for none)
#   ratio A B      B / A with two decimals (- where A is not a positive number)
#   dense_files G DIR PYTHON
#                  graph G's table e_G and pair tables u_G, r_G (bench/lookup_sql.sh's) with ids
#                  numbered densely 0 .. n-1 (edges deduplicated) into DIR: edges.txt, u.pairs,
#                  r.pairs, and bench/report.py convert's files for BFL and O'Reach; prints n
#   build_oreach SRC WORKDIR LOG
#                  O'Reach's source tree SRC copied to WORKDIR/oreach-src and built there (cmake,
#                  Boost), its output to LOG; prints the executable's path, or fails
P() { psql -XAtq -v ON_ERROR_STOP=1 -d "$db" "$@"; }
ms() { P -c '\timing on' "$@" | awk '/^Time:/ { print $2 }' | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "-" }'; }
dense_files() {
	local g=$1 gd=$2 py=$3 kind n
	mkdir -p "$gd"
	P -c "DROP TABLE IF EXISTS dense_$g" \
	  -c "CREATE TABLE dense_$g AS SELECT row_number() OVER (ORDER BY v) - 1 AS k, v FROM (SELECT source AS v FROM e_$g UNION SELECT target FROM e_$g) s" \
	  -c "CREATE UNIQUE INDEX ON dense_$g (v)" -c "ANALYZE dense_$g" >/dev/null
	P -c "\\copy (SELECT DISTINCT x.k, y.k FROM e_$g e JOIN dense_$g x ON x.v = e.source JOIN dense_$g y ON y.v = e.target ORDER BY 1, 2) TO '$gd/edges.txt' WITH (FORMAT text, DELIMITER ' ')" >/dev/null
	for kind in u r; do
		P -c "\\copy (SELECT x.k, y.k FROM ${kind}_$g p JOIN dense_$g x ON x.v = p.a JOIN dense_$g y ON y.v = p.b ORDER BY p.k) TO '$gd/$kind.pairs' WITH (FORMAT text, DELIMITER ' ')" >/dev/null
	done
	n=$(P -c "SELECT count(*) FROM dense_$g")
	"$py" bench/report.py convert --dir "$gd" --vertices "$n" >/dev/null
	echo "$n"
}
build_oreach() {
	local src=$1 work=$2 log=$3
	rm -rf "$work/oreach-src"
	cp -r "$src" "$work/oreach-src"
	rm -rf "$work/oreach-src/build" # a build of the user's own there would name other paths
	(cd "$work/oreach-src" && cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j "$(nproc)") >"$log" 2>&1 &&
		[ -x "$work/oreach-src/build/reachability" ] && echo "$work/oreach-src/build/reachability"
}
parse_args() {
	local usage=$1 names=() name known
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do names+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	while [ $# -gt 0 ]; do
		known=
		# --name_with_underscores, or with dashes as the usage lines write it.
		for name in "${names[@]}"; do [ "$1" = "--$name" ] || [ "$1" = "--${name//_/-}" ] && known=$name; done
		if [ -z "$known" ] || [ $# -lt 2 ]; then
			echo "usage: $usage" >&2
			exit 2
		fi
		printf -v "$known" '%s' "$2"
		shift 2
	done
}

# The graphs of permuted ids that build_vs_btree.sh and lookup_sql.sh measure, on $db:
#   bench_db REUSE     $db made afresh with pg_grail (kept as it is where REUSE is 1 and it exists)
#   exists NAME        whether $db has a relation of that name
#   permuted_ids       table perm (i, p), made once: a permutation of 0 .. max(VERTICES, 2^SCALE),
#                      p the id of number i (so that no id order is a topological order)
#   permuted_edges G   table e_G (source, target) of permuted ids, unvacuumed, for G:
#     dag    a random DAG: EDGES edges, each from the smaller to the larger of two random numbers
#     local  a deep local DAG: vertex i to DEGREE random vertices of i + 1 .. i + SPAN
#     rmat   R-MAT ($cli generate rmat SCALE EDGE_FACTOR), each edge from the smaller to the
#            larger id (self-loops dropped)
# from $vertices, $edges, $degree, $span, $scale, $edge_factor, $cli and $workdir.
bench_db() {
	if [ "$1" != 1 ] || [ -z "$(psql -XAtq -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
		psql -XAtq -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
		P -c "CREATE EXTENSION pg_grail" >/dev/null
	fi
}
exists() { [ -n "$(P -c "SELECT 1 FROM pg_class WHERE relname = '$1'")" ]; }
permuted_ids() {
	local range
	range=$(awk -v n="$vertices" -v s="$scale" 'BEGIN { r = 2 ^ s; if (n + 1 > r) r = n + 1; printf "%d", r }')
	exists perm && return 0
	P -c "SELECT setseed(0.31)" \
	  -c "CREATE TABLE perm AS SELECT i, (row_number() OVER (ORDER BY random()) - 1)::bigint AS p FROM generate_series(0, $range - 1) i" \
	  -c "CREATE UNIQUE INDEX ON perm (i)" -c "VACUUM ANALYZE perm" >/dev/null
}
permuted_edges() {
	local g=$1
	case $g in
	dag)
		P -c "SELECT setseed(0.11)" -c "CREATE TEMP TABLE raw AS SELECT least(x, y) AS s, greatest(x, y) AS t FROM (
		        SELECT (1 + random() * ($vertices - 1))::bigint AS x, (1 + random() * ($vertices - 1))::bigint AS y
		        FROM generate_series(1, $edges)) r WHERE x <> y" \
		  -c "CREATE TABLE e_$g AS SELECT pa.p AS source, pb.p AS target FROM raw JOIN perm pa ON pa.i = raw.s JOIN perm pb ON pb.i = raw.t" >/dev/null
		;;
	local)
		P -c "SELECT setseed(0.12)" -c "CREATE TEMP TABLE raw AS SELECT i AS s, i + 1 + floor(random() * $span)::bigint AS t
		        FROM generate_series(1, $vertices) i, generate_series(1, $degree) k" \
		  -c "CREATE TABLE e_$g AS SELECT pa.p AS source, pb.p AS target FROM raw JOIN perm pa ON pa.i = raw.s JOIN perm pb ON pb.i = raw.t WHERE raw.t <= $vertices" >/dev/null
		;;
	rmat)
		[ -x "$cli" ] || { echo "grail_cli not found at $cli (cmake --build build --target grail_cli)" >&2; exit 2; }
		"$cli" generate rmat "$scale" "$edge_factor" 13 >"$workdir/edges.txt"
		P -c "CREATE TEMP TABLE raw0 (s bigint, t bigint)" \
		  -c "\\copy raw0 FROM '$workdir/edges.txt' WITH (FORMAT text, DELIMITER ' ')" \
		  -c "CREATE TEMP TABLE raw AS SELECT least(s, t) AS s, greatest(s, t) AS t FROM raw0 WHERE s <> t" \
		  -c "CREATE TABLE e_$g AS SELECT pa.p AS source, pb.p AS target FROM raw JOIN perm pa ON pa.i = raw.s JOIN perm pb ON pb.i = raw.t" >/dev/null
		rm -f "$workdir/edges.txt"
		;;
	*) echo "unknown graph $g (local, dag, rmat)" >&2; exit 2 ;;
	esac
}
