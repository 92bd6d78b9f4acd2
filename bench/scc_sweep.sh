#!/usr/bin/env bash
# The GPU SCC benchmark sweep: scc_bench on every graph of the paper's figures, one log
# per graph, then one markdown table of the TABLE rows. See bench/README.md.
#
#   bench/scc_sweep.sh [--bench PATH] [--logs DIR] [--quick] [--budget SECONDS]
#
#   --bench PATH  the scc_bench binary (default: $SCC_BENCH, else build/g6/scc_bench, else
#                 build/scc_bench)
#   --logs DIR    where the logs and table.md go (default: /tmp/scc-sweep)
#   --quick       three small graphs only (cycles, rmat-20, uniform 1M x 10), as a smoke test
#   --budget S    start no new graph once S seconds have passed (it is listed as skipped), so that
#                 the table still comes out under a time limit
#
# Graphs: uniform random digraphs of 1M..16M vertices at density 10 (Chen et al. Fig. 10a),
# 2M vertices at density 10/20/40/60 (Fig. 10b), R-MAT with random edge directions at scale 20 and
# 22, edge factor 16 (a giant SCC plus many small ones, the shape of the paper's Table 1), and the
# 'cycles' graphs (a giant SCC feeding 50,000 or 500,000 chained small cycles: many rounds for
# pivot-based methods). Medians of 3 GPU runs and of 3 CPU Tarjan runs (5 each on the small cycles graph, whose
# times are short and noisy), except CPU Tarjan on 16M, timed once (about 16 s a run). The whole
# sweep takes about 4 minutes on an H100 machine, mostly host work (generation, CSR, Tarjan,
# checks). Exit status: 0 all graphs agreed with Tarjan, 1 otherwise. bench/scc_ecl.sh puts
# ECL-SCC beside it on the same graphs.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
bench=${SCC_BENCH:-}
logs=/tmp/scc-sweep
quick=0
budget=0
while [ $# -gt 0 ]; do
	case "$1" in
	--bench) bench=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--budget) budget=$2; shift 2 ;;
	-h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "scc_sweep: unknown option $1 (--help)" >&2; exit 2 ;;
	esac
done
if [ -z "$bench" ]; then
	for candidate in "$repo/build/g6/scc_bench" "$repo/build/scc_bench"; do
		[ -x "$candidate" ] && bench=$candidate && break
	done
fi
if [ -z "$bench" ] || [ ! -x "$bench" ]; then
	echo "scc_sweep: no scc_bench binary (build it: cmake --build BUILD --target scc_bench; then --bench)" >&2
	exit 2
fi
mkdir -p "$logs"

if [ $quick = 1 ]; then
	graphs=("cycles 200000 50000 1" "rmat 20 16 1" "uniform 1000000 10 1")
else
	# The costliest graph last, so that a --budget drops it first.
	graphs=(
		"cycles 200000 50000 1 --runs 5 --cpu-runs 5" "cycles 2000000 500000 1" "rmat 20 16 1" "rmat 22 16 1"
		"uniform 1000000 10 1" "uniform 2000000 10 1" "uniform 4000000 10 1" "uniform 8000000 10 1"
		"uniform 2000000 20 1" "uniform 2000000 40 1" "uniform 2000000 60 1"
		"uniform 16000000 10 1 --cpu-runs 1"
	)
fi

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
	start=$(date +%s)
	# shellcheck disable=SC2086 # spec is a list of words
	if "$bench" $spec >"$log" 2>&1; then
		rows+=("$(sed -n 's/^TABLE //p' "$log")")
	else
		status=1
		rows+=("| $spec | FAILED: $(tail -1 "$log") |")
	fi
	echo "scc_sweep: $spec: $(($(date +%s) - start)) s, log $log" >&2
done

{
	echo "device: ${device:-unknown (no nvidia-smi)}; $(grep -h -m1 '^device:' "$logs"/*.log 2>/dev/null | head -1)"
	echo "command: bench/scc_sweep.sh$([ $quick = 1 ] && echo ' --quick') (scc_bench; ms, medians)"
	echo
	echo "| graph | vertices | edges | SCCs | largest | CPU Tarjan | GPU total | end-to-end | upload | detect | numbering | download | device | trim passes / trimmed | rounds | sweeps | levels |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} | tee "$logs/table.md"
exit $status
