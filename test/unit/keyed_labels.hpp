// The labels that grail_labels_gpu() must produce, by a plain sequential DFS in the keyed order of
// label_order.hpp: the reference the GPU labelling is held to exactly.
#pragma once
#include "grail_labels.hpp"
#include "graph.hpp"

namespace grail_test {

// dag: any acyclic CSR (topological numbering not needed). Same record layout as GrailLabels.
grail::GrailLabels keyed_dfs_labels(const grail::Csr &dag, unsigned d, uint64_t seed);

} // namespace grail_test
