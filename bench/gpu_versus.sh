#!/usr/bin/env bash
# A GPU change against a baseline tree, side by side in one run: scc_bench and grail_bench built
# from both trees, run alternately (baseline, then this tree) on the same graphs, medians over the
# rounds of each bench's own medians, and the ratio this / baseline (below 1: this tree is faster).
#
#   bench/gpu_versus.sh --base DIR [--rounds R] [--runs R] [--logs DIR] [--scc "GRAPH" ...] [--grail "GRAPH" ...]
#
#   --base DIR    the baseline's source tree, e.g. made by `git archive COMMIT | tar -x -C DIR`; for a
#                 COMMIT before 465a731 copy this tree's bench/grail_bench.cpp over its own (--queries 0)
#   --rounds R    alternations per graph (default 3); --runs R: runs inside each bench (default 3)
#   --scc G       scc_bench graphs (default: gpu_anchors.sh's four); compared: numbering and device ms
#   --grail G     grail_bench graphs (default: dag 1000000 8 1, dag 250000 50 1); compared: the
#                 Kahn levels' ms and the whole GPU labelling at d = 1 (labelling only: --queries 0)
# Logs and table.md under --logs (default /tmp/gpu-versus). Exit 1 if a bench failed (each checks
# its GPU result against the CPU).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
base=""
rounds=3
runs=3
logs=/tmp/gpu-versus
scc=()
grail=()
while [ $# -gt 0 ]; do
	case "$1" in
	--base) base=$(cd "$2" && pwd); shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	--scc) scc+=("$2"); shift 2 ;;
	--grail) grail+=("$2"); shift 2 ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu_versus: unknown argument $1 (--help)" >&2; exit 2 ;;
	esac
done
[ -n "$base" ] || { echo "gpu_versus: --base DIR is required (--help)" >&2; exit 2; }
[ ${#scc[@]} -gt 0 ] || [ ${#grail[@]} -gt 0 ] ||
	{ scc=("rmat 22 16 1" "uniform 4000000 10 1" "cycles 200000 50000 1" "cycles 2000000 500000 1")
	  grail=("dag 1000000 8 1" "dag 250000 50 1"); }
mkdir -p "$logs"
for tree in base this; do
	src=$repo
	[ $tree = base ] && src=$base
	cmake -S "$src" -B "$logs/build-$tree" -DGRAIL_BUILD_TESTS=OFF >"$logs/build-$tree.log" 2>&1 &&
		cmake --build "$logs/build-$tree" -j"$(nproc)" --target scc_bench grail_bench >>"$logs/build-$tree.log" 2>&1 ||
		{ tail -30 "$logs/build-$tree.log"; exit 1; }
done

status=0
# shellcheck source=bench/common.sh
source "$here/common.sh"
rows=()
table_row() { # label base_values this_values
	local b t
	b=$(echo "$2" | tr ' ' '\n' | grep . | median)
	t=$(echo "$3" | tr ' ' '\n' | grep . | median)
	rows+=("| $1 | $b | $t | $(ratio "$b" "$t") |")
	echo "${rows[-1]}" # as it comes, for a run cut short
}
values() { # name tree sed-expression
	local f
	for f in "$logs/$1-$2-"*.log; do sed -n "$3" "$f"; done
}

for spec in "${scc[@]}"; do
	name=$(echo "scc_bench $spec" | tr ' ' '-')
	for r in $(seq "$rounds"); do
		for tree in base this; do
			# shellcheck disable=SC2086
			"$logs/build-$tree/scc_bench" $spec --runs "$runs" --cpu-runs 1 >"$logs/$name-$tree-$r.log" 2>&1 || status=1
		done
	done
	for part in numbering device; do
		e="s/^DEVICE .* ${part}_ms=\([0-9.]*\).*/\1/p"
		table_row "SCC $spec: $part ms" "$(values "$name" base "$e")" "$(values "$name" this "$e")"
	done
	e='s/^work: .*(Kahn \([0-9.]*\) ms).*/\1/p'
	table_row "SCC $spec: Kahn ms (last run)" "$(values "$name" base "$e")" "$(values "$name" this "$e")"
done
for spec in "${grail[@]}"; do
	name=$(echo "grail_bench $spec" | tr ' ' '-')
	for r in $(seq "$rounds"); do
		for tree in base this; do
			# shellcheck disable=SC2086
			"$logs/build-$tree/grail_bench" $spec --runs "$runs" --max-labels 1 --queries 0 >"$logs/$name-$tree-$r.log" 2>&1 || status=1
		done
	done
	# The labelling table's d = 1 row: gpu ms is column 3, levels (Kahn) ms column 6.
	e='s/^ *1 \+[0-9.]\+ \+\([0-9.]\+\) .*/\1/p'
	table_row "GRAIL $spec: labelling d=1 ms" "$(values "$name" base "$e")" "$(values "$name" this "$e")"
	e='s/^ *1 \+[0-9.]\+ \+[0-9.]\+ \+[0-9.]\+x | \+[0-9.]\+ \+\([0-9.]\+\) .*/\1/p'
	table_row "GRAIL $spec: Kahn levels ms" "$(values "$name" base "$e")" "$(values "$name" this "$e")"
done

{
	echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
	echo "command: bench/gpu_versus.sh --base $base --rounds $rounds --runs $runs (medians over rounds of medians of $runs)"
	echo
	echo "| measure | baseline | this tree | this / baseline |"
	echo "|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} | tee "$logs/table.md"
exit $status
