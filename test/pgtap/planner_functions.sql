-- Which functions the planner support function estimates: pg_grail's, known by oid once asked
-- about, and again after the extension is dropped and made again in the same session (new oids;
-- the kept kinds are forgotten when pg_proc changes); a function of another schema with the same
-- name and the support function attached keeps its declared rows.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(9);

CREATE FUNCTION pg_temp.estimate(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan->0->'Plan'->>'Plan Rows')::float8;
END $$;

-- 0 -> 1 -> ... -> 49: 50 vertices, every vertex reaching those after it.
CREATE TABLE pf_edges AS SELECT v AS source, v + 1 AS target FROM generate_series(0, 48) v;
SELECT grail.create_graph('pf', 'pf_edges');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('pf')$$), 50::float8, 'scc_components: the vertices');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('pf')$$), 50::float8, 'and again (the kept kind)');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.descendants('pf', 0, 1)$$), 2::float8, 'descendants to depth 1');

-- Another schema's function of the same name, with the support function: not estimated.
CREATE SCHEMA pf_other;
CREATE FUNCTION pf_other.scc_components(graph text, OUT vertex bigint, OUT component bigint) RETURNS SETOF record
LANGUAGE sql ROWS 7 AS $$ SELECT 1::bigint, 1::bigint $$;
ALTER FUNCTION pf_other.scc_components(text) SUPPORT grail_internal._planner_support;
SELECT is(pg_temp.estimate($$SELECT * FROM pf_other.scc_components('pf')$$), 7::float8,
          'a function of another schema keeps its declared rows');

-- The extension dropped and made again: its functions have new oids, still estimated.
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('pf')$$), 50::float8, 'before the drop');
DROP FUNCTION pf_other.scc_components(text);
DROP EXTENSION pg_grail CASCADE;
CREATE EXTENSION pg_grail;
SELECT grail.create_graph('pf', 'pf_edges');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('pf')$$), 50::float8, 'made again: estimated');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.ancestors('pf', 49, 2)$$), 3::float8, 'ancestors to depth 2');
-- A function made after the drop, possibly on an oid that was pg_grail's: not estimated as ours.
CREATE FUNCTION pf_other.bfs(graph text, OUT vertex bigint) RETURNS SETOF bigint
LANGUAGE sql ROWS 9 AS $$ SELECT 1::bigint $$;
ALTER FUNCTION pf_other.bfs(text) SUPPORT grail_internal._planner_support;
SELECT is(pg_temp.estimate($$SELECT * FROM pf_other.bfs('pf')$$), 9::float8, 'a new function elsewhere: its declared rows');
SELECT cmp_ok(pg_temp.estimate($$SELECT * FROM grail.bfs('pf', 0)$$), '>', 9::float8, 'grail.bfs still estimated');

SELECT * FROM finish();
ROLLBACK;
