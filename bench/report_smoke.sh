#!/usr/bin/env bash
# Smoke test of the benchmark report (part of the bench, not of CI): bench/report.sh --scale tiny
# on graphs of a few thousand vertices, with stand-ins for BFL and O'Reach (built from source trees
# made here: they read the input formats the report writes as the real programs do, answer the
# pairs by BFS and print the lines the report reads), then checks that report.md has every section
# and table, that every plot it shows exists as a non-empty SVG under 100 KB, and that the
# stand-ins' answers agree with the engine's. matplotlib missing is a failure, not a skip.
#   bench/report_smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/grail-report-smoke.XXXXXX")
# REPORT_SMOKE_KEEP=1 keeps the report and its work directory to look at.
if [ "${REPORT_SMOKE_KEEP:-}" = 1 ]; then echo "report_smoke: keeping $tmp" >&2; else trap 'rm -rf "$tmp"' EXIT; fi
fail() { echo "report_smoke: FAIL: $*" >&2; exit 1; }

# An O'Reach stand-in: CMake project whose build/reachability reads KaHIP's directed METIS format
# (the "n m" header must match) and "s t r" query files.
mkdir -p "$tmp/oreach"
cat >"$tmp/oreach/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.10)
project(oreach_standin CXX)
add_executable(reachability standin.cpp)
CMAKE
cat >"$tmp/oreach/standin.cpp" <<'CPP'
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>
static std::vector<std::vector<int>> g;
static bool reach(int s, int t) {
	std::vector<char> seen(g.size());
	std::vector<int> stack{s};
	seen[s] = 1;
	while (!stack.empty()) {
		int v = stack.back();
		stack.pop_back();
		if (v == t) return true;
		for (int w : g[v]) if (!seen[w]) seen[w] = 1, stack.push_back(w);
	}
	return false;
}
int main(int argc, char **argv) {
	std::string graph;
	std::vector<std::string> queries;
	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];
		if (a == "--queries") queries.push_back(argv[++i]);
		else if (a == "--seed") i++;
		else if (a[0] != '-') graph = a;
	}
	std::ifstream in(graph);
	std::string line;
	std::getline(in, line);
	long n = 0, m = 0, edges = 0;
	std::stringstream(line) >> n >> m;
	while (std::getline(in, line)) {
		std::stringstream ss(line);
		g.emplace_back();
		long t;
		while (ss >> t) {
			if (t < 1 || t > n) { std::cerr << "target out of range\n"; return 1; }
			g.back().push_back(int(t - 1)), edges++;
		}
	}
	if (long(g.size()) != n || edges != m) { std::cerr << "number of specified edges mismatch\n"; return 1; }
	std::cout << "init took 1.5 ms\n";
	for (auto &q : queries) {
		std::ifstream qin(q);
		int s, t, r, yes = 0, count = 0;
		auto t0 = std::chrono::steady_clock::now();
		while (qin >> s >> t >> r) yes += reach(s, t), count++;
		double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
		std::cout << "\n======= " << (q.find(".t.txt") != std::string::npos ? "true" : "random") << " ========\n";
		std::cout << "## number of queries: " << count << "\n## number of successful queries: " << yes << "\n";
		std::cout << "O'Reach with Pruning BiBFS took total (ms) 1\n   total for queries (µs): " << us << "\n";
	}
}
CPP
# A BFL stand-in: one .cpp (built by g++), GRAIL's graph format and "s t r" queries.
mkdir -p "$tmp/bfl"
cat >"$tmp/bfl/bfl.cpp" <<'CPP'
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
static std::vector<std::vector<int>> g;
static bool reach(int s, int t) {
	std::vector<char> seen(g.size());
	std::vector<int> stack{s};
	seen[s] = 1;
	while (!stack.empty()) {
		int v = stack.back();
		stack.pop_back();
		if (v == t) return true;
		for (int w : g[v]) if (!seen[w]) seen[w] = 1, stack.push_back(w);
	}
	return false;
}
int main(int argc, char **argv) {
	FILE *f = std::fopen(argv[1], "r");
	char header[64];
	int n;
	if (std::fscanf(f, "%63s %d", header, &n) != 2 || std::strcmp(header, "graph_for_greach")) return 1;
	g.resize(n);
	for (int u, v; std::fscanf(f, "%d:", &u) == 1;) {
		while (std::fscanf(f, "%d", &v) == 1) g[u].push_back(v);
		std::fscanf(f, " #");
	}
	std::fclose(f);
	std::printf("index time: 0.500ms\n");
	FILE *q = std::fopen(argv[2], "r");
	int s, t, r, yes = 0;
	auto t0 = std::chrono::steady_clock::now();
	while (std::fscanf(q, "%d %d %d", &s, &t, &r) == 3) yes += reach(s, t);
	double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	std::printf("reachable: %d\nquery time: %.3fms\n", yes, ms);
}
CPP

bash bench/report.sh --scale tiny --out "$tmp/out" --workdir "$tmp/work" --bfl "$tmp/bfl" --oreach "$tmp/oreach" ||
	fail "bench/report.sh exited $?"
md=$tmp/out/report.md
[ -s "$md" ] || fail "no report.md"
for section in "## Machine" "## Build: create_graph against a B-tree" "## reachable() per row and by array" \
	"## reachable() against the recursive CTE and pgRouting" "## descendants(), ancestors() and path()" \
	"## Which observation decides a pair" "## The engine alone, BFL and O'Reach" "## Notes"; do
	grep -qF "$section" "$md" || fail "section missing: $section"
done
# Every graph in every table, numbers in the cells that must have them.
for g in "random DAG" "deep local DAG" "R-MAT DAG"; do
	n=$(grep -c "^| $g |" "$md" || true)
	[ "$n" -ge 10 ] || fail "$g: $n table rows"
done
grep -q '^| random DAG | uniform | per row, bigint | [0-9]' "$md" || fail "no per-row reachable() row"
grep -q '^| random DAG | descendants | [0-9]' "$md" || fail "no descendants() row"
grep -q '^| random DAG | uniform | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9]* of [0-9]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]* | [0-9.,]*× | [0-9.,]*× |$' "$md" ||
	fail "the engine / BFL / O'Reach row has empty cells"
grep -q '| search %' "$md" || fail "no search column in the deciders table"
# pgRouting, where the server has it: in the reachable() and the path() tables.
if ! grep -q '^| pgRouting | not installed' "$md"; then
	grep -q '^| random DAG | uniform | [0-9]* of [0-9]* | .* | [0-9.,]* ([0-9]* pairs) |' "$md" || fail "no pgr_dijkstra time for reachable()"
	grep -q '^| random DAG | [0-9]* | .* over [0-9]* pairs |' "$md" || fail "no pgr_dijkstra time for path()"
fi
# Plots: each one shown exists, is SVG and small.
plots=$(grep -o '!\[[^]]*\]([^)]*)' "$md" | sed 's/.*(\(.*\))/\1/')
[ "$(echo "$plots" | wc -l)" -ge 6 ] || fail "fewer than 6 plots: $plots"
for p in $plots; do
	f=$tmp/out/$p
	[ -s "$f" ] || fail "plot missing: $p"
	head -c 200 "$f" | grep -q '<svg\|<?xml' || fail "$p is not SVG"
	[ "$(stat -c %s "$f")" -lt 102400 ] || fail "$p is 100 KB or more"
done
# The stand-ins answered the same pairs as the engine: their counts of reachable pairs agree.
for g in dag local rmat; do
	for kind in u r; do
		want=$(grep -c '^1$' "$tmp/work/graphs/$g/$kind.answers" || true)
		got=$(awk '/^reachable:/ { print $2 }' "$tmp/work/raw/bfl_${g}_$kind.txt")
		[ "$want" = "$got" ] || fail "$g $kind: engine $want reachable pairs, BFL stand-in $got"
		sec=$([ $kind = u ] && echo random || echo true)
		got=$(awk -v s="$sec" '/^=======/ { cur = $2 } /successful queries/ && cur == s { print $NF }' "$tmp/work/raw/oreach_$g.txt")
		[ "$want" = "$got" ] || fail "$g $kind: engine $want reachable pairs, O'Reach stand-in $got"
	done
done
echo "report_smoke: ok ($(echo "$plots" | wc -l) plots, $(wc -l <"$md") lines)"
