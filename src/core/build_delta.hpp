// A build stored as its change from a base build: a merge that folds a few changes into a large
// graph writes this (kilobytes) beside the base's image instead of a whole new image, and every
// reader (standbys and a restarted server included) makes the same full index from the base and
// the delta, byte for byte, and caches that image as it caches any other.
//
// Why not write the changed parts of the image: a rebuild renumbers GRAIL post-orders, the DAG and
// the lookup records all over the graph, so two images of nearly the same graph share few bytes.
// The vertex numbering, though, depends only on the vertex set (sorted ids, or keys in byte order),
// and the build is deterministic on the host for given edges and seeds: the delta carries the
// edges' row counts that changed, the vertices that came or went, and the seeds.
#pragma once

#include "index.hpp"
#include "keys.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace grail {

struct BuildDelta {
	KeyKind kind = KeyKind::integer;
	uint32_t labels = kDefaultLabels;
	uint64_t id_hash_seed = 0;
	uint64_t key_seed = 0;
	// A key as bytes: an integer key's 8 bytes (little-endian), a text key's bytes, a uuid's 16.
	std::vector<std::string> added_vertices;
	std::vector<std::string> removed_vertices;
	// An edge u -> v (u != v: neither build keeps self-loops) whose row count differs from the base's:
	// its new count, 0 where it is gone.
	struct EdgeRows {
		std::string source, target;
		uint64_t rows = 0;
	};
	std::vector<EdgeRows> edges;
	// The image apply_delta makes: its format, size and checksum, checked wherever it is made
	// again. A delta stored before format 8 says 0 where the format is now (a field that was
	// reserved): its image is of format 7, made again as such (Index::serialize(format)).
	uint32_t image_format = Index::kFormatVersion;
	uint64_t image_bytes = 0;
	uint64_t image_checksum = 0;

	size_t
	changes() const noexcept {
		return added_vertices.size() + removed_vertices.size() + edges.size();
	}
	std::vector<uint8_t> serialize() const;
	// Error(corrupt_index) for bytes that are not a delta written by serialize().
	static BuildDelta parse(const uint8_t *bytes, size_t size);
};

// The delta that turns base's graph into fresh's: vertices and the row count of each edge. Nullopt
// where it would hold more than limit changes, where the keys differ in kind, or where either
// image does not record the row counts of repeated edges (older formats).
std::optional<BuildDelta> diff_builds(const Index &base, const Index &fresh, size_t limit);

// The delta that turns base's graph into the graph of rows, as a build reads them (edges of integer
// ids; for text and uuid keys, the vertex numbers that keys, the rows' finished dictionary, gives
// them), without building that graph: the changes diff_builds(base, the rows' build, limit) finds,
// in another order, so that apply_delta makes the rows' image (Index::build of the rows with the
// delta's seeds). Makes the rows' ids and CSR (Graph::from_edges, the build's cache-friendly first
// step; no components or labels) and walks it beside base's: both number their vertices in key
// order, so the two vertex lists and each pair of adjacency lists merge. Nullopt where it would hold more than
// limit changes (it stops there), where the keys differ in kind, or where base does not record the
// row counts of repeated edges (older formats).
std::optional<BuildDelta> diff_rows(const Index &base, const EdgeList &rows, const KeyDictionary &keys, size_t limit);

// The index of base's graph changed by delta, built on the host with delta's labels and seeds,
// with the options' memory limit and cancel hooks (its device hooks are not used: the result must
// be the same image wherever it is made). Sets delta's image_bytes and image_checksum when they
// are 0 (the first making), else checks them: Error(corrupt_index) when the image differs.
std::vector<uint8_t> apply_delta(const Index &base, BuildDelta &delta, uint64_t memory_limit_bytes,
                                 BuildStats *stats = nullptr);

} // namespace grail
