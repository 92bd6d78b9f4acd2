// Deterministic graph generators (see generate.hpp). Every random number comes from grail::Rng
// (splitmix64 + multiply-shift), drawn in a fixed order, so a seed names the same edge list on
// every machine and compiler. No floating point decides anything except the R-MAT quadrant
// thresholds, which are computed once per level from fixed constants with IEEE double arithmetic
// (exact-rounding operations only: +, -, *, /) and then turned into integers.
#include "generate.hpp"

#include "error.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace grail {

namespace {

// Graphs hold fewer than 2^32 vertices (vid_t is 32 bits).
constexpr uint64_t max_vertices = uint64_t(std::numeric_limits<vid_t>::max());

// A uniformly random permutation of 0..n-1 (Fisher-Yates, drawing from rng).
std::vector<vid_t>
random_permutation(uint64_t n, Rng &rng) {
	std::vector<vid_t> perm(n);
	for (uint64_t i = 0; i < n; i++)
		perm[i] = vid_t(i);
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = rng.below(i);
		vid_t t = perm[i - 1];
		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	return perm;
}

} // namespace

// The "home-made" DAGs of Quer & Calabrese (papers/gpu-grail-reachability.txt, Section 6,
// Table 2) are "randomly created with a given number of vertices and a given average degree"
// (e.g. dag01: 250,000 vertices, 12.5 M edges, average degree 50); the paper gives no more detail.
// We make them like this:
//   1. a uniformly random permutation `order` of 0..n-1 is the topological order: the vertex at
//      position p has id order[p], so ids say nothing about the order;
//   2. m = round(n * avg_degree) edges, each drawn independently: the tail position pu uniform in
//      [0, n-2], then the head position pv uniform among the later positions (pu, n-1]; the edge
//      is order[pu] -> order[pv]. Every edge goes forward in the order, so the graph is acyclic.
// Out-degrees are thus about avg_degree everywhere (binomial), while in-degrees grow towards the
// end of the order (position p receives about avg_degree * ln(n / (n - p)) edges): deep DAGs with
// long paths, the hard case for GRAIL that the paper wanted. Duplicate edges are kept (an edge
// table can hold them and they change no answer); there are no self-loops. A vertex that no edge
// touches is not in the edge list, so the graph built from it can have slightly fewer than n
// vertices: about a fraction e^-d / (d + 1) of them go missing, 0.1% for d = avg_degree = 5.
// Cost: O(n + m) time, one pass, no quadratic step: 1M vertices / 5M edges take about 0.1 s and
// the paper's 1M / 100M about 1.2 s on a 2-core EPYC, much of it faulting in the 1.6 GB list.
EdgeList
generate_random_dag(uint64_t n, double avg_degree, uint64_t seed) {
	if (!(avg_degree >= 0.0) || !std::isfinite(avg_degree))
		throw Error(ErrorKind::invalid_input, "random DAG: average degree must be a finite number >= 0");
	if (n > max_vertices)
		throw Error(ErrorKind::limit_exceeded,
		            "random DAG: too many vertices (at most " + std::to_string(max_vertices) + ")");
	double wanted = std::round(double(n) * avg_degree);
	if (wanted > 1e12)
		throw Error(ErrorKind::limit_exceeded, "random DAG: too many edges (at most 10^12)");
	uint64_t m = uint64_t(wanted);
	if (m > 0 && n < 2)
		throw Error(ErrorKind::invalid_input, "random DAG: edges need at least 2 vertices");

	Rng rng(seed);
	std::vector<vid_t> order = random_permutation(n, rng);

	EdgeList edges;
	edges.source.resize(m);
	edges.target.resize(m);
	int64_t *src = edges.source.data();
	int64_t *dst = edges.target.data();
	for (uint64_t e = 0; e < m; e++) {
		uint64_t pu = rng.below(n - 1);
		uint64_t pv = pu + 1 + rng.below(n - 1 - pu);
		src[e] = int64_t(order[pu]);
		dst[e] = int64_t(order[pv]);
	}
	return edges;
}

// R-MAT (Chakrabarti, Zhan, Faloutsos, SDM 2004): each edge descends `scale` levels of the
// adjacency matrix, choosing the quadrant top-left / top-right / bottom-left / bottom-right with
// probabilities (a, b, c, d) = (0.57, 0.19, 0.19, 0.05) (the Graph500 parameters), which sets one
// bit of the row (source) and one of the column (target) per level. A little noise smooths the
// oscillating degree distribution of pure R-MAT: "noisy SKG" of Seshadhri, Pinar and Kolda
// (J. ACM 60(2), 2013): level l draws mu_l uniform in [-N, N] once for the whole graph, N = 0.1,
// and uses a - 2 mu a / (a + d), b + mu, c + mu, d - 2 mu d / (a + d) (still summing to 1).
// Finally vertex ids go through a random permutation of 0..2^scale-1, so that degree does not
// correlate with id (in raw R-MAT, vertex 0 is the hub). Self-loops and duplicates are kept.
// Each level costs one 32-bit half of an Rng word: two comparisons against integer thresholds.
EdgeList
generate_rmat(unsigned scale, unsigned edge_factor, uint64_t seed) {
	if (scale > 31)
		throw Error(ErrorKind::limit_exceeded, "R-MAT: scale must be at most 31");
	const uint64_t n = uint64_t(1) << scale;
	const uint64_t m = n * uint64_t(edge_factor);
	if (m > uint64_t(1e12))
		throw Error(ErrorKind::limit_exceeded, "R-MAT: too many edges (at most 10^12)");

	Rng rng(seed);
	const double a = 0.57, b = 0.19, c = 0.19, d = 0.05, noise = 0.1;
	// Cumulative thresholds per level, in units of 2^-32: quadrant = number of thresholds <= r.
	std::vector<uint64_t> t_ab(scale), t_abc(scale), t_a(scale);
	for (unsigned l = 0; l < scale; l++) {
		// mu uniform in [-noise, noise], from 53 random bits.
		double u01 = double(rng.next() >> 11) * (1.0 / 9007199254740992.0);
		double mu = noise * (2.0 * u01 - 1.0);
		double al = a - 2.0 * mu * a / (a + d);
		double bl = b + mu;
		double cl = c + mu;
		// dl = d - 2 mu d / (a + d) is the rest, up to 2^32
		const double one = 4294967296.0;
		t_a[l] = uint64_t(al * one);
		t_ab[l] = uint64_t((al + bl) * one);
		t_abc[l] = uint64_t((al + bl + cl) * one);
	}
	std::vector<vid_t> perm = random_permutation(n, rng);

	EdgeList edges;
	edges.source.resize(m);
	edges.target.resize(m);
	int64_t *src = edges.source.data();
	int64_t *dst = edges.target.data();
	for (uint64_t e = 0; e < m; e++) {
		uint64_t row = 0, col = 0;
		uint64_t word = 0;
		for (unsigned l = 0; l < scale; l++) {
			uint64_t r;
			if ((l & 1) == 0) {
				word = rng.next();
				r = word & 0xffffffffu;
			} else {
				r = word >> 32;
			}
			// quadrant 0 = a (0,0), 1 = b (0,1), 2 = c (1,0), 3 = d (1,1)
			unsigned q = unsigned(r >= t_a[l]) + unsigned(r >= t_ab[l]) + unsigned(r >= t_abc[l]);
			row = (row << 1) | (q >> 1);
			col = (col << 1) | (q & 1);
		}
		src[e] = int64_t(perm[row]);
		dst[e] = int64_t(perm[col]);
	}
	return edges;
}

// Vertex (r, c) has id r * cols + c. Edges right (r, c) -> (r, c + 1) and down
// (r, c) -> (r + 1, c): a DAG whose longest path has rows + cols - 2 edges. With both_directions
// every edge also goes back (left and up), making the whole grid one SCC. Edges are emitted row by
// row, vertex by vertex: right, down, then (both_directions) left, up.
EdgeList
generate_grid(uint64_t rows, uint64_t cols, bool both_directions) {
	if (rows != 0 && cols > max_vertices / rows)
		throw Error(ErrorKind::limit_exceeded,
		            "grid: too many vertices (at most " + std::to_string(max_vertices) + ")");
	EdgeList edges;
	if (rows == 0 || cols == 0)
		return edges;
	uint64_t m = rows * (cols - 1) + (rows - 1) * cols;
	if (both_directions)
		m *= 2;
	edges.source.resize(m);
	edges.target.resize(m);
	int64_t *src = edges.source.data();
	int64_t *dst = edges.target.data();
	uint64_t e = 0;
	auto put = [&](uint64_t s, uint64_t t) {
		src[e] = int64_t(s);
		dst[e] = int64_t(t);
		e++;
	};
	for (uint64_t r = 0; r < rows; r++) {
		for (uint64_t c = 0; c < cols; c++) {
			uint64_t v = r * cols + c;
			if (c + 1 < cols)
				put(v, v + 1);
			if (r + 1 < rows)
				put(v, v + cols);
			if (both_directions) {
				if (c > 0)
					put(v, v - 1);
				if (r > 0)
					put(v, v - cols);
			}
		}
	}
	if (e != m)
		throw Error(ErrorKind::internal, "grid: edge count mismatch");
	return edges;
}

} // namespace grail
