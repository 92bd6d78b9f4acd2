-- Materialized views and views as edge sources. A graph over a materialized view builds as over a
-- table (with a filter too), is never live (no triggers: create_graph's live => true and
-- alter_graph(live => true) are refused with the reason), and goes stale on REFRESH MATERIALIZED
-- VIEW, CONCURRENTLY too, in the refresh's transaction (a refresh rolled back leaves it answering);
-- refresh_graph() rebuilds it from the refreshed rows, checked against a recursive CTE over them. A
-- materialized view WITH NO DATA is refused, not read as empty. Plain views are read as the querying
-- role (view_graphs.sql); a foreign table's edges are refused (no change there).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(35);
SET client_min_messages = warning;

CREATE TABLE vs_base (source bigint, target bigint, kind text);
INSERT INTO vs_base VALUES (1, 2, 'prod'), (2, 3, 'prod'), (3, 1, 'dev'), (3, 4, 'prod'), (-9223372036854775808, 9223372036854775807, 'prod');
CREATE MATERIALIZED VIEW vs_mv AS SELECT source, target, kind FROM vs_base;
CREATE UNIQUE INDEX ON vs_mv (source, target);

-- The oracle: every pair of vertices of the rows of r (with a key no vertex has) against a
-- recursive CTE's closure; the number of pairs that disagree.
CREATE FUNCTION pg_temp.vs_wrong(g text, r text) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$WITH RECURSIVE e AS (SELECT source, target FROM %1$s),
	                  v(v) AS (SELECT source FROM e UNION SELECT target FROM e UNION SELECT 424242),
	                  c(a, b) AS (SELECT v, v FROM v UNION SELECT c.a, e.target FROM c JOIN e ON e.source = c.b)
	                  SELECT count(*) FROM v x, v y
	                  WHERE grail.reachable(%2$L, x.v, y.v) IS DISTINCT FROM EXISTS (SELECT 1 FROM c WHERE c.a = x.v AND c.b = y.v)$q$,
	               r, g) INTO n;
	RETURN n;
END $f$;

SELECT throws_ok($$SELECT grail.create_graph('vs_g', 'vs_mv')$$, '0A000',
                 '"vs_mv" is a materialized view, so a pg_grail graph over it cannot be live',
                 'live => true (the default) is refused on a materialized view');
SELECT lives_ok($$SELECT grail.create_graph('vs_g', 'vs_mv', live => false)$$, 'live => false builds');
SELECT lives_ok($$SELECT grail.create_graph('vs_f', 'vs_mv', live => false, filter => 'kind = ''prod''')$$,
                'and with a filter');
SELECT is(pg_temp.vs_wrong('vs_g', 'vs_mv'), 0::bigint, 'the graph answers for the materialized view''s rows');
SELECT is(pg_temp.vs_wrong('vs_f', '(SELECT * FROM vs_mv WHERE kind = ''prod'') x'), 0::bigint,
          'the filtered graph for the rows its filter passes');
SELECT is((SELECT (relation::text, live, stale) FROM grail.graphs WHERE name = 'vs_g'), ('vs_mv'::text, false, false),
          'grail.graphs: over vs_mv, not live, not stale');
SELECT throws_ok($$SELECT grail.alter_graph('vs_g', true)$$, '0A000',
                 'pg_grail graph "vs_g" is over a materialized view, so it cannot be live',
                 'alter_graph(live => true) is refused');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'vs_mv'::regclass), 0::bigint, 'no trigger on it');

-- A write to the base table changes nothing until the refresh.
INSERT INTO vs_base VALUES (4, 1, 'prod'), (9, 10, 'dev');
SELECT ok(NOT grail.reachable('vs_g', 4, 1), 'a write under the view is not its rows yet');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'vs_g'), false, 'nor does it make the graph stale');

-- REFRESH rolled back: still answering.
SAVEPOINT s;
REFRESH MATERIALIZED VIEW vs_mv;
SELECT is((SELECT array_agg(stale ORDER BY name) FROM grail.graphs WHERE name IN ('vs_f', 'vs_g')), ARRAY[true, true],
          'REFRESH MATERIALIZED VIEW makes its graphs stale');
SELECT throws_ok($$SELECT grail.reachable('vs_g', 1, 2)$$, '55000', NULL, 'a stale graph refuses');
ROLLBACK TO SAVEPOINT s;
SELECT is((SELECT array_agg(stale ORDER BY name) FROM grail.graphs WHERE name IN ('vs_f', 'vs_g')), ARRAY[false, false],
          'a REFRESH rolled back leaves them answering');
SELECT is(pg_temp.vs_wrong('vs_g', 'vs_mv'), 0::bigint, 'for the rows the view still has');

REFRESH MATERIALIZED VIEW vs_mv;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'vs_g'), true, 'REFRESH: stale');
SELECT lives_ok($$SELECT grail.refresh_graph('vs_g')$$, 'refresh_graph rebuilds it');
SELECT is(pg_temp.vs_wrong('vs_g', 'vs_mv'), 0::bigint, 'from the refreshed rows');
SELECT ok(grail.reachable('vs_g', 4, 3), 'which have the new edge 4 -> 1');
SELECT lives_ok($$SELECT grail.refresh_graph('vs_f')$$, 'the filtered one too');
SELECT is(pg_temp.vs_wrong('vs_f', '(SELECT * FROM vs_mv WHERE kind = ''prod'') x'), 0::bigint, 'with its filter');

DELETE FROM vs_base WHERE source = 2;
REFRESH MATERIALIZED VIEW CONCURRENTLY vs_mv;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'vs_g'), true, 'REFRESH ... CONCURRENTLY: stale');
SELECT grail.refresh_graph('vs_g');
SELECT is(pg_temp.vs_wrong('vs_g', 'vs_mv'), 0::bigint, 'and rebuilt from its rows');
SELECT ok(NOT grail.reachable('vs_g', 1, 3), 'without 2 -> 3');

-- A graph over another materialized view is not touched by this one's refresh.
CREATE MATERIALIZED VIEW vs_mv2 AS SELECT source, target FROM vs_base WHERE kind = 'dev';
SELECT grail.create_graph('vs_g2', 'vs_mv2', live => false);
REFRESH MATERIALIZED VIEW vs_mv;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'vs_g2'), false, 'another materialized view''s graph stays');

-- WITH NO DATA: refused, not read as empty.
CREATE MATERIALIZED VIEW vs_empty AS SELECT source, target FROM vs_base WITH NO DATA;
SELECT throws_ok($$SELECT grail.create_graph('vs_e', 'vs_empty', live => false)$$, '55000',
                 'materialized view "vs_empty" has not been populated', 'an unpopulated materialized view is refused');
-- A rename of an edge column through ALTER MATERIALIZED VIEW is followed.
ALTER MATERIALIZED VIEW vs_mv RENAME COLUMN target TO dst;
SELECT is((SELECT target_column::text FROM grail.graphs WHERE name = 'vs_g'), 'dst', 'a column rename is followed');
SELECT lives_ok($$SELECT grail.refresh_graph('vs_g')$$, 'and the refresh reads it');
-- DROP MATERIALIZED VIEW drops its graphs.
DROP MATERIALIZED VIEW vs_mv;
SELECT is((SELECT count(*) FROM grail.graph WHERE name IN ('vs_g', 'vs_f')), 0::bigint, 'DROP MATERIALIZED VIEW drops its graphs');

-- Privileges: a role that cannot read the materialized view's columns cannot query its graph.
CREATE ROLE vs_reader;
SET ROLE vs_reader;
SELECT throws_ok($$SELECT grail.reachable('public.vs_g2', 3, 1)$$, '42501', NULL,
                 'a role without SELECT on the materialized view cannot query its graph');
RESET ROLE;

-- Plain views: read as the querying role in each statement (test/pgtap/view_graphs.sql); a filter
-- is refused (the view's WHERE clause is its filter), live => true is ignored.
CREATE VIEW vs_v AS SELECT source, target FROM vs_base WHERE kind = 'prod';
SELECT throws_ok($$SELECT grail.create_graph('vs_vg', 'vs_v', filter => 'source > 1')$$, '0A000',
                 'a pg_grail graph over view "vs_v" takes no filter', 'a view takes no filter');
SELECT ok(grail.create_graph('vs_vg', 'vs_v') LIKE 'graph "vs_vg": over view "vs_v", read as the querying role%',
          'a view builds, live or not');
SELECT is((SELECT (live, stale, vertices) FROM grail.graphs WHERE name = 'vs_vg'), (false, false, NULL::bigint),
          'not live, and nothing stored');
SELECT is(pg_temp.vs_wrong('vs_vg', 'vs_v'), 0::bigint, 'it answers for the view''s rows');
CREATE VIEW vs_sv WITH (security_invoker = true, security_barrier = true) AS SELECT * FROM vs_base;
SELECT lives_ok($$SELECT grail.create_graph('vs_svg', 'vs_sv', live => false)$$,
                'so does a security_invoker, security_barrier view');
SELECT is(pg_temp.vs_wrong('vs_svg', 'vs_sv'), 0::bigint, 'for its rows');

SELECT * FROM finish();
ROLLBACK;
