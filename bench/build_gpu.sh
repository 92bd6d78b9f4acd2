#!/usr/bin/env bash
# On the GPU machine: builds the GPU unit tests and build_bench, runs the graph-build tests with
# the other GPU tests, then times builds on R-MAT graphs (bench/build_bench.cpp). Needs .gtest/ (a
# copy of /usr/src/googletest). Logs under $OUT (or /tmp/build-gpu).
#   bench/build_gpu.sh [tests] [SCALE:RUNS:HOST_RUNS ...]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/build-gpu}
mkdir -p "$out"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
# Binaries carried from an x86-64 build elsewhere are used when they run here.
build/gpu/grail_gpu_tests --gtest_list_tests >/dev/null 2>&1 || rm -f build/gpu/grail_gpu_tests build/gpu/build_bench
if [ ! -x build/gpu/build_bench ] || [ ! -x build/gpu/grail_gpu_tests ]; then
	start=$(date +%s)
	cmake -S . -B build/gpu -DGTEST_SOURCE_DIR="$PWD/.gtest" -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1 &&
		cmake --build build/gpu --target grail_gpu_tests build_bench -j16 >>"$out/build.log" 2>&1 ||
		{ tail -30 "$out/build.log"; exit 1; }
	echo "built in $(($(date +%s) - start)) s"
fi
status=0
for arg in "$@"; do
	case $arg in
	tests)
		timeout 240 build/gpu/grail_gpu_tests >"$out/tests.log" 2>&1 || status=1
		grep -E "^\[  (PASSED|FAILED|SKIPPED) |FAILED|tests ran" "$out/tests.log" | tail -15
		;;
	*)
		IFS=: read -r scale runs host_runs <<<"$arg"
		build/gpu/build_bench "$scale" 16 "$runs" "$host_runs" 2>&1 | tee -a "$out/bench.txt" || status=1
		;;
	esac
done
exit $status
