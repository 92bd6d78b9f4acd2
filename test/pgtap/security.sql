-- Security: what an ordinary login role can and cannot do through pg_grail (issue 11). Each
-- block reproduces an attack of the hostile review and asserts that it fails.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(45);

CREATE ROLE sec_attacker LOGIN;
CREATE ROLE sec_victim LOGIN;
CREATE ROLE sec_tenant_a LOGIN;
CREATE ROLE sec_tenant_b LOGIN;
CREATE SCHEMA sec_attacker AUTHORIZATION sec_attacker;
CREATE SCHEMA sec_victim AUTHORIZATION sec_victim;
GRANT USAGE ON SCHEMA sec_victim, sec_attacker TO PUBLIC;

-- The attacker's schema shadows, for the exact argument types, every comparison, concatenation
-- and arithmetic operator of pg_catalog, the cross-type comparisons that pg_catalog lacks (oid
-- against reg* types, which resolve through casts), and every plain function the extension's SQL
-- calls. Each shadow gives the right answer and records who called it: a call by any role but
-- the attacker means SQL ran with another role's rights under the attacker's search_path.
SET ROLE sec_attacker;
CREATE TABLE sec_attacker.elevated (who name, what text);
GRANT INSERT ON sec_attacker.elevated TO PUBLIC;
CREATE FUNCTION sec_attacker.note(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	IF current_user OPERATOR(pg_catalog.<>) 'sec_attacker'::pg_catalog.name THEN
		INSERT INTO sec_attacker.elevated VALUES (current_user, what);
	END IF;
END $$;
DO $$
DECLARE
	o record;
	f record;
	n int := 0;
BEGIN
	FOR o IN
		SELECT p.oprname, p.oprleft::regtype AS l, p.oprright::regtype AS r, p.oprresult::regtype AS res
		FROM pg_catalog.pg_operator p
		JOIN pg_catalog.pg_type lt ON lt.oid OPERATOR(pg_catalog.=) p.oprleft
		JOIN pg_catalog.pg_type rt ON rt.oid OPERATOR(pg_catalog.=) p.oprright
		JOIN pg_catalog.pg_type xt ON xt.oid OPERATOR(pg_catalog.=) p.oprresult
		WHERE p.oprnamespace OPERATOR(pg_catalog.=) 'pg_catalog'::regnamespace
		  AND p.oprname OPERATOR(pg_catalog.=) ANY ('{=,<>,<,>,<=,>=,||,+,-}'::name[])
		  AND lt.typtype OPERATOR(pg_catalog.<>) 'p' AND rt.typtype OPERATOR(pg_catalog.<>) 'p'
		  AND xt.typtype OPERATOR(pg_catalog.<>) 'p'
		UNION ALL
		SELECT op, l::regtype, r::regtype, 'boolean'::regtype
		FROM unnest('{=,<>}'::text[]) op,
		     (VALUES ('oid', 'regclass'), ('regclass', 'oid'), ('oid', 'regrole'), ('regrole', 'oid'),
		             ('oid', 'regnamespace'), ('regnamespace', 'oid'), ('oid', 'regproc'), ('bigint', 'numeric')) t(l, r)
	LOOP
		n := n OPERATOR(pg_catalog.+) 1;
		EXECUTE pg_catalog.format(
			'CREATE FUNCTION sec_attacker.op_%s(a %s, b %s) RETURNS %s LANGUAGE plpgsql AS $f$ '
			'BEGIN PERFORM sec_attacker.note(%L); RETURN a::%s OPERATOR(pg_catalog.%s) b::%s; END $f$',
			n, o.l, o.r, o.res, o.oprname || ' ' || o.l || ', ' || o.r,
			CASE WHEN o.l::text ~ '^reg' THEN 'oid' ELSE o.l::text END, o.oprname,
			CASE WHEN o.r::text ~ '^reg' THEN 'oid' ELSE o.r::text END);
		EXECUTE pg_catalog.format('CREATE OPERATOR sec_attacker.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = sec_attacker.op_%s)',
		                          o.oprname, o.l, o.r, n);
	END LOOP;
	FOR f IN
		SELECT p.proname, pg_catalog.pg_get_function_identity_arguments(p.oid) AS args,
		       p.prorettype::regtype AS res, p.pronargs
		FROM pg_catalog.pg_proc p
		WHERE p.pronamespace OPERATOR(pg_catalog.=) 'pg_catalog'::regnamespace
		  AND p.prokind OPERATOR(pg_catalog.=) 'f' AND NOT p.proretset AND p.provariadic OPERATOR(pg_catalog.=) 0
		  AND p.proname OPERATOR(pg_catalog.=) ANY ('{nextval,now,hashtext,pg_advisory_xact_lock,array_position,
		      has_column_privilege,has_schema_privilege,has_table_privilege,row_security_active,quote_ident,
		      quote_literal,current_schema,int8,int4,int2,text,oid,cardinality,parse_ident,concat,lower,upper,
		      length,textcat,btrim,replace,to_regclass,regclass,array_length,array_append,array_cat}'::name[])
		  AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proargtypes::oid[] OPERATOR(pg_catalog.||) p.prorettype) t
		                  JOIN pg_catalog.pg_type ty ON ty.oid OPERATOR(pg_catalog.=) t
		                  WHERE ty.typtype OPERATOR(pg_catalog.=) 'p')
	LOOP
		n := n OPERATOR(pg_catalog.+) 1;
		EXECUTE pg_catalog.format(
			'CREATE FUNCTION sec_attacker.%I(%s) RETURNS %s LANGUAGE plpgsql AS $f$ '
			'BEGIN PERFORM sec_attacker.note(%L); RETURN pg_catalog.%I(%s); END $f$',
			f.proname, f.args, f.res, f.proname || '(' || f.args || ')', f.proname,
			(SELECT pg_catalog.string_agg('$' || i, ', ') FROM pg_catalog.generate_series(1, f.pronargs) i));
	END LOOP;
END $$;
-- The issue's exploit itself: an oid = regclass operator that makes its caller a superuser.
CREATE FUNCTION sec_attacker.escalate(oid, regclass) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF current_user OPERATOR(pg_catalog.<>) 'sec_attacker'::pg_catalog.name THEN
		EXECUTE 'ALTER ROLE sec_attacker SUPERUSER';
	END IF;
	RETURN $1 OPERATOR(pg_catalog.=) $2::oid;
END $$;
DROP OPERATOR sec_attacker.= (oid, regclass);
CREATE OPERATOR sec_attacker.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = sec_attacker.escalate);
CREATE TABLE sec_attacker.edges (source bigint, target bigint);
INSERT INTO sec_attacker.edges VALUES (1, 2), (2, 3), (3, 1), (3, 4);
RESET ROLE;

-- The shadows work: an unqualified comparison run by another role under that search_path calls
-- one (so the checks below would catch SQL that is not immune).
SET search_path = sec_attacker, pg_catalog, public;
SELECT 'a'::text = 'a'::text;
RESET search_path;
SELECT ok((SELECT count(*) FROM sec_attacker.elevated) > 0, 'control: the hostile operators are found first');
DELETE FROM sec_attacker.elevated;

-- 1. Every entry point, called by the attacker with the hostile schema first on its search_path.
SET ROLE sec_attacker;
SET search_path = sec_attacker, pg_catalog, public;
SELECT lives_ok($$SELECT grail.create_graph('g', 'sec_attacker.edges')$$, 'attacker: create_graph');
SELECT is(grail.reachable('g', 1, 4), true, 'attacker: reachable');
SELECT is(grail.reachable('g', ARRAY[1, 4]::bigint[], ARRAY[4, 1]::bigint[]), '{t,f}', 'attacker: reachable, arrays');
SELECT is((SELECT count(*) FROM grail.scc_components('g')), 4::bigint, 'attacker: scc_components');
SELECT is(grail.scc_component('g', 3), 1::bigint, 'attacker: scc_component');
SELECT is((SELECT count(*) FROM grail.bfs('g', 1)), 4::bigint, 'attacker: bfs');
SELECT is((SELECT count(*) FROM grail.chordless_cycles('g')), 1::bigint, 'attacker: chordless_cycles');
SELECT is((SELECT count(*) FROM grail.chordless_cycle_counts('g')), 1::bigint, 'attacker: chordless_cycle_counts');
SELECT is(grail.save_chordless_cycles('g', 'sec_attacker.saved'), 1::bigint, 'attacker: save_chordless_cycles');
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'g'), 1::bigint, 'attacker: the graphs view');
INSERT INTO sec_attacker.edges VALUES (4, 5);  -- fires the staleness trigger
SELECT throws_ok($$SELECT grail.reachable('g', 1, 5)$$, '55000', NULL, 'attacker: a stale graph');
SELECT lives_ok($$SELECT grail.refresh_graph('g')$$, 'attacker: refresh_graph');
SELECT lives_ok($$SELECT grail.drop_graph('g')$$, 'attacker: drop_graph');
SELECT lives_ok($$SELECT grail.create_graph('g2', 'sec_attacker.edges')$$, 'attacker: create_graph again');
DROP TABLE sec_attacker.edges;  -- fires the event trigger that drops g2
RESET search_path;
RESET ROLE;
SELECT is((SELECT count(*) FROM grail.graph g WHERE g.name IN ('g', 'g2')), 0::bigint,
          'the event trigger dropped the graph of the dropped table');
SELECT is((SELECT string_agg(DISTINCT who || ': ' || what, '; ') FROM sec_attacker.elevated), NULL,
          'no hostile operator or function ran with any rights but the attacker''s');
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'sec_attacker'), false, 'the attacker is no superuser');

-- 2. A SELECT-only role can neither lock another role's table nor leave a trigger on it (that no
-- lock is taken, not even waited for, needs two sessions: test/t/007_security.pl).
SET ROLE sec_victim;
CREATE TABLE sec_victim.edges (source bigint, target bigint);
INSERT INTO sec_victim.edges VALUES (1, 2), (2, 3);
GRANT SELECT ON sec_victim.edges TO sec_attacker;
SELECT lives_ok($$SELECT grail.create_graph('sec_victim.deps', 'sec_victim.edges')$$, 'the owner builds a graph');
RESET ROLE;
SET ROLE sec_attacker;
SELECT throws_ok($$SELECT grail.create_graph('sec_attacker.over_victim', 'sec_victim.edges')$$, '42501', NULL,
                 'SELECT alone does not let a role build over another role''s table');
RESET ROLE;
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'sec_victim.edges'::regclass), 1::bigint,
          'nor a trigger on the table (only the owner''s graph''s)');
SET ROLE sec_victim;
GRANT TRIGGER, UPDATE ON sec_victim.edges TO sec_attacker;
RESET ROLE;
SET ROLE sec_attacker;
SELECT lives_ok($$SELECT grail.create_graph('sec_attacker.over_victim', 'sec_victim.edges')$$,
                'TRIGGER with UPDATE (what LOCK ... IN SHARE MODE needs) is enough');
SELECT grail.create_graph('sec_attacker.deps', 'sec_victim.edges');
RESET ROLE;
SET ROLE sec_victim;
REVOKE TRIGGER ON sec_victim.edges FROM sec_attacker;
RESET ROLE;
SET ROLE sec_attacker;
SELECT throws_ok($$SELECT grail.refresh_graph('sec_attacker.over_victim')$$, '42501', NULL,
                 'a refresh checks the rights again');

-- 3a. Graph names are schema objects: no role can put a graph where another role looks.
SELECT throws_like($$SELECT grail.create_graph('public.deps', 'sec_attacker.saved')$$,
                   'permission denied for schema public', 'a graph needs CREATE on its schema');
RESET ROLE;
SET ROLE sec_victim;
SET search_path = sec_victim, public;
SELECT is(grail.reachable('deps', 1, 3), true, 'an unqualified name finds the graph of the search_path''s schema');
DELETE FROM sec_victim.edges WHERE source = 2;
SELECT throws_ok($$SELECT grail.reachable('deps', 1, 3)$$, '55000', NULL, '(the victim''s own graph, now stale)');
SELECT lives_ok($$SELECT grail.refresh_graph('deps')$$, 'the owner refreshes it');
SELECT is(grail.reachable('sec_victim.deps', 1, 3), false, 'a qualified name names one graph');
SELECT throws_like($$SELECT grail.drop_graph('sec_attacker.deps')$$, 'must be owner of pg_grail graph%',
                   'another role''s graph cannot be dropped');
RESET search_path;
RESET ROLE;

-- 3b. Schema USAGE is needed to build over a table or query a graph over it.
REVOKE USAGE ON SCHEMA sec_victim FROM PUBLIC;
SET ROLE sec_attacker;
SELECT throws_like($$SELECT grail.reachable('sec_attacker.deps', 1, 2)$$, 'permission denied for schema sec_victim',
                   'no USAGE on the edge table''s schema: no answers');
SELECT throws_like(pg_catalog.format('SELECT grail.create_graph(%L, %s::oid::regclass)', 'sec_attacker.by_oid',
                                     (SELECT oid FROM pg_class WHERE relname = 'edges' AND relnamespace = 'sec_victim'::regnamespace)),
                   'permission denied for schema sec_victim', 'no USAGE: no build, even by oid');
SELECT is((SELECT count(*) FROM grail.graphs), 0::bigint, 'no USAGE: the graphs view shows none of them');
RESET ROLE;
GRANT USAGE ON SCHEMA sec_victim TO PUBLIC;

-- 3c. The graphs view shows a role only the graphs over edge columns it may read.
SET ROLE sec_tenant_a;
SELECT is((SELECT count(*) FROM grail.graphs), 0::bigint, 'no SELECT on the tables: no graphs listed');
RESET ROLE;

-- 3d. Row-level security: no role learns through a graph a row its policies hide.
SET ROLE sec_victim;
CREATE TABLE sec_victim.tenant_edges (source bigint, target bigint, tenant name);
INSERT INTO sec_victim.tenant_edges VALUES (1, 2, 'sec_tenant_a'), (2, 3, 'sec_tenant_b'), (3, 4, 'sec_tenant_a');
ALTER TABLE sec_victim.tenant_edges ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant ON sec_victim.tenant_edges USING (tenant = current_user);
GRANT SELECT, UPDATE, TRIGGER ON sec_victim.tenant_edges TO sec_tenant_a, sec_tenant_b;
GRANT CREATE ON SCHEMA sec_victim TO sec_tenant_a;
RESET ROLE;
SET ROLE sec_tenant_a;
SELECT throws_like($$SELECT grail.create_graph('sec_victim.tenants_a', 'sec_victim.tenant_edges')$$,
                   'row-level security of table "tenant_edges" applies to role "sec_tenant_a"%',
                   'a role under the table''s policies cannot build a graph over it');
RESET ROLE;
SET ROLE sec_victim;
SELECT lives_ok($$SELECT grail.create_graph('sec_victim.tenants', 'sec_victim.tenant_edges')$$,
                'the owner, who bypasses the policies, can');
SELECT is(grail.reachable('sec_victim.tenants', 1, 4), true, 'and queries it over every row');
RESET ROLE;
SET ROLE sec_tenant_b;
SELECT throws_ok($$SELECT grail.reachable('sec_victim.tenants', 1, 2)$$, '42501', NULL,
                 'a role under the policies cannot query it');
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'tenants'), 0::bigint, 'nor see it listed');
RESET ROLE;
SET ROLE sec_victim;
CREATE TABLE sec_victim.later (source bigint, target bigint);
INSERT INTO sec_victim.later VALUES (1, 2);
GRANT SELECT ON sec_victim.later TO sec_tenant_b;
SELECT grail.create_graph('sec_victim.later', 'sec_victim.later');
ALTER TABLE sec_victim.later ENABLE ROW LEVEL SECURITY;
RESET ROLE;
SET ROLE sec_tenant_b;
SELECT throws_ok($$SELECT grail.reachable('sec_victim.later', 1, 2)$$, '42501', NULL,
                 'row-level security enabled after the build is caught');
RESET ROLE;

-- 4a. save_chordless_cycles() resolves its table name once: a temporary table of that name is
-- not where the rows go when the name creates a table elsewhere.
CREATE TABLE sec_cycles (source bigint, target bigint);
INSERT INTO sec_cycles VALUES (1, 2), (2, 3), (3, 1);
SELECT grail.create_graph('sec_cycles', 'sec_cycles');
CREATE TEMP TABLE out1 (id bigint, length int, vertices bigint[]);
SELECT is(grail.save_chordless_cycles('sec_cycles', 'out1'), 1::bigint, 'save_chordless_cycles into an unqualified name');
SELECT is((SELECT count(*) FROM public.out1), 1::bigint, 'the rows are in the table it created');
SELECT is((SELECT count(*) FROM pg_temp.out1), 0::bigint, 'not in the temporary table of that name');

-- 4b. The extension installs only into a grail schema of its own: a schema that another role
-- made first (and could change under the extension) is refused.
SELECT grail.drop_graph(g.namespace::text || '.' || quote_ident(g.name)) FROM grail.graph g;
DROP EXTENSION pg_grail;
DROP SCHEMA grail;
CREATE SCHEMA grail AUTHORIZATION sec_attacker;
SELECT throws_ok($$CREATE EXTENSION pg_grail$$, '42P06', NULL, 'a grail schema of another role is refused');
ALTER SCHEMA grail OWNER TO CURRENT_USER;
CREATE FUNCTION grail.planted() RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT throws_ok($$CREATE EXTENSION pg_grail$$, '42P06', NULL, 'so is one that holds objects');
DROP FUNCTION grail.planted();
SELECT lives_ok($$CREATE EXTENSION pg_grail$$, 'an empty one of the installing role is used');

SELECT * FROM finish();
ROLLBACK;
