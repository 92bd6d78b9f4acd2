#include "bfs.hpp"
#include "error.hpp"

#include <algorithm>

namespace grail {

namespace {

// The one level-synchronous search; lists holds the CSRs whose edges lead on from a vertex.
template <size_t N>
BfsResult
search(const Csr *const (&lists)[N], vid_t source, uint32_t max_depth) {
	size_t n = lists[0]->vertex_count();
	for (const Csr *csr : lists)
		if (csr->vertex_count() != n)
			throw Error(ErrorKind::invalid_input, "BFS over CSRs of different vertex counts");
	if (source >= n)
		throw Error(ErrorKind::invalid_input, "BFS source is not a vertex of the graph");
	BfsResult result;
	std::vector<uint8_t> seen(n, 0);
	seen[source] = 1;
	result.vertex.push_back(source);
	result.depth.push_back(0);
	result.parent.push_back(kNoVertex);
	size_t level_begin = 0, steps = 0;
	std::vector<std::pair<vid_t, vid_t>> next; // (vertex, parent)
	for (uint32_t depth = 0; depth < max_depth; depth++) {
		size_t level_end = result.vertex.size();
		if (level_begin == level_end)
			break;
		next.clear();
		// The frontier is in ascending order, so the first discoverer of a vertex is its
		// smallest parent (whichever of the lists holds the edge).
		for (size_t k = level_begin; k < level_end; k++) {
			vid_t u = result.vertex[k];
			for (const Csr *csr : lists)
				for (const vid_t *w = csr->begin(u); w != csr->end(u); w++) {
					if ((++steps & 0xFFFF) == 0)
						poll_cancel();
					if (!seen[*w]) {
						seen[*w] = 1;
						next.emplace_back(*w, u);
					}
				}
		}
		std::sort(next.begin(), next.end());
		for (auto [v, parent] : next) {
			result.vertex.push_back(v);
			result.depth.push_back(depth + 1);
			result.parent.push_back(parent);
		}
		level_begin = level_end;
	}
	return result;
}

} // namespace

BfsResult
bfs(const Csr &graph, vid_t source, uint32_t max_depth) {
	const Csr *const lists[] = {&graph};
	return search(lists, source, max_depth);
}

BfsResult
bfs(const Csr &first, const Csr &second, vid_t source, uint32_t max_depth) {
	const Csr *const lists[] = {&first, &second};
	return search(lists, source, max_depth);
}

} // namespace grail
