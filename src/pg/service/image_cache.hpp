// One copy of each index image per server: image files derived from the catalog chunks, which
// every backend maps read-only and queries in place (Index::attach), so that the operating
// system keeps one copy in its page cache for all of them.
//
// Why files rather than shared memory: they need no shared_preload_libraries and no memory set
// aside at start; a crash of a backend can leave only a temporary file that no one trusts (an
// image appears under its name by rename, complete and checked in full), which the next writer
// removes once no backend has its pid; evicting one is safe
// while backends still map it (unlink keeps mapped pages until they are unmapped); and a hot
// standby fills its own cache from the chunks it receives by WAL. They live in
// base/pgsql_tmp/pgsql_tmp_grail/, which PostgreSQL empties at every start and base backups
// skip: a cache, never a second copy of the truth. grail.shared_cache_size bounds the files
// (and those being written); the least recently used go first. Server-wide counters, when the
// library is preloaded: image_stats.hpp.
#pragma once

#include "index.hpp"

#include <cstdint>
#include <memory>
#include <ctime>
#include <string>
#include <vector>

#include "store/catalog.hpp"
#include "store/image_stats.hpp"

namespace grail::pg {

// A cache file that an index is mapped from (image_cache.cpp).
struct CachedFile;

struct OpenedIndex {
	Index index;
	std::shared_ptr<const CachedFile> file; // the cache file it is mapped from, or null for a private copy
	uint32_t format = 0;                    // the image's format version (its header's)
};

// The index of the build in row, attached to its image: mapped from the cache (written there
// from the catalog chunks first when missing), or a private copy when the cache is off or cannot
// hold it. display: the graph's name, for messages.
OpenedIndex open_index(const GraphRow &row, const char *display);

// Writes the image of a build just stored (bytes, as row, read after the store, names it) into
// the cache, so that the first statement after a merge or a build maps it instead of reading the
// chunks and checking them (seconds on a 1M-edge graph, paid by a reader while the merge worker
// has the bytes in hand). Best effort: nothing when the cache is off or cannot hold it, or the file
// is there already. Older builds' images are left to their readers (a reader whose snapshot does
// not see this build yet still maps its own); if the build's transaction rolls back, the file is
// one no row names, removed as an older build's by the readers of the next build or evicted.
void cache_new_image(const GraphRow &row, const std::vector<uint8_t> &bytes);

// Removes the cached images of a dropped graph. Backends that map one keep it until their next
// statement. (A new build's images replace older ones by themselves: open_index.)
void forget_images(int64_t graph_id);

// Whether a cache file (null: a private copy) is still there with its size, checked at each
// statement before a query reads the mapping: an evicted image is let go, so that its memory is
// freed once no backend maps it, and a truncated one is never read (its pages would be a SIGBUS)
// but mapped again from a file written anew.
bool still_cached(const CachedFile *file);

// The name (no directory) of the shared cache file an index is mapped from, for the GPU service,
// which maps the same file; empty for a private copy.
std::string shared_image_name(const CachedFile *file);

// An image file of this database's graphs in the cache, for grail.cache_info(): its build, size,
// last use, and its server-wide counters where there are any (counted).
struct CachedImage {
	std::string build_uuid;
	uint64_t bytes;
	time_t used;
	bool counted;
	ImageStats stats;
};
std::vector<CachedImage> cached_images();

// The images in the cache (of every database: its limit is the server's) and their bytes, those
// being written left out.
struct CacheContents {
	uint64_t bytes = 0;
	uint64_t images = 0;
};
CacheContents cache_contents();

// This backend's counters, for grail.cache_counters().
struct CacheCounters {
	uint64_t hits = 0;           // images mapped from an existing cache file
	uint64_t loads = 0;          // images read from the catalog chunks
	uint64_t private_copies = 0; // of those, kept private (cache off, too small, or not writable)
};
extern CacheCounters cache_counters;

} // namespace grail::pg
