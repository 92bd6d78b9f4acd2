// Deterministic graph generators for tests and the benchmark harness: the same arguments give
// the same edges on every machine (own PRNG, no std:: distributions, whose output varies).
#pragma once
#include "cpp_only.hpp"
#include "graph.hpp"
#include "rng.hpp"

#include <string>

namespace grail {

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
