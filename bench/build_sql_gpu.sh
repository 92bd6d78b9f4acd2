#!/usr/bin/env bash
# On the GPU machine: create_graph from SQL under grail.device = cpu and gpu, by phase (grail.graphs),
# on R-MAT edges loaded into a table. Needs .gpu/ as scripts/gpu-check.sh says. Steps, each in its
# own call if need be (a warm machine keeps the server, the build and the tables):
#   bench/build_sql_gpu.sh load SCALE      start PostgreSQL, build and install, load table rmat_SCALE
#   bench/build_sql_gpu.sh time SCALE RUNS create_graph RUNS times under each device
set -uo pipefail
cd "$(dirname "$0")/.."
bash .gpu/start-postgres.sh .gpu/debs >/tmp/postgres.log 2>&1 || { cat /tmp/postgres.log; exit 1; }
source /tmp/pgenv
case $1 in
load)
	start=$(date +%s)
	if [ ! -x build/grail_cli ]; then
		make -j16 >/tmp/build.log 2>&1 && make install >>/tmp/build.log 2>&1 &&
			cmake --build build --target grail_cli -j16 >>/tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
	fi
	echo "built in $(($(date +%s) - start)) s"
	psql -Xq -c "CREATE DATABASE grail_bench" 2>/dev/null
	psql -Xq -d grail_bench -c "CREATE EXTENSION IF NOT EXISTS pg_grail"
	start=$(date +%s)
	psql -Xq -d grail_bench -c "DROP TABLE IF EXISTS rmat_$2; CREATE TABLE rmat_$2 (source bigint, target bigint)"
	build/grail_cli generate rmat "$2" 16 1 | psql -Xq -d grail_bench -c "\copy rmat_$2 from stdin with (delimiter ' ')"
	psql -Xq -d grail_bench -c "VACUUM ANALYZE rmat_$2"
	echo "loaded rmat_$2: $(psql -XAtq -d grail_bench -c "SELECT count(*) FROM rmat_$2") rows in $(($(date +%s) - start)) s"
	;;
time)
	for device in gpu cpu; do
		for run in $(seq "$3"); do
			psql -XAtq -d grail_bench -c "SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'g'" >/dev/null
			psql -XAtq -d grail_bench -c "SET grail.device = $device" -c "\timing on" \
				-c "SELECT grail.create_graph('g', 'rmat_$2')" | grep Time | sed "s/^/$device run $run create_graph /"
			psql -XAtq -d grail_bench -c "SELECT '$device', vertices, edges, components, dag_edges, build_ms, read_ms, scc_ms, label_ms, persist_ms FROM grail.graphs WHERE name = 'g'"
		done
	done
	;;
esac
