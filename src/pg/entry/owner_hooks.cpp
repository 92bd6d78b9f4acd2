// Graph owners are roles that PostgreSQL's dependency tracking (pg_shdepend) does not know about,
// since a graph is a row of grail.graph, not a catalog object. This hook gives graphs what
// pg_shdepend gives tables: DROP ROLE refuses a role that owns graphs, REASSIGN OWNED hands them
// over, DROP OWNED drops them. Like DROP OWNED and REASSIGN OWNED themselves, it sees the current
// database only, and only backends that have loaded pg_grail run it (every backend, with
// shared_preload_libraries = 'pg_grail'; see README, Security).
//
// ALTER TABLE (VIEW, MATERIALIZED VIEW, FOREIGN TABLE) ... OWNER TO hands the relation's graphs
// that its old owner owned to the new owner, as it hands over the table's indexes: a graph's
// builds and merges need rights on the table that its old owner may have had only as the owner
// (background merges of a live graph would fail from then on, and only a superuser could merge).
// A graph that another role made (with TRIGGER and write rights granted on the table) stays that
// role's.
//
// The same hook follows two-phase commits for the merge launcher: the changes that a prepared
// transaction logged are counted when COMMIT PREPARED commits them (src/pg/store/activity.cpp).
#include "index.hpp"

#include <string>
#include <vector>

#include "boundary/pg_calls.hpp"
#include "store/activity.hpp"
#include "store/catalog.hpp"
#include "service/lifecycle.hpp"
#include "entry/owner_hooks.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/acl.h"
}

namespace grail::pg {

static ProcessUtility_hook_type previous_hook = nullptr;

/*
 * The oids of a list of RoleSpecs; roles that do not exist are left out (the command itself
 * reports them).
 */
static std::vector<Oid>
role_oids(List *roles) {
	std::vector<Oid> oids;
	ListCell *cell;
	foreach (cell, roles) {
		auto *spec = static_cast<RoleSpec *>(lfirst(cell));
		Oid role = guard([&] { return get_rolespec_oid(spec, true); });
		if (OidIsValid(role))
			oids.push_back(role);
	}
	return oids;
}

static void
refuse_dropping_owners(DropRoleStmt *stmt) {
	std::vector<Oid> roles = role_oids(stmt->roles);
	if (roles.empty() || !extension_in_step())
		return;
	std::vector<OwnedGraph> graphs = graphs_owned_by(roles);
	if (graphs.empty())
		return;
	std::string names;
	for (const OwnedGraph &g : graphs)
		names += (names.empty() ? "" : ", ") + g.name;
	raise(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST, "role cannot be dropped because it owns pg_grail graphs",
	      "Drop them with grail.drop_graph(), or hand them over with REASSIGN OWNED or drop them with DROP OWNED, as "
	      "for the role's tables.",
	      "Graphs in this database: " + names + ".");
}

/*
 * REASSIGN OWNED fires no event trigger, so grail_on_owner_change never sees it: a superuser that
 * installed pg_grail or took one of its objects, reassigned to a plain role (as before DROP ROLE),
 * would hand them over unseen, and with them code that runs with other roles' rights (README,
 * Security). Refused before it runs, where the new owner is not a superuser.
 */
static void
refuse_reassigning_extension_objects(ReassignOwnedStmt *stmt) {
	std::vector<Oid> roles = role_oids(stmt->roles);
	if (roles.empty() || !extension_in_step())
		return;
	Oid new_owner = guard([&] { return get_rolespec_oid(stmt->newrole, true); });
	if (!OidIsValid(new_owner) || guard([&] { return superuser_arg(new_owner); }))
		return;
	// A caller without the rights of every role named gets PostgreSQL's own refusal.
	Oid caller = guard([] { return GetUserId(); });
	for (Oid role : roles)
		if (!has_privileges_of(caller, role))
			return;
	if (!has_privileges_of(caller, new_owner))
		return;
	std::vector<std::string> objects = extension_objects_owned_by(roles);
	if (objects.empty())
		return;
	std::string others = objects.size() == 1
	                         ? std::string("It is the only one.")
	                         : std::to_string(objects.size() - 1) + " more of pg_grail's objects would go too.";
	raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
	      format("REASSIGN OWNED would leave pg_grail's %s to role \"%s\", which is not a superuser",
	             objects[0].c_str(), role_name(new_owner)),
	      "Give pg_grail's objects to a superuser first (ALTER ... OWNER TO), or reassign to a superuser.",
	      others + " Their owner could change them, and they run with other roles' rights.");
}

/*
 * The relation whose owner the statement changes (ALTER TABLE and its kin with an OWNER TO
 * subcommand) and its owner before, InvalidOid where it changes none or names no relation (the
 * command itself reports that).
 */
struct OwnerChange {
	Oid relid = InvalidOid;
	Oid old_owner = InvalidOid;
};

static OwnerChange
owner_change(Node *stmt) {
	if (!IsA(stmt, AlterTableStmt))
		return {};
	auto *alter = castNode(AlterTableStmt, stmt);
	bool changes_owner = false;
	ListCell *cell;
	foreach (cell, alter->cmds)
		changes_owner = changes_owner || castNode(AlterTableCmd, lfirst(cell))->subtype == AT_ChangeOwner;
	if (!changes_owner || alter->relation == nullptr)
		return {};
	Oid relid = guard([&] { return RangeVarGetRelid(alter->relation, NoLock, true); });
	return OidIsValid(relid) ? OwnerChange{relid, relation_owner(relid)} : OwnerChange{};
}

/*
 * As ALTER TABLE ... OWNER TO refuses a new owner without CREATE on the table's schema (unless a
 * superuser runs it), so for the schema of each graph it hands over: without it, the new owner
 * could neither refresh, merge nor drop the graph (its name is looked up in that schema), nor could
 * its old owner, and only a superuser could.
 */
static void
refuse_owner_without_create(Oid relid, Oid old_owner, Oid new_owner) {
	if (guard([] { return superuser(); }))
		return;
	std::vector<OwnedGraph> graphs = graphs_new_owner_cannot_create(relid, old_owner, new_owner);
	if (graphs.empty())
		return;
	std::string names;
	for (const OwnedGraph &g : graphs)
		names += (names.empty() ? "" : ", ") + g.name;
	raise(ERRCODE_INSUFFICIENT_PRIVILEGE,
	      format("the new owner has no CREATE on the schema of pg_grail graph %s, which the owner change hands "
	             "over with the table",
	             names.c_str()),
	      "Grant the new owner CREATE on that schema, or drop the graph first (grail.drop_graph()).",
	      "ALTER ... OWNER TO gives the table's graphs of its old owner to the new owner, as it needs CREATE "
	      "on the table's own schema.");
}

/*
 * ALTER SCHEMA ... RENAME of a schema of pg_grail (grail, grail_internal) is refused before it runs:
 * the extension's functions, triggers and its library name their objects by those schemas, so
 * after a rename every graph function, every logged write and the event triggers would fail (the
 * first of them, on this very command, with "relation grail.graph does not exist").
 */
static void
refuse_renaming_extension_schema(RenameStmt *stmt) {
	if (stmt->renameType != OBJECT_SCHEMA || stmt->subname == nullptr)
		return;
	Oid schema = guard([&] { return get_namespace_oid(stmt->subname, true); });
	bool ours = OidIsValid(schema) && extension_schema(schema);
	if (ours)
		raise(ERRCODE_FEATURE_NOT_SUPPORTED,
		      format("cannot rename schema \"%s\": it belongs to extension pg_grail, whose functions, triggers and "
		             "library name it",
		             stmt->subname),
		      "pg_grail's schemas keep their names; to have the graph functions under another name, make "
		      "wrappers or views in a schema of your own.");
}

static void
process_utility(PlannedStmt *pstmt, const char *query, bool read_only_tree, ProcessUtilityContext context,
                ParamListInfo params, QueryEnvironment *env, DestReceiver *dest, QueryCompletion *qc) {
	Node *stmt = pstmt->utilityStmt;
	TransactionStmt *transaction = IsA(stmt, TransactionStmt) ? castNode(TransactionStmt, stmt) : nullptr;
	OwnerChange owner_changed;
	if (IsA(stmt, AlterTableStmt)) {
		struct Args {
			Node *stmt;
			OwnerChange *change;
		} args{stmt, &owner_changed};
		call_and_raise(
		    [](void *a) {
			    auto *args = static_cast<Args *>(a);
			    *args->change = owner_change(args->stmt);
		    },
		    &args);
	}
	if (IsA(stmt, DropRoleStmt)) {
		call_and_raise([](void *s) { refuse_dropping_owners(static_cast<DropRoleStmt *>(s)); }, stmt);
	} else if (IsA(stmt, RenameStmt)) {
		call_and_raise([](void *s) { refuse_renaming_extension_schema(static_cast<RenameStmt *>(s)); }, stmt);
	} else if (IsA(stmt, ReassignOwnedStmt)) {
		call_and_raise([](void *s) { refuse_reassigning_extension_objects(static_cast<ReassignOwnedStmt *>(s)); },
		               stmt);
	} else if (transaction != nullptr && transaction->kind == TRANS_STMT_PREPARE) {
		note_prepare_transaction(transaction->gid);
	}
	if (previous_hook)
		previous_hook(pstmt, query, read_only_tree, context, params, env, dest, qc);
	else
		standard_ProcessUtility(pstmt, query, read_only_tree, context, params, env, dest, qc);
	// COMMIT PREPARED has committed the prepared transaction by now; ROLLBACK PREPARED rolled it back.
	if (transaction != nullptr &&
	    (transaction->kind == TRANS_STMT_COMMIT_PREPARED || transaction->kind == TRANS_STMT_ROLLBACK_PREPARED))
		note_prepared_finished(transaction->gid, transaction->kind == TRANS_STMT_COMMIT_PREPARED);
	// After the command itself, which checked the caller's right to act for these roles.
	if (OidIsValid(owner_changed.relid)) {
		call_and_raise(
		    [](void *c) {
			    auto *change = static_cast<OwnerChange *>(c);
			    Oid new_owner = relation_owner(change->relid);
			    if (OidIsValid(new_owner) && new_owner != change->old_owner && extension_in_step()) {
				    refuse_owner_without_create(change->relid, change->old_owner, new_owner);
				    hand_over_relation_graphs(change->relid, change->old_owner, new_owner);
			    }
		    },
		    &owner_changed);
	} else if (IsA(stmt, ReassignOwnedStmt)) {
		call_and_raise(
		    [](void *s) {
			    auto *reassign = static_cast<ReassignOwnedStmt *>(s);
			    std::vector<Oid> roles = role_oids(reassign->roles);
			    if (!roles.empty() && extension_in_step())
				    reassign_graphs(roles, guard([&] { return get_rolespec_oid(reassign->newrole, false); }));
		    },
		    stmt);
	} else if (IsA(stmt, DropOwnedStmt)) {
		call_and_raise(
		    [](void *s) {
			    std::vector<Oid> roles = role_oids(static_cast<DropOwnedStmt *>(s)->roles);
			    if (roles.empty() || !extension_in_step())
				    return;
			    for (const OwnedGraph &g : graphs_owned_by(roles))
				    drop_graph(g.id);
		    },
		    stmt);
	}
}

void
install_owner_hooks() {
	previous_hook = ProcessUtility_hook;
	ProcessUtility_hook = process_utility;
}

} // namespace grail::pg
