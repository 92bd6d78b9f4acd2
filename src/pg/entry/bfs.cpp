// grail.bfs(), grail.descendants() and grail.ancestors(), from an integer, text or uuid key.
#include "bfs.hpp"
#include "gpu.hpp"
#include "index.hpp"
#include "keys.hpp"

#include "boundary/gpu_choice.hpp"
#include "boundary/key_datums.hpp"
#include "boundary/pg_calls.hpp"
#include "boundary/row_output.hpp"
#include "entry/key_checks.hpp"
#include "entry/traversal_rows.hpp"
#include "service/gpu_client.hpp"
#include "service/open_graph.hpp"

extern "C" {
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"
#include "utils/uuid.h"
}

#include <algorithm>
#include <cstring>
#include <functional>

using namespace grail::pg;

namespace grail::pg {

// The search's result and what its rows are formed with: the arguments put_rows() takes.
struct TraversalRows {
	const grail::Index *index;
	grail::BfsResult result;
	bool missing;      // the source key is not in the graph: one row, the source itself
	Datum missing_key; // that key, in the call's memory
	grail::KeyKind kind;
	Oid key_type;
	bool as_text, with_parent;
	int16 key_length;
	bool keys_read; // TraversalCall::keys_read
	// The call's memory, which outlives the rows: the key buffers grow there, not in the plan's
	// per-row memory.
	MemoryContext memory;
	size_t next = 0;
	KeyScratch vertex_key{}, parent_key{};
	// Keys of an oid graph answered as text (name_rows()), by row; empty otherwise.
	std::vector<Datum> vertex_names, parent_names;
};

} // namespace grail::pg

namespace {

// A key of an integer graph as a datum of the rows' key column, as a tuple's column of that width
// gives it back (fetch_att: a 4- or 2-byte value sign-extended), so that the plan's rows compare
// equal, datum for datum, to those a tuplestore gives.
Datum
column_width_datum(int64_t id, int16 length) {
	switch (length) {
	case 4:
		return Int32GetDatum(int32(id));
	case 2:
		return Int16GetDatum(int16(id));
	default:
		return Int64GetDatum(id);
	}
}

// Which edges a search follows from a vertex: its out-edges (along edge direction), its in-edges
// (against it: the vertices that reach the source) or both (ignoring direction).
enum class Direction { out, in, both };

// The keys of an oid graph answered as text are names read from the catalogs (a table's, a type's,
// as regclass and its kin print them): all of them formed at the call, in the call's memory, as
// FunctionScan's tuplestore holds them, so that a rename between two fetches of a cursor changes
// none of the rows.
void
name_rows(TraversalRows &rows) {
	const grail::BfsResult &result = rows.result;
	const int64_t *ids = rows.index->graph().ids.data();
	auto name = [&](grail::vid_t v) {
		return v == grail::kNoVertex ? (Datum)0 : key_as_text(rows.kind, Int64GetDatum(ids[v]), rows.key_type);
	};
	rows.vertex_names.reserve(result.vertex.size());
	for (grail::vid_t v : result.vertex)
		rows.vertex_names.push_back(name(v));
	if (rows.with_parent) {
		rows.parent_names.reserve(result.parent.size());
		for (grail::vid_t v : result.parent)
			rows.parent_names.push_back(name(v));
	}
}

Direction
direction_arg(FunctionCallInfo fcinfo, int arg) {
	const char *value = text_argument(fcinfo, arg);
	if (std::strcmp(value, "out") == 0)
		return Direction::out;
	if (std::strcmp(value, "in") == 0)
		return Direction::in;
	if (std::strcmp(value, "both") == 0)
		return Direction::both;
	// Echoed in part: the argument may be any text a caller sends, megabytes of it.
	raise(ERRCODE_INVALID_PARAMETER_VALUE,
	      format("direction must be 'out', 'in' or 'both', not \"%s\"", echoed(value, 32).c_str()),
	      "Pass 'out' to follow edges from source to target, 'in' to follow them backwards (the vertices that "
	      "reach the source), 'both' to ignore their direction.");
}

// The rows of a search over a text or uuid graph (RowOutput::cells()): (vertex, depth[, parent]),
// parent NULL for the source. A row's key is up to three dependent reads scattered over the graph
// (the vertex's dictionary number, its offsets, its bytes). They are made a batch of rows at a
// time, one kind of read over a whole batch, pipelined: while the rows of one batch are formed,
// the bytes of the batches after it are on their way, the offsets of later ones, the numbers of
// later ones still, so that the misses overlap each other and the rows' forming instead of each
// row waiting for its own. Each read is asked for two batches before it is made (one batch's rows
// take less time than a miss on a busy machine). ids null: a vertex's dictionary number is the
// vertex itself (a text or uuid graph's ids are the ranks of its keys, every key a vertex), and
// that read is left out. The keys' bytes are copied from the dictionary straight into the rows
// (no text datum).
void
put_key_rows(RowOutput &out, const grail::KeyDictionary &keys, const int64_t *ids, const grail::vid_t *vertex,
             const uint32_t *depth, const grail::vid_t *parent, size_t rows) {
	constexpr size_t kBatch = 32, kSlots = 8, kLead = 2;
	const uint64_t *offsets = keys.offsets().data();
	const char *bytes = reinterpret_cast<const char *>(keys.bytes().data());
	const int sides = parent != nullptr ? 2 : 1;
	const grail::vid_t *of[2] = {vertex, parent};
	// The step at which a batch's numbers are read (and its offsets asked for), its offsets read
	// (and its bytes asked for), its rows formed: batch b at step b + delay.
	const size_t number_at = ids != nullptr ? kLead : 0, offsets_at = number_at + kLead, form_at = offsets_at + kLead;
	static_assert(kSlots > 2 * kLead, "a batch's slot outlives its numbers' read until its rows are formed");
	// Per batch in flight (batch % kSlots): the dictionary numbers (-1: the source's NULL parent)
	// and the bytes' bounds.
	int64_t number[kSlots][2][kBatch];
	uint64_t begin[kSlots][2][kBatch], end[kSlots][2][kBatch];
	size_t batches = (rows + kBatch - 1) / kBatch;
	auto bounds = [&](size_t batch, size_t *first, size_t *count) {
		*first = batch * kBatch;
		*count = std::min(kBatch, rows - *first);
	};
	for (size_t step = 0; step < batches + form_at; step++) {
		size_t first, count;
		if (ids != nullptr && step < batches) {
			bounds(step, &first, &count);
			for (int side = 0; side < sides; side++)
				for (size_t j = 0; j < count; j++)
					if (of[side][first + j] != grail::kNoVertex)
						__builtin_prefetch(ids + of[side][first + j]);
		}
		if (step >= number_at && step - number_at < batches) {
			size_t batch = step - number_at, slot = batch % kSlots;
			bounds(batch, &first, &count);
			for (int side = 0; side < sides; side++)
				for (size_t j = 0; j < count; j++) {
					grail::vid_t v = of[side][first + j];
					number[slot][side][j] = v == grail::kNoVertex ? -1 : ids != nullptr ? ids[v] : int64_t(v);
					if (v != grail::kNoVertex)
						__builtin_prefetch(offsets + number[slot][side][j]);
				}
		}
		if (step >= offsets_at && step - offsets_at < batches) {
			size_t batch = step - offsets_at, slot = batch % kSlots;
			bounds(batch, &first, &count);
			for (int side = 0; side < sides; side++)
				for (size_t j = 0; j < count; j++)
					if (number[slot][side][j] >= 0) {
						begin[slot][side][j] = offsets[number[slot][side][j]];
						end[slot][side][j] = offsets[number[slot][side][j] + 1];
						__builtin_prefetch(bytes + begin[slot][side][j]);
					}
		}
		if (step < form_at)
			continue;
		size_t batch = step - form_at, slot = batch % kSlots;
		bounds(batch, &first, &count);
		for (size_t j = 0; j < count; j++) {
			RowOutput::Cell cells[3] = {
			    {(Datum)0, bytes + begin[slot][0][j], size_t(end[slot][0][j] - begin[slot][0][j])},
			    {Int32GetDatum(int32(depth[first + j])), nullptr, 0},
			    {(Datum)0, nullptr, 0},
			};
			if (parent != nullptr && number[slot][1][j] < 0) {
				// The source's row, its parent NULL: formed by the tuplestore as any row.
				Datum key = keys.kind() == grail::KeyKind::uuid
				                ? UUIDPGetDatum(reinterpret_cast<const pg_uuid_t *>(cells[0].bytes))
				                : PointerGetDatum(cstring_to_text_with_len(cells[0].bytes, int(cells[0].length)));
				Datum values[3] = {key, cells[1].value, (Datum)0};
				bool nulls[3] = {false, false, true};
				out.put(values, nulls);
				continue;
			}
			if (parent != nullptr)
				cells[2] = {(Datum)0, bytes + begin[slot][1][j], size_t(end[slot][1][j] - begin[slot][1][j])};
			out.put_cells(cells);
		}
		if ((batch & 0x7ff) == 0x7ff)
			CHECK_FOR_INTERRUPTS();
	}
}

// The rows of a search: (vertex, depth[, parent]) of each vertex of result, or, where missing is
// not null, the one row of a source key that is not in the graph. as_text: keys answered as text.
void
put_rows(FunctionCallInfo fcinfo, const grail::Index &index, const grail::BfsResult &result, const Datum *missing,
         grail::KeyKind kind, Oid key_type, bool as_text, bool with_parent) {
	const grail::Graph &g = index.graph();
	size_t rows = missing != nullptr ? 1 : result.vertex.size();
	size_t key_bytes = 0;
	if (kind != grail::KeyKind::integer && index.keys().size() > 0) {
		const grail::KeyDictionary &keys = index.keys();
		std::string_view first = keys.key(0), last = keys.key(keys.size() - 1);
		key_bytes = size_t(last.data() + last.size() - first.data()) / keys.size() * (with_parent ? 2 : 1) + 8;
	}
	guard([&] {
		RowOutput out;
		out.begin(fcinfo, rows, key_bytes);
		if (missing != nullptr) {
			// A key that is not in the graph reaches only itself, and only itself reaches it.
			Datum values[3] = {as_text ? key_as_text(kind, *missing, key_type) : *missing, Int32GetDatum(0), (Datum)0};
			bool nulls[3] = {false, false, true};
			out.put(values, nulls);
			return;
		}
		const int64_t *ids = g.ids.data();
		// Without parent column the search may have recorded none (result.parent empty).
		with_parent = with_parent && !result.parent.empty();
		const grail::vid_t *vertex = result.vertex.data(), *parent = result.parent.data();
		const uint32_t *depth = result.depth.data();
		if (kind == grail::KeyKind::integer && !as_text && out.fixed_width()) {
			// Integer keys: the vertex's id and its parent's, read ahead (a level's vertices are
			// scattered over the graph, their parents over the level before).
			constexpr size_t ahead = 16;
			for (size_t i = 0; i < rows; i++) {
				if (i + ahead < rows) {
					__builtin_prefetch(ids + vertex[i + ahead]);
					if (with_parent)
						__builtin_prefetch(ids + parent[i + ahead]);
				}
				bool root = with_parent && parent[i] == grail::kNoVertex;
				Datum values[3] = {Int64GetDatum(ids[vertex[i]]), Int32GetDatum(int32(depth[i])),
				                   root || !with_parent ? (Datum)0 : Int64GetDatum(ids[parent[i]])};
				if (root && with_parent) {
					bool nulls[3] = {false, false, true};
					out.put(values, nulls);
				} else {
					out.put_fixed(values);
				}
				if ((i & 0xffff) == 0xffff)
					CHECK_FOR_INTERRUPTS();
			}
			return;
		}
		const bool dictionary = kind != grail::KeyKind::integer && index.keys().size() > 0;
		if (dictionary && !as_text && out.cells()) {
			// Every key a vertex (a build's graph): vertex v's number is v, its ids being the ranks.
			const grail::KeyDictionary &keys = index.keys();
			size_t n = g.ids.size();
			bool identity = n == keys.size() && n > 0 && ids[0] == 0 && ids[n - 1] == int64_t(n - 1);
			put_key_rows(out, keys, identity ? nullptr : ids, vertex, depth, with_parent ? parent : nullptr, rows);
			return;
		}
		KeyScratch vertex_key, parent_key;
		// Keys answered as text (a text source on a uuid or integer graph): each row's keys formed
		// as datums, a text or uuid key's three dependent reads (the vertex's id, its offset in the
		// dictionary, its bytes) each read ahead a few rows before the next needs it.
		const uint64_t *offsets = dictionary ? index.keys().offsets().data() : nullptr;
		const uint8_t *bytes = dictionary ? index.keys().bytes().data() : nullptr;
		constexpr size_t id_ahead = 24, offset_ahead = 16, bytes_ahead = 8;
		auto read_ahead = [&](size_t i) {
			if (i + id_ahead < rows) {
				__builtin_prefetch(ids + vertex[i + id_ahead]);
				if (with_parent && parent[i + id_ahead] != grail::kNoVertex)
					__builtin_prefetch(ids + parent[i + id_ahead]);
			}
			if (i + offset_ahead < rows) {
				__builtin_prefetch(offsets + ids[vertex[i + offset_ahead]]);
				if (with_parent && parent[i + offset_ahead] != grail::kNoVertex)
					__builtin_prefetch(offsets + ids[parent[i + offset_ahead]]);
			}
			if (i + bytes_ahead < rows) {
				__builtin_prefetch(bytes + offsets[ids[vertex[i + bytes_ahead]]]);
				if (with_parent && parent[i + bytes_ahead] != grail::kNoVertex)
					__builtin_prefetch(bytes + offsets[ids[parent[i + bytes_ahead]]]);
			}
		};
		for (size_t i = 0; i < rows; i++) {
			if (dictionary)
				read_ahead(i);
			bool root = with_parent && parent[i] == grail::kNoVertex;
			Datum values[3] = {vertex_key.key(index, ids[vertex[i]]), Int32GetDatum(int32(depth[i])),
			                   root || !with_parent ? (Datum)0 : parent_key.key(index, ids[parent[i]])};
			if (as_text) {
				values[0] = key_as_text(kind, values[0], key_type);
				values[2] = root || !with_parent ? (Datum)0 : key_as_text(kind, values[2], key_type);
			}
			bool nulls[3] = {false, false, root};
			out.put(values, nulls);
			if (as_text && kind != grail::KeyKind::text) {
				pfree(DatumGetPointer(values[0]));
				if (!nulls[2] && with_parent)
					pfree(DatumGetPointer(values[2]));
			}
			if ((i & 0xffff) == 0xffff)
				CHECK_FOR_INTERRUPTS();
		}
	});
}

// The search from argument 1 over the graph of argument 0, max_depth argument 2 (NULL: no limit);
// with_parent: bfs()'s three columns, else (vertex, depth). function: its SQL name, for the hints.
// asked: the type of a polymorphic overload's key (integer_key_arguments), checked against the
// graph's (check_oid_key_type); InvalidOid for the others.
Datum
search(FunctionCallInfo fcinfo, grail::KeyKind kind, Direction direction, bool with_parent, const char *function,
       Oid asked = InvalidOid) {
	uint32_t max_depth = UINT32_MAX;
	if (!PG_ARGISNULL(2)) {
		int32 depth = PG_GETARG_INT32(2);
		if (depth < 0)
			raise(ERRCODE_INVALID_PARAMETER_VALUE, format("max_depth must be at least 0, not %d", depth),
			      "Pass NULL (the default) for no depth limit.");
		max_depth = uint32_t(depth);
	}
	// A live graph with pending changes is its snapshot's rebuild here (open_graph.hpp), so every
	// direction answers from the rows the snapshot sees.
	LoadedGraph &graph = open_graph(fcinfo, 0, std::nullopt);
	if (OidIsValid(asked) && graph.index.keys().kind() == grail::KeyKind::integer) {
		check_oid_key_type(fcinfo, graph.key_type, asked, function);
		integer_keys_as_oids(fcinfo, graph.key_type, asked, 1, 1);
	} else if (kind == grail::KeyKind::integer && graph.index.keys().kind() == grail::KeyKind::integer) {
		check_bigint_oid_keys(fcinfo, graph.key_type, 1, 1); // the bigint overload on an oid graph
	}
	const grail::Index &index = graph.index;
	const grail::Graph &g = index.graph();
	Datum source = PG_GETARG_DATUM(1);
	// A text source on a uuid or integer graph is read as its key; the rows give keys as text.
	grail::KeyKind actual = index.keys().kind();
	bool as_text = actual != kind;
	if (as_text) {
		if (kind != grail::KeyKind::text)
			wrong_key_kind(fcinfo, actual, kind, function, 1);
		source = text_key_as(fcinfo, source, actual, graph.key_type, function, 1);
		kind = actual;
	}
	int64_t source_id = kind == grail::KeyKind::integer ? DatumGetInt64(source) : key_vertex(index, source);
	int64_t dense = source_id < 0 && kind != grail::KeyKind::integer ? -1 : index.find(source_id);
	grail::BfsResult result;
	if (dense >= 0) {
		grail::vid_t from = grail::vid_t(dense);
		if (direction == Direction::both) {
			// The GPU BFS follows the lists of one CSR; a search over two runs on the CPU.
			result = grail::bfs(g.out, graph.in_edges(), from, max_depth, graph.bfs_scratch());
		} else {
			// The GPU BFS takes any CSR, the reversed one as well as the build's. The reversed one is
			// made here only where this backend searches: the GPU service keeps its own on the
			// device. The policy looks at the sizes only, which a graph and its reverse share.
			auto edges = [&]() -> const grail::Csr & { return direction == Direction::out ? g.out : graph.in_edges(); };
			// The CPU's levels with many edges run bottom-up over the reverse (made on demand).
			std::function<const grail::Csr &()> reverse = [&]() -> const grail::Csr & {
				return direction == Direction::out ? graph.in_edges() : g.out;
			};
			const char *what = with_parent ? "bfs()" : direction == Direction::out ? "descendants()" : "ancestors()";
			// A plan that reads no key of the rows (a count, the depths alone) cannot tell a level's
			// vertices apart: they are not put in order.
			const TraversalCall *call = traversal_call(fcinfo);
			const grail::BfsOutput output = with_parent                           ? grail::BfsOutput::parents
			                                : call != nullptr && !call->keys_read ? grail::BfsOutput::depths
			                                                                      : grail::BfsOutput::ordered;
			// The GPU service where it runs and has the graph's image (gpu_client.hpp), else this
			// backend's GPU.
			result = on_chosen_device(
			    what, g.out,
			    [&] {
				    if (auto rows = service_bfs(graph, direction == Direction::in, from, max_depth, what))
					    return std::move(*rows);
				    return grail::bfs_gpu(edges(), from, max_depth);
			    },
			    [&] { return grail::bfs(edges(), reverse, from, max_depth, graph.bfs_scratch(), output); },
			    gpu_probe_for(graph));
		}
		graph.count_scratch();
	}

	if (TraversalCall *call = traversal_call(fcinfo)) {
		// The plan takes the rows one at a time (traversal_scan.cpp). The index stays loaded while
		// the call site holds the graph, which it does until the caller's next call of it, after
		// the caller has freed these rows.
		call->rows = new TraversalRows{&index,
		                               std::move(result),
		                               dense < 0,
		                               source,
		                               kind,
		                               graph.key_type,
		                               as_text,
		                               with_parent,
		                               call->key_length,
		                               call->keys_read,
		                               CurrentMemoryContext};
		if (call->keys_read && as_text && kind == grail::KeyKind::integer && oid_key_type(graph.key_type) && dense >= 0)
			name_rows(*call->rows);
		return (Datum)0;
	}
	put_rows(fcinfo, index, result, dense < 0 ? &source : nullptr, kind, graph.key_type, as_text, with_parent);
	return (Datum)0;
}

} // namespace

namespace grail::pg {

const char *const kTraversalCallName = "grail traversal call";

TraversalCall *
traversal_call(FunctionCallInfo fcinfo) {
	Node *context = fcinfo->context;
	if (context == nullptr || !IsA(context, ExtensibleNode))
		return nullptr;
	auto *call = reinterpret_cast<TraversalCall *>(context);
	return call->node.extnodename == kTraversalCallName ? call : nullptr;
}

bool
next_traversal_row(TraversalRows *rows, Datum *values, bool *nulls) {
	const grail::BfsResult &result = rows->result;
	size_t count = rows->missing ? 1 : result.vertex.size();
	if (rows->next >= count)
		return false;
	size_t i = rows->next++;
	values[1] = Int32GetDatum(0);
	nulls[0] = nulls[1] = false;
	if (rows->with_parent) {
		values[2] = (Datum)0;
		nulls[2] = true;
	}
	if (!rows->keys_read) {
		// Rows that are counted or whose depth alone is read: no key's scattered reads.
		values[0] = (Datum)0;
		nulls[0] = true;
		if (!rows->missing)
			values[1] = Int32GetDatum(int32(rows->result.depth[i]));
		return true;
	}
	const grail::KeyKind kind = rows->kind;
	if (rows->missing) {
		// A key that is not in the graph reaches only itself, and only itself reaches it.
		Datum key = rows->missing_key;
		values[0] = rows->as_text                     ? key_as_text(kind, key, rows->key_type)
		            : kind == grail::KeyKind::integer ? column_width_datum(DatumGetInt64(key), rows->key_length)
		                                              : key;
		return true;
	}
	const grail::Index &index = *rows->index;
	const int64_t *ids = index.graph().ids.data();
	const grail::vid_t *vertex = result.vertex.data();
	const grail::vid_t *parent = rows->with_parent && !result.parent.empty() ? result.parent.data() : nullptr;
	values[1] = Int32GetDatum(int32(result.depth[i]));
	if (!rows->vertex_names.empty()) {
		values[0] = rows->vertex_names[i];
		if (parent != nullptr && parent[i] != grail::kNoVertex) {
			values[2] = rows->parent_names[i];
			nulls[2] = false;
		}
		return true;
	}
	if (kind == grail::KeyKind::integer && !rows->as_text) {
		// The vertex's id and its parent's, read ahead (a level's vertices are scattered over the
		// graph, their parents over the level before).
		constexpr size_t ahead = 16;
		if (i + ahead < count) {
			__builtin_prefetch(ids + vertex[i + ahead]);
			if (parent != nullptr && parent[i + ahead] != grail::kNoVertex)
				__builtin_prefetch(ids + parent[i + ahead]);
		}
		values[0] = column_width_datum(ids[vertex[i]], rows->key_length);
		if (parent != nullptr && parent[i] != grail::kNoVertex) {
			values[2] = column_width_datum(ids[parent[i]], rows->key_length);
			nulls[2] = false;
		}
		return true;
	}
	if (kind != grail::KeyKind::integer && index.keys().size() > 0) {
		// A text or uuid key is three dependent reads (the vertex's id, its offset in the
		// dictionary, its bytes), each asked for some rows before the row needs it.
		const uint64_t *offsets = index.keys().offsets().data();
		const uint8_t *bytes = index.keys().bytes().data();
		constexpr size_t id_ahead = 96, offset_ahead = 64, bytes_ahead = 32;
		for (const grail::vid_t *of : {vertex, parent}) {
			if (of == nullptr)
				continue;
			if (i + id_ahead < count && of[i + id_ahead] != grail::kNoVertex)
				__builtin_prefetch(ids + of[i + id_ahead]);
			if (i + offset_ahead < count && of[i + offset_ahead] != grail::kNoVertex)
				__builtin_prefetch(offsets + ids[of[i + offset_ahead]]);
			if (i + bytes_ahead < count && of[i + bytes_ahead] != grail::kNoVertex)
				__builtin_prefetch(bytes + offsets[ids[of[i + bytes_ahead]]]);
		}
	}
	MemoryContext row_memory = MemoryContextSwitchTo(rows->memory);
	values[0] = rows->vertex_key.key(index, ids[vertex[i]]);
	bool with_parent_key = parent != nullptr && parent[i] != grail::kNoVertex;
	if (with_parent_key)
		values[2] = rows->parent_key.key(index, ids[parent[i]]);
	MemoryContextSwitchTo(row_memory);
	if (rows->as_text) {
		values[0] = key_as_text(kind, values[0], rows->key_type);
		if (with_parent_key)
			values[2] = key_as_text(kind, values[2], rows->key_type);
	}
	if (rows->with_parent)
		nulls[2] = !with_parent_key;
	return true;
}

size_t
traversal_row_position(const TraversalRows *rows) {
	return rows->next;
}

void
set_traversal_row_position(TraversalRows *rows, size_t position) {
	rows->next = position;
}

void
free_traversal_rows(TraversalRows *rows) {
	delete rows;
}

} // namespace grail::pg

// CALLED ON NULL INPUT for the optional max_depth; a NULL graph or source gives no rows.
GRAIL_FUNCTION_NULLABLE(grail_bfs, 0, 1) {
	return search(fcinfo, grail::KeyKind::integer, Direction::out, true, "grail.bfs");
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_text, 0, 1) {
	return search(fcinfo, grail::KeyKind::text, Direction::out, true, "grail.bfs");
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_uuid, 0, 1) {
	return search(fcinfo, grail::KeyKind::uuid, Direction::out, true, "grail.bfs");
}

// bfs(graph, source, max_depth, direction): a NULL direction, like a NULL graph or source, gives
// no rows.
GRAIL_FUNCTION_NULLABLE(grail_bfs_direction, 0, 1, 3) {
	return search(fcinfo, grail::KeyKind::integer, direction_arg(fcinfo, 3), true, "grail.bfs");
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_direction_text, 0, 1, 3) {
	return search(fcinfo, grail::KeyKind::text, direction_arg(fcinfo, 3), true, "grail.bfs");
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_direction_uuid, 0, 1, 3) {
	return search(fcinfo, grail::KeyKind::uuid, direction_arg(fcinfo, 3), true, "grail.bfs");
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_descendants, 0, 1) {
	return search(fcinfo, grail::KeyKind::integer, Direction::out, false, "grail.descendants");
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_descendants_text, 0, 1) {
	return search(fcinfo, grail::KeyKind::text, Direction::out, false, "grail.descendants");
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_descendants_uuid, 0, 1) {
	return search(fcinfo, grail::KeyKind::uuid, Direction::out, false, "grail.descendants");
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_ancestors, 0, 1) {
	return search(fcinfo, grail::KeyKind::integer, Direction::in, false, "grail.ancestors");
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_ancestors_text, 0, 1) {
	return search(fcinfo, grail::KeyKind::text, Direction::in, false, "grail.ancestors");
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_ancestors_uuid, 0, 1) {
	return search(fcinfo, grail::KeyKind::uuid, Direction::in, false, "grail.ancestors");
}

// The overloads of integer, smallint, oid and reg* keys (anyelement): the key as a bigint, the rows
// in the key's type.
GRAIL_FUNCTION_NULLABLE(grail_bfs_any, 0, 1) {
	Oid type = integer_key_arguments(fcinfo, 1, 1, "grail.bfs");
	return search(fcinfo, grail::KeyKind::integer, Direction::out, true, "grail.bfs", type);
}

GRAIL_FUNCTION_NULLABLE(grail_bfs_direction_any, 0, 1, 3) {
	Oid type = integer_key_arguments(fcinfo, 1, 1, "grail.bfs");
	return search(fcinfo, grail::KeyKind::integer, direction_arg(fcinfo, 3), true, "grail.bfs", type);
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_descendants_any, 0, 1) {
	Oid type = integer_key_arguments(fcinfo, 1, 1, "grail.descendants");
	return search(fcinfo, grail::KeyKind::integer, Direction::out, false, "grail.descendants", type);
}

GRAIL_FUNCTION_NULLABLE(grail_traverse_ancestors_any, 0, 1) {
	Oid type = integer_key_arguments(fcinfo, 1, 1, "grail.ancestors");
	return search(fcinfo, grail::KeyKind::integer, Direction::in, false, "grail.ancestors", type);
}
