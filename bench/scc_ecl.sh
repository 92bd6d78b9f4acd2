#!/usr/bin/env bash
# pg_grail's GPU SCC against ECL-SCC (Alabandi, Sands, Biros, Burtscher, SC'23; BSD-3) on the very
# same generated graphs: scc_bench generates each graph, checks our components against
# Tarjan and writes the graph in ECL's binary format; ECL-SCC, built here from a source directory
# you give, then runs on that file. One markdown table last. See bench/README.md.
#
#   bench/scc_ecl.sh --ecl DIR [--ecl-bin PATH] [--bench PATH] [--old-bench PATH] [--runs R] [--logs DIR] [GRAPH ...]
#
#   --ecl DIR        ECL-SCC's source: a checkout of github.com/burtscher/ECL-SCC (source/ inside)
#                    or a folder holding ECL-SCC_10.cu and ECLgraph.h. Built with nvcc -O3
#                    -arch=sm_90 (ECL_ARCH to change); CUDA 13 dropped two cudaDeviceProp fields
#                    that its banner prints, so -D maps those names to fields that exist; its code
#                    is not edited, and never copied into this repository.
#   --ecl-bin PATH   an ECL-SCC already built so (with the same nvcc line, elsewhere): used instead
#                    of building it here, --ecl then not needed
#   --bench PATH     scc_bench (default: $SCC_BENCH, else build/scc_bench)
#   --old-bench PATH an scc_bench built from an earlier commit, for an "old" column (device time =
#                    its total minus its upload, which there included building the in-edges)
#   --runs R         runs of each program per graph (default 5); medians
#   --logs DIR       logs, the .egr files and table.md (default /tmp/scc-ecl)
#   GRAPH            scc_bench graph words, one quoted argument each (default: the four of gpu_anchors,
#                    "cycles 200000 50000 1" "cycles 2000000 500000 1" "rmat 22 16 1"
#                    "uniform 4000000 10 1")
#
# Times: ECL-SCC's own "compute time" (device, upload excluded; it numbers no components); ours,
# device events from after the upload to the numbering on the device (detection + numbering), with
# the download beside it. Exit status 0 when every graph ran and every SCC count agreed.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
ecl=""
ecl_bin=""
bench=${SCC_BENCH:-$repo/build/scc_bench}
old=""
runs=5
logs=/tmp/scc-ecl
graphs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--ecl) ecl=$2; shift 2 ;;
	--ecl-bin) ecl_bin=$2; shift 2 ;;
	--bench) bench=$2; shift 2 ;;
	--old-bench) old=$2; shift 2 ;;
	--runs) runs=$2; shift 2 ;;
	--logs) logs=$2; shift 2 ;;
	-h | --help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "scc_ecl: unknown option $1 (--help)" >&2; exit 2 ;;
	*) graphs+=("$1"); shift ;;
	esac
done
[ ${#graphs[@]} -eq 0 ] && graphs=("cycles 200000 50000 1" "cycles 2000000 500000 1" "rmat 22 16 1" "uniform 4000000 10 1")
[ -x "$bench" ] || { echo "scc_ecl: no scc_bench at $bench (--bench)" >&2; exit 2; }
mkdir -p "$logs"
if [ -n "$ecl_bin" ]; then
	[ -x "$ecl_bin" ] || { echo "scc_ecl: no ECL-SCC program at $ecl_bin (--ecl-bin)" >&2; exit 2; }
	cp "$ecl_bin" "$logs/ecl-scc"
else
	src=""
	for candidate in "$ecl/source" "$ecl"; do
		[ -n "$ecl" ] && [ -f "$candidate/ECL-SCC_10.cu" ] && src=$candidate && break
	done
	[ -z "$src" ] && { echo "scc_ecl: --ecl DIR must hold ECL-SCC_10.cu (or source/ECL-SCC_10.cu)" >&2; exit 2; }
	nvcc -O3 -arch="${ECL_ARCH:-sm_90}" -DclockRate=major -DmemoryClockRate=minor -o "$logs/ecl-scc" \
		"$src/ECL-SCC_10.cu" >"$logs/ecl-build.log" 2>&1 || { cat "$logs/ecl-build.log"; exit 1; }
fi

median() { sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "-"}'; }

status=0
rows=()
for spec in "${graphs[@]}"; do
	name=$(echo "$spec" | tr ' ' '-')
	egr="$logs/$name.egr"
	# shellcheck disable=SC2086 # spec is a list of words
	if ! "$bench" $spec --runs "$runs" --cpu-runs 1 --write-egr "$egr" >"$logs/$name.new.log" 2>&1; then
		rows+=("| $spec | FAILED: $(tail -1 "$logs/$name.new.log") |")
		status=1
		continue
	fi
	line=$(grep '^DEVICE ' "$logs/$name.new.log")
	field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
	result=$(grep '^RESULT ' "$logs/$name.new.log")
	n=$(echo "$result" | sed -n 's/.* n=\([0-9]*\) .*/\1/p')
	m=$(echo "$result" | sed -n 's/.* m=\([0-9]*\) .*/\1/p')
	comps=$(echo "$result" | sed -n 's/.* comps=\([0-9]*\) .*/\1/p')
	: >"$logs/$name.ecl.log"
	for _ in $(seq "$runs"); do "$logs/ecl-scc" "$egr" >>"$logs/$name.ecl.log" 2>&1; done
	ecl_ms=$(sed -n 's/^compute time: \([0-9.]*\) s/\1/p' "$logs/$name.ecl.log" | awk '{print $1 * 1000}' | median)
	ecl_comps=$(sed -n 's/^number of SCCs: //p' "$logs/$name.ecl.log" | tail -1)
	[ "$ecl_comps" = "$comps" ] || status=1
	old_ms="-"
	if [ -n "$old" ]; then
		# shellcheck disable=SC2086
		"$old" $spec --runs "$runs" --cpu-runs 1 >"$logs/$name.old.log" 2>&1 &&
			old_ms=$(sed -n 's/.*gpu total \([0-9.]*\) ms: upload \([0-9.]*\) .*/\1 \2/p' "$logs/$name.old.log" |
				awk '{printf "%.1f", $1 - $2}')
	fi
	rows+=("$(awk -v g="$spec" -v n="$n" -v m="$m" -v c="$comps" -v ec="${ecl_comps:-?}" -v old="$old_ms" \
		-v det="$(field detect_ms)" -v num="$(field numbering_ms)" -v dev="$(field device_ms)" \
		-v down="$(field download_ms)" -v tot="$(field total_ms)" -v e="$ecl_ms" 'BEGIN {
		printf "| %s | %.2fM | %.1fM | %s / %s | %s | %.2f | %.2f | **%.2f** | %.2f | %.2f | %s | %.2fx |",
			g, n / 1e6, m / 1e6, c, ec, old, det, num, dev, down, tot, e, (e > 0 ? dev / e : 0) }')")
	rm -f "$egr"
	echo "scc_ecl: $spec done" >&2
done

{
	echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
	echo "command: bench/scc_ecl.sh --runs $runs (ms, medians of $runs)"
	echo
	echo "| graph | vertices | edges | SCCs (ours / ECL) | old pg_grail device | detect | numbering | new pg_grail device | download | new end-to-end | ECL-SCC | new / ECL |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} | tee "$logs/table.md"
exit $status
