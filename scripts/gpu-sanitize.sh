#!/usr/bin/env bash
# On the GPU machine: the engine's GPU tests under compute-sanitizer, memcheck (out-of-bounds and
# misaligned device accesses, leaks, failing CUDA calls) then racecheck (shared-memory hazards).
# Builds grail_gpu_tests with line information in BUILD (default build/sanitize; needs .gtest/ and
# libxxhash-dev's .deb in .gpu/debs/, see scripts/gpu-check.sh), or runs the one given by --binary (built elsewhere with
# -DCMAKE_CUDA_FLAGS=-lineinfo). Logs under $OUT (or /tmp/gpu-sanitize); one line per tool last.
# Exit 1 when a tool reports an error or a test fails.
#   scripts/gpu-sanitize.sh [--build DIR | --binary PATH] [--filter GTEST_FILTER] [--timeout SECONDS]
#                           [--tools "memcheck racecheck"]
# The tools slow kernels down by 10-100x: --filter bounds a run (default: every GPU test), and
# --timeout (default 1200) stops each tool, whose log then says how far it got.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
out=${OUT:-/tmp/gpu-sanitize}
build=build/sanitize
binary=""
tools="memcheck racecheck"
filter='*'
limit=1200
while [ $# -gt 0 ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	--binary) binary=$2; shift 2 ;;
	--tools) tools=$2; shift 2 ;;
	--filter) filter=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	*) echo "usage: scripts/gpu-sanitize.sh [--build DIR | --binary PATH] [--filter GTEST_FILTER] [--timeout SECONDS] [--tools LIST]" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
if [ -z "$binary" ]; then
	binary=$build/grail_gpu_tests
	# xxhash.h: the machine has no network to install it; unpack the carried libxxhash-dev package.
	if [ ! -f /usr/include/xxhash.h ]; then
		for deb in .gpu/debs/libxxhash-dev_*.deb; do dpkg -x "$deb" /tmp/xxhash-root; done
		export CMAKE_PREFIX_PATH=/tmp/xxhash-root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
	fi
	cmake -S . -B "$build" -DGTEST_SOURCE_DIR="$PWD/.gtest" -DCMAKE_CUDA_FLAGS=-lineinfo >"$out/build.log" 2>&1 &&
		cmake --build "$build" -j16 --target grail_gpu_tests >>"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
status=0
for tool in $tools; do
	extra=()
	[ $tool = memcheck ] && extra=(--leak-check full)
	timeout "$limit" compute-sanitizer --tool $tool "${extra[@]}" --error-exitcode 1 --print-limit 20 \
		"$binary" --gtest_filter="$filter" >"$out/$tool.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] || status=1
	summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.log" | tail -1)
	tests=$(grep -E "^\[  (PASSED|FAILED)  \]" "$out/$tool.log" | tr '\n' ' ')
	note=""
	[ $rc -eq 124 ] && note=" (timed out)"
	echo "$tool: exit $rc$note; ${summary:-no summary}; ${tests:-no gtest summary}"
done
exit $status
