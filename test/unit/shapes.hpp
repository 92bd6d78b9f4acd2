// Small named graphs for the chordless-cycle tests (CPU and GPU), built straight as CSRs.
#pragma once
#include "generate.hpp"
#include "graph.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace grail::shapes {

using Pairs = std::vector<std::pair<vid_t, vid_t>>;

inline Csr
csr_of(size_t n, const Pairs &edges) {
	std::vector<vid_t> source, target;
	for (auto [a, b] : edges) {
		source.push_back(a);
		target.push_back(b);
	}
	return Csr::from_pairs(n, source, target, false);
}

inline uint64_t
total(const std::vector<uint64_t> &counts) {
	uint64_t sum = 0;
	for (uint64_t c : counts)
		sum += c;
	return sum;
}

inline Csr
grid(uint64_t rows, uint64_t cols) {
	return Graph::from_edges(generate_grid(rows, cols, false)).out;
}

inline Csr
complete(vid_t n) {
	Pairs edges;
	for (vid_t a = 0; a < n; a++)
		for (vid_t b = a + 1; b < n; b++)
			edges.push_back({a, b});
	return csr_of(n, edges);
}

inline Csr
complete_bipartite(vid_t m, vid_t n) {
	Pairs edges;
	for (vid_t a = 0; a < m; a++)
		for (vid_t b = 0; b < n; b++)
			edges.push_back({a, m + b});
	return csr_of(m + n, edges);
}

// Hub 0, rim 1..k.
inline Csr
wheel(vid_t k) {
	Pairs edges;
	for (vid_t i = 1; i <= k; i++) {
		edges.push_back({0, i});
		edges.push_back({i, i % k + 1});
	}
	return csr_of(k + 1, edges);
}

// Random edges over n vertices as a user's table may hold them: each pair {a, b} chosen with
// probability density/100 appears in one direction, the other, both, or twice; some self-loops.
inline Pairs
messy_edges(Rng &rng, size_t n, uint64_t density) {
	Pairs edges;
	for (vid_t a = 0; a < n; a++) {
		if (rng.below(8) == 0)
			edges.push_back({a, a});
		for (vid_t b = a + 1; b < n; b++) {
			if (rng.below(100) >= density)
				continue;
			switch (rng.below(4)) {
			case 0:
				edges.push_back({a, b});
				break;
			case 1:
				edges.push_back({b, a});
				break;
			case 2:
				edges.push_back({a, b});
				edges.push_back({b, a});
				break;
			default:
				edges.push_back({a, b});
				edges.push_back({a, b});
			}
		}
	}
	return edges;
}

// The GPU tests' random graphs: up to 62 vertices, every third one sparse (many long chordless
// cycles), the others small and dense; messy input as above.
inline Csr
random_messy_csr(uint64_t seed) {
	Rng rng(seed);
	size_t n = 3 + rng.below(seed % 3 == 0 ? 60 : 20);
	uint64_t density = n > 30 ? 3 + rng.below(12) : 10 + rng.below(70);
	return csr_of(n, messy_edges(rng, n, density));
}

} // namespace grail::shapes
