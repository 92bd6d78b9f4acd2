-- Security: what an ordinary login role can and cannot do through pg_grail. Each
-- block reproduces an attack of the hostile review and asserts that it fails.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(62);

CREATE ROLE sec_attacker LOGIN;
CREATE ROLE sec_victim LOGIN;
CREATE ROLE sec_tenant_a LOGIN;
CREATE ROLE sec_tenant_b LOGIN;
CREATE SCHEMA sec_attacker AUTHORIZATION sec_attacker;
CREATE SCHEMA sec_victim AUTHORIZATION sec_victim;
GRANT USAGE ON SCHEMA sec_victim, sec_attacker TO PUBLIC;

-- The attacker's schema shadows pg_catalog's operators and functions (test/hostile_schema.sql):
-- a call by any role but the attacker means SQL ran with another role's rights under the
-- attacker's search_path.
\ir ../hostile_schema.sql
SET ROLE sec_attacker;
SELECT ok(pg_temp.plant_hostile_objects('sec_attacker') > 400, 'the hostile schema is planted');
-- The review's first exploit: an oid = regclass operator that makes its caller a superuser.
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
SELECT lives_ok($$SELECT grail.alter_graph('g', true)$$, 'attacker: alter_graph');
INSERT INTO sec_attacker.edges VALUES (5, 6);  -- logged as a pending change
SELECT is((SELECT pending_changes FROM grail.activity WHERE graph = 'g'), 1::bigint, 'attacker: the activity view');
SELECT lives_ok($$SELECT grail.merge_graph('g')$$, 'attacker: merge_graph');
SELECT lives_ok($$SELECT grail.alter_graph('g', false)$$, 'attacker: alter_graph back');
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
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'sec_victim.edges'::regclass), 5::bigint,
          'nor a trigger on the table (only the five of the owner''s graph)');
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
SELECT is(grail.reachable('deps', 1, 3), false, '(the victim''s own graph is live: it answers for the deletion)');
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
SELECT is((SELECT count(*) FROM grail.activity), 0::bigint, 'no USAGE: nor the activity view');
RESET ROLE;
GRANT USAGE ON SCHEMA sec_victim TO PUBLIC;

-- 3c. The graphs view shows a role only the graphs over edge columns it may read.
SET ROLE sec_tenant_a;
SELECT is((SELECT count(*) FROM grail.graphs), 0::bigint, 'no SELECT on the tables: no graphs listed');
SELECT is((SELECT count(*) FROM grail.activity), 0::bigint, 'no SELECT on the tables: no activity listed');
RESET ROLE;
-- pg_read_all_stats sees every graph's activity, as it sees every session's in pg_stat_activity.
GRANT pg_read_all_stats TO sec_tenant_a;
SELECT count(*) AS graph_count FROM grail.graph \gset
SET ROLE sec_tenant_a;
SELECT is((SELECT count(*) FROM grail.activity), :graph_count::bigint, 'pg_read_all_stats: all graphs in the activity view');
SELECT ok(:graph_count > 0, 'there are graphs to see');
RESET ROLE;
REVOKE pg_read_all_stats FROM sec_tenant_a;

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
SELECT is((SELECT count(*) FROM grail.activity WHERE graph = 'tenants'), 0::bigint, 'nor in the activity view');
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

-- 4b. A role that owns graphs: DROP ROLE refuses it, REASSIGN OWNED hands its graphs over and
-- DROP OWNED drops them, as for its tables (a fresh session without the library loaded first:
-- test/t/007_security.pl).
CREATE ROLE sec_leaver;
GRANT CREATE ON SCHEMA sec_victim TO sec_leaver;
GRANT SELECT, TRIGGER, UPDATE ON sec_victim.edges TO sec_leaver;
SET ROLE sec_leaver;
SELECT grail.create_graph('sec_victim.leaver', 'sec_victim.edges');
RESET ROLE;
SELECT throws_like($$DROP ROLE sec_leaver$$, 'role cannot be dropped because it owns pg_grail graphs',
                   'DROP ROLE refuses a role that owns graphs');
REASSIGN OWNED BY sec_leaver TO sec_victim;
SELECT is((SELECT owner::text FROM grail.graph WHERE name = 'leaver'), 'sec_victim', 'REASSIGN OWNED hands graphs over');
SET ROLE sec_leaver;
SELECT grail.create_graph('sec_victim.leaver2', 'sec_victim.edges');
RESET ROLE;
DROP OWNED BY sec_leaver;
SELECT is((SELECT array_agg(name::text ORDER BY name) FROM grail.graph WHERE name LIKE 'leaver%'), '{leaver}',
          'DROP OWNED drops the role''s graphs');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'sec_victim.edges'::regclass AND tgname LIKE 'grail\_log\_%'),
          (SELECT 5 * count(*) FROM grail.graph WHERE relid = 'sec_victim.edges'::regclass), 'and their triggers');
SELECT lives_ok($$DROP ROLE sec_leaver$$, 'then the role can be dropped');

-- 4b2. save_chordless_cycles() is plpgsql run as its caller under the caller's search_path: its own
-- comparisons are qualified, so a role that puts an attacker's schema before pg_catalog calls no
-- shadow through it (an unqualified > did).
DELETE FROM sec_attacker.elevated;
CREATE TABLE sec_victim.saved_edges (source bigint, target bigint);
INSERT INTO sec_victim.saved_edges VALUES (1, 2), (2, 3), (3, 1);
ALTER TABLE sec_victim.saved_edges OWNER TO sec_victim;
SET ROLE sec_victim;
SELECT grail.create_graph('sec_victim.saved', 'sec_victim.saved_edges');
-- (pgTAP's own functions would call shadows under that path: the answer is checked after.)
SET search_path = sec_attacker, pg_catalog, public;
SELECT grail.save_chordless_cycles('sec_victim.saved', 'sec_victim.saved_cycles') AS saved_cycles \gset
-- Every other entry point, as the victim under that path: what runs as the caller must not look
-- up names in it either. (A filter is read under it, as an index expression is: qualified here.)
SELECT grail.create_graph('sec_victim.vg', 'sec_victim.saved_edges',
                          filter => 'source OPERATOR(pg_catalog.>) 0 AND target OPERATOR(pg_catalog.<>) 7') IS NOT NULL;
SELECT grail.reachable('sec_victim.vg', 1, 3), grail.reachable('sec_victim.vg', '1', '3'),
       grail.reachable('sec_victim.vg', ARRAY[1, 2], ARRAY[3, 9]), grail.path('sec_victim.vg', 1, 3),
       grail.find_cycle('sec_victim.vg', 1), grail.scc_component('sec_victim.vg', 2);
SELECT count(*) FROM grail.bfs('sec_victim.vg', 1);
SELECT count(*) FROM grail.bfs('sec_victim.vg', 1, NULL, 'both');
SELECT count(*) FROM grail.descendants('sec_victim.vg', 1) WHERE depth OPERATOR(pg_catalog.<=) 2;
SELECT count(*) FROM grail.ancestors('sec_victim.vg', 1);
SELECT count(*) FROM grail.scc_components('sec_victim.vg');
SELECT count(*) FROM grail.chordless_cycles('sec_victim.vg');
SELECT count(*) FROM grail.explain_graph('sec_victim.vg');
INSERT INTO sec_victim.saved_edges VALUES (3, 4), (4, 5);
SELECT grail.reachable('sec_victim.vg', 1, 5), grail.reachable('sec_victim.vg', ARRAY[1], ARRAY[5]);
SELECT count(*) FROM grail.bfs('sec_victim.vg', 1);
SELECT count(*) FROM grail.graphs WHERE name OPERATOR(pg_catalog.=) 'vg';
SELECT count(*) FROM grail.activity WHERE graph OPERATOR(pg_catalog.=) 'vg';
SELECT grail.merge_graph('sec_victim.vg') IS NOT NULL;
SELECT grail.alter_graph('sec_victim.vg', false);
SELECT grail.refresh_graph('sec_victim.vg') IS NOT NULL;
SELECT grail.drop_graph('sec_victim.vg');
RESET search_path;
RESET ROLE;
SELECT is(:'saved_cycles'::bigint, 1::bigint, 'a victim with the hostile schema first: save_chordless_cycles');
SELECT is((SELECT array_agg(what) FROM sec_attacker.elevated), NULL,
          'and no shadow ran with the victim''s rights, in it or in any other entry point');

-- 4c. The extension installs only into a grail schema of its own: a schema that another role
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
