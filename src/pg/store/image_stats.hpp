// Server-wide counters of the image cache (src/pg/service/image_cache.hpp), in shared memory, the way
// pg_stat_statements keeps its own: for each cached image, how many backends map it now and how
// many times one was opened from the file (hits) or written from the catalog (loads).
//
// They exist only when pg_grail is in shared_preload_libraries (shared memory is set aside at
// server start); without it the cache works as well and only this backend's counters exist
// (grail.cache_counters() says which). Counters are advisory: nothing reads them to decide
// anything, so a lost update could only misreport, never misanswer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace grail::pg {

// Asks for the counters' shared memory and lock, from the shared-memory request hook
// (src/pg/store/shared_state.cpp); attaches it (making it, the first time), from the startup hook
// under AddinShmemInitLock.
void request_image_stats_shmem();
void attach_image_stats_shmem();

// Whether the server-wide counters exist in this server.
bool image_stats_enabled();

// Counts a hit or a load of the image named name (its cache file's name).
void count_image_hit(const std::string &name);
void count_image_load(const std::string &name);

// mapping, counted as this backend's use of the image name until every copy of the returned
// pointer is gone (a backend counts once however often it maps one image).
std::shared_ptr<const uint8_t> track_image_use(std::shared_ptr<const uint8_t> mapping, const std::string &name);

struct ImageStats {
	int backends = 0;
	uint64_t hits = 0;
	uint64_t loads = 0;
};

// The counters of the image named name, or false if there are none (no shared memory, or no
// record of it).
bool image_stats(const std::string &name, ImageStats *stats);

} // namespace grail::pg
