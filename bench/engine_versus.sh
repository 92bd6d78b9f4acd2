#!/usr/bin/env bash
# The engine alone beside O'Reach (Hanauer, Schulz, Trummer, SEA 2021) on the same graphs and the
# same pairs: bench/lookup_sql.sh's three 1M-vertex DAGs and its uniform and reachable pairs (made
# by it first where its database lacks them), written with dense ids (bench/common.sh
# dense_files), O'Reach built from the source tree given (copied into WORKDIR, never into the
# repository). RUNS rounds, each: the engine's build (`grail_cli build`, one thread, its in-process
# "build total": ids, CSR, components, labels), O'Reach over both pair files (its "init" and query
# loop, `--pbibfs`, the fallback its paper measures), then the engine's query loop over each file
# (`grail_cli query --time`: pairs read first, answered one at a time). Medians; each ratio is the
# engine's time over O'Reach's in the same run. Stops where the two count different reachable pairs.
#   bench/engine_versus.sh --oreach DIR [--graphs "dag local rmat"] [--runs R] [--workdir DIR]
#                          [--vertices N] [--edges E] [--degree D] [--span S] [--scale S]
#                          [--edge_factor F] [--pairs P]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/common.sh
source bench/common.sh
vertices=1000000 edges=5000000 degree=5 span=2000 scale=20 edge_factor=8 pairs=100000 runs=3
graphs="dag local rmat" oreach='' workdir=${TMPDIR:-/tmp}/grail-engine-versus
parse_args "$0 --oreach DIR [--graphs LIST] [--runs R] [--workdir DIR] [--vertices N] [--edges E] [--degree D] [--span S] [--scale S] [--edge_factor F] [--pairs P]" \
	vertices edges degree span scale edge_factor pairs runs graphs oreach workdir -- "$@"
[ -n "$oreach" ] && [ -d "$oreach" ] || { echo "--oreach DIR: O'Reach's source tree is needed" >&2; exit 2; }
oreach=$(cd "$oreach" && pwd)
cli=${GRAIL_CLI:-build/grail_cli}
[ -x "$cli" ] || { echo "grail_cli not found at $cli (cmake --build build --target grail_cli)" >&2; exit 2; }
mkdir -p "$workdir"
eval "$(scripts/cluster.sh start)"
# shellcheck disable=SC2034 # P (bench/common.sh) reads it
db=grail_lookup_bench_${vertices}_${edges}_${degree}_${span}_${scale}_${edge_factor}_${pairs}
args=(--vertices "$vertices" --edges "$edges" --degree "$degree" --span "$span" --scale "$scale"
	--edge_factor "$edge_factor" --pairs "$pairs")
for g in $graphs; do
	if [ -z "$(psql -XAtq -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ] ||
		[ -z "$(P -c "SELECT 1 FROM pg_class WHERE relname = 'r1_$g'")" ]; then
		echo "engine_versus: making $g's tables (bench/lookup_sql.sh, one run)" >&2
		bash bench/lookup_sql.sh "${args[@]}" --graphs "$g" --runs 1 --reuse 1 >/dev/null
		eval "$(scripts/cluster.sh start)"
	fi
done
echo "engine_versus: building O'Reach from $oreach" >&2
bin=$(build_oreach "$oreach" "$workdir" "$workdir/oreach_build.log") ||
	{ echo "O'Reach did not build (cmake and Boost are needed: apt-get install cmake libboost-dev); see $workdir/oreach_build.log" >&2; exit 1; }

m() { printf '%s\n' "$@" | median; }
row() { printf '%-6s %-10s %12.1f %12.1f %7s %10s\n' "$g" "$1" "$2" "$3" "$(ratio "$3" "$2")" "$4"; }
# "median build ms" for the engine and O'Reach, then per kind "engine ms, O'Reach ms" over the pairs.
printf '%-6s %-10s %12s %12s %7s %10s\n' graph pairs engine_ms oreach_ms ratio reachable
for g in $graphs; do
	gd=$workdir/graphs/$g
	echo "engine_versus: $g: files with dense ids" >&2
	dense_files "$g" "$gd" python3 >/dev/null
	eb=() ob=() eu=() er=() ou=() or=()
	for r in $(seq "$runs"); do
		echo "engine_versus: $g: round $r of $runs" >&2
		eb+=("$("$cli" build "$gd/edges.txt" -o "$gd/index.bin" | awk '/^build total/ { print $3 * 1000 }')")
		"$bin" "$gd/graph.metis" --pbibfs --seed 1 --queries "$gd/u.query.txt" --queries "$gd/r.query.t.txt" >"$gd/oreach.txt"
		ob+=("$(awk '/^init took/ { print $3 }' "$gd/oreach.txt")")
		# Per query file in order: the query loop's total (us), and the count answered reachable.
		mapfile -t oq < <(awk '/total for queries/ { print $NF / 1000 }' "$gd/oreach.txt")
		mapfile -t oy < <(awk '/number of successful queries/ { print $NF }' "$gd/oreach.txt")
		ou+=("${oq[0]}") or+=("${oq[1]}")
		for kind in u r; do
			line=$("$cli" query "$gd/index.bin" "$gd/$kind.pairs" --time 2>&1 >/dev/null)
			t=$(echo "$line" | awk '{ print $5 }') yes=$(echo "$line" | awk '{ print $3 }')
			if [ $kind = u ]; then eu+=("$t"); o=${oy[0]}; else er+=("$t"); o=${oy[1]}; fi
			[ "$yes" = "$o" ] || { echo "$g $kind: the engine finds $yes reachable pairs, O'Reach $o" >&2; exit 1; }
			[ $kind = u ] && yu=$yes || yr=$yes
		done
	done
	row build "$(m "${eb[@]}")" "$(m "${ob[@]}")" -
	row uniform "$(m "${eu[@]}")" "$(m "${ou[@]}")" "$yu"
	row reachable "$(m "${er[@]}")" "$(m "${or[@]}")" "$yr"
done
