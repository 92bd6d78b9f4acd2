// grail.chordless_cycles() (integer, text or uuid keys) and grail.chordless_cycle_counts(), on the
// device grail.device picks
// (save_chordless_cycles() is SQL over chordless_cycles()).
#include "chordless.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "keys.hpp"

#include <algorithm>
#include <memory>

#include "boundary/gpu_choice.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"
#include "entry/key_checks.hpp"
#include "service/gpu_client.hpp"
#include "service/open_graph.hpp"
#include "store/activity.hpp"
#include "store/catalog.hpp"

extern "C" {
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"
}

using namespace grail::pg;

// Enough cycles per engine call to make the call cheap; the first batches are smaller (one cycle,
// then twice as many each time up to this), so that the first row comes as soon as one cycle is
// found, however sparse the cycles; the vertex cap bounds the batch's memory when cycles are long.
constexpr size_t kBatchCycles = 1024;
constexpr size_t kBatchVertices = 1 << 16;

/*
 * The validated length range; PostgreSQL errors for bad arguments.
 */
static void
check_lengths(int32 min_length, bool has_max, int32 max_length) {
	if (min_length < 3)
		raise(ERRCODE_INVALID_PARAMETER_VALUE, format("min_length must be at least 3, not %d", min_length),
		      "A chordless cycle has three vertices at least.");
	if (has_max && max_length < min_length)
		raise(ERRCODE_INVALID_PARAMETER_VALUE,
		      format("max_length must be at least min_length (%d), not %d", min_length, max_length),
		      "Pass NULL (the default) for no length limit.");
}

/*
 * A set-returning function's end of rows, for value-per-call mode.
 */
static Datum
no_more_rows(FunctionCallInfo fcinfo) {
	reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo)->isDone = ExprEndResult;
	fcinfo->isnull = true;
	return (Datum)0;
}

// What chordless_cycles() keeps between calls: the search, on the CPU, the GPU service (where it runs
// and has the graph's image: gpu_client.hpp; its connection closed with the stream, which stops the
// enumeration there) or this backend's GPU. Each enumerator
// owns its copy of the graph's structure (the GPU one its device memory, until the rows end);
// `graph` keeps the ids (and the build) alive even if this backend loads a newer one. While the
// stream lives, grail.activity shows the search (`progress`: the CPU search's start vertices done
// of the graph's vertices), unless this backend shows another build or search already.
struct CycleStream {
	CycleStream(std::shared_ptr<LoadedGraph> graph_, const GraphName &name, const GraphRow &row, uint32_t min_length,
	            uint32_t max_length)
	    : graph(std::move(graph_)), progress(std::make_unique<BuildProgress>(BuildCommand::chordless_cycles, row.id,
	                                                                         row.schema, name.name.c_str(), row.relid,
	                                                                         row.source_attnum, row.target_attnum)) {
		const grail::Csr &g = graph->index.graph().out;
		on_chosen_device(
		    "chordless_cycles()", g,
		    [&] {
			    grail::check_gpu_chordless_size(g);
			    service = service_chordless_cycles(*graph, min_length, max_length, "chordless_cycles()");
			    if (!service)
				    gpu = std::make_unique<grail::GpuChordlessCycleEnumerator>(g, min_length, max_length);
		    },
		    [&] { cpu = std::make_unique<grail::ChordlessCycleEnumerator>(g, min_length, max_length); },
		    gpu_probe_for(*graph));
		if (progress->active()) {
			progress_phase(BuildPhase::searching_cycles, int64_t(g.vertex_count()));
			// Shared-memory writes only: nothing that can raise, from inside the search.
			if (cpu)
				cpu->on_progress([](uint64_t done, uint64_t) { progress_done(int64_t(done)); });
		}
	}
	// The next batch of cycles, false at the end.
	bool
	refill() {
		next = 0;
		size_t cycles = batch_cycles;
		batch_cycles = std::min(2 * batch_cycles, kBatchCycles);
		if (service)
			return service->next(batch); // the service sizes its batches as it streams them
		return gpu ? gpu->next(batch, cycles, kBatchVertices) : cpu->next(batch, cycles, kBatchVertices);
	}
	std::shared_ptr<LoadedGraph> graph;
	std::unique_ptr<BuildProgress> progress;
	std::unique_ptr<grail::ChordlessCycleEnumerator> cpu;
	std::unique_ptr<grail::GpuChordlessCycleEnumerator> gpu;
	std::unique_ptr<ServiceCycles> service;
	grail::CycleBatch batch;
	size_t next = 0;         // next cycle of batch to return
	size_t batch_cycles = 1; // cycles the next batch may hold
	// The arrays' element type, and what construct_array needs of it.
	Oid element_type = INT8OID;
	int16 element_length = 8;
	bool element_by_value = true;
	char element_align = TYPALIGN_DOUBLE;
};

static void
release_stream(void *arg) {
	delete static_cast<CycleStream *>(arg);
}

// Value-per-call, not materialised: the search runs a batch at a time as rows are asked for, so
// LIMIT in the select list stops it, and memory stays bounded however many cycles there are.
// The stream lives in the multi-call memory context, whose reset callback deletes it when the
// rows end, the scan is rescanned or shut down early, or the transaction aborts.
// key_type_arg: the argument whose type the keys take (anyelement), or -1 for bigint keys; the
// length arguments follow it.
static Datum
chordless_cycles(FunctionCallInfo fcinfo, int key_type_arg) {
	auto *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
	if (rsinfo == nullptr || !IsA(rsinfo, ReturnSetInfo))
		raise(ERRCODE_FEATURE_NOT_SUPPORTED, "set-valued function called in context that cannot accept a set");
	int min_arg = key_type_arg < 0 ? 1 : key_type_arg + 1, max_arg = min_arg + 1;

	FuncCallContext *funcctx;
	if (SRF_IS_FIRSTCALL()) {
		Oid key_type = INT8OID;
		grail::KeyKind kind = key_type_arg < 0
		                          ? grail::KeyKind::integer
		                          : key_type_argument(fcinfo, key_type_arg, "grail.chordless_cycles", &key_type);
		int32 min_length = PG_GETARG_INT32(min_arg);
		bool has_max = !PG_ARGISNULL(max_arg);
		int32 max_length = has_max ? PG_GETARG_INT32(max_arg) : 0;
		check_lengths(min_length, has_max, max_length);

		const char *name = text_argument(fcinfo, 0);
		std::shared_ptr<LoadedGraph> graph = open_graph_named(name, std::nullopt);
		check_key_kind(fcinfo, graph->index, kind, "grail.chordless_cycles", 0);
		check_oid_key_type(fcinfo, graph->key_type, key_type, "grail.chordless_cycles");
		// The catalog row, for grail.activity (open_graph_named found it in this snapshot).
		GraphName graph_name = parse_graph_name(name);
		GraphRow row;
		if (!find_graph(graph_name, &row))
			raise(ERRCODE_UNDEFINED_OBJECT, format("pg_grail graph \"%s\" does not exist", graph_name.display.c_str()),
			      "The view grail.graphs lists the graphs; grail.create_graph() makes one.");
		auto stream = std::make_unique<CycleStream>(std::move(graph), graph_name, row, uint32_t(min_length),
		                                            has_max ? uint32_t(max_length) : grail::kNoLengthLimit);
		// The array's element type: the key_type argument's own (text or varchar alike).
		CycleStream *s = stream.get();
		guard([&] {
			s->element_type = key_type_arg < 0 ? INT8OID : get_fn_expr_argtype(fcinfo->flinfo, key_type_arg);
			get_typlenbyvalalign(s->element_type, &s->element_length, &s->element_by_value, &s->element_align);
		});
		CycleStream *raw = stream.get();
		funcctx = guard([&] {
			FuncCallContext *f = SRF_FIRSTCALL_INIT();
			auto *callback = static_cast<MemoryContextCallback *>(
			    MemoryContextAlloc(f->multi_call_memory_ctx, sizeof(MemoryContextCallback)));
			callback->func = release_stream;
			callback->arg = raw;
			MemoryContextRegisterResetCallback(f->multi_call_memory_ctx, callback);
			f->user_fctx = raw;
			return f;
		});
		stream.release(); // the callback owns it now
	}
	funcctx = guard([&] { return SRF_PERCALL_SETUP(); });
	auto *stream = static_cast<CycleStream *>(funcctx->user_fctx);

	if (stream->next == stream->batch.size()) {
		if (!stream->refill()) {
			guard([&] { end_MultiFuncCall(fcinfo, funcctx); }); // deletes the stream
			return no_more_rows(fcinfo);
		}
	}
	size_t i = stream->next++;
	const grail::Index &index = stream->graph->index;
	const int64_t *ids = index.graph().ids.data();
	const grail::vid_t *begin = stream->batch.begin(i);
	int length = int(stream->batch.end(i) - begin);
	ArrayType *cycle = guard([&] {
		Datum *elements = static_cast<Datum *>(palloc(length * sizeof(Datum)));
		for (int k = 0; k < length; k++)
			elements[k] = key_datum(index, ids[begin[k]]);
		return construct_array(elements, length, stream->element_type, stream->element_length, stream->element_by_value,
		                       stream->element_align);
	});
	funcctx->call_cntr++;
	rsinfo->isDone = ExprMultipleResult;
	return PointerGetDatum(cycle);
}

// CALLED ON NULL INPUT for the optional max_length; a NULL graph or min_length gives no rows.
GRAIL_FUNCTION_NULLABLE(grail_chordless_cycles, 0, 1) {
	return chordless_cycles(fcinfo, -1);
}

// chordless_cycles(graph, key_type anyelement, ...): arrays of the type of key_type, a typed NULL.
GRAIL_FUNCTION_NULLABLE(grail_chordless_cycles_keyed, 0, 2) {
	return chordless_cycles(fcinfo, 1);
}

// CALLED ON NULL INPUT for the optional max_length; a NULL graph gives no rows.
GRAIL_FUNCTION_NULLABLE(grail_chordless_cycle_counts, 0) {
	uint32_t max_length = grail::kNoLengthLimit;
	if (!PG_ARGISNULL(1)) {
		int32 length = PG_GETARG_INT32(1);
		if (length < 3)
			raise(ERRCODE_INVALID_PARAMETER_VALUE, format("max_length must be at least 3, not %d", length),
			      "Pass NULL (the default) for no length limit.");
		max_length = uint32_t(length);
	}
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt); // counts only: any kind of key
	const grail::Csr &g = graph.index.graph().out;
	std::vector<uint64_t> counts = on_chosen_device(
	    "chordless_cycle_counts()", g,
	    [&] {
		    // The GPU service where it runs and has the graph's image, else this backend's GPU.
		    grail::check_gpu_chordless_size(g);
		    if (auto c = service_chordless_counts(graph, max_length, "chordless_cycle_counts()"))
			    return std::move(*c);
		    return grail::count_chordless_cycles_gpu(g, max_length);
	    },
	    [&] { return grail::count_chordless_cycles(g, max_length); }, gpu_probe_for(graph));

	guard([&] {
		InitMaterializedSRF(fcinfo, 0);
		ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
		bool nulls[2] = {false, false};
		for (size_t length = 0; length < counts.size(); length++) {
			if (counts[length] == 0)
				continue;
			Datum values[2] = {Int32GetDatum(int32(length)), Int64GetDatum(int64(counts[length]))};
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		}
	});
	return (Datum)0;
}

/*
 * grail_internal._key_type(graph): bigint, text or uuid, for save_chordless_cycles().
 */
GRAIL_FUNCTION(grail_key_type) {
	const char *name = grail::pg::text_argument(fcinfo, 0);
	std::shared_ptr<grail::pg::LoadedGraph> graph = grail::pg::open_graph_named(name, std::nullopt);
	// The type the graph's keys are answered in: an oid type where the edge columns have one.
	if (OidIsValid(graph->key_type))
		return ObjectIdGetDatum(graph->key_type);
	return ObjectIdGetDatum(grail::pg::key_type_oid(graph->index.keys().kind()));
}
