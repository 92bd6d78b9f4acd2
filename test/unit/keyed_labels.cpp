#include "keyed_labels.hpp"
#include "generate.hpp"
#include "label_order.hpp"
#include "topo_order.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace grail_test {

using grail::vid_t;

grail::GrailLabels
keyed_dfs_labels(const grail::Csr &dag, unsigned d, uint64_t seed) {
	size_t n = dag.vertex_count(), w = 3 + 2 * size_t(d);
	std::vector<uint32_t> data(n * w, 0);
	std::vector<size_t> in_degree(n, 0);
	for (vid_t t : dag.targets)
		in_degree[t]++;

	// Levels: longest path from a source, in Kahn's order.
	std::vector<uint32_t> order = grail::topological_order(n, [&](vid_t v, auto &&visit) {
		for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
			visit(*c);
	});
	for (vid_t v : order)
		for (const vid_t *c = dag.begin(v); c != dag.end(v); c++)
			data[*c * w + 2] = std::max(data[*c * w + 2], data[v * w + 2] + 1);

	grail::Rng seeds(seed);
	for (unsigned i = 0; i < d; i++) {
		uint64_t s = seeds.next();
		auto by_key = [s](vid_t parent) {
			return [s, parent](vid_t a, vid_t b) {
				return grail::child_key(s, parent, a) < grail::child_key(s, parent, b);
			};
		};
		std::vector<vid_t> roots;
		for (size_t v = 0; v < n; v++)
			if (in_degree[v] == 0)
				roots.push_back(vid_t(v));
		std::sort(roots.begin(), roots.end(), by_key(0xFFFFFFFFu));
		std::vector<std::vector<vid_t>> children(n);
		for (size_t v = 0; v < n; v++) {
			children[v].assign(dag.begin(vid_t(v)), dag.end(vid_t(v)));
			std::sort(children[v].begin(), children[v].end(), by_key(vid_t(v)));
		}
		std::vector<bool> seen(n, false);
		uint32_t rank = 0;
		std::vector<std::pair<vid_t, size_t>> stack; // vertex, next child
		for (vid_t root : roots) {
			seen[root] = true;
			if (i == 0)
				data[root * w + 1] = rank;
			stack.push_back({root, 0});
			while (!stack.empty()) {
				auto &[v, next] = stack.back();
				if (next < children[v].size()) {
					vid_t c = children[v][next++];
					if (!seen[c]) {
						seen[c] = true;
						if (i == 0)
							data[c * w + 1] = rank;
						stack.push_back({c, 0});
					}
					continue;
				}
				uint32_t post = rank++, lo = post;
				for (vid_t c : children[v])
					lo = std::min(lo, data[c * w + 3 + 2 * i]);
				data[v * w + 3 + 2 * i] = lo;
				data[v * w + 4 + 2 * i] = post;
				if (i == 0)
					data[v * w] = post;
				stack.pop_back();
			}
		}
	}
	return grail::GrailLabels::from_data(d, std::move(data));
}

} // namespace grail_test
