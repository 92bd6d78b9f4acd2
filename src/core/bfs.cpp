#include "bfs.hpp"
#include "error.hpp"

#include <algorithm>
#include <memory>

namespace grail {

namespace {

// The one level-synchronous search; lists holds the CSRs whose edges lead on from a vertex.
//
// Host speed: the visited set is a bitmap (an eighth of a byte per vertex, so that a graph of a
// few million vertices keeps it in the L2 cache, where every edge tests it); a vertex's parent is
// written on discovery into parent_of, and each level is put in vertex order either by sorting its
// vertices (a small level) or, for a level that fills a good part of its range of vertices, by
// reading them back from a bitmap of the level in word order (no sort at all).
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
	size_t words = n / 64 + 1;
	std::vector<uint64_t> seen(words, 0), level(words, 0);
	std::unique_ptr<vid_t[]> parent_of(new vid_t[n]);
	seen[source / 64] |= uint64_t(1) << (source % 64);
	result.vertex.push_back(source);
	result.depth.push_back(0);
	result.parent.push_back(kNoVertex);
	size_t level_begin = 0, steps = 0;
	std::vector<vid_t> next;
	for (uint32_t depth = 0; depth < max_depth; depth++) {
		size_t level_end = result.vertex.size();
		if (level_begin == level_end)
			break;
		next.clear();
		vid_t low = kNoVertex, high = 0;
		// The frontier is in ascending order, so the first discoverer of a vertex is its
		// smallest parent (whichever of the lists holds the edge).
		for (size_t k = level_begin; k < level_end; k++) {
			vid_t u = result.vertex[k];
			for (const Csr *csr : lists)
				for (const vid_t *w = csr->begin(u), *end = csr->end(u); w != end; w++) {
					if ((++steps & 0xFFFF) == 0)
						poll_cancel();
					vid_t v = *w;
					uint64_t bit = uint64_t(1) << (v % 64);
					if (seen[v / 64] & bit)
						continue;
					seen[v / 64] |= bit;
					parent_of[v] = u;
					next.push_back(v);
					low = std::min(low, v);
					high = std::max(high, v);
				}
		}
		if (next.empty())
			break;
		size_t count = next.size(), first_word = low / 64, last_word = high / 64;
		size_t base = result.vertex.size();
		result.vertex.resize(base + count);
		result.depth.resize(base + count, depth + 1);
		result.parent.resize(base + count);
		vid_t *out = result.vertex.data() + base;
		if (count * 16 >= last_word - first_word + 1) {
			for (vid_t v : next)
				level[v / 64] |= uint64_t(1) << (v % 64);
			size_t i = 0;
			for (size_t word = first_word; word <= last_word; word++) {
				uint64_t bits = level[word];
				level[word] = 0;
				while (bits != 0) {
					out[i++] = vid_t(word * 64 + size_t(__builtin_ctzll(bits)));
					bits &= bits - 1;
				}
			}
		} else {
			std::copy(next.begin(), next.end(), out);
			std::sort(out, out + count);
		}
		vid_t *parents = result.parent.data() + base;
		for (size_t i = 0; i < count; i++)
			parents[i] = parent_of[out[i]];
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
