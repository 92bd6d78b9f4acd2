#!/usr/bin/env bash
# On the GPU machine, after scripts/gpu-check.sh has built and installed the extension and started
# PostgreSQL: the GPU service issue's table from SQL. R-MAT graphs loaded into tables, one build
# each, then per graph and query the median of RUNS warm runs (ms) under grail.device = cpu, gpu
# without the service (the backend's own CUDA context) and gpu through the service, with a floor
# (the same number of rows from generate_series / unnest) in the same session. The server runs
# with pg_grail preloaded (the shared image cache) in both phases; only grail.gpu_service differs.
# The build row is create_graph's wall time over BUILD_RUNS runs (default 3), and beside it what
# came after reading the rows (the issue's "after the read" target: build_ms - read_ms); each build's
# phases are printed as it ends. QUERIES picks the rows (default "build scc bfs reach");
# BUILD_THREADS sets grail.build_threads for both devices (default -1, the setting's default).
#   bench/sql_gpu.sh [RUNS] [SCALES...]     defaults: 5 runs, scales 20 22 (edge factor 16)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
scales=${*:-20 22}
source /tmp/pgenv
lib=/tmp/pgroot/usr/lib/x86_64-linux-gnu:/tmp/pgroot/lib/x86_64-linux-gnu
bin=/tmp/pgroot/usr/lib/postgresql/15/bin

restart() {
	su pgrun -c "LD_LIBRARY_PATH=$lib $bin/pg_ctl -D /tmp/pgdata/d -o '-k /tmp/pgsock -c listen_addresses= -c jit=off -c shared_preload_libraries=pg_grail -c grail.gpu_service=$1 -c max_connections=60 -c shared_buffers=4GB -c work_mem=256MB -c grail.build_threads=${BUILD_THREADS:--1}' -l /tmp/pgdata/log -w restart >/dev/null" ||
		{ tail -20 /tmp/pgdata/log; exit 1; }
}

# One query timed: median of $runs after one warm-up, device set per run.
time_query() { # device query
	psql -XAtq -d grail_sqlgpu <<SQL
CREATE TEMP TABLE t (ms float8);
DO \$\$
DECLARE t0 timestamptz; n bigint;
BEGIN
	PERFORM set_config('grail.device', '$1', false);
	FOR i IN 0..$runs LOOP
		t0 := clock_timestamp();
		EXECUTE \$q\$$2\$q\$ INTO n;
		IF i > 0 THEN INSERT INTO t VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000); END IF;
	END LOOP;
END \$\$;
SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1) FROM t;
SQL
}

restart off
psql -Xq -c "DROP DATABASE IF EXISTS grail_sqlgpu" -c "CREATE DATABASE grail_sqlgpu"
psql -Xq -d grail_sqlgpu -c "CREATE EXTENSION pg_grail"
for s in $scales; do
	start=$(date +%s)
	psql -Xq -d grail_sqlgpu -c "CREATE TABLE rmat_$s (source bigint, target bigint)"
	build/grail_cli generate rmat "$s" 16 1 | psql -Xq -d grail_sqlgpu -c "\copy rmat_$s from stdin with (delimiter ' ')"
	psql -Xq -d grail_sqlgpu -c "VACUUM ANALYZE rmat_$s" # builds read a table whose hint bits are set
	psql -Xq -d grail_sqlgpu <<SQL
SET grail.device = gpu;
SELECT grail.create_graph('g$s', 'rmat_$s');
CREATE TABLE hub_$s AS SELECT source AS v FROM rmat_$s GROUP BY source ORDER BY count(*) DESC LIMIT 1;
ALTER TABLE hub_$s ADD COLUMN n bigint;
UPDATE hub_$s SET n = (SELECT count(*) FROM grail.bfs('g$s', v));
SELECT setseed(0.25);
CREATE TABLE pairs_$s AS SELECT array_agg((random() * (1 << $s))::bigint) AS a, array_agg((random() * (1 << $s))::bigint) AS b
FROM generate_series(1, 1000000);
SQL
	echo "loaded and built rmat_$s ($(psql -XAtq -d grail_sqlgpu -c "SELECT edges FROM grail.graphs WHERE name = 'g$s'") edges) in $(($(date +%s) - start)) s"
done

# create_graph timed: median of BUILD_RUNS fresh builds of a second graph over the same table,
# printed as "wall/after_read" ms (after_read from grail.graphs' phases).
time_build() { # device scale
	psql -XAtq -d grail_sqlgpu <<SQL
CREATE TEMP TABLE t (ms float8, after_read float8);
DO \$\$
DECLARE t0 timestamptz; ms float8; p record;
BEGIN
	PERFORM set_config('grail.device', '$1', false);
	FOR i IN 1..${BUILD_RUNS:-3} LOOP
		PERFORM grail.drop_graph(name) FROM grail.graphs WHERE name = 'build_$2';
		t0 := clock_timestamp();
		PERFORM grail.create_graph('build_$2', 'rmat_$2');
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		INSERT INTO t SELECT ms, build_ms - read_ms FROM grail.graphs WHERE name = 'build_$2';
		SELECT round(read_ms::numeric) AS read, round(graph_ms::numeric) AS graph, round(scc_ms::numeric) AS scc,
		       round(label_ms::numeric) AS labels, round(persist_ms::numeric) AS persist
		INTO p FROM grail.graph WHERE name = 'build_$2';
		RAISE NOTICE 'build % rmat_%: wall % ms; read %, graph %, scc %, labels %, persist % ms', '$1', '$2',
			round(ms::numeric), p.read, p.graph, p.scc, p.labels, p.persist;
	END LOOP;
	PERFORM grail.drop_graph('build_$2');
END \$\$;
SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric) || '/' ||
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY after_read))::numeric) FROM t;
SQL
}

declare -A result
read -ra queries <<<"${QUERIES:-build scc bfs reach}"
query_text() { # kind scale
	case $1 in
	scc) echo "SELECT count(*) FROM grail.scc_components('g$2')" ;;
	bfs) echo "SELECT count(*) FROM grail.bfs('g$2', (SELECT v FROM hub_$2))" ;;
	reach) echo "SELECT count(*) FROM pairs_$2, unnest(grail.reachable('g$2', a, b)) r WHERE r" ;;
	esac
}
floor_text() { # kind scale
	case $1 in
	scc) echo "SELECT count(*) FROM generate_series(1, (SELECT vertices FROM grail.graphs WHERE name = 'g$2'))" ;;
	bfs) echo "SELECT count(*) FROM generate_series(1, (SELECT n FROM hub_$2))" ;;
	reach) echo "SELECT count(*) FROM pairs_$2, unnest(a, b) x(a, b) WHERE x.a = x.b" ;;
	esac
}
for phase in off on; do
	restart $phase
	if [ $phase = on ]; then
		for _ in $(seq 1 60); do
			psql -XAtq -d grail_sqlgpu -c "SELECT grail.device_info()" | grep -q "GPU service: running" && break
			sleep 0.5
		done
		psql -XAtq -d grail_sqlgpu -c "SELECT grail.device_info()" | grep "GPU service"
	fi
	for s in $scales; do
		for q in "${queries[@]}"; do
			if [ $q = build ]; then
				if [ $phase = off ]; then
					result[$s,$q,floor]=-
					result[$s,$q,cpu]=$(time_build cpu $s)
					result[$s,$q,gpu]=$(time_build gpu $s)
				else
					result[$s,$q,cpu2]=$(time_build cpu $s)
					result[$s,$q,svc]=$(time_build gpu $s)
				fi
				continue
			fi
			text=$(query_text $q $s)
			if [ $phase = off ]; then
				result[$s,$q,floor]=$(time_query cpu "$(floor_text $q $s)")
				result[$s,$q,cpu]=$(time_query cpu "$text")
				result[$s,$q,gpu]=$(time_query gpu "$text")
			else
				result[$s,$q,cpu2]=$(time_query cpu "$text")
				result[$s,$q,svc]=$(time_query gpu "$text")
			fi
		done
	done
done
psql -XAtq -d grail_sqlgpu -c "SELECT graph_id, device_bytes FROM grail.gpu_service_images()" | tr '\n' ';'
echo
echo "median of $runs warm runs, ms (build: median of ${BUILD_RUNS:-3}, wall/after the read): cpu and gpu in the backend (service off), then cpu again and gpu via the service"
printf "%-8s %-6s %10s %10s %10s %10s %10s\n" graph query floor cpu gpu cpu_again gpu_service
for s in $scales; do
	for q in "${queries[@]}"; do
		printf "%-8s %-6s %10s %10s %10s %10s %10s\n" "rmat_$s" $q "${result[$s,$q,floor]}" "${result[$s,$q,cpu]}" \
			"${result[$s,$q,gpu]}" "${result[$s,$q,cpu2]}" "${result[$s,$q,svc]}"
	done
done
