#!/usr/bin/env bash
# The GPU GRAIL benchmark sweep: grail_bench on the home-made DAGs of Quer and
# Calabrese's Table 2 and on R-MAT condensations, one log per graph, then one markdown table of
# the TABLE rows (labelling at d = 5; batches of 100,000 uniform and reachable-heavy pairs). See
# bench/README.md.
#
#   bench/grail_sweep.sh [--bench PATH] [--logs DIR] [--budget SECONDS] [GRAPH ...]
#
#   --bench PATH  the grail_bench binary (default: build/g5/grail_bench, else build/grail_bench)
#   --logs DIR    where the logs and table.md go (default: /tmp/grail-sweep)
#   --budget S    start no new graph once S seconds have passed (it is listed as skipped)
#   GRAPH         graphs as grail_bench arguments in quotes, e.g. "dag 250000 50 1"; default: dag01,
#                 dag03, dag05, dag09, dag11, rmat 22
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
bench=
logs=/tmp/grail-sweep
budget=0
graphs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--bench) bench=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	-h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "grail_sweep: unknown option $1 (--help)" >&2; exit 2 ;;
	*) graphs+=("$1"); shift ;;
	esac
done
if [ -z "$bench" ]; then
	for candidate in "$repo/build/g5/grail_bench" "$repo/build/grail_bench"; do
		[ -x "$candidate" ] && bench=$candidate && break
	done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
	echo "grail_sweep: no grail_bench binary (build it: cmake --build BUILD --target grail_bench; then --bench)" >&2
	exit 2
fi
if [ ${#graphs[@]} -eq 0 ]; then
	# dag01, dag03, dag05, dag09, dag11 of the paper's Table 2 (dag11 last: a --budget drops it first).
	graphs=("dag 250000 50 1" "dag 500000 50 3" "dag 750000 50 5" "rmat 22 16 1" "dag 1000000 100 9"
		"dag 1500000 100 11")
fi
mkdir -p "$logs"

device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
status=0
rows=()
began=$(date +%s)
for spec in "${graphs[@]}"; do
	if [ "$budget" -gt 0 ] && [ $(($(date +%s) - began)) -ge "$budget" ]; then
		rows+=("| $spec | skipped: --budget $budget s spent |")
		continue
	fi
	log="$logs/$(echo "$spec" | awk '{print $1 "-" $2 "-" $3}').log"
	# shellcheck disable=SC2086 # spec is a list of words
	if "$bench" $spec --runs 3 --words 16 >"$log" 2>&1; then
		rows+=("$(sed -n 's/^TABLE //p' "$log")")
	else
		status=1
		rows+=("| $spec | FAILED: $(tail -1 "$log") |")
	fi
done

{
	echo "Device: ${device:-unknown}. ms, medians of 3; labelling at d = 5; batches of 100,000 pairs, 1,024 per GPU group."
	echo
	echo "| graph | DAG vertices / edges | d | CPU labels | GPU labels | speedup | step 1 | levels | uniform CPU / GPU | reachable-heavy CPU / GPU |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} | tee "$logs/table.md"
exit $status
