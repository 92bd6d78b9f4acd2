// Kahn's algorithm on the host, written once: the graph overlay's order of a changed condensation
// (overlay.cpp), the numbering of components found on the GPU when the device's level budget runs
// out (scc.cpp, number_components), and the unit tests' references.
#pragma once
#include "cpp_only.hpp"
#include "error.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace grail {

// Vertices 0..count-1 in a topological order: Kahn's algorithm with a first-in first-out queue
// seeded with the vertices that have no predecessor, in ascending order (so the order is
// deterministic). for_each_successor(v, visit) calls visit(w) once per edge v -> w (a repeated
// edge once per repetition, a self-loop included); visit returns false, to go on, so that a
// successor function which stops where its visitor returns true serves here too. Fewer than count
// vertices when the graph has a cycle: those on or behind one are left out. Polls for
// cancellation.
template <typename Successors>
std::vector<uint32_t>
topological_order(size_t count, Successors &&for_each_successor) {
	std::vector<uint32_t> in_degree(count, 0);
	for (size_t v = 0; v < count; v++)
		for_each_successor(uint32_t(v), [&](uint32_t w) {
			in_degree[w]++;
			return false;
		});
	std::vector<uint32_t> order;
	order.reserve(count);
	for (size_t v = 0; v < count; v++)
		if (in_degree[v] == 0)
			order.push_back(uint32_t(v));
	for (size_t head = 0; head < order.size(); head++) {
		if ((head & 0xFFFF) == 0xFFFF)
			poll_cancel();
		for_each_successor(order[head], [&](uint32_t w) {
			if (--in_degree[w] == 0)
				order.push_back(w);
			return false;
		});
	}
	return order;
}

// Each vertex's position in order (topological_order() of all count vertices).
inline std::vector<uint32_t>
positions(const std::vector<uint32_t> &order) {
	std::vector<uint32_t> position(order.size());
	for (size_t i = 0; i < order.size(); i++)
		position[order[i]] = uint32_t(i);
	return position;
}

} // namespace grail
