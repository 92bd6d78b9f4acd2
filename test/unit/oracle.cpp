#include "oracle.hpp"
#include "generate.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>

namespace grail_test {

TestGraph
random_graph(uint64_t seed, size_t max_vertices) {
	grail::Rng rng(seed * 0x2545F4914F6CDD1Dull + 17);
	TestGraph g;
	size_t n = 1 + rng.below(max_vertices);
	// The id pool: mixes extreme, negative and clustered values so sorting and hashing see all.
	std::vector<int64_t> ids;
	const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
	unsigned id_style = unsigned(rng.below(4));
	while (ids.size() < n + 8) {
		int64_t id;
		switch (id_style) {
		case 0:
			id = int64_t(ids.size()) * 3 - 20;
			break;
		case 1:
			id = int64_t(rng.next());
			break;
		default: {
			uint64_t r = rng.below(6);
			id = r == 0   ? lo + int64_t(rng.below(5))
			     : r == 1 ? hi - int64_t(rng.below(5))
			     : r == 2 ? -int64_t(rng.below(100))
			              : int64_t(rng.below(1000));
		}
		}
		if (std::find(ids.begin(), ids.end(), id) == ids.end())
			ids.push_back(id);
	}
	// The last 8 ids never appear in an edge: queries about them must treat them as unknown.
	g.query_ids = ids;
	ids.resize(n);

	unsigned shape = unsigned(rng.below(5));
	size_t m = n == 1 ? rng.below(3) : rng.below(n * (1 + rng.below(4)) + 1);
	auto add = [&](size_t a, size_t b) { g.edges.append(ids[a], ids[b]); };
	switch (shape) {
	case 0: // DAG in id-pool order
	case 1: // DAG in a shuffled order (id order is not topological)
		g.shape = shape == 0 ? "dag" : "shuffled dag";
		if (shape == 1)
			for (size_t k = n; k > 1; k--)
				std::swap(ids[k - 1], ids[rng.below(k)]);
		for (size_t e = 0; e < m && n > 1; e++) {
			size_t a = rng.below(n - 1);
			add(a, a + 1 + rng.below(n - 1 - a));
		}
		break;
	case 2: // a few cycles joined by DAG edges
		g.shape = "cycles";
		for (size_t start = 0; start < n;) {
			size_t len = 1 + rng.below(6);
			for (size_t k = 0; k < len && start + k < n; k++)
				add(start + k, start + (k + 1) % len < n ? start + (k + 1) % len : start);
			start += len;
		}
		for (size_t e = 0; e < m / 2 && n > 1; e++) {
			size_t a = rng.below(n - 1);
			add(a, a + 1 + rng.below(n - 1 - a));
		}
		break;
	default: // arbitrary directed edges
		g.shape = "random";
		for (size_t e = 0; e < m; e++)
			add(rng.below(n), rng.below(n));
	}
	// Self-loops and duplicates must change nothing.
	size_t extra = rng.below(3);
	for (size_t k = 0; k < extra; k++) {
		size_t a = rng.below(n);
		add(a, a);
	}
	size_t edges = g.edges.size();
	for (size_t k = 0; k < extra && edges > 0; k++) {
		size_t e = rng.below(edges);
		g.edges.append(g.edges.source[e], g.edges.target[e]);
	}
	if (g.edges.size() == 0) // the engine's vertices come from edges; keep one
		add(0, 0);
	return g;
}

Oracle::Oracle(const grail::EdgeList &edges) {
	ids_ = edges.source;
	ids_.insert(ids_.end(), edges.target.begin(), edges.target.end());
	std::sort(ids_.begin(), ids_.end());
	ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
	size_t n = ids_.size();
	out_.resize(n);
	for (size_t e = 0; e < edges.size(); e++)
		out_[index(edges.source[e])].push_back(index(edges.target[e]));
	reach_.assign(n, std::vector<bool>(n, false));
	for (size_t s = 0; s < n; s++) {
		std::vector<int> todo{int(s)};
		reach_[s][s] = true;
		while (!todo.empty()) {
			int v = todo.back();
			todo.pop_back();
			for (int w : out_[v])
				if (!reach_[s][w]) {
					reach_[s][w] = true;
					todo.push_back(w);
				}
		}
	}
}

int
Oracle::index(int64_t id) const {
	auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
	return it != ids_.end() && *it == id ? int(it - ids_.begin()) : -1;
}

bool
Oracle::reachable(int64_t a, int64_t b) const {
	if (a == b)
		return true;
	int ia = index(a), ib = index(b);
	return ia >= 0 && ib >= 0 && reach_[ia][ib];
}

int64_t
Oracle::component(int64_t id) const {
	int v = index(id);
	if (v < 0)
		return id;
	for (size_t u = 0; u < ids_.size(); u++) // ascending: the first mutual one is the smallest
		if (reach_[u][v] && reach_[v][u])
			return ids_[u];
	return id;
}

std::vector<Oracle::BfsRow>
Oracle::bfs(int64_t source, uint32_t max_depth) const {
	int s = index(source);
	std::vector<BfsRow> rows;
	if (s < 0)
		return rows;
	std::vector<uint32_t> depth(ids_.size(), std::numeric_limits<uint32_t>::max());
	std::deque<int> queue{s};
	depth[s] = 0;
	while (!queue.empty()) {
		int v = queue.front();
		queue.pop_front();
		if (depth[v] == max_depth)
			continue;
		for (int w : out_[v])
			if (depth[w] == std::numeric_limits<uint32_t>::max()) {
				depth[w] = depth[v] + 1;
				queue.push_back(w);
			}
	}
	for (size_t v = 0; v < ids_.size(); v++) {
		if (depth[v] == std::numeric_limits<uint32_t>::max())
			continue;
		int64_t parent = ids_[s];
		if (depth[v] > 0)
			for (size_t u = 0; u < ids_.size(); u++)
				if (depth[u] == depth[v] - 1 && std::find(out_[u].begin(), out_[u].end(), int(v)) != out_[u].end()) {
					parent = ids_[u];
					break;
				}
		rows.push_back({ids_[v], depth[v], parent});
	}
	std::stable_sort(rows.begin(), rows.end(), [](const BfsRow &a, const BfsRow &b) { return a.depth < b.depth; });
	return rows;
}

} // namespace grail_test
