// The visiting order of GRAIL labelling traversal i: roots, and each vertex's children, in
// ascending child_key(). A keyed order instead of shuffles makes a traversal a pure function of
// (graph, seed, i), so the GPU labelling, which finds each traversal's DFS tree by comparing
// smallest paths (papers/gpu-grail-reachability.txt section 4.1), gives exactly the labels of a
// sequential DFS in this order; the tests hold it to that.
#pragma once
#include "cpp_only.hpp"

#include "host_device.hpp"

#include <cstdint>

namespace grail {

// Sort key of edge parent -> child in the traversal seeded with traversal_seed (traversal i of a
// labelling seeded with s uses the (i + 1)-th value of Rng(s)): a hash in the high half, the child
// in the low half, so that the children of one parent never tie. Roots are the children of parent
// 0xFFFFFFFF.
GRAIL_HOST_DEVICE inline uint64_t
child_key(uint64_t traversal_seed, uint32_t parent, uint32_t child) {
	uint64_t z = traversal_seed ^ ((uint64_t(parent) << 32) | child);
	z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
	z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ull;
	z ^= z >> 33;
	return (z & 0xFFFFFFFF00000000ull) | child;
}

} // namespace grail
