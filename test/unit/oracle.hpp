// Brute-force references for the engine's unit tests: they work on the raw int64 edge list with
// plain containers and share no code with the engine.
#pragma once
#include "graph.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace grail_test {

// A random test graph plus the ids worth querying: its vertices and some that are not.
struct TestGraph {
	grail::EdgeList edges;
	std::vector<int64_t> query_ids;
	std::string shape; // for failure messages
};

// Varied shapes by seed: DAGs, sparse and dense cyclic graphs, a few big SCCs, with self-loops,
// duplicate edges, negative ids and ids at INT64_MIN / INT64_MAX.
TestGraph random_graph(uint64_t seed, size_t max_vertices = 40);

class Oracle {
public:
	explicit Oracle(const grail::EdgeList &edges);

	bool reachable(int64_t a, int64_t b) const;
	// Smallest id of the vertex's SCC (mutual reachability); an unknown id is its own.
	int64_t component(int64_t id) const;
	const std::vector<int64_t> &
	vertices() const {
		return ids_;
	}

	struct BfsRow {
		int64_t vertex;
		uint32_t depth;
		int64_t parent; // smallest id at depth - 1 with an edge to vertex; the source's own id for the source
	};
	// Rows ordered by (depth, id). Vertex ids ascend with dense indexes, so this is the engine's order.
	std::vector<BfsRow> bfs(int64_t source, uint32_t max_depth) const;

private:
	int index(int64_t id) const;

	std::vector<int64_t> ids_;
	std::vector<std::vector<int>> out_;
	std::vector<std::vector<bool>> reach_; // reflexive-transitive closure
};

} // namespace grail_test
