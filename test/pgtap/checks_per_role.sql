-- A graph's privilege checks hold for the role that made them, not for the call site: plpgsql
-- keeps a simple expression's state (and so reachable()'s fn_extra) for a whole transaction, for
-- every caller. An owner's SECURITY DEFINER function that calls a shared invoker function must not
-- leave that function answering another role, in the same transaction and snapshot, from a table
-- it cannot read.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(7);

CREATE ROLE cpr_owner;
CREATE ROLE cpr_other;
CREATE SCHEMA cpr AUTHORIZATION cpr_owner;
GRANT USAGE ON SCHEMA cpr TO cpr_other;

SET ROLE cpr_owner;
CREATE TABLE cpr.secret_edges (s bigint, t bigint);
INSERT INTO cpr.secret_edges VALUES (1, 2), (2, 3);
SELECT grail.create_graph('cpr.secret_graph', 'cpr.secret_edges', 's', 't');
-- Shared, invoker: answers for whoever calls it.
CREATE FUNCTION cpr.reach_inv(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql
	AS $$ BEGIN RETURN grail.reachable('cpr.secret_graph', a, b); END $$;
-- The owner's API: runs the invoker function as the owner. Under the caller's search_path (no SET
-- clause: every name in it is qualified), so that plpgsql keeps the invoker function's plan, and
-- with it the call site, for both roles (pgTAP's temporary tables would make any other
-- search_path differ from the caller's).
CREATE FUNCTION cpr.reach_api() RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN RETURN cpr.reach_inv(1, 2); END $$;
-- Both calls in one subtransaction (the exception block's), so that the second one has the
-- first one's transaction, subtransaction, command and snapshot.
CREATE FUNCTION cpr.api_then_invoker(a bigint, b bigint) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF NOT cpr.reach_api() THEN
		RETURN 'the API answered wrong';
	END IF;
	RETURN 'answered ' || cpr.reach_inv(a, b);
EXCEPTION WHEN insufficient_privilege THEN
	RETURN 'permission denied';
END $$;
-- The owner's call as the owner, then as the owner under row_security = off while a policy
-- applies (FORCE ROW LEVEL SECURITY): the graph would show every row.
CREATE FUNCTION cpr.owner_then_forced(a bigint, b bigint) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF NOT cpr.reach_inv(1, 2) THEN
		RETURN 'the first call answered wrong';
	END IF;
	ALTER TABLE cpr.secret_edges ENABLE ROW LEVEL SECURITY;
	ALTER TABLE cpr.secret_edges FORCE ROW LEVEL SECURITY;
	RETURN 'answered ' || cpr.reach_inv(a, b);
EXCEPTION WHEN insufficient_privilege THEN
	RETURN 'refused';
END $$;
RESET ROLE;

SET ROLE cpr_other;
SELECT is(cpr.api_then_invoker(1, 3), 'permission denied',
	'after the owner''s API, the invoker function refuses the other role');
SELECT throws_ok($$SELECT cpr.reach_inv(1, 3)$$, '42501', NULL, 'control: the other role cannot query the graph');
SELECT is(cpr.reach_api(), true, 'control: the owner''s API answers the other role');
-- Outside a subtransaction, as the review ran it: one statement after the other.
SELECT is(cpr.reach_api(), true, 'the owner''s API answers again');
SELECT throws_ok($$SELECT cpr.reach_inv(5, 3)$$, '42501', NULL,
	'and the invoker function refuses the other role in the next statement');
RESET ROLE;

SET ROLE cpr_owner;
SELECT is(cpr.reach_inv(1, 3), true, 'the owner queries her graph');
SELECT is(cpr.owner_then_forced(1, 3), 'refused',
	'control: a policy forced on the owner within the statement refuses her next call');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
