-- The planner's view of pg_grail's functions: declared COST and ROWS, and the support function's
-- estimates from a graph's build (scc_components' rows are its vertices, bfs's are bounded by a
-- constant max_depth, a reachable() join is estimated within 10x of its rows), and the declared
-- estimates, never an error, wherever the build cannot be asked (no such graph, a graph named by
-- a parameter or a column, a role that cannot read the edge table, a stale graph).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(38);

-- The planner's row estimate of the top plan node of a query.
CREATE FUNCTION pg_temp.estimate(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (plan->0->'Plan'->>'Plan Rows')::float8;
END $$;
-- The row estimate of the first join node of a query's plan.
CREATE FUNCTION pg_temp.join_estimate(query text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json; node json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	node := plan->0->'Plan';
	WHILE node->>'Node Type' NOT IN ('Nested Loop', 'Hash Join', 'Merge Join') LOOP
		node := node->'Plans'->0;
	END LOOP;
	RETURN (node->>'Plan Rows')::float8;
END $$;

-- Declared costs: every user-facing C function costs more than an operator, and the
-- set-returning ones declare their typical rows.
SELECT is_empty($$SELECT p.oid::regprocedure FROM pg_proc p
                  WHERE p.pronamespace = 'grail'::regnamespace AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c')
                    AND p.proname NOT LIKE '\_%' AND p.procost <= 1$$,
                'every user-facing C function declares a cost above 1');
SELECT results_eq($$SELECT p.procost::int FROM pg_proc p WHERE p.oid = 'grail.reachable(text, bigint, bigint)'::regprocedure$$,
                  ARRAY[25], 'reachable() costs 25 operators (measured against int8eq)');
SELECT results_eq($$SELECT p.prorows::int FROM pg_proc p WHERE p.oid IN ('grail.bfs(text, bigint, int)'::regprocedure,
                  'grail.scc_components(text)'::regprocedure, 'grail.chordless_cycles(text, int, int)'::regprocedure) ORDER BY 1$$,
                  ARRAY[100, 100, 10000], 'bfs, chordless_cycles and scc_components declare their typical rows');
SELECT results_eq($$SELECT count(*)::int FROM pg_proc p WHERE p.prosupport = 'grail_internal._planner_support'::regproc$$,
                  ARRAY[32], 'scc_components, bfs, descendants, ancestors and the scalar reachable() forms (their integer, smallint and polymorphic overloads too) have the support function');

SELECT setseed(0.27);
-- A cyclic random graph (most pairs reachable) and a sparse DAG (few), with random pairs of keys.
CREATE TABLE dense_edges AS
SELECT (random() * 3000)::bigint AS source, (random() * 3000)::bigint AS target FROM generate_series(1, 6000);
CREATE TABLE dag_edges AS
SELECT least(s, t) AS source, greatest(s, t) AS target
FROM (SELECT (random() * 3000)::bigint AS s, (random() * 3000)::bigint AS t FROM generate_series(1, 3300)) x WHERE s <> t;
CREATE TABLE pairs AS
SELECT (random() * 3000)::bigint AS a, (random() * 3000)::bigint AS b FROM generate_series(1, 20000);
CREATE TABLE side AS SELECT DISTINCT (random() * 3000)::bigint AS v FROM generate_series(1, 300);
CREATE TABLE text_edges AS SELECT 'k' || source AS source, 'k' || target AS target FROM dense_edges;
ANALYZE dense_edges, dag_edges, pairs, side, text_edges;
SELECT lives_ok($$SELECT grail.create_graph('dense', 'dense_edges')$$, 'a cyclic graph');
SELECT lives_ok($$SELECT grail.create_graph('dag', 'dag_edges')$$, 'a sparse DAG');
SELECT lives_ok($$SELECT grail.create_graph('texts', 'text_edges')$$, 'a text-keyed graph');

-- scc_components: the build's vertices.
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('dense')$$),
          (SELECT vertices::float8 FROM grail.graphs WHERE name = 'dense'), 'scc_components rows: the vertices');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('dag')$$),
          (SELECT vertices::float8 FROM grail.graphs WHERE name = 'dag'), 'scc_components rows on the DAG');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('texts', NULL::text)$$),
          (SELECT vertices::float8 FROM grail.graphs WHERE name = 'texts'), 'scc_components rows with text keys');

-- bfs: 1 row at depth 0; at most 1 + d at depth 1 (d: average out-degree); without a bound, at
-- least 1 and at most the vertices, and many more on the cyclic graph than on the sparse DAG.
SELECT is(pg_temp.estimate($$SELECT * FROM grail.bfs('dense', 1, 0)$$), 1::float8, 'bfs to depth 0: one row');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.bfs('dense', 1, 1)$$),
          (SELECT round(1 + edges::float8 / vertices) FROM grail.graphs WHERE name = 'dense'), 'bfs to depth 1: 1 + the out-degree');
SELECT cmp_ok(pg_temp.estimate($$SELECT * FROM grail.bfs('dense', 1)$$), '<=',
              (SELECT vertices::float8 FROM grail.graphs WHERE name = 'dense'), 'bfs rows: at most the vertices');
SELECT cmp_ok(pg_temp.estimate($$SELECT * FROM grail.bfs('dense', 1)$$), '>',
              10 * pg_temp.estimate($$SELECT * FROM grail.bfs('dag', 1)$$), 'a cyclic graph reaches more than a sparse DAG');
SELECT cmp_ok(pg_temp.estimate($$SELECT * FROM grail.bfs('texts', 'k1')$$), '>', 100::float8, 'bfs rows with text keys');

-- A sparse graph (average out-degree below 1), huge and negative depths: an estimate, at once.
CREATE TABLE sparse_edges AS SELECT (random() * 1000)::bigint AS source, (random() * 1000)::bigint AS target FROM generate_series(1, 100);
SELECT lives_ok($$SELECT grail.create_graph('sparse', 'sparse_edges')$$, 'a sparse graph');
SELECT cmp_ok(pg_temp.estimate($$SELECT * FROM grail.bfs('sparse', 1, 2147483647)$$), '<=',
              (SELECT vertices::float8 FROM grail.graphs WHERE name = 'sparse'), 'bfs to the largest depth: at most the vertices');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.bfs('sparse', 1, -1)$$), 1::float8, 'bfs to a negative depth: one row (the call fails)');

-- The average of bfs's rows over many sources is the estimate, within 2x (a sample's error).
SELECT cmp_ok(abs(ln(pg_temp.estimate($$SELECT * FROM grail.bfs('dense', 1)$$)
                     / (SELECT count(*)::float8 / 50 FROM (SELECT v FROM side LIMIT 50) s, grail.bfs('dense', s.v)))),
              '<', ln(2), 'bfs rows: the average rows of a search, within 2x');

-- reachable() as a filter and as a join, within 10x of the rows.
SELECT cmp_ok(abs(ln(pg_temp.estimate($$SELECT * FROM pairs WHERE grail.reachable('dense', a, b)$$)
                     / (SELECT count(*) FROM pairs WHERE grail.reachable('dense', a, b)))), '<', ln(10),
              'reachable() filter on the cyclic graph within 10x');
SELECT cmp_ok(abs(ln(pg_temp.estimate($$SELECT * FROM pairs WHERE grail.reachable('dag', a, b)$$)
                     / (SELECT count(*) FROM pairs WHERE grail.reachable('dag', a, b)))), '<', ln(10),
              'reachable() filter on the sparse DAG within 10x');
SELECT cmp_ok(abs(ln(pg_temp.join_estimate($$SELECT * FROM side s JOIN side t ON grail.reachable('dense', s.v, t.v)$$)
                     / (SELECT count(*) FROM side s JOIN side t ON grail.reachable('dense', s.v, t.v)))), '<', ln(10),
              'reachable() join on the cyclic graph within 10x');
SELECT cmp_ok(abs(ln(pg_temp.join_estimate($$SELECT * FROM side s JOIN side t ON grail.reachable('dag', s.v, t.v)$$)
                     / (SELECT count(*) FROM side s JOIN side t ON grail.reachable('dag', s.v, t.v)))), '<', ln(10),
              'reachable() join on the sparse DAG within 10x');
SELECT cmp_ok(abs(ln(pg_temp.estimate($$SELECT * FROM pairs WHERE grail.reachable('texts', 'k' || a, 'k' || b)$$)
                     / (SELECT count(*) FROM pairs WHERE grail.reachable('texts', 'k' || a, 'k' || b)))), '<', ln(10),
              'reachable() filter with text keys within 10x');

-- A live graph with pending rows: the estimate is the last build's (planning never rebuilds a live
-- graph from its rows), and planning leaves no rebuild behind in the backend's cache.
INSERT INTO dense_edges VALUES (100000, 100001);
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('dense')$$),
          (SELECT vertices::float8 FROM grail.graphs WHERE name = 'dense'), 'a live graph: the vertices of its last build');
SELECT is((SELECT count(*) FROM grail.scc_components('dense')),
          (SELECT vertices + 2 FROM grail.graphs WHERE name = 'dense'), 'a live graph: the query answers from the rows it sees');
DELETE FROM dense_edges WHERE source = 100000;

-- Where the build cannot be asked: the declared estimates, no error.
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('no_such_graph')$$), 10000::float8,
          'no such graph: the declared rows');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.bfs('no_such_graph', 1)$$), 100::float8, 'no such graph: bfs''s declared rows');
SELECT is(pg_temp.estimate($$SELECT * FROM pairs WHERE grail.reachable('no_such_graph', a, b)$$),
          round(20000 / 3.0)::float8, 'no such graph: reachable() has the default selectivity of a function');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('bad"name')$$), 10000::float8, 'a malformed name: the declared rows');
CREATE TABLE graph_names AS SELECT 'dense'::text AS n;
ANALYZE graph_names;
SELECT is(pg_temp.estimate($$SELECT * FROM graph_names g, grail.scc_components(g.n)$$), 10000::float8,
          'a graph named by a column: the declared rows');
PREPARE by_parameter(text) AS SELECT * FROM grail.scc_components($1);
SET LOCAL plan_cache_mode = force_generic_plan;
SELECT is(pg_temp.estimate($$EXECUTE by_parameter('dense')$$), 10000::float8, 'a graph named by a parameter: the declared rows');
RESET plan_cache_mode;
DEALLOCATE by_parameter;

-- A role that cannot read the edge table learns nothing of it from a plan.
CREATE ROLE grail_planner_stranger;
GRANT USAGE ON SCHEMA grail TO grail_planner_stranger;
GRANT SELECT ON pairs TO grail_planner_stranger;
SET LOCAL ROLE grail_planner_stranger;
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('dense')$$), 10000::float8,
          'no rights on the edge table: the declared rows');
SELECT is(pg_temp.estimate($$SELECT * FROM pairs WHERE grail.reachable('dense', a, b)$$), round(20000 / 3.0)::float8,
          'no rights on the edge table: the default selectivity');
RESET ROLE;

-- A stale graph (not live, its table written): EXPLAIN plans with the declared rows.
SELECT lives_ok($$SELECT grail.create_graph('frozen', 'dag_edges', live => false)$$, 'a graph that is not live');
INSERT INTO dag_edges VALUES (1, 2);
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('frozen')$$), 10000::float8, 'a stale graph: the declared rows');

-- A graph dropped after a plan was made: the next plan has the declared rows.
SELECT lives_ok($$SELECT grail.drop_graph('dag')$$, 'the DAG dropped');
SELECT is(pg_temp.estimate($$SELECT * FROM grail.scc_components('dag')$$), 10000::float8, 'a dropped graph: the declared rows');

SELECT * FROM finish();
ROLLBACK;
