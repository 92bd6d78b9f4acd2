// The graph lifecycle's SQL functions: grail.create_graph, refresh_graph, merge_graph, alter_graph
// and drop_graph. Each reads its arguments and calls the lifecycle service
// (src/pg/service/lifecycle.cpp).
#include "service/lifecycle.hpp"
#include "boundary/pg_calls.hpp"

using namespace grail::pg;

// Every argument but the filter, whose NULL (the default) means none, as a STRICT function.
GRAIL_FUNCTION_NULLABLE(grail_create_graph, 0, 1, 2, 3, 4, 5, 6) {
	GraphName name = parse_graph_name(text_argument(fcinfo, 0));
	GraphRow row;
	row.relid = PG_GETARG_OID(1);
	const char *source = NameStr(*PG_GETARG_NAME(2));
	const char *target = NameStr(*PG_GETARG_NAME(3));
	row.labels = PG_GETARG_INT32(4);
	row.skip_nulls = PG_GETARG_BOOL(5);
	row.live = PG_GETARG_BOOL(6);
	row.owner = GetUserId();
	const char *filter = PG_NARGS() > 7 && !PG_ARGISNULL(7) ? text_argument(fcinfo, 7) : nullptr;
	return text_datum(create_graph(name, row, source, target, filter));
}

GRAIL_FUNCTION(grail_refresh_graph) {
	GraphName name = parse_graph_name(text_argument(fcinfo, 0));
	return text_datum(rebuild_graph(name, BuildCommand::refresh_graph));
}

GRAIL_FUNCTION(grail_merge_graph) {
	GraphName name = parse_graph_name(text_argument(fcinfo, 0));
	return text_datum(rebuild_graph(name, BuildCommand::merge_graph));
}

GRAIL_FUNCTION(grail_alter_graph) {
	alter_graph(parse_graph_name(text_argument(fcinfo, 0)), PG_GETARG_BOOL(1));
	PG_RETURN_VOID();
}

GRAIL_FUNCTION(grail_drop_graph) {
	drop_graph(parse_graph_name(text_argument(fcinfo, 0)));
	PG_RETURN_VOID();
}
