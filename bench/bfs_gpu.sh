#!/usr/bin/env bash
# On the GPU machine: builds bfs_bench and the GPU tests in BUILD (default build/bfs), runs every
# GPU test (the BFS shares the frontier object with the GRAIL queries, and its helpers with the
# Kahn levels of GRAIL labelling), then bfs_bench on its benchmark graphs (R-MAT 24-16 and 22-16,
# grids, paths) and prints one line per graph. Logs under $OUT (or /tmp/bfs-gpu).
#   bench/bfs_gpu.sh [--build DIR] [--quick]   (--quick: without R-MAT 24)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-/tmp/bfs-gpu}
build=build/bfs
quick=0
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	*) echo "usage: bench/bfs_gpu.sh [--build DIR] [--quick]" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
cmake -S . -B "$build" -DGTEST_SOURCE_DIR="$PWD/.gtest" >"$out/build.log" 2>&1 &&
	cmake --build "$build" -j16 --target bfs_bench grail_gpu_tests >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
"$build/grail_gpu_tests" >"$out/tests.log" 2>&1
tests=$?
grep -E "^\[  (PASSED|FAILED) |Failure|FAILED  \]" "$out/tests.log" | head -20
[ $tests -eq 0 ] || exit 1
graphs=("rmat 22 16 1 --sources 2 --runs 5" "grid 2000 2000 --runs 3" "grid 300 500 --runs 5" "path 10000000 --runs 2")
[ $quick -eq 1 ] || graphs=("rmat 24 16 1 --sources 2 --runs 5" "${graphs[@]}")
for spec in "${graphs[@]}"; do
	# shellcheck disable=SC2086 # spec is a list of words
	timeout 400 "$build/bfs_bench" $spec >>"$out/bench.log" 2>&1 || echo "bfs_bench $spec: failed or timed out"
done
grep -E "^(device|source)" "$out/bench.log"
grep RESULT "$out/bench.log"
