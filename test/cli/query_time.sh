#!/usr/bin/env bash
# grail_cli query --time (bench/engine_versus.sh's engine side) answers exactly as the plain query:
# the same answers in the same order on stdout, and on stderr one line counting the pairs and the
# reachable ones. Random graphs with cycles, self-loops and duplicate edges; pairs that include ids
# outside the graph. Run by CTest with the grail_cli to test.
#   test/cli/query_time.sh GRAIL_CLI
set -euo pipefail
cli=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/grail-cli-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "query_time: FAIL: $*" >&2; exit 1; }
for seed in 1 2 3; do
	"$cli" generate pairs 300 1200 "$seed" >"$tmp/edges.txt"
	echo "5 5" >>"$tmp/edges.txt" # a self-loop
	head -50 "$tmp/edges.txt" >>"$tmp/edges.txt" # duplicate edges
	"$cli" build "$tmp/edges.txt" -o "$tmp/index.bin" >/dev/null
	"$cli" generate pairs 320 2000 "$((seed + 100))" >"$tmp/pairs.txt" # ids up to 319: some unknown
	"$cli" query "$tmp/index.bin" "$tmp/pairs.txt" >"$tmp/plain.txt"
	"$cli" query "$tmp/index.bin" "$tmp/pairs.txt" --time >"$tmp/timed.txt" 2>"$tmp/timed.err"
	cmp -s "$tmp/plain.txt" "$tmp/timed.txt" || fail "seed $seed: --time answered otherwise than the plain query"
	n=$(wc -l <"$tmp/pairs.txt") yes=$(grep -c '^1$' "$tmp/plain.txt" || true)
	[ "$(wc -l <"$tmp/timed.txt")" = "$n" ] || fail "seed $seed: $(wc -l <"$tmp/timed.txt") answers for $n pairs"
	[ "$yes" -gt 0 ] && [ "$yes" -lt "$n" ] || fail "seed $seed: $yes of $n reachable: the pairs test nothing"
	grep -Eq "^$n pairs, $yes reachable, [0-9]+\.[0-9]{3} ms \([0-9]+\.[0-9]{4} us each\)$" "$tmp/timed.err" ||
		fail "seed $seed: stderr was: $(cat "$tmp/timed.err")"
done
# A malformed pairs file fails as the plain query does, with nothing timed.
printf '1 2\n3\n' >"$tmp/bad.txt"
if "$cli" query "$tmp/index.bin" "$tmp/bad.txt" --time >/dev/null 2>"$tmp/bad.err"; then fail "a malformed pairs file was accepted"; fi
grep -q "expected two ids per line" "$tmp/bad.err" || fail "malformed pairs: $(cat "$tmp/bad.err")"
echo "query_time: ok"
