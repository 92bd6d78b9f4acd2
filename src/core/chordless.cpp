#include "chordless.hpp"

#include "error.hpp"
#include "gpu.hpp"

#include <algorithm>
#include <string>

namespace grail {

Csr
undirected_simple(const Csr &graph) {
	size_t n = graph.vertex_count();
	std::vector<vid_t> source, target;
	source.reserve(2 * graph.edge_count());
	target.reserve(2 * graph.edge_count());
	for (vid_t v = 0; v < n; v++)
		for (const vid_t *w = graph.begin(v); w != graph.end(v); w++) {
			source.push_back(v);
			target.push_back(*w);
			source.push_back(*w);
			target.push_back(v);
		}
	return Csr::from_pairs(n, source, target, true);
}

void
check_gpu_chordless_size(const Csr &graph) {
	const size_t n = graph.vertex_count();
	if (n > kGpuChordlessMaxVertices)
		throw Error(ErrorKind::limit_exceeded,
		            "GPU chordless cycles: the graph has " + std::to_string(n) +
		                " vertices, the GPU search keeps each path as a bitmap of at most " +
		                std::to_string(kGpuChordlessMaxVertices) + " vertices",
		            "Use the CPU for this graph (grail.device = auto or cpu).");
}

namespace {

constexpr vid_t kNone = std::numeric_limits<vid_t>::max();

} // namespace

// Low-degree vertices get small labels, and the search starts only from triplets centred on a
// cycle's smallest label, which keeps the set of initial triplets small. Bucket lists by current
// degree: O(n + m).
std::vector<vid_t>
degree_labelling(const Csr &g) {
	size_t n = g.vertex_count();
	std::vector<vid_t> degree(n), next(n, kNone), prev(n, kNone);
	size_t max_degree = 0;
	for (vid_t v = 0; v < n; v++) {
		degree[v] = vid_t(g.end(v) - g.begin(v));
		max_degree = std::max<size_t>(max_degree, degree[v]);
	}
	std::vector<vid_t> head(max_degree + 1, kNone);
	auto insert = [&](vid_t v) {
		prev[v] = kNone;
		next[v] = head[degree[v]];
		if (next[v] != kNone)
			prev[next[v]] = v;
		head[degree[v]] = v;
	};
	auto remove = [&](vid_t v) {
		if (prev[v] != kNone)
			next[prev[v]] = next[v];
		else
			head[degree[v]] = next[v];
		if (next[v] != kNone)
			prev[next[v]] = prev[v];
	};
	// Inserted in descending order so that each bucket lists its vertices by ascending index.
	for (vid_t v = vid_t(n); v-- > 0;)
		insert(v);

	std::vector<vid_t> label(n, kNone);
	size_t lowest = 0;
	for (vid_t i = 0; i < n; i++) {
		if ((i & 0xFFFF) == 0)
			poll_cancel();
		while (head[lowest] == kNone)
			lowest++;
		vid_t v = head[lowest];
		remove(v);
		label[v] = i;
		for (const vid_t *w = g.begin(v); w != g.end(v); w++)
			if (label[*w] == kNone) {
				remove(*w);
				degree[*w]--;
				insert(*w);
			}
		// Removing v lowered its neighbours' degrees by one at most.
		lowest = lowest > 0 ? lowest - 1 : 0;
	}
	return label;
}

Csr
relabelled(Csr undirected, const std::vector<vid_t> &label) {
	size_t n = undirected.vertex_count();
	std::vector<vid_t> source, target;
	source.reserve(undirected.edge_count());
	target.reserve(undirected.edge_count());
	for (vid_t v = 0; v < n; v++)
		for (const vid_t *w = undirected.begin(v); w != undirected.end(v); w++) {
			source.push_back(label[v]);
			target.push_back(label[*w]);
		}
	undirected = Csr();
	return Csr::from_pairs(n, source, target, true);
}

// The search of Algorithm 1 as a resumable state machine. Vertices are renumbered by their
// degree label, so that "l(a) < l(b)" is "a < b" and the neighbours that can follow u on a
// cycle whose smallest label is u are a suffix of each sorted adjacency list.
//
// Triplets <x, u, y> are visited per u, then x, then y (u < x < y, x and y neighbours of u); an
// adjacent pair closes a triangle, any other starts a depth-first expansion of the chordless
// path x, u, y, ... Only the current path is stored (with a neighbour cursor per vertex), and
//   blocked[w] = the number of path vertices v2..vt adjacent to w (counted for w > u only),
//   near_first[w] = whether w is adjacent to v1 = x,
// make each extension test O(1): a neighbour v > u of vt with blocked[v] == 1 has no chord to
// v2..v(t-1) and is not on the path; it closes a cycle if near_first[v], else extends the path.
class ChordlessCycleEnumerator::Search {
public:
	Search(const Csr &graph, uint32_t min_length, uint32_t max_length)
	    : min_length_(min_length), max_length_(max_length) {
		Csr simple = undirected_simple(graph);
		std::vector<vid_t> label = degree_labelling(simple);
		size_t n = simple.vertex_count();
		original_.resize(n);
		for (vid_t v = 0; v < n; v++)
			original_[label[v]] = v;
		adj_ = relabelled(std::move(simple), label);
		blocked_.assign(n, 0);
		near_first_.assign(n, 0);
	}

	// Told how many start vertices are done (every cycle whose smallest label is one of them has
	// been handed over) of how many: as they advance, and every few thousand steps.
	ChordlessProgress progress;

	// Vertex in the input graph of a search vertex.
	vid_t
	original(vid_t v) const noexcept {
		return original_[v];
	}

	// Runs the search, handing each cycle (search vertices in cycle order) to
	// sink(const vid_t *cycle, size_t length), which returns false to pause. Returns true when
	// paused (call again to resume), false when the search is complete.
	template <typename Sink>
	bool
	run(Sink &sink) {
		const vid_t n = vid_t(adj_.vertex_count());
		for (;;) {
			if ((++steps_ & 0xFFF) == 0) {
				poll_cancel();
				report();
			}
			switch (phase_) {
			case Phase::next_u: {
				if (u_ == n) {
					phase_ = Phase::done;
					report();
					return false;
				}
				x_ = above_u(u_);
				if (adj_.end(u_) - x_ < 2) { // no two later neighbours: no cycle has u as its smallest label
					u_++;
					continue;
				}
				count_blocked(u_, 1);
				path_.assign({kNone, u_});
				cursor_.assign(2, nullptr);
				phase_ = Phase::next_x;
				continue;
			}
			case Phase::next_x:
				if (x_ == adj_.end(u_)) {
					count_blocked(u_, -1);
					u_++;
					report();
					phase_ = Phase::next_u;
					continue;
				}
				path_[0] = *x_;
				mark_near_first(*x_, 1);
				y_ = x_ + 1;
				phase_ = Phase::next_y;
				continue;
			case Phase::next_y: {
				if (y_ == adj_.end(u_)) {
					mark_near_first(*x_, 0);
					x_++;
					phase_ = Phase::next_x;
					continue;
				}
				vid_t y = *y_++;
				if (near_first_[y]) {
					if (min_length_ <= 3 && !emit(sink, y))
						return true;
				} else if (max_length_ >= 4) {
					push(y);
					phase_ = Phase::expand;
				}
				continue;
			}
			case Phase::expand: {
				const vid_t *&cursor = cursor_.back();
				if (cursor == adj_.end(path_.back())) {
					pop();
					if (path_.size() == 2)
						phase_ = Phase::next_y;
					continue;
				}
				vid_t v = *cursor++;
				if (blocked_[v] != 1)
					continue;
				size_t length = path_.size() + 1;
				if (near_first_[v]) {
					if (length >= min_length_ && !emit(sink, v))
						return true;
				} else if (length + 1 <= max_length_) {
					push(v);
				}
				continue;
			}
			case Phase::done:
				return false;
			}
		}
	}

private:
	enum class Phase { next_u, next_x, next_y, expand, done };

	// The neighbours of v after u_ in label order.
	const vid_t *
	above_u(vid_t v) const noexcept {
		return std::upper_bound(adj_.begin(v), adj_.end(v), u_);
	}
	void
	count_blocked(vid_t v, int delta) noexcept {
		for (const vid_t *w = above_u(v); w != adj_.end(v); w++)
			blocked_[*w] += delta;
	}
	void
	mark_near_first(vid_t x, uint8_t value) noexcept {
		for (const vid_t *w = above_u(x); w != adj_.end(x); w++)
			near_first_[*w] = value;
	}
	void
	push(vid_t v) {
		path_.push_back(v);
		cursor_.push_back(above_u(v));
		count_blocked(v, 1);
	}
	void
	pop() noexcept {
		count_blocked(path_.back(), -1);
		path_.pop_back();
		cursor_.pop_back();
	}
	template <typename Sink>
	bool
	emit(Sink &sink, vid_t closing) {
		path_.push_back(closing);
		bool go_on = sink(path_.data(), path_.size());
		path_.pop_back();
		return go_on;
	}

	uint32_t min_length_, max_length_;
	Csr adj_;                       // the undirected simple graph, renumbered by label
	std::vector<vid_t> original_;   // search vertex -> input vertex
	std::vector<uint32_t> blocked_; // see the class comment
	std::vector<uint8_t> near_first_;
	std::vector<vid_t> path_;           // x, u, y, ...
	std::vector<const vid_t *> cursor_; // per path vertex from y on: its next neighbour to try
	Phase phase_ = Phase::next_u;
	vid_t u_ = 0;
	const vid_t *x_ = nullptr, *y_ = nullptr; // in u's adjacency list
	uint32_t steps_ = 0;

	void
	report() const {
		if (progress)
			progress(u_, adj_.vertex_count());
	}
};

ChordlessCycleEnumerator::ChordlessCycleEnumerator(const Csr &graph, uint32_t min_length, uint32_t max_length) {
	if (min_length < 3 || max_length < min_length)
		throw Error(ErrorKind::invalid_input, "chordless cycles: need 3 <= min_length <= max_length");
	search_ = std::make_unique<Search>(graph, min_length, max_length);
}

ChordlessCycleEnumerator::~ChordlessCycleEnumerator() = default;

void
ChordlessCycleEnumerator::on_progress(ChordlessProgress progress) {
	search_->progress = std::move(progress);
}

bool
ChordlessCycleEnumerator::next(CycleBatch &batch, size_t max_cycles, size_t max_vertices) {
	if (max_cycles == 0)
		throw Error(ErrorKind::invalid_input, "chordless cycles: a batch needs room for one cycle at least");
	batch.clear();
	const Search &search = *search_;
	// Canonical orientation: start at the smallest input vertex, then its smaller neighbour.
	auto add = [&](const vid_t *cycle, size_t length) {
		size_t first = 0;
		for (size_t i = 1; i < length; i++)
			if (search.original(cycle[i]) < search.original(cycle[first]))
				first = i;
		size_t after = (first + 1) % length, before = (first + length - 1) % length;
		bool forward = search.original(cycle[after]) < search.original(cycle[before]);
		for (size_t k = 0; k < length; k++) {
			size_t i = forward ? (first + k) % length : (first + length - k) % length;
			batch.vertices.push_back(search.original(cycle[i]));
		}
		batch.starts.push_back(batch.vertices.size());
		return batch.size() < max_cycles && batch.vertices.size() < max_vertices;
	};
	search_->run(add);
	return batch.size() > 0;
}

std::vector<uint64_t>
count_chordless_cycles(const Csr &graph, uint32_t max_length) {
	if (max_length < 3)
		throw Error(ErrorKind::invalid_input, "chordless cycles: max_length must be at least 3");
	ChordlessCycleEnumerator::Search search(graph, 3, max_length);
	std::vector<uint64_t> counts;
	auto count = [&](const vid_t *, size_t length) {
		if (length >= counts.size())
			counts.resize(length + 1, 0);
		counts[length]++;
		return true;
	};
	search.run(count);
	return counts;
}

} // namespace grail
