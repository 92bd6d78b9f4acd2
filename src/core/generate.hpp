// Deterministic graph generators for tests and the benchmark harness: the same arguments give
// the same edges on every machine (own PRNG, no std:: distributions, whose output varies).
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"

#include <string>

namespace grail {

// splitmix64: tiny, fast, and identical everywhere.
class Rng {
public:
	explicit Rng(uint64_t seed) : state_(seed) {
	}
	uint64_t
	next() noexcept {
		uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	// Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; bias below 2^-32 for our sizes).
	uint64_t
	below(uint64_t bound) noexcept {
		return uint64_t((__uint128_t(next()) * bound) >> 64);
	}

private:
	uint64_t state_;
};

// Random DAG like the "home-made" DAGs of papers/gpu-grail-reachability.txt: n vertices, about
// n * avg_degree edges, each u -> v with u < v in a random topological order, ids 0..n-1
// shuffled so that id order is not the topological order.
EdgeList generate_random_dag(uint64_t n, double avg_degree, uint64_t seed);

// R-MAT (a, b, c, d) = (0.57, 0.19, 0.19, 0.05): 2^scale vertices, edge_factor * 2^scale
// directed edges, self-loops and duplicates kept (the table has them too).
EdgeList generate_rmat(unsigned scale, unsigned edge_factor, uint64_t seed);

// rows x cols grid, edges right and down (a DAG); both_directions adds left and up (one SCC).
EdgeList generate_grid(uint64_t rows, uint64_t cols, bool both_directions);

} // namespace grail
