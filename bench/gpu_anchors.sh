#!/usr/bin/env bash
# The GPU engine beside public anchors and its targets, one table in one command, on the GPU
# machine: pg_grail's GPU SCC, BFS and chordless cycles on the anchors' kinds of graphs. Every
# pg_grail number comes from a run checked against the CPU (the benches exit non-zero otherwise).
#
#   bench/gpu_anchors.sh [--ecl DIR] [--build DIR] [--runs R] [--logs DIR] [--quick]
#
#   --ecl DIR    ECL-SCC's source (see bench/scc_ecl.sh, which this runs): the SCC rows then have
#                ECL-SCC's time beside ours; without it, ours alone
#   --build DIR  where scc_bench, bfs_bench and chordless_bench are built (default build/anchors)
#   --runs R     runs per graph, medians (default 5)
#   --logs DIR   logs and table.md (default /tmp/gpu-anchors)
#   --quick      without R-MAT 24-16 and path 10M (their generation and CPU checks take minutes)
#
# The BFS anchor is Gunrock's published direction-optimizing BFS on rmat_n24_e16 (88.7 GTEPS, P100,
# 2016), not a run here; GTEPS count the out-edges of the reached vertices over the device time of
# the traversal (Gunrock's measure) and of traversal + parents + row order ("kernel"), with the
# upload and the in-edges' build outside both (bench/README.md, GPU BFS).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
ecl=""
build=$repo/build/anchors
runs=5
logs=/tmp/gpu-anchors
quick=0
while [ $# -gt 0 ]; do
	case "$1" in
	--ecl) ecl=$2; shift 2 ;;
	--build) build=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu_anchors: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
done
mkdir -p "$logs"
cmake -S "$repo" -B "$build" -DGRAIL_BUILD_TESTS=OFF >"$logs/build.log" 2>&1 &&
	cmake --build "$build" -j"$(nproc)" --target scc_bench bfs_bench chordless_bench >>"$logs/build.log" 2>&1 ||
	{ tail -30 "$logs/build.log"; exit 1; }

status=0
rows=()
row() { rows+=("| $1 | $2 | $3 |"); }

# SCC: four graphs of ECL-SCC's kinds (R-MAT, uniform, one giant SCC among many small cycles).
scc_graphs=("rmat 22 16 1" "uniform 4000000 10 1" "cycles 200000 50000 1" "cycles 2000000 500000 1")
if [ -n "$ecl" ]; then
	"$here/scc_ecl.sh" --ecl "$ecl" --bench "$build/scc_bench" --runs "$runs" --logs "$logs/scc" \
		"${scc_graphs[@]}" >"$logs/scc.log" 2>&1 || status=1
	for spec in "${scc_graphs[@]}"; do
		# scc_ecl's table: column 9 our device ms (detection + numbering), 12 ECL-SCC's.
		line=$(grep -F "| $spec |" "$logs/scc/table.md" 2>/dev/null)
		ours=$(echo "$line" | awk -F'|' '{gsub(/[ *]/, "", $9); print $9}')
		theirs=$(echo "$line" | awk -F'|' '{gsub(/ /, "", $12); print $12}')
		row "SCC, $spec" "${ours:-failed} ms" "ECL-SCC: ${theirs:-failed} ms"
	done
else
	for spec in "${scc_graphs[@]}"; do
		name=$(echo "$spec" | tr ' ' '-')
		# shellcheck disable=SC2086 # spec is a list of words
		"$build/scc_bench" $spec --runs "$runs" --cpu-runs 1 >"$logs/scc-$name.log" 2>&1 || status=1
		ours=$(grep '^DEVICE ' "$logs/scc-$name.log" | tr ' ' '\n' | sed -n 's/^device_ms=//p')
		row "SCC, $spec" "${ours:-failed} ms" "ECL-SCC: not run (--ecl)"
	done
fi

# BFS.
bfs() {
	# shellcheck disable=SC2086
	"$build/bfs_bench" $1 >"$logs/bfs-$2.log" 2>&1 || status=1
	grep '^RESULT ' "$logs/bfs-$2.log"
}
field() { echo "$1" | sed -n "s/.*$2 \([0-9.]*\) GTEPS (\([0-9.]*\) ms).*/\1 GTEPS, \2 ms/p"; }
if [ $quick -eq 0 ]; then
	r=$(bfs "rmat 24 16 1 --sources 2 --runs $runs" rmat24)
	row "BFS, R-MAT 24-16" "traversal $(field "$r" "gpu traversal"); kernel $(field "$r" "gpu kernel")" \
		"Gunrock (published, P100): 88.7 GTEPS; target ≥ 100 GTEPS"
	r=$(bfs "path 10000000 --runs 2" path10m)
	row "BFS, path 10M" "kernel $(field "$r" "gpu kernel")" "CPU bfs(): $(field "$r" "cpu")"
fi
r=$(bfs "grid 2000 2000 --runs $runs" grid2000)
row "BFS, grid 2000×2000" "kernel $(field "$r" "gpu kernel")" "CPU bfs(): $(field "$r" "cpu")"

# Chordless cycles: grid 7x10 enumerated to host memory (GPU gen = setup + search + downloads).
"$build/chordless_bench" --quick --runs "$runs" --cpu-runs 1 >"$logs/chordless.log" 2>&1 || status=1
gen=$(grep -F '| grid 7x10 |' "$logs/chordless.log" | awk -F'|' '{gsub(/^ +| +$/, "", $7); print $7}')
row "chordless cycles, grid 7×10 enumerated" "${gen:-failed} ms" "target ≤ 30 ms"

{
	echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
	echo "command: bench/gpu_anchors.sh --runs $runs${ecl:+ --ecl $ecl} (medians of $runs)"
	echo
	echo "| work | pg_grail (device time, upload excluded) | anchor |"
	echo "|---|---|---|"
	printf '%s\n' "${rows[@]}"
} | tee "$logs/table.md"
exit $status
