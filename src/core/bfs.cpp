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
};

bool
test(const std::vector<uint64_t> &bits, vid_t v) noexcept {
	return (bits[v / 64] >> (v % 64)) & 1;
}

void
set(std::vector<uint64_t> &bits, vid_t v) noexcept {
	bits[v / 64] |= uint64_t(1) << (v % 64);
}

// A top-down level is put in vertex order from a bitmap of the level where its vertices lie at
// least one in kWordsPerVertex words of their range (reading the words back costs about what
// setting the bits did), else by a radix sort where they are at least kRadixMin, else by sorting.
constexpr size_t kWordsPerVertex = 2;
constexpr size_t kRadixMin = 256;

// vertices (each in low..high) in ascending order into out, by a least-significant-digit radix
// sort of 11 bits or fewer a pass over their offsets from low; vertices is left in any order and
// spare holds what it needs.
void
radix_sort(std::vector<vid_t> &vertices, std::vector<vid_t> &spare, vid_t low, vid_t high, vid_t *out) {
	const size_t count = vertices.size();
	const unsigned bits = 32 - unsigned(__builtin_clz((high - low) | 1));
	const unsigned passes = (bits + 10) / 11, digit = (bits + passes - 1) / passes;
	const uint32_t mask = (uint32_t(1) << digit) - 1;
	spare.resize(count);
	const vid_t *from = vertices.data();
	for (unsigned pass = 0; pass < passes; pass++) {
		vid_t *to = pass + 1 == passes ? out : pass % 2 == 0 ? spare.data() : vertices.data();
		const unsigned shift = pass * digit;
		uint32_t place[uint32_t(1) << 11] = {};
		for (size_t i = 0; i < count; i++)
			place[((from[i] - low) >> shift) & mask]++;
		uint32_t sum = 0;
		for (uint32_t d = 0; d <= mask; d++) {
			uint32_t n = place[d];
			place[d] = sum;
			sum += n;
		}
		for (size_t i = 0; i < count; i++)
			to[place[((from[i] - low) >> shift) & mask]++] = from[i];
		from = to;
	}
}

// The one level-synchronous search over forward's lists.
//
// Host speed: the visited set is a bitmap (an eighth of a byte per vertex, so that a graph of a
// few million vertices keeps it in the L2 cache, where every edge tests it); a vertex's parent is
// written on discovery into parent_of, and each top-down level is put in vertex order (above:
// a bitmap read back where the level is dense in its range, else a radix sort or a sort), unless
// the caller reads the depths alone (BfsOutput::depths: a count or a histogram of depths).
//
// Levels whose frontier has many edges run bottom-up (Beamer et al., as the GPU's BFS does): each
// vertex not yet reached scans its lists of backward (forward reversed, lists ascending) for the
// first vertex in the frontier, which is the smallest one with an edge to it: the parent that
// top-down gives, and the level comes out in vertex order. backward() is asked for once, the first
// time a level runs bottom-up.
//
// Memory: the marks, the level bitmap and the discoverers are the scratch's (BfsScratch), kept by
// a caller between searches, so that a search that reaches few vertices costs about what it
// reaches (no allocation or clearing in proportion to the graph). Without parents (BfsOutput other
// than parents) no discoverer is written. The reads that miss the cache on a large graph are a vertex's
// offsets and its list: the offsets are read once a vertex, in level order and ahead, by the pass
// that sums a new level's edges, which keeps each vertex's list bounds for the next level's
// expansion; that expansion reads the lists themselves ahead.
BfsResult
search(const Lists &forward, const std::function<Lists()> &backward, vid_t source, uint32_t max_depth,
       const BfsTuning &tuning, BfsScratch &scratch, BfsOutput output) {
	const bool with_parents = output == BfsOutput::parents;
	size_t n = forward.csr[0]->vertex_count();
	for (size_t l = 0; l < forward.count; l++)
		if (forward.csr[l]->vertex_count() != n)
			throw Error(ErrorKind::invalid_input, "BFS over CSRs of different vertex counts");
	if (source >= n)
		throw Error(ErrorKind::invalid_input, "BFS source is not a vertex of the graph");
	BfsResult result;
	size_t words = n / 64 + 1;
	scratch.start(n);
	std::vector<uint64_t> &seen = scratch.seen, &level = scratch.level;
	vid_t *parent_of = with_parents ? scratch.parents() : nullptr;
	set(seen, source);
	result.vertex.push_back(source);
	result.depth.push_back(0);
	if (with_parents)
		result.parent.push_back(kNoVertex);
	size_t unexplored = 0;
	for (size_t l = 0; l < forward.count; l++)
		unexplored += forward.csr[l]->edge_count();
	// The level's lists (each vertex's begin and end in each CSR, in level order), read from the
	// offsets once, by the pass that sums the level's edges, and by the next level from there.
	const size_t per_vertex = 2 * forward.count;
	std::vector<const vid_t *> &lists = scratch.lists, &next_lists = scratch.next_lists;
	lists.resize(per_vertex);
	size_t frontier_edges = 0;
	for (size_t l = 0; l < forward.count; l++) {
		lists[2 * l] = forward.csr[l]->begin(source);
		lists[2 * l + 1] = forward.csr[l]->end(source);
		frontier_edges += size_t(lists[2 * l + 1] - lists[2 * l]);
	}
	unexplored -= frontier_edges;
	size_t level_begin = 0, steps = 0;
	bool bottom_up = false;
	Lists back;
	std::vector<vid_t> &next = scratch.next;
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
						if (with_parents)
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
			// smallest parent (whichever of the lists holds the edge). Its lists are read ahead.
			constexpr size_t kListsAhead = 8;
			const vid_t *frontier_vertex = result.vertex.data();
			const vid_t *const *list = lists.data();
			for (size_t i = 0; i < frontier; i++, list += per_vertex) {
				if (i + kListsAhead < frontier)
					for (size_t l = 0; l < forward.count; l++)
						__builtin_prefetch(list[kListsAhead * per_vertex + 2 * l]);
				vid_t u = frontier_vertex[level_begin + i];
				for (size_t l = 0; l < forward.count; l++)
					for (const vid_t *w = list[2 * l], *end = list[2 * l + 1]; w != end; w++) {
						if ((++steps & 0xFFFF) == 0)
							poll_cancel();
						vid_t v = *w;
						uint64_t bit = uint64_t(1) << (v % 64);
						if (seen[v / 64] & bit)
							continue;
						seen[v / 64] |= bit;
						if (with_parents)
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
			vid_t *out = result.vertex.data() + base;
			if (output == BfsOutput::depths) {
				std::copy(next.begin(), next.end(), out);
			} else if (count * kWordsPerVertex >= last_word - first_word + 1) {
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
			} else if (count >= kRadixMin) {
				radix_sort(next, scratch.spare, low, high, out);
			} else {
				std::copy(next.begin(), next.end(), out);
				std::sort(out, out + count);
			}
			if (with_parents) {
				result.parent.resize(base + count);
				vid_t *parents = result.parent.data() + base;
				for (size_t i = 0; i < count; i++)
					parents[i] = parent_of[out[i]];
			}
		}
		if (depth + 1 == max_depth)
			break; // the last level is not expanded
		// The new level's lists and edge count, its offsets read ahead (a level's vertices are
		// scattered over the graph).
		constexpr size_t kOffsetsAhead = 16;
		const size_t count = result.vertex.size() - base;
		const vid_t *level_vertex = result.vertex.data() + base;
		next_lists.resize(count * per_vertex);
		frontier_edges = 0;
		for (size_t i = 0; i < count; i++) {
			for (size_t l = 0; l < forward.count; l++) {
				const Csr &csr = *forward.csr[l];
				if (i + kOffsetsAhead < count)
					__builtin_prefetch(csr.offsets.data() + level_vertex[i + kOffsetsAhead]);
				const vid_t *begin = csr.begin(level_vertex[i]), *end = csr.end(level_vertex[i]);
				next_lists[i * per_vertex + 2 * l] = begin;
				next_lists[i * per_vertex + 2 * l + 1] = end;
				frontier_edges += size_t(end - begin);
			}
		}
		lists.swap(next_lists);
		unexplored -= std::min(unexplored, frontier_edges);
		level_begin = level_end;
	}
	scratch.finish(result.vertex);
	return result;
}

} // namespace

void
BfsScratch::start(size_t n) {
	size_t words = n / 64 + 1;
	if (n > capacity_) {
		// Grown to the largest graph searched; the discoverers' room goes, made again on demand.
		seen.assign(words, 0);
		level.assign(words, 0);
		parent_of_.reset();
		capacity_ = n;
		dirty_ = false;
	} else if (dirty_) {
		std::fill(seen.begin(), seen.end(), 0);
		std::fill(level.begin(), level.end(), 0);
	}
	dirty_ = true;
}

void
BfsScratch::finish(const std::vector<vid_t> &reached) noexcept {
	// Each level's bitmap is cleared as it is read (top-down and bottom-up alike); the marks are
	// the reached vertices' (cleared word by word where they are many).
	if (reached.size() >= seen.size() / 8)
		std::fill(seen.begin(), seen.end(), 0);
	else
		for (vid_t v : reached)
			seen[v / 64] = 0;
	dirty_ = false;
}

size_t
BfsScratch::bytes() const noexcept {
	return (seen.capacity() + level.capacity()) * sizeof(uint64_t) +
	       (lists.capacity() + next_lists.capacity()) * sizeof(const vid_t *) +
	       (next.capacity() + spare.capacity()) * sizeof(vid_t) + (parent_of_ ? capacity_ * sizeof(vid_t) : 0);
}

vid_t *
BfsScratch::parents() {
	if (!parent_of_)
		parent_of_.reset(new vid_t[std::max<size_t>(capacity_, 1)]);
	return parent_of_.get();
}

BfsResult
bfs(const Csr &graph, vid_t source, uint32_t max_depth) {
	Lists lists;
	lists.csr[0] = &graph;
	lists.count = 1;
	// Top-down only: no reverse to run a level bottom-up with.
	BfsTuning top_down;
	top_down.alpha = 0;
	BfsScratch scratch;
	return search(lists, nullptr, source, max_depth, top_down, scratch, BfsOutput::parents);
}

BfsResult
bfs(const Csr &graph, const std::function<const Csr &()> &reverse, vid_t source, uint32_t max_depth,
    const BfsTuning &tuning) {
	BfsScratch scratch;
	return bfs(graph, reverse, source, max_depth, scratch, BfsOutput::parents, tuning);
}

BfsResult
bfs(const Csr &graph, const std::function<const Csr &()> &reverse, vid_t source, uint32_t max_depth,
    BfsScratch &scratch, BfsOutput output, const BfsTuning &tuning) {
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
	    source, max_depth, tuning, scratch, output);
}

BfsResult
bfs(const Csr &first, const Csr &second, vid_t source, uint32_t max_depth, const BfsTuning &tuning) {
	BfsScratch scratch;
	return bfs(first, second, source, max_depth, scratch, tuning);
}

BfsResult
bfs(const Csr &first, const Csr &second, vid_t source, uint32_t max_depth, BfsScratch &scratch,
    const BfsTuning &tuning) {
	Lists lists;
	lists.csr[0] = &first;
	lists.csr[1] = &second;
	lists.count = 2;
	// Ignoring direction, a vertex's neighbours are its lists in both: their reverse is themselves.
	return search(
	    lists, [&] { return lists; }, source, max_depth, tuning, scratch, BfsOutput::parents);
}

} // namespace grail
