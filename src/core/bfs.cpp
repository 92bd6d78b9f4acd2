#include "bfs.hpp"
#include "error.hpp"

#include <algorithm>
#include <memory>

namespace grail {

namespace {

// The CSRs whose lists lead on from a vertex (one, or a graph and its reverse to ignore direction).
struct Lists {
	const Csr *csr[2] = {nullptr, nullptr};
	size_t count = 0;

	size_t
	degree(vid_t v) const noexcept {
		size_t d = 0;
		for (size_t l = 0; l < count; l++)
			d += size_t(csr[l]->end(v) - csr[l]->begin(v));
		return d;
	}
};

bool
test(const std::vector<uint64_t> &bits, vid_t v) noexcept {
	return (bits[v / 64] >> (v % 64)) & 1;
}

void
set(std::vector<uint64_t> &bits, vid_t v) noexcept {
	bits[v / 64] |= uint64_t(1) << (v % 64);
}

// The one level-synchronous search over forward's lists.
//
// Host speed: the visited set is a bitmap (an eighth of a byte per vertex, so that a graph of a
// few million vertices keeps it in the L2 cache, where every edge tests it); a vertex's parent is
// written on discovery into parent_of, and each top-down level is put in vertex order either by
// sorting its vertices (a small level) or, for a level that fills a good part of its range of
// vertices, by reading them back from a bitmap of the level in word order.
//
// Levels whose frontier has many edges run bottom-up (Beamer et al., as the GPU's BFS does): each
// vertex not yet reached scans its lists of backward (forward reversed, lists ascending) for the
// first vertex in the frontier, which is the smallest one with an edge to it: the parent that
// top-down gives, and the level comes out in vertex order. backward() is asked for once, the first
// time a level runs bottom-up.
BfsResult
search(const Lists &forward, const std::function<Lists()> &backward, vid_t source, uint32_t max_depth,
       const BfsTuning &tuning) {
	size_t n = forward.csr[0]->vertex_count();
	for (size_t l = 0; l < forward.count; l++)
		if (forward.csr[l]->vertex_count() != n)
			throw Error(ErrorKind::invalid_input, "BFS over CSRs of different vertex counts");
	if (source >= n)
		throw Error(ErrorKind::invalid_input, "BFS source is not a vertex of the graph");
	BfsResult result;
	size_t words = n / 64 + 1;
	std::vector<uint64_t> seen(words, 0), level(words, 0);
	std::unique_ptr<vid_t[]> parent_of(new vid_t[n]);
	set(seen, source);
	result.vertex.push_back(source);
	result.depth.push_back(0);
	result.parent.push_back(kNoVertex);
	size_t unexplored = 0;
	for (size_t l = 0; l < forward.count; l++)
		unexplored += forward.csr[l]->edge_count();
	size_t frontier_edges = forward.degree(source);
	unexplored -= frontier_edges;
	size_t level_begin = 0, steps = 0;
	bool bottom_up = false;
	Lists back;
	std::vector<vid_t> next;
	for (uint32_t depth = 0; depth < max_depth; depth++) {
		size_t level_end = result.vertex.size();
		if (level_begin == level_end)
			break;
		size_t frontier = level_end - level_begin;
		if (!bottom_up)
			bottom_up = double(frontier_edges) * tuning.alpha > double(unexplored);
		else
			bottom_up = double(frontier) * tuning.beta >= double(n);
		size_t base = result.vertex.size();
		if (bottom_up) {
			if (back.count == 0)
				back = backward();
			for (size_t k = level_begin; k < level_end; k++)
				set(level, result.vertex[k]);
			for (size_t word = 0; word < words; word++) {
				uint64_t unreached = ~seen[word];
				if (word == words - 1)
					unreached &= n % 64 == 0 ? 0 : (uint64_t(1) << (n % 64)) - 1;
				while (unreached != 0) {
					vid_t v = vid_t(word * 64 + size_t(__builtin_ctzll(unreached)));
					unreached &= unreached - 1;
					vid_t parent = kNoVertex;
					for (size_t l = 0; l < back.count; l++)
						for (const vid_t *w = back.csr[l]->begin(v), *end = back.csr[l]->end(v); w != end; w++) {
							if ((++steps & 0xFFFF) == 0)
								poll_cancel();
							if (test(level, *w)) {
								parent = std::min(parent, *w);
								break;
							}
						}
					if (parent != kNoVertex) {
						result.vertex.push_back(v);
						result.parent.push_back(parent);
					}
				}
			}
			for (size_t k = level_begin; k < level_end; k++)
				level[result.vertex[k] / 64] = 0;
			for (size_t k = base; k < result.vertex.size(); k++)
				set(seen, result.vertex[k]);
			result.depth.resize(result.vertex.size(), depth + 1);
		} else {
			next.clear();
			vid_t low = kNoVertex, high = 0;
			// The frontier is in ascending order, so the first discoverer of a vertex is its
			// smallest parent (whichever of the lists holds the edge).
			for (size_t k = level_begin; k < level_end; k++) {
				vid_t u = result.vertex[k];
				for (size_t l = 0; l < forward.count; l++)
					for (const vid_t *w = forward.csr[l]->begin(u), *end = forward.csr[l]->end(u); w != end; w++) {
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
			size_t count = next.size();
			if (count == 0)
				break;
			size_t first_word = low / 64, last_word = high / 64;
			result.vertex.resize(base + count);
			result.depth.resize(base + count, depth + 1);
			result.parent.resize(base + count);
			vid_t *out = result.vertex.data() + base;
			if (count * 16 >= last_word - first_word + 1) {
				for (vid_t v : next)
					set(level, v);
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
		}
		frontier_edges = 0;
		for (size_t k = base; k < result.vertex.size(); k++)
			frontier_edges += forward.degree(result.vertex[k]);
		unexplored -= std::min(unexplored, frontier_edges);
		level_begin = level_end;
	}
	return result;
}

} // namespace

BfsResult
bfs(const Csr &graph, vid_t source, uint32_t max_depth) {
	Lists lists;
	lists.csr[0] = &graph;
	lists.count = 1;
	// Top-down only: no reverse to run a level bottom-up with.
	BfsTuning top_down;
	top_down.alpha = 0;
	return search(lists, nullptr, source, max_depth, top_down);
}

BfsResult
bfs(const Csr &graph, const std::function<const Csr &()> &reverse, vid_t source, uint32_t max_depth,
    const BfsTuning &tuning) {
	Lists lists;
	lists.csr[0] = &graph;
	lists.count = 1;
	return search(
	    lists,
	    [&] {
		    Lists back;
		    back.csr[0] = &reverse();
		    back.count = 1;
		    if (back.csr[0]->vertex_count() != graph.vertex_count())
			    throw Error(ErrorKind::invalid_input, "BFS over CSRs of different vertex counts");
		    return back;
	    },
	    source, max_depth, tuning);
}

BfsResult
bfs(const Csr &first, const Csr &second, vid_t source, uint32_t max_depth, const BfsTuning &tuning) {
	Lists lists;
	lists.csr[0] = &first;
	lists.csr[1] = &second;
	lists.count = 2;
	// Ignoring direction, a vertex's neighbours are its lists in both: their reverse is themselves.
	return search(
	    lists, [&] { return lists; }, source, max_depth, tuning);
}

} // namespace grail
