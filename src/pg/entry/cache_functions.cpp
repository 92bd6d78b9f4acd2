// grail.cache_info() and grail.cache_counters(): what the image cache (src/pg/service/image_cache.cpp)
// holds and what it did.
#include "service/image_cache.hpp"
#include "store/image_stats.hpp"
#include "boundary/settings.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"
}

using namespace grail::pg;

/*
 * grail.cache_info(): one row per cached image file of this database, with its server-wide
 * counters when there are any.
 */
GRAIL_FUNCTION(grail_cache_info) {
	std::vector<CachedImage> images = cached_images();
	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		for (const CachedImage &image : images) {
			Datum values[6] = {DirectFunctionCall1(uuid_in, CStringGetDatum(image.build_uuid.c_str())),
			                   Int64GetDatum(int64(image.bytes)),
			                   TimestampTzGetDatum(time_t_to_timestamptz(image.used)),
			                   Int32GetDatum(image.stats.backends),
			                   Int64GetDatum(int64(image.stats.hits)),
			                   Int64GetDatum(int64(image.stats.loads))};
			bool nulls[6] = {false, false, false, !image.counted, !image.counted, !image.counted};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	});
	return (Datum)0;
}

/*
 * grail.cache_counters(): the cache's limit and contents, this backend's hits, loads and private
 * copies, and the mode with its reason.
 */
GRAIL_FUNCTION(grail_cache_counters) {
	CacheContents contents = cache_contents();
	bool shared = settings.shared_cache_size_mb > 0;
	const char *mode = shared ? "shared" : "private";
	const char *reason = !shared ? "grail.shared_cache_size = 0: each backend reads its own copy from the catalog"
	                     : image_stats_enabled()
	                         ? "backends map one image file per build; server-wide counters in grail.cache_info()"
	                         : "backends map one image file per build; no server-wide counters, since pg_grail is not "
	                           "in shared_preload_libraries";
	return guard([&] {
		TupleDesc desc;
		if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "grail.cache_counters() must return a record");
		desc = BlessTupleDesc(desc);
		Datum values[8] = {Int64GetDatum(int64(uint64_t(settings.shared_cache_size_mb) << 20)),
		                   Int64GetDatum(int64(contents.bytes)),
		                   Int64GetDatum(int64(contents.images)),
		                   Int64GetDatum(int64(cache_counters.hits)),
		                   Int64GetDatum(int64(cache_counters.loads)),
		                   Int64GetDatum(int64(cache_counters.private_copies)),
		                   CStringGetTextDatum(mode),
		                   CStringGetTextDatum(reason)};
		bool nulls[8] = {false, false, false, false, false, false, false, false};
		return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
	});
}
