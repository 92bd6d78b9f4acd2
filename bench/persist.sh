#!/usr/bin/env bash
# The persist phase of create_graph (serialising the image, writing grail.index_chunk) with two
# builds of the module side by side in one run: each run installs OLD_SO, then NEW_SO, restarts the
# server (the module is preloaded), drops and creates the graph and reads its phases from
# grail.graphs; then the medians. A private cluster (scripts/cluster.sh, after
# /work/tools/privpg.sh or the like) with table rmat_SCALE (source bigint, target bigint) in $db.
#   bench/persist.sh OLD_SO NEW_SO [--scale 20] [--runs 3] [--threads 0] [--db bench]
set -uo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
old_so=$1 new_so=$2
shift 2
scale=20 runs=3 threads=0 db=bench
parse_args "bench/persist.sh OLD_SO NEW_SO [--scale S] [--runs N] [--threads T] [--db DB]" scale runs threads db -- "$@"
lib=$(pg_config --pkglibdir)/pg_grail.so
cp "$lib" /tmp/persist-bench-installed.so
# Replaced by a rename, never written over: running servers map the file.
put() { cp "$1" "$lib.bench" && mv "$lib.bench" "$lib"; }
trap 'put /tmp/persist-bench-installed.so; scripts/cluster.sh restart' EXIT
echo "scale $scale, runs $runs, grail.build_threads $threads; $(uptime)"
for run in $(seq "$runs"); do
	for side in old new; do
		so=$old_so
		[ $side = new ] && so=$new_so
		put "$so"
		scripts/cluster.sh restart
		for _ in $(seq 60); do P -c "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
		P -c "SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'persist_g'" >/dev/null
		P -c "CHECKPOINT" >/dev/null
		P -c "SET grail.build_threads = $threads" -c "SELECT grail.create_graph('persist_g', 'rmat_$scale')" >/dev/null
		# Read back from the catalog (a new build is in no cache) with the image's checksum.
		P -c "SELECT count(*) FROM grail.bfs('persist_g', (SELECT source FROM rmat_$scale LIMIT 1))" >/dev/null || exit 1
		row=$(P -F ' ' -c "SELECT build_ms, read_ms, persist_ms, index_bytes,
			(SELECT sum(pg_column_size(data)) FROM grail.index_chunk c, grail.graph gg
			 WHERE gg.name = g.name AND c.graph_id = gg.id)
			FROM grail.graphs g WHERE name = 'persist_g'")
		echo "$side run $run: build_ms read_ms persist_ms index_bytes stored = $row"
		echo "$row" | awk '{ print $3 }' >>/tmp/persist-bench-$side.$$
	done
done
echo "persist_ms median: old $(median </tmp/persist-bench-old.$$), new $(median </tmp/persist-bench-new.$$); $(uptime)"
rm -f /tmp/persist-bench-old.$$ /tmp/persist-bench-new.$$
