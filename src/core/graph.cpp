#include "graph.hpp"
#include "error.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace grail {

// Long loops poll for cancellation every 2^20 steps: a few milliseconds apart at most.
constexpr size_t kPollMask = (size_t(1) << 20) - 1;

bool
EdgeList::append(int64_t s, int64_t t) noexcept {
	try {
		// Room for a quarter more at a time rather than twice as much: a build's estimate counts
		// the rows' room (estimate_build_bytes).
		if (source.size() == source.capacity() || target.size() == target.capacity()) {
			size_t room = source.size() + source.size() / 4 + 1024;
			source.reserve(room);
			target.reserve(room);
		}
		source.push_back(s);
		try {
			target.push_back(t);
		} catch (...) {
			source.pop_back();
			return false;
		}
		return true;
	} catch (...) {
		return false;
	}
}

void
EdgeList::reserve(size_t edges) {
	source.reserve(edges);
	target.reserve(edges);
}

namespace {

// Sorts and deduplicates one adjacency list in place, returns its new length; with repeated, counts
// the duplicates of the edges that will lie from place `base` on.
size_t
sort_unique(vid_t *first, vid_t *last, vid_t self, bool drop_self, std::vector<RepeatedEdge> *repeated, eid_t base) {
	size_t len = size_t(last - first);
	if (len <= 16) {
		for (size_t i = 1; i < len; i++) {
			vid_t x = first[i];
			size_t j = i;
			for (; j > 0 && first[j - 1] > x; j--)
				first[j] = first[j - 1];
			first[j] = x;
		}
	} else {
		std::sort(first, last);
	}
	size_t out = 0;
	for (size_t i = 0; i < len; i++) {
		vid_t x = first[i];
		if (drop_self && x == self)
			continue;
		if (out > 0 && first[out - 1] == x) {
			if (repeated == nullptr)
				continue;
			eid_t edge = base + out - 1;
			if (!repeated->empty() && repeated->back().edge == edge)
				repeated->back().rows++;
			else
				repeated->push_back(RepeatedEdge{edge, 2});
			continue;
		}
		first[out++] = x;
	}
	return out;
}

} // namespace

Csr
Csr::from_pairs(size_t n, const std::vector<vid_t> &source, const std::vector<vid_t> &target, bool drop_self_loops,
                std::vector<RepeatedEdge> *repeated) {
	if (source.size() != target.size())
		throw Error(ErrorKind::internal, "Csr::from_pairs: source and target sizes differ");
	Csr csr;
	csr.offsets.assign(n + 1, 0);
	size_t m = source.size();
	for (size_t e = 0; e < m; e++) {
		if (source[e] >= n || target[e] >= n)
			throw Error(ErrorKind::internal, "Csr::from_pairs: vertex index out of range");
		csr.offsets[source[e] + 1]++;
	}
	for (size_t v = 0; v < n; v++)
		csr.offsets[v + 1] += csr.offsets[v];
	csr.targets.resize(m);
	{
		std::vector<eid_t> fill(csr.offsets.begin(), csr.offsets.end() - 1);
		for (size_t e = 0; e < m; e++) {
			if ((e & kPollMask) == 0)
				poll_cancel();
			csr.targets[fill[source[e]]++] = target[e];
		}
	}
	// Compact each list after sorting it; the write position never passes the read position.
	eid_t write = 0;
	for (size_t v = 0; v < n; v++) {
		if ((v & 0xFFFF) == 0)
			poll_cancel();
		eid_t begin = csr.offsets[v], end = csr.offsets[v + 1];
		size_t len = sort_unique(csr.targets.data() + begin, csr.targets.data() + end, vid_t(v), drop_self_loops,
		                         repeated, write);
		if (write != begin)
			std::memmove(csr.targets.data() + write, csr.targets.data() + begin, len * sizeof(vid_t));
		csr.offsets[v] = write;
		write += len;
	}
	csr.offsets[n] = write;
	csr.targets.resize(write);
	csr.targets.shrink_to_fit();
	return csr;
}

Csr
Csr::reversed() const {
	size_t n = vertex_count();
	Csr r;
	r.offsets.assign(n + 1, 0);
	for (vid_t t : targets)
		r.offsets[t + 1]++;
	for (size_t v = 0; v < n; v++)
		r.offsets[v + 1] += r.offsets[v];
	r.targets.resize(targets.size());
	std::vector<eid_t> fill(r.offsets.begin(), r.offsets.end() - (n ? 1 : 0));
	// Sources are visited in ascending order, so every reversed list comes out sorted.
	for (size_t v = 0; v < n; v++) {
		if ((v & kPollMask) == 0)
			poll_cancel();
		for (eid_t e = offsets[v]; e < offsets[v + 1]; e++)
			r.targets[fill[targets[e]]++] = vid_t(v);
	}
	return r;
}

namespace {

constexpr unsigned kDigitBits = 11;
constexpr size_t kBuckets = size_t(1) << kDigitBits;

// Stable LSD radix sort of `a` on bits [lo, hi) of key(x), 11 bits per pass; digits that are
// the same in every element are skipped (small ids need few passes). One histogram pass.
template <typename T, typename KeyFn>
void
radix_sort(std::vector<T> &a, std::vector<T> &tmp, unsigned lo, unsigned hi, KeyFn key) {
	unsigned passes = (hi - lo + kDigitBits - 1) / kDigitBits;
	if (passes == 0 || a.size() < 2)
		return;
	std::vector<size_t> hist(size_t(passes) * kBuckets, 0);
	for (size_t i = 0; i < a.size(); i++) {
		if ((i & kPollMask) == 0)
			poll_cancel();
		uint64_t k = key(a[i]);
		for (unsigned p = 0; p < passes; p++)
			hist[p * kBuckets + ((k >> (lo + p * kDigitBits)) & (kBuckets - 1))]++;
	}
	tmp.resize(a.size());
	for (unsigned p = 0; p < passes; p++) {
		size_t *h = hist.data() + p * kBuckets;
		if (*std::max_element(h, h + kBuckets) == a.size())
			continue;
		size_t sum = 0;
		for (size_t b = 0; b < kBuckets; b++) {
			size_t c = h[b];
			h[b] = sum;
			sum += c;
		}
		unsigned shift = lo + p * kDigitBits;
		for (size_t i = 0; i < a.size(); i++) {
			if ((i & kPollMask) == 0)
				poll_cancel();
			tmp[h[(key(a[i]) >> shift) & (kBuckets - 1)]++] = a[i];
		}
		a.swap(tmp);
	}
}

inline uint64_t
ordered(int64_t id) noexcept {
	return uint64_t(id) ^ (uint64_t(1) << 63); // unsigned order == signed order
}

unsigned
bit_width(uint64_t x) noexcept {
	return x == 0 ? 0 : 64 - unsigned(__builtin_clzll(x));
}

} // namespace

Graph
Graph::from_edges(const EdgeList &edges) {
	size_t m = edges.size();
	size_t total = 2 * m; // endpoint p < m is source[p], p >= m is target[p - m]
	auto endpoint = [&](size_t p) { return p < m ? edges.source[p] : edges.target[p - m]; };
	Graph g;
	std::vector<vid_t> dense(total);
	if (total > 0) {
		uint64_t kmin = UINT64_MAX, kmax = 0;
		for (size_t p = 0; p < total; p++) {
			uint64_t k = ordered(endpoint(p));
			kmin = std::min(kmin, k);
			kmax = std::max(kmax, k);
		}
		unsigned key_bits = bit_width(kmax - kmin), pos_bits = bit_width(total - 1);
		// Walks the endpoints in id order, giving each distinct id the next dense index.
		auto assign = [&](auto &&sorted_pos, auto &&sorted_key) {
			uint64_t prev = 0;
			for (size_t i = 0; i < total; i++) {
				uint64_t k = sorted_key(i);
				if (i == 0 || k != prev) {
					if (g.ids.size() >= size_t(UINT32_MAX) - 1)
						throw Error(ErrorKind::limit_exceeded, "the graph has more than 4294967294 vertices");
					g.ids.push_back(int64_t(k ^ (uint64_t(1) << 63)));
					prev = k;
				}
				dense[sorted_pos(i)] = vid_t(g.ids.size() - 1);
			}
		};
		if (key_bits + pos_bits <= 64) {
			// Common case: (id - min, position) packs into one word; sort 8 bytes per endpoint.
			std::vector<uint64_t> a(total), tmp;
			for (size_t p = 0; p < total; p++)
				a[p] = ((ordered(endpoint(p)) - kmin) << pos_bits) | p;
			radix_sort(a, tmp, pos_bits, pos_bits + key_bits, [](uint64_t x) { return x; });
			tmp = {};
			uint64_t pos_mask = pos_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << pos_bits) - 1;
			assign([&](size_t i) { return a[i] & pos_mask; }, [&](size_t i) { return (a[i] >> pos_bits) + kmin; });
		} else {
			struct Pair {
				uint64_t key, pos;
			};
			std::vector<Pair> a(total), tmp;
			for (size_t p = 0; p < total; p++)
				a[p] = {ordered(endpoint(p)) - kmin, p};
			radix_sort(a, tmp, 0, key_bits, [](const Pair &x) { return x.key; });
			tmp = {};
			assign([&](size_t i) { return a[i].pos; }, [&](size_t i) { return a[i].key + kmin; });
		}
	}
	std::vector<vid_t> source(dense.begin(), dense.begin() + m);
	std::vector<vid_t> target(dense.begin() + m, dense.end());
	dense = {};
	std::vector<RepeatedEdge> repeated;
	g.out = Csr::from_pairs(g.ids.size(), source, target, true, &repeated);
	g.repeated.assign(repeated.begin(), repeated.end());
	return g;
}

int64_t
Graph::rows_of(vid_t u, vid_t v) const noexcept {
	const vid_t *begin = out.begin(u), *end = out.end(u);
	const vid_t *at = std::lower_bound(begin, end, v);
	if (at == end || *at != v)
		return 0;
	if (!rows_known)
		return -1;
	eid_t edge = eid_t(at - out.targets.data());
	auto found = std::lower_bound(repeated.begin(), repeated.end(), edge,
	                              [](const RepeatedEdge &r, eid_t e) { return r.edge < e; });
	return found != repeated.end() && found->edge == edge ? int64_t(found->rows) : 1;
}

int64_t
Graph::find(int64_t id) const noexcept {
	auto it = std::lower_bound(ids.begin(), ids.end(), id);
	if (it == ids.end() || *it != id)
		return -1;
	return int64_t(it - ids.begin());
}

} // namespace grail
