#include "graph.hpp"
#include "error.hpp"
#include "huge_pages.hpp"
#include "parallel.hpp"

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

namespace {

unsigned
bit_width(uint64_t x) noexcept {
	return x == 0 ? 0 : 64 - unsigned(__builtin_clzll(x));
}

// At most 2^kBucketBits buckets of sources in Csr::from_pairs.
constexpr unsigned kBucketBits = 11;

} // namespace

// The pairs are first grouped by their source's bucket (2^shift consecutive vertices, at most
// 2^kBucketBits buckets) in one streaming pass, then each bucket's lists are counted, placed,
// sorted and compacted while its few thousand pairs and its stretch of the offsets are in cache:
// placing each pair straight into its list would cost two cache misses a pair (its list's next
// place, then the place) on a graph whose vertices are numbered in no order of its edges.
// With helpers, the pairs are counted and grouped in contiguous ranges, one thread a range (range
// k's pairs of a bucket go after range k - 1's: the grouping one pass makes), and the buckets are
// sorted and compacted each in its own place, then moved together in order: the CSR is the same
// whatever the number of threads.
Csr
Csr::from_pairs(size_t n, const std::vector<vid_t> &source, const std::vector<vid_t> &target, bool drop_self_loops,
                std::vector<RepeatedEdge> *repeated, unsigned helpers) {
	if (source.size() != target.size())
		throw Error(ErrorKind::internal, "Csr::from_pairs: source and target sizes differ");
	Csr csr;
	csr.offsets.assign(n + 1, 0);
	size_t m = source.size();
	unsigned vertex_bits = n > 1 ? bit_width(n - 1) : 0;
	unsigned shift = vertex_bits > kBucketBits ? vertex_bits - kBucketBits : 0;
	size_t buckets = n == 0 ? 0 : ((n - 1) >> shift) + 1;
	if (m < kFewestItemsToSplit)
		helpers = 0;
	const size_t ranges = size_t(helpers) + 1;
	const vid_t *s = source.data(), *t = target.data();
	// fill[k * buckets + b]: where range k's next pair of bucket b goes; first its count.
	std::vector<eid_t> fill(ranges * buckets, 0);
	for_ranges(m, helpers, [&](size_t k, size_t begin, size_t end) {
		eid_t *count = fill.data() + k * buckets;
		for (size_t e = begin; e < end; e++) {
			if ((e & kPollMask) == 0)
				poll_cancel();
			if (s[e] >= n || t[e] >= n)
				throw Error(ErrorKind::internal, "Csr::from_pairs: vertex index out of range");
			count[s[e] >> shift]++;
		}
	});
	std::vector<eid_t> start(buckets + 1, 0);
	for (size_t b = 0; b < buckets; b++) {
		eid_t place = start[b];
		for (size_t k = 0; k < ranges; k++) {
			eid_t count = fill[k * buckets + b];
			fill[k * buckets + b] = place;
			place += count;
		}
		start[b + 1] = place;
	}
	// (source << 32 | target), grouped by the source's bucket.
	std::vector<uint64_t> grouped(m);
	for_ranges(m, helpers, [&](size_t k, size_t begin, size_t end) {
		eid_t *next = fill.data() + k * buckets;
		for (size_t e = begin; e < end; e++) {
			if ((e & kPollMask) == 0)
				poll_cancel();
			grouped[next[s[e] >> shift]++] = (uint64_t(s[e]) << 32) | t[e];
		}
	});
	fill = std::vector<eid_t>();
	csr.targets.resize(m);
	vid_t *targets = csr.targets.data();
	eid_t *offsets = csr.offsets.data();
	// Each bucket's lists sorted and compacted within the bucket's place (the write position never
	// passes the read position): its length, its offsets and repeated edges counted from its start.
	std::vector<eid_t> length(buckets);
	std::vector<std::vector<RepeatedEdge>> repeated_in(repeated ? buckets : 0);
	// place[k]: where list k of the bucket goes, relative to the bucket's first place; one per thread.
	std::vector<std::vector<eid_t>> places(ranges, std::vector<eid_t>(std::min(n, size_t(1) << shift) + 1));
	const size_t groups = std::min(buckets, ranges == 1 ? size_t(1) : ranges * 16);
	run_tasks(groups, helpers, [&](size_t g, unsigned worker) {
		std::vector<eid_t> &place = places[worker];
		for (size_t b = buckets * g / groups, last = buckets * (g + 1) / groups; b < last; b++) {
			poll_cancel();
			size_t first = b << shift;
			size_t width = std::min(n - first, size_t(1) << shift);
			eid_t lo = start[b], hi = start[b + 1];
			std::fill(place.begin(), place.begin() + long(width) + 1, 0);
			for (eid_t i = lo; i < hi; i++)
				place[(grouped[i] >> 32) - first + 1]++;
			for (size_t k = 0; k < width; k++)
				place[k + 1] += place[k];
			for (eid_t i = lo; i < hi; i++) {
				uint64_t pair = grouped[i];
				targets[lo + place[(pair >> 32) - first]++] = vid_t(pair);
			}
			// place[k] is now where list k ends, so list k begins at place[k - 1].
			eid_t write = 0;
			for (size_t k = 0; k < width; k++) {
				eid_t begin = k == 0 ? 0 : place[k - 1], end = place[k];
				size_t len = sort_unique(targets + lo + begin, targets + lo + end, vid_t(first + k), drop_self_loops,
				                         repeated ? &repeated_in[b] : nullptr, write);
				if (write != begin)
					std::memmove(targets + lo + write, targets + lo + begin, len * sizeof(vid_t));
				offsets[first + k] = write;
				write += len;
			}
			length[b] = write;
		}
	});
	grouped = std::vector<uint64_t>();
	// The buckets moved together in order (each only down, over what the buckets before it left).
	eid_t write = 0;
	for (size_t b = 0; b < buckets; b++) {
		if (write != start[b])
			std::memmove(targets + write, targets + start[b], length[b] * sizeof(vid_t));
		size_t first = b << shift;
		for (size_t v = first, end = std::min(n, first + (size_t(1) << shift)); v < end; v++)
			offsets[v] += write;
		if (repeated)
			for (RepeatedEdge r : repeated_in[b])
				repeated->push_back(RepeatedEdge{r.edge + write, r.rows});
		write += length[b];
	}
	offsets[n] = write;
	csr.targets.resize(write);
	csr.targets.shrink_to_fit();
	return csr;
}

Csr
Csr::reversed() const {
	size_t n = vertex_count();
	// A backend keeps the reverse for its searches against the edges (ancestors()), which read it
	// at random: in huge pages where the kernel has them.
	HugePageArray<eid_t> offsets_of = huge_page_array<eid_t>(n + 1);
	eid_t *r_offsets = offsets_of.data;
	for (vid_t t : targets)
		r_offsets[t + 1]++;
	for (size_t v = 0; v < n; v++)
		r_offsets[v + 1] += r_offsets[v];
	HugePageArray<vid_t> targets_of = huge_page_array<vid_t>(targets.size());
	vid_t *r_targets = targets_of.data;
	std::vector<eid_t> fill(r_offsets, r_offsets + n);
	// Sources are visited in ascending order, so every reversed list comes out sorted.
	for (size_t v = 0; v < n; v++) {
		if ((v & kPollMask) == 0)
			poll_cancel();
		for (eid_t e = offsets[v]; e < offsets[v + 1]; e++)
			r_targets[fill[targets[e]]++] = vid_t(v);
	}
	Csr r;
	r.offsets = std::move(offsets_of.array);
	r.targets = std::move(targets_of.array);
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

// The number of bits set in x.
inline unsigned
popcount(uint64_t x) noexcept {
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return unsigned((x * 0x0101010101010101ull) >> 56);
}

constexpr uint64_t kMostVertices = uint64_t(UINT32_MAX) - 1; // vid_t, less kNoVertex

[[noreturn]] void
too_many_vertices() {
	throw Error(ErrorKind::limit_exceeded, "the graph has more than 4294967294 vertices");
}

// The ids of a graph whose keys (ordered(id) - kmin) span few values for its rows: a bit per value
// of the span, each word of 64 with the count of bits set before it, so that an id's vertex (its
// rank among the ids) is one read of a table small enough to stay in cache, with no sort.
void
dense_ids(const EdgeList &edges, uint64_t kmin, uint64_t span, Graph &g, vid_t *source, vid_t *target,
          unsigned helpers) {
	struct Word {
		uint64_t bits;
		uint64_t before; // bits set in the words before this one
	};
	size_t m = edges.size();
	const int64_t *s = edges.source.data(), *t = edges.target.data();
	std::vector<Word> words(size_t(span >> 6) + 1, Word{0, 0});
	// With helpers each thread marks a range of the rows (the bits set atomically: ranges share words).
	for_ranges(m, helpers, [&](size_t, size_t begin, size_t end) {
		for (size_t e = begin; e < end; e++) {
			if ((e & kPollMask) == 0)
				poll_cancel();
			uint64_t a = ordered(s[e]) - kmin, b = ordered(t[e]) - kmin;
			if (helpers == 0) {
				words[a >> 6].bits |= uint64_t(1) << (a & 63);
				words[b >> 6].bits |= uint64_t(1) << (b & 63);
			} else {
				__atomic_fetch_or(&words[a >> 6].bits, uint64_t(1) << (a & 63), __ATOMIC_RELAXED);
				__atomic_fetch_or(&words[b >> 6].bits, uint64_t(1) << (b & 63), __ATOMIC_RELAXED);
			}
		}
	});
	uint64_t count = 0;
	for (Word &w : words) {
		w.before = count;
		count += popcount(w.bits);
	}
	if (count > kMostVertices)
		too_many_vertices();
	g.ids.resize(size_t(count));
	int64_t *ids = g.ids.data();
	for (size_t w = 0, i = 0; w < words.size(); w++)
		for (uint64_t bits = words[w].bits; bits != 0; bits &= bits - 1)
			ids[i++] = int64_t((kmin + (uint64_t(w) << 6) + unsigned(__builtin_ctzll(bits))) ^ (uint64_t(1) << 63));
	const Word *table = words.data();
	auto vertex = [table, kmin](int64_t id) {
		uint64_t k = ordered(id) - kmin;
		const Word &w = table[k >> 6];
		return vid_t(w.before + popcount(w.bits & ((uint64_t(1) << (k & 63)) - 1)));
	};
	for_ranges(m, helpers, [&](size_t, size_t begin, size_t end) {
		for (size_t e = begin; e < end; e++) {
			if ((e & kPollMask) == 0)
				poll_cancel();
			source[e] = vertex(s[e]);
			target[e] = vertex(t[e]);
		}
	});
}

// The ids of any graph: every endpoint with its position, radix-sorted by key over only the bits
// the keys use; a run of one key is one vertex.
void
sorted_ids(const EdgeList &edges, uint64_t kmin, uint64_t kmax, Graph &g, vid_t *source, vid_t *target) {
	size_t m = edges.size();
	size_t total = 2 * m; // endpoint p < m is source[p], p >= m is target[p - m]
	auto endpoint = [&](size_t p) { return p < m ? edges.source[p] : edges.target[p - m]; };
	auto place = [&](size_t p, vid_t v) { (p < m ? source[p] : target[p - m]) = v; };
	unsigned key_bits = bit_width(kmax - kmin), pos_bits = bit_width(total - 1);
	// Walks the endpoints in id order, giving each distinct id the next dense index.
	auto assign = [&](auto &&sorted_pos, auto &&sorted_key) {
		uint64_t prev = 0;
		std::vector<int64_t> ids;
		for (size_t i = 0; i < total; i++) {
			uint64_t k = sorted_key(i);
			if (i == 0 || k != prev) {
				if (ids.size() >= kMostVertices)
					too_many_vertices();
				ids.push_back(int64_t(k ^ (uint64_t(1) << 63)));
				prev = k;
			}
			place(sorted_pos(i), vid_t(ids.size() - 1));
		}
		g.ids = Array<int64_t>(std::move(ids));
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

} // namespace

Graph
Graph::from_edges(const EdgeList &edges, unsigned helpers) {
	size_t m = edges.size();
	if (m < kFewestItemsToSplit)
		helpers = 0;
	Graph g;
	std::vector<vid_t> source(m), target(m);
	if (m > 0) {
		// Each thread's range's least and greatest key, then theirs.
		std::vector<std::pair<uint64_t, uint64_t>> bounds(size_t(helpers) + 1, {UINT64_MAX, 0});
		for_ranges(m, helpers, [&](size_t k, size_t begin, size_t end) {
			uint64_t kmin = UINT64_MAX, kmax = 0;
			for (size_t e = begin; e < end; e++) {
				uint64_t a = ordered(edges.source[e]), b = ordered(edges.target[e]);
				kmin = std::min(kmin, std::min(a, b));
				kmax = std::max(kmax, std::max(a, b));
			}
			bounds[k] = {kmin, kmax};
		});
		uint64_t kmin = UINT64_MAX, kmax = 0;
		for (const auto &[least, most] : bounds) {
			kmin = std::min(kmin, least);
			kmax = std::max(kmax, most);
		}
		// Keys that span at most about 4 values an endpoint (ids numbered from some base, as most
		// tables' are) are ranked by a table of a bit each (dense_ids); any others are sorted.
		uint64_t span = kmax - kmin;
		if (span < 8 * uint64_t(m) + (uint64_t(1) << 22))
			dense_ids(edges, kmin, span, g, source.data(), target.data(), helpers);
		else
			sorted_ids(edges, kmin, kmax, g, source.data(), target.data());
	}
	std::vector<RepeatedEdge> repeated;
	g.out = Csr::from_pairs(g.ids.size(), source, target, true, &repeated, helpers);
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
