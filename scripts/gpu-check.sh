#!/usr/bin/env bash
# On the GPU machine (no PostgreSQL, no network): runs the extension's SQL tests with
# grail.device = gpu inside a PostgreSQL started from carried Debian packages, the engine's GPU
# unit tests, and times bfs() from SQL on the CPU and the GPU to place grail.gpu_min_edges.
# Needs, carried in .gpu/: debs/ (../shared/gpu-machine/download-debs.sh .gpu/debs, plus
# `apt-get download libtap-parser-sourcehandler-pgtap-perl libxxhash-dev` there for pg_prove and
# xxhash.h) and
# start-postgres.sh (a copy of ../shared/gpu-machine/start-postgres.sh); .gtest/ (a copy of
# /usr/src/googletest) for the unit tests. Logs go to $OUT (or /tmp/gpu-check). --no-timings skips
# the bfs() timings.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
status=0

bash .gpu/start-postgres.sh .gpu/debs >"$out/postgres.log" 2>&1 || { cat "$out/postgres.log"; exit 1; }
source /tmp/pgenv
export PATH=/tmp/pgroot/usr/bin:$PATH PERL5LIB=/tmp/pgroot/usr/share/perl5  # pg_prove
export CMAKE_PREFIX_PATH=/tmp/pgroot/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}  # xxhash.h
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/gpu.txt"

echo "== build"
touch sql/pg_grail.sql  # a warm machine keeps the last generated install script
make -j16 >"$out/build.log" 2>&1 && make install >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
cmake --build build --target grail_cli -j16 >>"$out/build.log" 2>&1

echo "== engine GPU tests"
cmake -S . -B build/unit -DGTEST_SOURCE_DIR="$PWD/.gtest" >"$out/ctest.log" 2>&1 &&
	cmake --build build/unit -j16 >>"$out/ctest.log" 2>&1 &&
	(cd build/unit && ctest -L gpu --output-on-failure >>"$out/ctest.log" 2>&1) || status=1
grep -E "tests passed|tests failed|Skipped" "$out/ctest.log" | tail -3
# The GPU service's tests with its GPU executor live in the CPU test binary (they skip without a GPU).
(cd build/unit && ctest -R GpuExecutor --output-on-failure >"$out/ctest_executor.log" 2>&1) || status=1
grep -E "tests passed|tests failed|Skipped|Not Run" "$out/ctest_executor.log" | tail -3

echo "== SQL tests with grail.device = gpu"
PGOPTIONS='-c grail.device=gpu' make installcheck >"$out/installcheck.log" 2>&1 || { status=1; cat regression.diffs >>"$out/installcheck.log"; }
grep -E "tests (passed|failed)" "$out/installcheck.log"
psql -Xq -c "DROP DATABASE IF EXISTS grail_tap" -c "CREATE DATABASE grail_tap"
PGOPTIONS='-c grail.device=gpu' pg_prove -d grail_tap test/pgtap/*.sql >"$out/pgtap.log" 2>&1 || status=1
tail -2 "$out/pgtap.log"

[ "${1:-}" = "--no-timings" ] && exit $status
echo "== bfs() from SQL: CPU vs GPU (median of 5, ms)"
psql -Xq -c "DROP DATABASE IF EXISTS grail_gpu" -c "CREATE DATABASE grail_gpu"
psql -Xq -d grail_gpu -c "CREATE EXTENSION pg_grail"
printf "%-12s %10s %10s %10s %10s\n" graph edges cpu_ms gpu_ms rows | tee "$out/bfs_sql.txt"
for spec in "rmat 14 16 1" "rmat 16 16 1" "rmat 18 16 1" "rmat 20 16 1" "grid 2000 2000"; do
	name=$(echo "$spec" | tr ' ' _)
	psql -Xq -d grail_gpu -c "DROP TABLE IF EXISTS e; CREATE TABLE e (source bigint, target bigint)"
	build/grail_cli generate $spec | psql -Xq -d grail_gpu -c "\copy e from stdin with (delimiter ' ')"
	psql -Xq -d grail_gpu -c "SELECT grail.drop_graph(name) FROM grail.graphs" -c "SELECT grail.create_graph('g', 'e')" >/dev/null
	src=$(psql -XAtq -d grail_gpu -c "SELECT source FROM e GROUP BY source ORDER BY count(*) DESC LIMIT 1")
	line=$(psql -XAtq -d grail_gpu <<SQL
CREATE TEMP TABLE t (device text, ms float8, n bigint);
DO \$\$
DECLARE t0 timestamptz; n bigint; d text;
BEGIN
	FOR i IN 1..6 LOOP
		FOREACH d IN ARRAY ARRAY['cpu', 'gpu'] LOOP
			PERFORM set_config('grail.device', d, false);
			t0 := clock_timestamp();
			SELECT count(*) INTO n FROM grail.bfs('g', $src);
			IF i > 1 THEN INSERT INTO t VALUES (d, extract(epoch FROM clock_timestamp() - t0) * 1000, n); END IF;
		END LOOP;
	END LOOP;
END \$\$;
SELECT (SELECT edges FROM grail.graphs WHERE name = 'g'),
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE device = 'cpu'))::numeric, 1),
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE device = 'gpu'))::numeric, 1),
       max(n) FROM t;
SQL
)
	echo "$line" | awk -F'|' -v g="$name" '{printf "%-12s %10s %10s %10s %10s\n", g, $1, $2, $3, $4}' | tee -a "$out/bfs_sql.txt"
done
exit $status
