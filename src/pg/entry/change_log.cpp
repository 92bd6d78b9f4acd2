// grail._log_changes(graph_id), the trigger that grail_internal._watch puts on a graph's edge table and its
// descendants (statement triggers with transition tables; BEFORE TRUNCATE). For a live graph it
// writes the statement's edge changes to grail.pending_change in the writer's transaction, so a
// query sees exactly the changes its snapshot sees and a build deletes exactly those it read; for
// another graph it marks the graph stale. An UPDATE that leaves every edge as it was does neither.
//
// Every write statement on a live graph's table comes here, so the logging runs no SQL: it reads
// the graph's row by an index scan and inserts the log's rows through the table and index access
// methods, as an INSERT's executor would (toasting included). That costs no planning, no SPI, no
// change of user or search_path, and leaves nothing for a name in the caller's search_path to
// reach. Only marking a graph that is not live stale is SQL (mark_graph_stale).
#include "index.hpp"

#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

#include "store/activity.hpp"
#include "store/catalog.hpp"
#include "store/log_catalog.hpp"
#include "store/pending_changes.hpp"
#include "store/watch.hpp"
#include "store/edges.hpp"
#include "store/edge_filter.hpp"
#include "boundary/key_datums.hpp"

extern "C" {
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "replication/logicalworker.h"
#include "replication/worker_internal.h"
#include "utils/builtins.h"
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
// The memory that writing a full batch takes: its two arrays, their compressed forms, the row and
// the toaster's chunks of it, about 0.6 MB for integer keys, in pieces of up to 130 kB. One block
// of a generation context holds them (it takes pieces of up to an eighth of its size) and is kept
// from batch to batch: allocating and freeing them each time made malloc hand the memory back to
// the kernel and fault it in again, with a TLB shootdown each time (2-3% of a bulk INSERT).
constexpr Size kBatchBytes = Size(4) << 20;

// One edge row's endpoints as the log stores them: int8 datums for integer keys, text datums
// otherwise (uuid in its text form); nulls[i] for a NULL endpoint.
struct Edge {
	Datum ends[2] = {0, 0};
	bool nulls[2] = {true, true};
};

// Reads the edge columns of rows of the trigger's relation (PostgreSQL calls: inside guard()).
class EdgeReader {
public:
	// False when the relation's columns of the graph's column names cannot be read as the graph's
	// keys (gone, of a type that is no key, of two kinds: an ALTER COLUMN ... TYPE of one of them,
	// a rename the event triggers did not see): then no datum may be read.
	bool
	open(Relation rel, const GraphState &graph) {
		Oid relid = RelationGetRelid(rel);
		return columns_.open(RelationGetDescr(rel), get_attnum(relid, NameStr(graph.source_column)),
		                     get_attnum(relid, NameStr(graph.target_column)));
	}
	bool
	integer() const {
		return columns_.kind() == grail::KeyKind::integer;
	}
	// The slot's edge as the log stores it: int8 datums for integer keys, text datums otherwise
	// (uuid in its text form), allocated in CurrentMemoryContext.
	void
	read(TupleTableSlot *slot, Edge *edge) const {
		slot_getsomeattrs(slot, columns_.last());
		for (int i = 0; i < 2; i++) {
			AttrNumber column = columns_.attnum(i);
			edge->nulls[i] = slot->tts_isnull[column - 1];
			if (edge->nulls[i])
				continue;
			Datum d = slot->tts_values[column - 1];
			edge->ends[i] = integer() ? Int64GetDatum(columns_.integer(i, d)) : columns_.text(i, d);
		}
	}

private:
	EdgeColumns columns_;
};

// An edge (NULLs included) as one string, for netting an UPDATE's old rows against its new ones.
// Plain reads of the datums, which EdgeReader made (text with a 4-byte header, not toasted).
std::string
edge_key(const Edge &edge, bool integer) {
	std::string key;
	for (int i = 0; i < 2; i++) {
		key.push_back(edge.nulls[i] ? 0 : 1);
		if (edge.nulls[i])
			continue;
		int64_t id = integer ? DatumGetInt64(edge.ends[i]) : 0;
		auto *t = integer ? nullptr : reinterpret_cast<const text *>(DatumGetPointer(edge.ends[i]));
		const char *bytes = integer ? reinterpret_cast<const char *>(&id) : VARDATA(t);
		uint32_t length = integer ? sizeof id : uint32_t(VARSIZE(t) - VARHDRSZ);
		key.append(reinterpret_cast<const char *>(&length), sizeof length);
		key.append(bytes, length);
	}
	return key;
}

// Collects edge changes and writes them to grail.pending_change, one row per kBatchRows edges of
// one change value (its arrays hold the edges), and a TRUNCATE's marker as a row of NULL arrays.
// Its memory is a context of its own, a child of the trigger call's; an error aborts the
// transaction, which closes the table and frees it.
class ChangeWriter {
public:
	struct Batch {
		int change = 0;
		int count = 0;
		int capacity = 0; // grows to kBatchRows: a one-row statement allocates little
		bool any_null = false;
		Datum *ends[2] = {nullptr, nullptr};
		bool *nulls[2] = {nullptr, nullptr};
		MemoryContext keys = nullptr; // the text keys read into the batch, freed when it is written
	};

	ChangeWriter(int64_t graph_id, bool integer) : graph_id_(graph_id), integer_(integer) {
		context_ = guard(
		    [] { return AllocSetContextCreate(CurrentMemoryContext, "pg_grail change log", ALLOCSET_DEFAULT_SIZES); });
	}

	// The batch of one change value (C++: outside guard()).
	Batch *
	batch(int change) {
		auto [entry, made] = batches_.try_emplace(change);
		Batch *b = &entry->second;
		if (made)
			guard([&] {
				b->change = change;
				b->capacity = 64;
				for (int i = 0; i < 2; i++) {
					b->ends[i] = static_cast<Datum *>(MemoryContextAlloc(context_, sizeof(Datum) * b->capacity));
					b->nulls[i] = static_cast<bool *>(MemoryContextAlloc(context_, sizeof(bool) * b->capacity));
				}
				if (!integer_)
					b->keys = AllocSetContextCreate(context_, "pg_grail log keys", ALLOCSET_DEFAULT_SIZES);
			});
		return b;
	}

	// Appends the edge of a row (its text keys go to the batch's memory); writes the batch when it
	// is full. PostgreSQL calls only: inside guard().
	void
	add_row(Batch *b, const EdgeReader &reader, TupleTableSlot *slot) {
		Edge edge;
		MemoryContext old = MemoryContextSwitchTo(b->keys != nullptr ? b->keys : CurrentMemoryContext);
		reader.read(slot, &edge);
		MemoryContextSwitchTo(old);
		add(b, edge);
	}

	// Appends an edge, whose text datums must live until the batch is written; writes the batch
	// when it is full. PostgreSQL calls only: inside guard().
	void
	add(Batch *b, const Edge &edge) {
		if (b->count == b->capacity) {
			b->capacity = Min(2 * b->capacity, kBatchRows);
			for (int i = 0; i < 2; i++) {
				b->ends[i] = static_cast<Datum *>(repalloc(b->ends[i], sizeof(Datum) * b->capacity));
				b->nulls[i] = static_cast<bool *>(repalloc(b->nulls[i], sizeof(bool) * b->capacity));
			}
		}
		for (int i = 0; i < 2; i++) {
			b->ends[i][b->count] = edge.ends[i];
			b->nulls[i][b->count] = edge.nulls[i];
			b->any_null |= edge.nulls[i];
		}
		if (++b->count == kBatchRows)
			write(b);
	}

	// The TRUNCATE marker: change 0, no endpoints.
	void
	add_marker() {
		marker_ = true;
	}

	// Writes what is left and closes grail.pending_change, so that later commands see the rows.
	void
	finish() {
		guard([&] {
			for (auto &entry : batches_)
				if (entry.second.count > 0)
					write(&entry.second);
			if (marker_) {
				if (!log_.is_open())
					open_log();
				log_.insert_marker(graph_id_);
				written_++;
			}
			log_.close();
			MemoryContextDelete(context_);
		});
	}

	// Edge changes written (the marker counts as one, as the counts of grail.graphs do).
	uint64_t
	written() const {
		return written_;
	}

private:
	// The batch as one row (PostgreSQL calls).
	void
	write(Batch *b) {
		if (scratch_ == nullptr)
			scratch_ =
			    b->count == kBatchRows
			        ? GenerationContextCreate(context_, "pg_grail log batch", kBatchBytes, kBatchBytes, kBatchBytes)
			        : AllocSetContextCreate(context_, "pg_grail log batch", ALLOCSET_DEFAULT_SIZES);
		MemoryContext old = MemoryContextSwitchTo(scratch_);
		if (!log_.is_open())
			open_log();
		log_.insert_edges(graph_id_, b->change, integer_, b->ends[0], b->nulls[0], b->ends[1], b->nulls[1], b->count,
		                  b->any_null);
		MemoryContextSwitchTo(old);
		MemoryContextReset(scratch_);
		if (b->keys != nullptr)
			MemoryContextReset(b->keys);
		written_ += uint64_t(b->count);
		b->count = 0;
		b->any_null = false;
	}

	// Opens grail.pending_change for inserts (PostgreSQL calls).
	void
	open_log() {
		log_.open(log_table(), context_);
	}

	int64_t graph_id_;
	bool integer_;
	MemoryContext context_ = nullptr, scratch_ = nullptr;
	std::map<int, Batch> batches_;
	bool marker_ = false;
	uint64_t written_ = 0;
	PendingChangeInserter log_;
};

// Calls fn(slot) for each row of a transition table, all inside one guard() (so fn makes
// PostgreSQL calls only): a row costs no PG_TRY of its own.
template <typename Fn>
void
scan_transition_table(Tuplestorestate *rows, Relation rel, Fn &&fn) {
	guard([&] {
		TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsMinimalTuple);
		// A read pointer of our own: another trigger of the statement may read the same rows.
		int pointer = tuplestore_alloc_read_pointer(rows, EXEC_FLAG_REWIND);
		tuplestore_select_read_pointer(rows, pointer);
		tuplestore_rescan(rows);
		for (uint64_t count = 1; tuplestore_gettupleslot(rows, true, false, slot); count++) {
			if ((count & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			fn(slot);
		}
		ExecDropSingleTupleTableSlot(slot);
	});
}

// Calls fn(slot) for each row that a TRUNCATE of rel removes, inside one guard() as above: every
// row committed now (a TRUNCATE holds the table's ACCESS EXCLUSIVE lock, so no other writer is in
// progress), and this transaction's own.
template <typename Fn>
void
scan_stored_rows(Relation rel, Fn &&fn) {
	guard([&] {
		Snapshot snapshot = RegisterSnapshot(GetLatestSnapshot());
		TableScanDesc scan = table_beginscan(rel, snapshot, 0, NULL);
		TupleTableSlot *slot = table_slot_create(rel, NULL);
		for (uint64_t count = 1; table_scan_getnextslot(scan, ForwardScanDirection, slot); count++) {
			if ((count & 0xFFFF) == 0)
				CHECK_FOR_INTERRUPTS();
			fn(slot);
		}
		ExecDropSingleTupleTableSlot(slot);
		table_endscan(scan);
		UnregisterSnapshot(snapshot);
	});
}

/*
 * Whether the trigger firing is the graph's own log trigger for this event, by its name
 * grail_log_<id>_<event>. ALTER TRIGGER ... RENAME keeps a trigger's function and argument, and
 * grail_internal._watch (run by refresh_graph, which the refusal that follows the rename recommends) makes
 * the trigger again under its name: the renamed copy would log every write a second time, and
 * once one of the two is disabled the log no longer matches the table. Else warns and ignores.
 */
bool
log_trigger_named(const TriggerData *trigger, int64_t graph_id) {
	TriggerEvent event = trigger->tg_event;
	const char *suffix = TRIGGER_FIRED_FOR_ROW(event)       ? "_apply"
	                     : TRIGGER_FIRED_BY_INSERT(event)   ? "_insert"
	                     : TRIGGER_FIRED_BY_DELETE(event)   ? "_delete"
	                     : TRIGGER_FIRED_BY_UPDATE(event)   ? "_update"
	                     : TRIGGER_FIRED_BY_TRUNCATE(event) ? "_truncate"
	                                                        : "";
	std::string expected = "grail_log_" + std::to_string(graph_id) + suffix;
	const char *name = trigger->tg_trigger->tgname;
	if (expected == name)
		return true;
	guard([&] {
		Relation rel = trigger->tg_relation;
		const char *schema = get_namespace_name(RelationGetNamespace(rel));
		ereport(WARNING,
		        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
		         errmsg("pg_grail trigger \"%s\" on table \"%s\" ignores this write: graph %lld logs it through its "
		                "trigger \"%s\"",
		                name, RelationGetRelationName(rel), (long long)graph_id, expected.c_str()),
		         errdetail("A graph's trigger renamed with ALTER TRIGGER ... RENAME keeps calling grail._log_changes."),
		         errhint("Drop the trigger: DROP TRIGGER %s ON %s;", quote_identifier(name),
		                 quote_qualified_identifier(schema, RelationGetRelationName(rel)))));
	});
	return false;
}

} // namespace

GRAIL_FUNCTION(grail_log_changes) {
	if (!CALLED_AS_TRIGGER(fcinfo))
		raise(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED, "grail._log_changes() must be called as a trigger");
	auto *trigger = reinterpret_cast<TriggerData *>(fcinfo->context);
	TriggerEvent event = trigger->tg_event;
	if (trigger->tg_trigger->tgnargs != 1)
		raise(ERRCODE_INTERNAL_ERROR, "grail._log_changes() takes one argument, the graph id");
	int64_t graph_id = guard(
	    [&] { return DatumGetInt64(DirectFunctionCall1(int8in, CStringGetDatum(trigger->tg_trigger->tgargs[0]))); });
	Relation rel = trigger->tg_relation;
	// The row triggers (grail_log_<id>_apply, ENABLE REPLICA) are for logical replication's apply,
	// which fires row triggers only; every other write, a subscription's initial copy included,
	// fires the statement triggers, so the row triggers leave it to them.
	bool row = TRIGGER_FIRED_FOR_ROW(event);
	if (row && !(IsLogicalWorker() && !am_tablesync_worker()))
		return PointerGetDatum(nullptr);

	if (!log_trigger_named(trigger, graph_id))
		return PointerGetDatum(nullptr);
	GraphState graph = graph_state(graph_id);
	if (!graph.exists)
		return PointerGetDatum(nullptr);
	// The trigger may have come with a dump of its table alone into a database where another graph
	// has its id: then the table is none of that graph's.
	if (!log_trigger_in_family(trigger->tg_trigger->tgname, RelationGetRelid(rel), graph_id, graph.name, graph.relid))
		return PointerGetDatum(nullptr);
	// The columns, checked against the table's descriptor before any datum is read. Where they
	// cannot be read as keys of one kind the graph cannot follow the write: it is stale, and a
	// rebuild says why. The write goes on: refusing it would make the table unwritable for as long
	// as a graph over it lags a change of its columns.
	EdgeReader reader;
	if (!guard([&] { return reader.open(rel, graph); })) {
		mark_graph_stale(graph_id);
		return PointerGetDatum(nullptr);
	}
	bool integer = reader.integer();
	// The graph's filter, parsed against this table's columns once per statement: only rows it
	// passes are edges. An UPDATE that moves a row into it adds the row's edge, one that moves a
	// row out of it removes it. A column of the filter gone (dropped, or renamed where the event
	// triggers did not see it) leaves the graph unable to follow the write: stale, as above. A
	// stale graph is rebuilt from its rows, its log discarded, so nothing is logged for it: its
	// filter may not read back (a column's type changed, which made it stale), and the write must
	// go on.
	if (graph.filter != nullptr && graph.stale)
		return PointerGetDatum(nullptr);
	EdgeFilter filter;
	FilterSettings filter_settings;
	if (graph.filter != nullptr) {
		if (!guard([&] { return filter_columns_present(rel, graph.filter); })) {
			mark_graph_stale(graph_id);
			return PointerGetDatum(nullptr);
		}
		guard([&] { filter.open(rel, graph.filter, graph.name, graph.owner); });
	}
	if (row) {
		bool update = TRIGGER_FIRED_BY_UPDATE(event);
		Edge old_edge, new_edge;
		bool old_in = false, new_in = false; // the rows pass the filter
		guard([&] {
			reader.read(trigger->tg_trigslot, &old_edge);
			old_in = filter.passes(trigger->tg_trigslot, filter_settings);
			if (update) {
				reader.read(trigger->tg_newslot, &new_edge);
				new_in = filter.passes(trigger->tg_newslot, filter_settings);
			}
		});
		if (!old_in && !new_in)
			return PointerGetDatum(nullptr);
		if (update && old_in && new_in && edge_key(old_edge, integer) == edge_key(new_edge, integer))
			return PointerGetDatum(nullptr);
		if (!graph.live) {
			mark_graph_stale(graph_id);
			return PointerGetDatum(nullptr);
		}
		ChangeWriter log(graph_id, integer);
		ChangeWriter::Batch *removed = log.batch(-1), *added = log.batch(+1);
		guard([&] {
			if (old_in)
				log.add(TRIGGER_FIRED_BY_INSERT(event) ? added : removed, old_edge);
			if (update && new_in)
				log.add(added, new_edge);
		});
		log.finish();
		note_pending_changes(log.written());
	} else if (TRIGGER_FIRED_BY_UPDATE(event)) {
		// Net count per edge: only edges whose number of rows changed.
		struct Net {
			int change;
			Edge edge;
		};
		std::unordered_map<std::string, Net> net;
		auto count = [&](Tuplestorestate *rows, int change) {
			// Each row is read inside a guard() of its own, and counted outside it (C++).
			TupleTableSlot *slot = guard([&] {
				TupleTableSlot *s = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsMinimalTuple);
				int pointer = tuplestore_alloc_read_pointer(rows, EXEC_FLAG_REWIND);
				tuplestore_select_read_pointer(rows, pointer);
				tuplestore_rescan(rows);
				return s;
			});
			Edge edge;
			uint64_t n = 0;
			bool in = false; // the row passes the filter: its edge counts
			while (guard([&] {
				if ((++n & 0xFFFF) == 0)
					CHECK_FOR_INTERRUPTS();
				if (!tuplestore_gettupleslot(rows, true, false, slot))
					return false;
				in = filter.passes(slot, filter_settings);
				if (in)
					reader.read(slot, &edge);
				return true;
			}))
				if (in)
					net.try_emplace(edge_key(edge, integer), Net{0, edge}).first->second.change += change;
			guard([&] { ExecDropSingleTupleTableSlot(slot); });
		};
		count(trigger->tg_oldtable, -1);
		count(trigger->tg_newtable, +1);
		bool changed = false;
		for (auto &entry : net)
			changed |= entry.second.change != 0;
		if (changed && !graph.live) {
			mark_graph_stale(graph_id);
		} else if (changed) {
			ChangeWriter log(graph_id, integer);
			for (auto &entry : net)
				if (entry.second.change != 0) {
					ChangeWriter::Batch *batch = log.batch(entry.second.change);
					guard([&] { log.add(batch, entry.second.edge); });
				}
			log.finish();
			note_pending_changes(log.written());
		}
	} else if (!graph.live) {
		mark_graph_stale(graph_id);
	} else {
		ChangeWriter log(graph_id, integer);
		ChangeWriter::Batch *batch = log.batch(TRIGGER_FIRED_BY_INSERT(event) ? +1 : -1);
		auto add = [&](TupleTableSlot *slot) {
			if (filter.passes(slot, filter_settings))
				log.add_row(batch, reader, slot);
		};
		if (TRIGGER_FIRED_BY_INSERT(event)) {
			scan_transition_table(trigger->tg_newtable, rel, add);
		} else if (TRIGGER_FIRED_BY_DELETE(event)) {
			scan_transition_table(trigger->tg_oldtable, rel, add);
		} else if (TRIGGER_FIRED_BY_TRUNCATE(event)) {
			scan_stored_rows(rel, add);
			// TRUNCATE is not MVCC-safe: a REPEATABLE READ writer's own snapshot sees the table empty
			// although it may not see other sessions' deletions of rows the latest snapshot lacks (and
			// so logs no -1 for): the marker (change 0, no endpoints) makes a query that sees it read
			// the rows instead of netting the log.
			log.add_marker();
		}
		log.finish();
		note_pending_changes(log.written());
	}
	return PointerGetDatum(nullptr);
}
