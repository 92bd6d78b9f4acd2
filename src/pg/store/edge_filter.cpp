#include "store/edge_filter.hpp"
#include "boundary/pg_calls.hpp"

extern "C" {
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_expr.h"
#include "parser/parse_relation.h"
#include "parser/parser.h"
#include "parser/scansup.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/bytea.h"
#include "utils/float.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
}

namespace grail::pg {

namespace {

constexpr const char *kPrefix = "SELECT WHERE ";

const char *
filter_error_hint() {
	return "A filter is a boolean expression over the edge table's columns, as a partial index's WHERE clause: "
	       "immutable functions and operators only, no subqueries, aggregates, window or set-returning functions.";
}

// The filter's raw parse tree, refused unless the text is one expression and nothing else (it is
// parsed as the WHERE clause of an otherwise empty SELECT). PostgreSQL calls: inside guard().
Node *
raw_filter(const char *text) {
	bool blank = true;
	for (const char *c = text; *c != '\0' && blank; c++)
		blank = scanner_isspace(*c);
	if (blank)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("a pg_grail filter must not be empty"),
		                errhint("Pass filter => NULL (the default) for a graph over every row.")));
	std::string sql = std::string(kPrefix) + text;
	List *statements = raw_parser(pstrdup(sql.c_str()), RAW_PARSE_DEFAULT);
	SelectStmt *select = nullptr;
	if (list_length(statements) == 1 && IsA(linitial_node(RawStmt, statements)->stmt, SelectStmt))
		select = reinterpret_cast<SelectStmt *>(linitial_node(RawStmt, statements)->stmt);
	bool alone = select != nullptr && select->op == SETOP_NONE && select->targetList == NIL &&
	             select->fromClause == NIL && select->intoClause == nullptr && select->distinctClause == NIL &&
	             select->groupClause == NIL && !select->groupDistinct && select->havingClause == nullptr &&
	             select->windowClause == NIL && select->valuesLists == NIL && select->sortClause == NIL &&
	             select->limitOffset == nullptr && select->limitCount == nullptr && select->lockingClause == NIL &&
	             select->withClause == nullptr && select->whereClause != nullptr;
	if (!alone)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("a pg_grail filter must be one boolean expression, not \"%s\"", text),
		                errhint("%s", filter_error_hint())));
	return select->whereClause;
}

// Collects the names of the raw tree's column references (the last field of each).
bool
collect_column_refs(Node *node, void *context) {
	if (node == nullptr)
		return false;
	if (IsA(node, ColumnRef)) {
		auto *names = static_cast<List **>(context);
		auto *ref = reinterpret_cast<ColumnRef *>(node);
		Node *last = static_cast<Node *>(llast(ref->fields));
		if (IsA(last, String))
			*names = lappend(*names, strVal(last));
		return false;
	}
	return raw_expression_tree_walker(node, reinterpret_cast<bool (*)()>(collect_column_refs), context);
}

// The first column the raw filter names that rel lacks, or nullptr.
const char *
missing_column(Relation rel, Node *raw) {
	List *names = NIL;
	collect_column_refs(raw, &names);
	ListCell *cell;
	foreach (cell, names) {
		const char *name = static_cast<const char *>(lfirst(cell));
		if (get_attnum(RelationGetRelid(rel), name) == InvalidAttrNumber)
			return name;
	}
	return nullptr;
}

// A rename being followed (grail_internal._filter_renamed): a column reference to the old name, which no
// longer exists, means the renamed column.
struct Rename {
	const char *from;
	const char *to;
	Relation rel;
};

Node *
follow_rename(ParseState *pstate, ColumnRef *ref, Node *var) {
	auto *rename = static_cast<Rename *>(pstate->p_ref_hook_state);
	Node *last = static_cast<Node *>(llast(ref->fields));
	if (var != nullptr || rename == nullptr || !IsA(last, String) || strcmp(strVal(last), rename->from) != 0)
		return nullptr;
	Oid relid = RelationGetRelid(rename->rel);
	AttrNumber attnum = get_attnum(relid, rename->to);
	if (attnum == InvalidAttrNumber)
		return nullptr;
	Oid type, collation;
	int32 typmod;
	get_atttypetypmodcoll(relid, attnum, &type, &typmod, &collation);
	return reinterpret_cast<Node *>(makeVar(1, attnum, type, typmod, collation, 0));
}

// The schema of a type, an operator or a collation (InvalidOid for none, or one since dropped).
Oid
object_namespace(int cache, Oid object) {
	if (!OidIsValid(object))
		return InvalidOid;
	HeapTuple tuple = SearchSysCache1(cache, ObjectIdGetDatum(object));
	if (!HeapTupleIsValid(tuple))
		return InvalidOid;
	Oid nsp = InvalidOid;
	switch (cache) {
	case TYPEOID:
		nsp = reinterpret_cast<Form_pg_type>(GETSTRUCT(tuple))->typnamespace;
		break;
	case OPEROID:
		nsp = reinterpret_cast<Form_pg_operator>(GETSTRUCT(tuple))->oprnamespace;
		break;
	case COLLOID:
		nsp = reinterpret_cast<Form_pg_collation>(GETSTRUCT(tuple))->collnamespace;
		break;
	}
	ReleaseSysCache(tuple);
	return nsp;
}

bool
temporary(Oid nsp) {
	return OidIsValid(nsp) && isAnyTempNamespace(nsp);
}

bool
temporary_operator(Oid opno) {
	return temporary(object_namespace(OPEROID, opno)) || temporary(get_func_namespace(get_opcode(opno)));
}

// Finds a node of the checked expression that uses a temporary function, operator, type or
// collation: its type, its collations, and the function or operators it calls.
bool
find_temporary_object(Node *node, void *context) {
	if (node == nullptr)
		return false;
	bool found = false;
	switch (nodeTag(node)) {
	case T_FuncExpr:
		found = temporary(get_func_namespace(castNode(FuncExpr, node)->funcid));
		break;
	case T_OpExpr:
	case T_DistinctExpr:
	case T_NullIfExpr:
		found = temporary_operator(reinterpret_cast<OpExpr *>(node)->opno);
		break;
	case T_ScalarArrayOpExpr:
		found = temporary_operator(castNode(ScalarArrayOpExpr, node)->opno);
		break;
	case T_RowCompareExpr: {
		ListCell *cell;
		foreach (cell, castNode(RowCompareExpr, node)->opnos)
			found = found || temporary_operator(lfirst_oid(cell));
		break;
	}
	default:
		break;
	}
	switch (nodeTag(node)) {
	case T_Const:
	case T_Var:
	case T_FuncExpr:
	case T_OpExpr:
	case T_DistinctExpr:
	case T_NullIfExpr:
	case T_ScalarArrayOpExpr:
	case T_RelabelType:
	case T_CoerceViaIO:
	case T_ArrayCoerceExpr:
	case T_ConvertRowtypeExpr:
	case T_CollateExpr:
	case T_CaseExpr:
	case T_ArrayExpr:
	case T_RowExpr:
	case T_CoalesceExpr:
	case T_MinMaxExpr:
	case T_FieldSelect:
	case T_FieldStore:
	case T_CoerceToDomain:
	case T_SubscriptingRef:
		found = found || temporary(object_namespace(TYPEOID, exprType(node))) ||
		        temporary(object_namespace(COLLOID, exprCollation(node))) ||
		        temporary(object_namespace(COLLOID, exprInputCollation(node)));
		break;
	default:
		break;
	}
	if (found) {
		*static_cast<Node **>(context) = node;
		return true;
	}
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_temporary_object), context);
}

void
filter_error_context(void *arg) {
	errcontext("pg_grail filter: %s", static_cast<const char *>(arg));
}

// A column of the relation whose oid is the hook's state, looked up by name in the catalog
// (filter_reads_back: no lock on the relation, nor a range table entry for it).
Node *
column_from_catalog(ParseState *pstate, ColumnRef *ref, Node *var) {
	Oid relid = *static_cast<Oid *>(pstate->p_ref_hook_state);
	Node *last = static_cast<Node *>(llast(ref->fields));
	if (var != nullptr || list_length(ref->fields) != 1 || !IsA(last, String))
		return nullptr;
	AttrNumber attnum = get_attnum(relid, strVal(last));
	if (attnum <= 0)
		return nullptr;
	Oid type, collation;
	int32 typmod;
	get_atttypetypmodcoll(relid, attnum, &type, &typmod, &collation);
	return reinterpret_cast<Node *>(makeVar(1, attnum, type, typmod, collation, 0));
}

Node *checked_filter(ParseState *pstate, Node *raw, const char *text);

// The filter parsed and checked against rel, in the search_path in force (PostgreSQL calls).
Node *
transform_filter(Relation rel, Node *raw, const char *text, Rename *rename = nullptr) {
	ParseState *pstate = make_parsestate(nullptr);
	if (rename != nullptr) {
		pstate->p_post_columnref_hook = follow_rename;
		pstate->p_ref_hook_state = rename;
	}
	ParseNamespaceItem *item = addRangeTableEntryForRelation(pstate, rel, AccessShareLock, nullptr, false, true);
	addNSItemToQuery(pstate, item, false, true, true);
	return checked_filter(pstate, raw, text);
}

// The filter parsed in pstate, whose columns are in place, and checked (PostgreSQL calls).
Node *
checked_filter(ParseState *pstate, Node *raw, const char *text) {
	ErrorContextCallback callback;
	callback.callback = filter_error_context;
	callback.arg = const_cast<char *>(text);
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	// No source text: an error's position would point into the caller's statement, not the filter
	// (the context line names the filter).
	pstate->p_sourcetext = nullptr;
	// As a partial index's predicate: the parser refuses subqueries, aggregates, window and
	// set-returning functions, and parameters.
	Node *expr = transformExpr(pstate, static_cast<Node *>(copyObjectImpl(raw)), EXPR_KIND_INDEX_PREDICATE);
	expr = coerce_to_boolean(pstate, expr, "a pg_grail filter");
	assign_expr_collations(pstate, expr);
	if (contain_mutable_functions(expr))
		ereport(ERROR, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
		                errmsg("functions in a pg_grail filter must be marked IMMUTABLE"),
		                errdetail("The filter decides which rows are edges at every build and every write; a "
		                          "function whose result can change would make the graph disagree with its rows."),
		                errhint("%s", filter_error_hint())));
	// A temporary object is stored as pg_temp.name, which names the temporary schema of whichever
	// session reads it back: every other session's write would fail, or call a function of that
	// session's own making, as the graph's owner.
	Node *temporary = nullptr;
	if (find_temporary_object(expr, &temporary))
		ereport(ERROR, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
		                errmsg("a pg_grail filter cannot use temporary functions, operators, types or collations"),
		                errdetail("The filter is read again by every session that writes, merges or queries the "
		                          "graph, where pg_temp is that session's own schema."),
		                errhint("%s", filter_error_hint())));
	List *vars = pull_var_clause(expr, 0);
	ListCell *cell;
	foreach (cell, vars) {
		Var *var = static_cast<Var *>(lfirst(cell));
		if (var->varattno <= 0)
			ereport(ERROR, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			                errmsg("a pg_grail filter may use only the edge table's own columns, not %s",
			                       var->varattno == 0 ? "a whole-row reference" : "a system column"),
			                errhint("%s", filter_error_hint())));
	}
	error_context_stack = callback.previous;
	return expr;
}

// Only pg_catalog on the search_path (no pg_temp): the stored text names every other object with
// its schema, and reads back the same whatever the caller's search_path.
class FixedSearchPath {
public:
	FixedSearchPath() {
		OverrideSearchPath *path = static_cast<OverrideSearchPath *>(palloc0(sizeof(OverrideSearchPath)));
		path->schemas = NIL;
		path->addCatalog = true;
		path->addTemp = false;
		PushOverrideSearchPath(path);
	}
	~FixedSearchPath() {
		PopOverrideSearchPath();
	}
};

// The stored text written and read under settings of its own: dates and times in ISO order,
// intervals in PostgreSQL's style, floats exactly (as pg_dump writes them), string literals with
// standard_conforming_strings on, NULL in an array literal as a null, xml as content, money in the
// C locale. The text is read again by every writer's trigger, merge and query, whose settings may
// differ: '04/03/2020'::date written under DateStyle = 'SQL, DMY' read as April 3 under MDY (and
// '15/03/2020' failed there, in every write to the edge table); 'a\b' is another string where
// standard_conforming_strings is off; '{1,NULL}'::int[] fails where array_nulls is off.
class PortableOutput {
public:
	PortableOutput() : level_(NewGUCNestLevel()) {
		set("datestyle", "ISO");
		set("intervalstyle", "postgres");
		set("extra_float_digits", "3");
		set("standard_conforming_strings", "on");
		set("array_nulls", "on");
		set("xmloption", "content");
		set("lc_monetary", "C");
	}
	~PortableOutput() {
		AtEOXact_GUC(true, level_);
	}

private:
	static void
	set(const char *name, const char *value) {
		(void)set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	}
	int level_;
};

// The columns the checked expression reads, by name, in attnum order.
std::vector<std::string>
var_names(Relation rel, Node *expr) {
	Bitmapset *attnums = nullptr;
	pull_varattnos(expr, 1, &attnums);
	std::vector<std::string> names;
	for (int member = -1; (member = bms_next_member(attnums, member)) >= 0;) {
		AttrNumber attnum = AttrNumber(member + FirstLowInvalidHeapAttributeNumber);
		names.emplace_back(NameStr(TupleDescAttr(RelationGetDescr(rel), attnum - 1)->attname));
	}
	return names;
}

// Raises unless the current role may read each column (by name) of relid.
void
check_readable(Oid relid, const std::vector<std::string> &columns) {
	for (const std::string &column : columns) {
		bool readable = guard([&] {
			AttrNumber attnum = get_attnum(relid, column.c_str());
			return pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
			       (attnum != InvalidAttrNumber &&
			        pg_attribute_aclcheck(relid, attnum, GetUserId(), ACL_SELECT) == ACLCHECK_OK);
		});
		if (!readable)
			raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
			      format("permission denied for column \"%s\" of table \"%s\"", column.c_str(), relation_name(relid)),
			      {},
			      "A graph with a filter may be built and queried only by roles that can read its filter's columns.");
	}
}

// Whether type (or the type a domain is over) is one of the reg* types, whose constants are
// written out as the name of the object their oid numbers.
bool
names_objects(Oid type) {
	switch (getBaseType(type)) {
	case REGPROCOID:
	case REGPROCEDUREOID:
	case REGOPEROID:
	case REGOPERATOROID:
	case REGCLASSOID:
	case REGTYPEOID:
	case REGROLEOID:
	case REGNAMESPACEOID:
	case REGCONFIGOID:
	case REGDICTIONARYOID:
	case REGCOLLATIONOID:
		return true;
	default:
		return false;
	}
}

// Finds the first constant of a reg* type (or an array of one) that names an object: the stored
// text would name it by name, looked up again at every read.
bool
find_object_constant(Node *node, void *context) {
	if (node == nullptr)
		return false;
	if (IsA(node, Const)) {
		auto *constant = reinterpret_cast<Const *>(node);
		if (constant->constisnull)
			return false;
		Oid element = get_element_type(getBaseType(constant->consttype));
		bool names = OidIsValid(element)
		                 ? names_objects(element)
		                 : names_objects(constant->consttype) && OidIsValid(DatumGetObjectId(constant->constvalue));
		if (names)
			*static_cast<Const **>(context) = constant;
		return names;
	}
	return expression_tree_walker(node, reinterpret_cast<bool (*)()>(find_object_constant), context);
}

// Refuses a filter that names a role, relation, function, type, ... by a reg* constant
// ('alice'::regrole): stored as text, it names the object by name, which is looked up again at
// every build, write and query. A rename would change which rows are edges (the build keeping the
// old object, the log and the next build the new one), and a drop would make every query and every
// write of the table fail. PostgreSQL's own stored expressions keep the oid instead.
void
check_object_constants(Node *expr, const char *text) {
	Const *constant = nullptr;
	if (!find_object_constant(expr, &constant))
		return;
	Oid output;
	bool varlena;
	getTypeOutputInfo(constant->consttype, &output, &varlena);
	char *value = OidOutputFunctionCall(output, constant->constvalue);
	ereport(ERROR,
	        (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
	         errmsg("a pg_grail filter cannot name an object by a %s constant, as \"%s\" does with '%s'",
	                format_type_be(constant->consttype), text, value),
	         errdetail("The filter is stored as text and read again at every build, write and query, where the name "
	                   "would be looked up again: a rename of the object would change which rows are edges, and a "
	                   "drop would make every query and every write to the edge table fail."),
	         errhint("Compare the column's oid with a number, as in column::oid <> 16384 (an oid stays the same "
	                 "across renames), or filter on another column.")));
}

// The search_path a filter's functions run under, whoever's statement runs them: the caller's
// would let a writer or reader choose what an unqualified name in the owner's function bodies
// calls, and run that as the owner (a function named lower in a schema put before pg_catalog). As
// PostgreSQL 17 runs maintenance operations; a function with its own SET search_path keeps it.
constexpr const char *kEvaluationSearchPath = "pg_catalog, pg_temp";

void
set_for_evaluation(const char *name, const char *value) {
	(void)set_config_option(name, value, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
}

// Sets, in the innermost settings level (a FilterSettings undoes them), the settings a filter is
// evaluated under wherever it runs, again where a filter function changed one while a loop over
// rows evaluated the last row: kEvaluationSearchPath, and the defaults of those that IMMUTABLE
// output functions read. Under a writer's extra_float_digits = 0, 0.1 + 0.2 printed as 0.3 and the
// writer's trigger left out a row that builds and merges take in (bytea_output = escape likewise).
void
use_evaluation_settings() {
	if (namespace_search_path == nullptr || strcmp(namespace_search_path, kEvaluationSearchPath) != 0)
		set_for_evaluation("search_path", kEvaluationSearchPath);
	if (extra_float_digits != 1)
		set_for_evaluation("extra_float_digits", "1");
	if (bytea_output != BYTEA_OUTPUT_HEX)
		set_for_evaluation("bytea_output", "hex");
}

// Names, in an error raised while a filter is planned or evaluated, where its functions run: an
// unqualified name in the owner's function body is looked up in kEvaluationSearchPath, which the
// error alone ("function f(text) does not exist" from a writer's INSERT) does not tell.
void
evaluation_error_context(void *) {
	errcontext("evaluating a pg_grail graph's filter as the graph's owner, with search_path %s (a function it "
	           "calls must qualify the names it uses or SET its search_path)",
	           kEvaluationSearchPath);
}

// The enclosing scope's errors have that context (an error's longjmp leaves the stack to its catcher).
class EvaluationContext {
public:
	EvaluationContext() {
		callback_.callback = evaluation_error_context;
		callback_.arg = nullptr;
		callback_.previous = error_context_stack;
		error_context_stack = &callback_;
	}
	~EvaluationContext() {
		error_context_stack = callback_.previous;
	}

private:
	ErrorContextCallback callback_;
};

// Runs the enclosing scope as role in a restricted security context; a transaction or
// subtransaction abort restores the caller's. What the owner's code sets there is undone by the
// FilterSettings around it.
class AsOwner {
public:
	explicit AsOwner(Oid role) {
		GetUserIdAndSecContext(&user_, &context_);
		if (OidIsValid(role))
			SetUserIdAndSecContext(role, context_ | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
	}
	~AsOwner() {
		SetUserIdAndSecContext(user_, context_);
	}

private:
	Oid user_;
	int context_;
};

} // namespace

CheckedFilter
check_new_filter(Oid relid, const char *text) {
	CheckedFilter out;
	char *sql = nullptr;
	std::vector<std::string> columns;
	guard([&] {
		Relation rel = table_open(relid, AccessShareLock);
		Node *raw = raw_filter(text);
		// In the caller's search_path, as the caller wrote it.
		Node *expr = transform_filter(rel, raw, text);
		check_object_constants(expr, text);
		{
			FixedSearchPath fixed;
			PortableOutput portable;
			List *context = deparse_context_for(RelationGetRelationName(rel), relid);
			sql = deparse_expression(expr, context, false, false);
			// The stored text must read back as the same expression: an object the fixed search_path
			// cannot name (a temporary one) would not.
			Node *again = transform_filter(rel, raw_filter(sql), sql);
			if (!equal(expr, again))
				ereport(ERROR,
				        (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				         errmsg("the pg_grail filter \"%s\" cannot be stored so that it reads back the same", text),
				         errdetail("Stored as \"%s\".", sql),
				         errhint("Use no temporary objects in a filter; name functions and operators with their "
				                 "schema.")));
		}
		columns = var_names(rel, expr);
		table_close(rel, NoLock);
	});
	out.sql = sql;
	out.columns = columns;
	check_readable(relid, out.columns);
	return out;
}

FilterSettings::FilterSettings() : level_(NewGUCNestLevel()) {
}

FilterSettings::~FilterSettings() {
	AtEOXact_GUC(false, level_);
}

bool
filter_columns_present(Relation rel, const char *sql) {
	PortableOutput portable;
	return missing_column(rel, raw_filter(sql)) == nullptr;
}

void
check_stored_filter(Oid relid, const std::string &sql, const char *graph, Oid owner) {
	std::vector<std::string> columns;
	guard([&] {
		Relation rel = table_open(relid, AccessShareLock);
		EdgeFilter filter;
		filter.open(rel, sql.c_str(), graph, owner);
		{
			// As the owner, who evaluates it: the caller needs no USAGE on the schemas of its functions.
			FilterSettings settings;
			AsOwner as_owner(owner);
			FixedSearchPath fixed;
			PortableOutput portable;
			columns = var_names(rel, transform_filter(rel, raw_filter(sql.c_str()), sql.c_str()));
		}
		filter.close();
		table_close(rel, NoLock);
	});
	check_readable(relid, columns);
}

void
EdgeFilter::open(Relation rel, const char *sql, const char *graph, Oid owner) {
	owner_ = owner;
	// The planner folds the owner's immutable functions over constants here: they run now.
	FilterSettings settings;
	AsOwner as_owner(owner_);
	PortableOutput portable;
	Node *raw = raw_filter(sql);
	if (const char *column = missing_column(rel, raw))
		ereport(ERROR,
		        (errcode(ERRCODE_UNDEFINED_COLUMN),
		         graph != nullptr ? errmsg("the filter of pg_grail graph \"%s\" uses column \"%s\", which table "
		                                   "\"%s\" no longer has",
		                                   graph, column, RelationGetRelationName(rel))
		                          : errmsg("the graph's filter uses column \"%s\", which table \"%s\" of its edge "
		                                   "table's family does not have",
		                                   column, RelationGetRelationName(rel)),
		         errdetail("The filter is: %s", sql),
		         errhint("Drop the graph with grail.drop_graph() and create it again with a filter over the table's "
		                 "columns.")));
	Node *expr;
	{
		FixedSearchPath fixed;
		expr = transform_filter(rel, raw, sql);
	}
	// Inlining a SQL function parses its body, and folding constants runs the owner's functions.
	use_evaluation_settings();
	Expr *planned;
	{
		EvaluationContext context;
		planned = expression_planner(reinterpret_cast<Expr *>(expr));
	}
	state_ = ExecInitQual(make_ands_implicit(planned), nullptr);
	context_ = CreateStandaloneExprContext();
}

bool
EdgeFilter::passes(TupleTableSlot *slot, const FilterSettings &) const {
	if (state_ == nullptr)
		return true;
	use_evaluation_settings();
	AsOwner as_owner(owner_);
	EvaluationContext context;
	context_->ecxt_scantuple = slot;
	bool pass = ExecQual(state_, context_);
	ResetExprContext(context_);
	return pass;
}

void
EdgeFilter::close() {
	if (context_ != nullptr)
		FreeExprContext(context_, true);
	context_ = nullptr;
	state_ = nullptr;
}

std::string
renamed_filter(Oid relid, const char *sql, const char *from, const char *to) {
	char *renamed = guard([&] {
		Relation rel = table_open(relid, AccessShareLock);
		Rename rename{from, to, rel};
		FixedSearchPath fixed;
		PortableOutput portable;
		Node *expr = transform_filter(rel, raw_filter(sql), sql, &rename);
		char *text = deparse_expression(expr, deparse_context_for(RelationGetRelationName(rel), relid), false, false);
		table_close(rel, NoLock);
		return text;
	});
	return renamed;
}

void
filter_reads_back(Oid relid, const char *sql) {
	guard([&] {
		ParseState *pstate = make_parsestate(nullptr);
		pstate->p_post_columnref_hook = column_from_catalog;
		pstate->p_ref_hook_state = &relid;
		FixedSearchPath fixed;
		PortableOutput portable;
		(void)checked_filter(pstate, raw_filter(sql), sql);
	});
}

} // namespace grail::pg
