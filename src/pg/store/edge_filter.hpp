// A graph's filter (create_graph(..., filter => 'kind = ''prod''')): a boolean expression over the
// edge table's columns that every build, merge and log trigger applies to the rows, checked as a
// partial index's predicate is (no subqueries, aggregates, window or set-returning functions;
// immutable functions only; the table's own user columns only).
//
// It is stored as SQL text, as PostgreSQL's deparser writes it with only pg_catalog on the
// search_path (every other object schema-qualified), and parsed again, in that search_path, where
// it is used: a node tree would hold the oids of its functions, operators and types, which a dump
// restored into another database (pg_dump carries grail.graph's rows as data), pg_upgrade or a
// DROP and CREATE of a function change. The column names it uses are stored beside it
// (grail.graph.filter_columns): a RENAME COLUMN rewrites the text (grail_internal._filter_renamed), a
// dropped or retyped column makes the graph stale and its refresh says why.
#pragma once

#include <string>
#include <vector>

#include "boundary/guard.hpp"

extern "C" {
#include "access/attnum.h"
#include "executor/tuptable.h"
#include "utils/relcache.h"
}

struct ExprState;
struct ExprContext;

namespace grail::pg {

struct CheckedFilter {
	std::string sql;                  // the stored form
	std::vector<std::string> columns; // the columns it reads, by name, in attnum order
};

// Parses and checks the filter a caller gave for a graph over relid (in the caller's search_path),
// and returns its stored form; a clear error for one that is not a boolean expression over the
// table's columns fit to filter its rows, or that uses a column the caller may not read.
CheckedFilter check_new_filter(Oid relid, const char *text);

// Checks a graph's stored filter against relid as it is now (its columns there, readable by the
// current role; the expression still fit): a clear error naming the graph otherwise. Run by every
// build and query of a graph with a filter. owner: the graph's owner.
void check_stored_filter(Oid relid, const std::string &sql, const char *graph, Oid owner);

// Whether each of the stored filter's columns is a live column of rel (by name): false when one was
// dropped or renamed unseen, before any parse. PostgreSQL calls: inside guard().
bool filter_columns_present(Relation rel, const char *sql);

// The stored filter of a graph over relid after its column from was renamed to to: the text with the
// renamed column's new name (grail_internal._filter_renamed, run by the ALTER TABLE's event trigger).
std::string renamed_filter(Oid relid, const char *sql, const char *from, const char *to);

// Reads the stored filter of a graph over relid back as renamed_filter does: an error where it no
// longer reads back (grail_internal._filter_reads_back, run by the event triggers at every DDL
// command of the database, whoever runs it). Its columns are looked up by name in relid's catalog
// rows, with no lock on relid: a role's lock on its own edge table (LOCK TABLE, left idle) must not
// hold up every other role's DDL, and a check that waited would end in a lock_timeout taken for a
// filter that no longer reads back. What it reads is the committed catalog, as a later lock would
// give it once a transaction that changes the table rolls back (one that commits checks its own
// change).
void filter_reads_back(Oid relid, const char *sql);

// The filter, parsed against one relation (the edge table or a table of its family, whose columns
// it names), ready to test rows of that relation's slots. Its functions run as the graph's owner,
// in a restricted security context (as VACUUM runs an index expression as the table's owner): the
// filter is the owner's code, and a writer's trigger, a query's rebuild or a merge must not run it
// with the rights of whoever wrote or asked (its constants are folded when it is opened, so open
// too), and under settings of its own wherever it runs (search_path pg_catalog, pg_temp, which the
// caller's cannot shadow; extra_float_digits and bytea_output at their defaults, which IMMUTABLE
// output functions read). PostgreSQL calls: inside guard(); its memory is the current memory
// context's.
// Undoes, when it ends, every setting changed while it lived, as PostgreSQL does around an index
// expression: a filter function's set_config('search_path', ..., false) must not stay in the
// session of whoever wrote, queried or merged (a superuser's, whose next unqualified call would
// then run a function of the graph's owner). Held across a loop over rows rather than made per
// row: where the transaction has changed settings already, its end walks every setting.
class FilterSettings {
public:
	FilterSettings();
	~FilterSettings();
	FilterSettings(const FilterSettings &) = delete;
	FilterSettings &operator=(const FilterSettings &) = delete;

private:
	int level_;
};

class EdgeFilter {
public:
	// sql: the stored form. graph: for messages (nullptr: a build's read of a table of the family).
	// owner: the graph's owner.
	void open(Relation rel, const char *sql, const char *graph, Oid owner);
	bool
	active() const {
		return state_ != nullptr;
	}
	// Whether the slot's row passes: true for a row where the expression is true, false where it is
	// false or NULL (as WHERE reads it). Under settings that the caller holds across its rows.
	bool passes(TupleTableSlot *slot, const FilterSettings &settings) const;
	void close();

private:
	Oid owner_ = InvalidOid;
	ExprState *state_ = nullptr;
	ExprContext *context_ = nullptr;
};

} // namespace grail::pg
