// grail.reachable(): one pair per call, or arrays of pairs.
#include "error.hpp"
#include "index.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "gpu_choice.hpp"
#include "loaded_graph.hpp"
#include "settings.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "utils/array.h"
}

using namespace grail::pg;

// Fewest label-undecided pairs in one batch for which grail.device = auto searches on the GPU: a
// group of that many costs the GPU about a millisecond of per-level round trips, which the CPU's
// searches (40-130 us each for negative pairs on the benchmark's DAGs) take well before 256.
static constexpr size_t kGpuMinSearches = 256;

GRAIL_FUNCTION(grail_reachable) {
	LoadedGraph &graph = open_graph(fcinfo, 0);
	return BoolGetDatum(graph.query.reachable(PG_GETARG_INT64(1), PG_GETARG_INT64(2)));
}

struct Int8Array {
	Datum *values;
	bool *nulls;
	int count;
};

static Int8Array
int8_array(FunctionCallInfo fcinfo, int arg, const char *what) {
	return guard([&] {
		ArrayType *array = PG_GETARG_ARRAYTYPE_P(arg);
		if (ARR_NDIM(array) > 1)
			ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			                errmsg("%s must be a one-dimensional array, not %d-dimensional", what, ARR_NDIM(array))));
		Int8Array result;
		deconstruct_array(array, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &result.values, &result.nulls,
		                  &result.count);
		return result;
	});
}

GRAIL_FUNCTION(grail_reachable_batch) {
	Int8Array sources = int8_array(fcinfo, 1, "sources");
	Int8Array targets = int8_array(fcinfo, 2, "targets");
	if (sources.count != targets.count)
		guard([&] {
			ereport(ERROR, (errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
			                errmsg("sources and targets must have the same length, not %d and %d", sources.count,
			                       targets.count),
			                errhint("Pair each source with its target: sources[i] is tested against targets[i].")));
		});
	LoadedGraph &graph = open_graph(fcinfo, 0);
	int n = sources.count;
	Datum *answers = guard([&] { return static_cast<Datum *>(palloc(sizeof(Datum) * size_t(Max(n, 1)))); });
	bool *nulls = guard([&] { return static_cast<bool *>(palloc(sizeof(bool) * size_t(Max(n, 1)))); });
	std::vector<int64_t> from, to;
	for (int i = 0; i < n; i++) {
		nulls[i] = sources.nulls[i] || targets.nulls[i];
		if (!nulls[i]) {
			from.push_back(DatumGetInt64(sources.values[i]));
			to.push_back(DatumGetInt64(targets.values[i]));
		}
	}
	const grail::Csr &dag = graph.index.dag();
	grail::ReachabilityQuery::PairSearch on_gpu =
	    [&](const std::vector<grail::vid_t> &a, const std::vector<grail::vid_t> &b, std::vector<uint8_t> &reached) {
		    return on_chosen_device(
		        "the reachability searches", dag,
		        [&] {
			        if (!graph.gpu)
				        graph.gpu = std::make_unique<grail::GpuReachability>(graph.index);
			        graph.gpu->search(a, b, reached);
			        return true;
		        },
		        [] { return false; });
	    };
	// Under auto, a few searches are cheaper on the CPU than the GPU's per-level round trips.
	size_t min_searches = settings.device == DEVICE_GPU ? 1 : kGpuMinSearches;
	std::unique_ptr<bool[]> answered(new bool[std::max<size_t>(from.size(), 1)]);
	graph.query.reachable_many(from.data(), to.data(), from.size(), answered.get(), on_gpu, min_searches);
	for (int i = 0, k = 0; i < n; i++)
		answers[i] = BoolGetDatum(nulls[i] ? false : answered[k++]);
	return guard([&] {
		int dims[] = {n};
		int lbs[] = {1};
		return PointerGetDatum(construct_md_array(answers, nulls, 1, dims, lbs, BOOLOID, 1, true, TYPALIGN_CHAR));
	});
}
