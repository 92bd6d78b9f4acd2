// One copy of each index image per server: image files derived from the catalog chunks, which
// every backend maps read-only and queries in place (Index::attach), so that the operating
// system keeps one copy in its page cache for all of them.
//
// Why files rather than shared memory: they need no shared_preload_libraries and no memory set
// aside at start; a crash of a backend can leave only a temporary file that no one trusts (an
// image appears under its name by rename, complete and checked in full); evicting one is safe
// while backends still map it (unlink keeps mapped pages until they are unmapped); and a hot
// standby fills its own cache from the chunks it receives by WAL. They live in
// base/pgsql_tmp/pgsql_tmp_grail/, which PostgreSQL empties at every start and base backups
// skip: a cache, never a second copy of the truth. grail.shared_cache_size bounds the files
// (and those being written); the least recently used go first. Server-wide counters, when the
// library is preloaded: image_stats.hpp.
#pragma once

#include "index.hpp"

#include <cstdint>
#include <string>

#include "catalog.hpp"

namespace grail::pg {

struct OpenedIndex {
	Index index;
	std::string path; // the cache file it is mapped from, or empty for a private copy
};

// The index of the build in row, attached to its image: mapped from the cache (written there
// from the catalog chunks first when missing), or a private copy when the cache is off or cannot
// hold it. display: the graph's name, for messages.
OpenedIndex open_index(const GraphRow &row, const char *display);

// Removes the cached images of the graph but keep (the build just written; empty for a drop).
// Backends that map one keep it until their next statement; a transaction that still sees an old
// build maps it again from its snapshot's chunks.
void forget_images(int64_t graph_id, const std::string &keep);

// Whether a cache file is still there: an evicted image is let go at the next statement, so
// that its memory is freed once no backend maps it.
bool still_cached(const std::string &path);

// This backend's counters, for grail.cache_counters().
struct CacheCounters {
	uint64_t hits = 0;           // images mapped from an existing cache file
	uint64_t loads = 0;          // images read from the catalog chunks
	uint64_t private_copies = 0; // of those, kept private (cache off, too small, or not writable)
};
extern CacheCounters cache_counters;

} // namespace grail::pg
