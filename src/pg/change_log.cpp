// grail._log_changes(graph_id), the trigger that grail._watch puts on a graph's edge table and its
// descendants (statement triggers with transition tables; BEFORE TRUNCATE). For a live graph it
// writes the statement's edge changes to grail.pending_change in the writer's transaction, so a
// query sees exactly the changes its snapshot sees and a build deletes exactly those it read; for
// another graph it marks the graph stale. An UPDATE that leaves every edge as it was does neither.
#include "index.hpp"

#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "activity.hpp"
#include "catalog.hpp"
#include "key_args.hpp"

extern "C" {
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "replication/logicalworker.h"
#include "replication/worker_internal.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"
}

using namespace grail::pg;

namespace {

// Edges per row of grail.pending_change (per element of its arrays).
constexpr int kBatchRows = 8192;

// What the trigger needs of the graph's row, read in the latest snapshot: a change of `live` by
// grail.alter_graph commits under a SHARE lock on the edge table, before this writer's lock, so
// even a REPEATABLE READ writer whose snapshot is older logs or marks stale as the graph now says.
struct GraphState {
	bool exists = false;
	bool live = false;
	std::string source_column, target_column;
};

// Plans kept for the backend's life (SPI_keepplan): a trigger fires for every write statement.
SPIPlanPtr stale_plan, insert_integer_plan, insert_key_plan;

SPIPlanPtr
kept_plan(SPIPlanPtr *plan, const char *sql, int nargs, Oid *types) {
	if (*plan == nullptr) {
		SPIPlanPtr p = SPI_prepare(sql, nargs, types);
		if (p == nullptr)
			elog(ERROR, "SPI_prepare failed (%s): %s", SPI_result_code_string(SPI_result), sql);
		SPI_keepplan(p);
		*plan = p;
	}
	return *plan;
}

AttrNumber
column_of(TupleDesc desc, const char *name) {
	for (int i = 0; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped && strcmp(NameStr(TupleDescAttr(desc, i)->attname), name) == 0)
			return AttrNumber(i + 1);
	elog(ERROR, "pg_grail catalog table grail.graph has no column \"%s\"", name);
}

// An index scan of grail.graph in the latest snapshot, as find_graph_in reads it: no SQL to run
// for every write statement.
GraphState
graph_state(int64_t graph_id) {
	GraphState state;
	guard([&] {
		Oid relid = get_relname_relid("graph", get_namespace_oid("grail", false));
		if (!OidIsValid(relid))
			elog(ERROR, "pg_grail catalog table grail.graph is missing");
		Relation rel = table_open(relid, AccessShareLock);
		TupleDesc desc = RelationGetDescr(rel);
		AttrNumber id_att = column_of(desc, "id");
		Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
		ScanKeyData key;
		ScanKeyInit(&key, id_att, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(graph_id));
		SysScanDesc scan = systable_beginscan(rel, index_on(rel, {id_att}, "id"), true, snapshot, 1, &key);
		if (HeapTuple tuple = systable_getnext(scan); HeapTupleIsValid(tuple)) {
			bool null;
			state.exists = true;
			state.live = DatumGetBool(heap_getattr(tuple, column_of(desc, "live"), desc, &null));
			state.source_column = NameStr(*DatumGetName(heap_getattr(tuple, column_of(desc, "source_column"), desc, &null)));
			state.target_column = NameStr(*DatumGetName(heap_getattr(tuple, column_of(desc, "target_column"), desc, &null)));
		}
		systable_endscan(scan);
		UnregisterSnapshot(snapshot);
		table_close(rel, AccessShareLock);
	});
	return state;
}

void
mark_stale(int64_t graph_id) {
	guard([&] {
		Oid types[] = {INT8OID};
		Datum values[] = {Int64GetDatum(graph_id)};
		SPIPlanPtr plan = kept_plan(&stale_plan,
		                            "UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) $1 AND NOT stale",
		                            1, types);
		if (SPI_execute_plan(plan, values, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "pg_grail could not mark graph %lld stale", (long long)graph_id);
	});
}

// One edge row's endpoints as the log stores them: an integer key, or a text key (uuid in its
// text form); has = false for NULL.
struct Endpoint {
	bool has = false;
	int64_t id = 0;
	std::string key;
};

// Reads the edge columns of rows of the trigger's relation (PostgreSQL calls: inside guard()).
class EdgeReader {
public:
	void
	open(Relation rel, const GraphState &graph) {
		Oid relid = RelationGetRelid(rel);
		source_ = get_attnum(relid, graph.source_column.c_str());
		target_ = get_attnum(relid, graph.target_column.c_str());
		if (source_ == InvalidAttrNumber || target_ == InvalidAttrNumber)
			elog(ERROR, "pg_grail: table \"%s\" has no column \"%s\" or \"%s\"", RelationGetRelationName(rel),
			     graph.source_column.c_str(), graph.target_column.c_str());
		Oid type = TupleDescAttr(RelationGetDescr(rel), source_ - 1)->atttypid;
		grail::KeyKind kind = grail::KeyKind::integer;
		key_kind_of(type, &kind);
		integer_ = kind == grail::KeyKind::integer;
		type_ = type;
	}
	bool
	integer() const {
		return integer_;
	}
	void
	read(TupleTableSlot *slot, Endpoint *source, Endpoint *target) const {
		endpoint(slot, source_, source);
		endpoint(slot, target_, target);
	}

private:
	void
	endpoint(TupleTableSlot *slot, AttrNumber attnum, Endpoint *out) const {
		bool null;
		Datum d = slot_getattr(slot, attnum, &null);
		out->has = !null;
		if (null)
			return;
		switch (type_) {
		case INT2OID:
			out->id = DatumGetInt16(d);
			break;
		case INT4OID:
			out->id = DatumGetInt32(d);
			break;
		case INT8OID:
			out->id = DatumGetInt64(d);
			break;
		case UUIDOID:
			out->key = DatumGetCString(DirectFunctionCall1(uuid_out, d));
			break;
		default: {
			text *t = DatumGetTextPP(d);
			out->key.assign(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		}
		}
	}
	AttrNumber source_ = 0, target_ = 0;
	Oid type_ = InvalidOid;
	bool integer_ = true;
};

// Collects edge changes and writes them to grail.pending_change, one row per kBatchRows edges of
// one change value (its arrays hold the edges), and a TRUNCATE's marker as a row of NULL arrays.
class ChangeWriter {
public:
	ChangeWriter(int64_t graph_id, bool integer) : graph_id_(graph_id), integer_(integer) {
	}
	void
	add(int change, const Endpoint &source, const Endpoint &target) {
		Batch &batch = batches_[change];
		batch.sources.push_back(source);
		batch.targets.push_back(target);
		if (batch.sources.size() == size_t(kBatchRows))
			write(change, &batch);
	}
	// The TRUNCATE marker: change 0, no endpoints.
	void
	add_marker() {
		marker_ = true;
	}
	void
	flush() {
		for (auto &entry : batches_)
			write(entry.first, &entry.second);
		if (marker_) {
			Batch none;
			write(0, &none, true);
			marker_ = false;
		}
	}

	// Edge changes written (the marker counts as one, as the counts of grail.graphs do).
	uint64_t
	written() const {
		return written_;
	}

private:
	struct Batch {
		std::vector<Endpoint> sources, targets;
	};
	void
	write(int change, Batch *batch, bool marker = false) {
		if (batch->sources.empty() && !marker)
			return;
		guard([&] {
			int n = int(batch->sources.size());
			Datum arrays[2] = {0, 0};
			if (!marker) {
				Datum *values = static_cast<Datum *>(palloc(sizeof(Datum) * n));
				bool *nulls = static_cast<bool *>(palloc(sizeof(bool) * n));
				int dims[] = {n}, lbs[] = {1};
				Oid element = integer_ ? INT8OID : TEXTOID;
				int16 length = integer_ ? 8 : -1;
				char align = integer_ ? TYPALIGN_DOUBLE : TYPALIGN_INT;
				for (int side = 0; side < 2; side++) {
					const std::vector<Endpoint> &ends = side == 0 ? batch->sources : batch->targets;
					for (int i = 0; i < n; i++) {
						nulls[i] = !ends[i].has;
						values[i] = value(ends[i]);
					}
					arrays[side] =
					    PointerGetDatum(construct_md_array(values, nulls, 1, dims, lbs, element, length, integer_, align));
					if (!integer_)
						for (int i = 0; i < n; i++)
							if (!nulls[i])
								pfree(DatumGetPointer(values[i]));
				}
				pfree(values);
				pfree(nulls);
			}
			Datum values[] = {Int64GetDatum(graph_id_), Int32GetDatum(change), arrays[0], arrays[1]};
			char nulls[] = {' ', ' ', marker ? 'n' : ' ', marker ? 'n' : ' '};
			Oid keys = integer_ ? Oid(INT8ARRAYOID) : Oid(TEXTARRAYOID);
			Oid types[] = {INT8OID, INT4OID, keys, keys};
			SPIPlanPtr plan = integer_ ? kept_plan(&insert_integer_plan,
			                                       "INSERT INTO grail.pending_change (graph_id, change, source, target) "
			                                       "VALUES ($1, $2, $3, $4)",
			                                       4, types)
			                           : kept_plan(&insert_key_plan,
			                                       "INSERT INTO grail.pending_change (graph_id, change, source_key, target_key) "
			                                       "VALUES ($1, $2, $3, $4)",
			                                       4, types);
			if (SPI_execute_plan(plan, values, nulls, false, 0) != SPI_OK_INSERT)
				elog(ERROR, "pg_grail could not log the changes of graph %lld", (long long)graph_id_);
			if (!marker) {
				pfree(DatumGetPointer(arrays[0]));
				pfree(DatumGetPointer(arrays[1]));
			}
		});
		written_ += marker ? 1 : batch->sources.size();
		batch->sources.clear();
		batch->targets.clear();
	}
	Datum
	value(const Endpoint &e) const {
		if (!e.has)
			return Datum(0);
		return integer_ ? Int64GetDatum(e.id) : PointerGetDatum(cstring_to_text_with_len(e.key.data(), int(e.key.size())));
	}
	int64_t graph_id_;
	bool integer_;
	std::map<int, Batch> batches_;
	bool marker_ = false;
	uint64_t written_ = 0;
};

// An edge (NULLs included) as one string, for netting an UPDATE's old rows against its new ones.
std::string
edge_key(const Endpoint &source, const Endpoint &target, bool integer) {
	std::string key;
	for (const Endpoint *e : {&source, &target}) {
		key.push_back(e->has ? 1 : 0);
		std::string part = !e->has ? std::string() : integer ? std::to_string(e->id) : e->key;
		uint32_t length = uint32_t(part.size());
		key.append(reinterpret_cast<const char *>(&length), sizeof length);
		key += part;
	}
	return key;
}

// Calls fn(source, target) for each row of a transition table (PostgreSQL calls inside guard()).
template <typename Fn>
void
for_each_row(Tuplestorestate *rows, Relation rel, const EdgeReader &reader, Fn &&fn) {
	TupleTableSlot *slot = guard([&] {
		TupleTableSlot *s = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsMinimalTuple);
		int pointer = tuplestore_alloc_read_pointer(rows, EXEC_FLAG_REWIND);
		tuplestore_select_read_pointer(rows, pointer);
		tuplestore_rescan(rows);
		return s;
	});
	Endpoint source, target;
	uint64_t count = 0;
	while (guard([&] {
		if ((++count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!tuplestore_gettupleslot(rows, true, false, slot))
			return false;
		reader.read(slot, &source, &target);
		return true;
	}))
		fn(source, target);
	guard([&] { ExecDropSingleTupleTableSlot(slot); });
}

// The rows a TRUNCATE of rel removes: every row committed now (a TRUNCATE holds the table's
// ACCESS EXCLUSIVE lock, so no other writer is in progress), and this transaction's own.
template <typename Fn>
void
for_each_stored_row(Relation rel, const EdgeReader &reader, Fn &&fn) {
	Snapshot snapshot = guard([&] { return RegisterSnapshot(GetLatestSnapshot()); });
	TableScanDesc scan = guard([&] { return table_beginscan(rel, snapshot, 0, NULL); });
	TupleTableSlot *slot = guard([&] { return table_slot_create(rel, NULL); });
	Endpoint source, target;
	uint64_t count = 0;
	while (guard([&] {
		if ((++count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!table_scan_getnextslot(scan, ForwardScanDirection, slot))
			return false;
		reader.read(slot, &source, &target);
		return true;
	}))
		fn(source, target);
	guard([&] {
		ExecDropSingleTupleTableSlot(slot);
		table_endscan(scan);
		UnregisterSnapshot(snapshot);
	});
}

} // namespace

GRAIL_FUNCTION(grail_log_changes) {
	auto *trigger = guard([&] {
		if (!CALLED_AS_TRIGGER(fcinfo))
			ereport(ERROR, (errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
			                errmsg("grail._log_changes() must be called as a trigger")));
		return reinterpret_cast<TriggerData *>(fcinfo->context);
	});
	TriggerEvent event = trigger->tg_event;
	if (trigger->tg_trigger->tgnargs != 1)
		guard([] { elog(ERROR, "grail._log_changes() takes one argument, the graph id"); });
	int64_t graph_id = guard([&] { return DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(trigger->tg_trigger->tgargs[0]))); });
	Relation rel = trigger->tg_relation;
	// The row triggers (grail_log_<id>_apply, ENABLE REPLICA) are for logical replication's apply,
	// which fires row triggers only; every other write, a subscription's initial copy included,
	// fires the statement triggers, so the row triggers leave it to them.
	bool row = TRIGGER_FIRED_FOR_ROW(event);
	if (row && !(IsLogicalWorker() && !am_tablesync_worker()))
		return PointerGetDatum(nullptr);

	CatalogRights rights;
	guard([] {
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
	});
	GraphState graph = graph_state(graph_id);
	if (graph.exists) {
		EdgeReader reader;
		guard([&] { reader.open(rel, graph); });
		ChangeWriter log(graph_id, reader.integer());
		if (row) {
			Endpoint source, target, new_source, new_target;
			guard([&] { reader.read(trigger->tg_trigslot, &source, &target); });
			bool update = TRIGGER_FIRED_BY_UPDATE(event);
			if (update)
				guard([&] { reader.read(trigger->tg_newslot, &new_source, &new_target); });
			bool same_edge =
			    update && edge_key(source, target, reader.integer()) == edge_key(new_source, new_target, reader.integer());
			if (!same_edge && !graph.live) {
				mark_stale(graph_id);
			} else if (!same_edge) {
				log.add(TRIGGER_FIRED_BY_INSERT(event) ? +1 : -1, source, target);
				if (update)
					log.add(+1, new_source, new_target);
			}
		} else if (TRIGGER_FIRED_BY_UPDATE(event)) {
			// Net count per edge: only edges whose number of rows changed.
			struct Net {
				int change;
				Endpoint source, target;
			};
			std::unordered_map<std::string, Net> net;
			auto count = [&](int change) {
				return [&, change](const Endpoint &s, const Endpoint &t) {
					auto found = net.try_emplace(edge_key(s, t, reader.integer()), Net{0, s, t}).first;
					found->second.change += change;
				};
			};
			for_each_row(trigger->tg_oldtable, rel, reader, count(-1));
			for_each_row(trigger->tg_newtable, rel, reader, count(+1));
			bool changed = false;
			for (auto &entry : net)
				if (entry.second.change != 0) {
					changed = true;
					if (!graph.live)
						break;
					log.add(entry.second.change, entry.second.source, entry.second.target);
				}
			if (changed && !graph.live)
				mark_stale(graph_id);
		} else if (!graph.live) {
			mark_stale(graph_id);
		} else if (TRIGGER_FIRED_BY_INSERT(event)) {
			for_each_row(trigger->tg_newtable, rel, reader,
			             [&](const Endpoint &s, const Endpoint &t) { log.add(+1, s, t); });
		} else if (TRIGGER_FIRED_BY_DELETE(event)) {
			for_each_row(trigger->tg_oldtable, rel, reader,
			             [&](const Endpoint &s, const Endpoint &t) { log.add(-1, s, t); });
		} else if (TRIGGER_FIRED_BY_TRUNCATE(event)) {
			for_each_stored_row(rel, reader, [&](const Endpoint &s, const Endpoint &t) { log.add(-1, s, t); });
			// TRUNCATE is not MVCC-safe: a REPEATABLE READ writer's own snapshot sees the table empty
			// although it may not see other sessions' deletions of rows the latest snapshot lacks (and
			// so logs no -1 for): the marker (change 0, no endpoints) makes a query that sees it read
			// the rows instead of netting the log.
			log.add_marker();
		}
		log.flush();
		note_pending_changes(log.written());
	}
	guard([] { SPI_finish(); });
	return PointerGetDatum(nullptr);
}
