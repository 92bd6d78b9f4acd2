#!/usr/bin/env bash
# Runs every test of pg_grail on a fresh Debian 12 machine, installing what is missing:
#   0. habits: the glue's includes point down its layers (scripts/check-layers.sh), the C++ and
#      CUDA sources are as .clang-format says (scripts/check-format.sh); a failure here is reported
#      at once but fails the run only at its end, so that the tests still run;
#   1. engine unit tests (GoogleTest via CTest), in a CPU-only build (no CUDA toolkit used); where
#      nvcc is found, the GPU unit tests too, compiled by it (without a GPU they report skipped);
#   2. the extension built with PGXS (with CUDA when nvcc is found) and installed;
#   3. pg_regress (test/sql/, test/expected/) and pgTAP (test/pgtap/, pg_prove) on a throwaway cluster;
#   4. a server restart, after which the stored index must still answer (test/restart/);
#   5. TAP tests on their own clusters (test/t/, scripts/tap.sh): crash, dump/restore, standby,
#      concurrency, load, fuzz, adversarial fuzz;
#   6. sanitizers (scripts/sanitize.sh): the unit tests and the SQL suites again, with the engine
#      and the extension built with AddressSanitizer + UBSan (separate build, private install).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

scripts/install-deps.sh

echo "== habits: layers and format"
habits=0
scripts/check-layers.sh || habits=1
scripts/check-format.sh || habits=1

echo "== engine unit tests"
cmake -S . -B build/unit -DGRAIL_WITH_CUDA=OFF -DGRAIL_BUILD_TESTS=ON >/dev/null
cmake --build build/unit -j "$jobs"
ctest --test-dir build/unit --output-on-failure -j "$jobs"

nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
	echo "== engine GPU unit tests, compiled by $nvcc"
	# In build/, the extension's engine build (the Makefile's ENGINE_BUILD) configured with the
	# tests: `make` below finds the CUDA engine compiled and does not compile it again. A compile
	# error fails the run; without a GPU each test reports skipped, which CTest does not count as
	# a failure.
	cmake -S . -B build -DGRAIL_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" -DGRAIL_BUILD_TESTS=ON >/dev/null
	cmake --build build -j "$jobs" --target grail_gpu_tests
	ctest --test-dir build -L gpu --output-on-failure >build/gpu-tests.log || { cat build/gpu-tests.log; exit 1; }
	echo "$(grep -E 'tests passed' build/gpu-tests.log), $(grep -c '(Skipped)' build/gpu-tests.log) skipped"
fi

echo "== extension build"
make -j "$jobs" >/dev/null
$sudo make install >/dev/null

echo "== SQL tests"
trap 'scripts/cluster.sh stop' EXIT
# A cluster left running by an earlier build keeps that build's library preloaded: started afresh,
# the server loads the one just installed.
scripts/cluster.sh stop
eval "$(scripts/cluster.sh start)"
if ! make installcheck; then
	cat regression.diffs
	exit 1
fi
psql -Xq -c "DROP DATABASE IF EXISTS grail_tap" -c "CREATE DATABASE grail_tap"
pg_prove -d grail_tap test/pgtap/*.sql

echo "== restart"
psql -Xq -v ON_ERROR_STOP=1 -d grail_tap -f test/restart/before.sql >/dev/null
scripts/cluster.sh restart
pg_prove -d grail_tap test/restart/after.sql

echo "== TAP tests (crash, dump/restore, standby, concurrency, load, fuzz, adversarial fuzz)"
scripts/tap.sh

scripts/cluster.sh stop
trap - EXIT
scripts/sanitize.sh

[ $habits -eq 0 ] || { echo "the habits' checks failed (at the start, above)"; exit 1; }
