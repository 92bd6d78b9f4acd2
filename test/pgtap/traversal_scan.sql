-- bfs(), descendants() and ancestors() in FROM run as a Grail Traversal Scan, which hands the
-- search's rows to the plan one at a time: its rows, in their order, are those of the same call
-- through FunctionScan (grail.traversal_scan = off), and those of a recursive-CTE oracle, on
-- random graphs of bigint, integer, text and uuid keys (cycles, self-loops, duplicates, isolated
-- and unknown sources), live graphs with pending inserts and deletes, LATERAL joins whose inner
-- scan is rescanned with new and with the same arguments, SCROLL cursors, LIMIT, generic plans of
-- prepared statements; and it raises the function's errors and checks its privileges.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(49);
\ir traversal_scan_checks.psql

-- The lines of the query's verbose plan.
CREATE FUNCTION pg_temp.explain_lines(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query;
END $$;

-- The query's rows as text, in the order the plan gives them, with the scan on or off.
CREATE FUNCTION pg_temp.rows_of(query text, scan boolean) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE result text[];
BEGIN
	PERFORM set_config('grail.traversal_scan', scan::text, true);
	EXECUTE 'SELECT coalesce(array_agg(r::text ORDER BY n), ''{}'') FROM (SELECT q, row_number() OVER () AS n FROM ('
	        || query || ') q) r(r, n)' INTO result;
	PERFORM set_config('grail.traversal_scan', 'on', true);
	RETURN result;
END $$;

-- The vertices (as text) within `bound` steps of `source` along `forward` or against the edges of
-- table `edges` (columns source, target), each at its least depth: the recursive CTE a user would
-- write, as "vertex:depth" sorted.
CREATE FUNCTION pg_temp.oracle(edges text, source text, key_type text, forward boolean, bound int) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE result text[];
BEGIN
	EXECUTE format($q$
		WITH RECURSIVE r(v, d) AS (
			SELECT %2$L::%3$s, 0
			UNION
			SELECT e.%5$I, r.d + 1 FROM r JOIN %1$I e ON e.%4$I = r.v WHERE r.d < %6$s)
		SELECT array_agg(v::text || ':' || d ORDER BY v::text || ':' || d)
		FROM (SELECT v, min(d) AS d FROM r GROUP BY v) m$q$,
		edges, source, key_type, CASE WHEN forward THEN 'source' ELSE 'target' END,
		CASE WHEN forward THEN 'target' ELSE 'source' END, bound) INTO result;
	RETURN result;
END $$;

-- The scan's rows of one call as "vertex:depth" sorted.
CREATE FUNCTION pg_temp.scan_set(query text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE result text[];
BEGIN
	EXECUTE 'SELECT array_agg(vertex::text || '':'' || depth ORDER BY vertex::text || '':'' || depth) FROM (' || query || ') q'
	INTO result;
	RETURN result;
END $$;

-- Random graphs of each key kind: 60 numbers, 150 edges with duplicates, self-loops and cycles,
-- vertex 1000 isolated by edges of its own; keys bigint, integer, text ('k' || n), uuid (md5).
SELECT setseed(0.27);
CREATE TABLE raw_edges AS
SELECT (random() * 59)::int AS s, (random() * 59)::int AS t FROM generate_series(1, 150);
INSERT INTO raw_edges VALUES (3, 3), (3, 3), (4, 5), (4, 5), (5, 4), (1000, 1001);
CREATE TABLE e_bigint AS SELECT s::bigint * 1000003 - 9000000000 AS source, t::bigint * 1000003 - 9000000000 AS target FROM raw_edges;
CREATE TABLE e_int AS SELECT s - 30 AS source, t - 30 AS target FROM raw_edges;
CREATE TABLE e_text AS SELECT 'k' || s AS source, 'k' || t AS target FROM raw_edges;
CREATE TABLE e_uuid AS SELECT md5(s::text)::uuid AS source, md5(t::text)::uuid AS target FROM raw_edges;
SELECT ok(grail.create_graph('g_bigint', 'e_bigint') IS NOT NULL AND grail.create_graph('g_int', 'e_int') IS NOT NULL
          AND grail.create_graph('g_text', 'e_text') IS NOT NULL AND grail.create_graph('g_uuid', 'e_uuid') IS NOT NULL,
          'graphs of bigint, integer, text and uuid keys built');
CREATE TABLE key_of (kind text, n int, key text, key_type text);
INSERT INTO key_of
SELECT kind, n, CASE kind WHEN 'bigint' THEN (n::bigint * 1000003 - 9000000000)::text WHEN 'int' THEN (n - 30)::text
                          WHEN 'text' THEN 'k' || n ELSE md5(n::text)::uuid::text END,
       CASE kind WHEN 'bigint' THEN 'bigint' WHEN 'int' THEN 'int' WHEN 'text' THEN 'text' ELSE 'uuid' END
FROM unnest(ARRAY['bigint', 'int', 'text', 'uuid']) kind, (SELECT generate_series(0, 59) UNION VALUES (1000), (777)) n(n);

-- Every call form, every key kind, sources in the graph, isolated and unknown: the scan's rows
-- and their order are FunctionScan's.
SELECT is(pg_temp.disagreeing(array_agg(q)), '{}',
          'descendants, ancestors and bfs (every direction, bounded or not) agree with FunctionScan, row for row')
FROM (SELECT format('SELECT * FROM grail.%s(%L, %L::%s%s)', f, 'g_' || kind, key, key_type, extra) AS q
      FROM key_of,
           (VALUES ('descendants', ''), ('ancestors', ''), ('descendants', ', 2'), ('bfs', ''), ('bfs', ', 1'),
                   ('bfs', ', NULL, ''in'''), ('bfs', ', 3, ''both''')) c(f, extra)
      WHERE n % 7 = 0 OR n IN (3, 4, 1000, 777)) qs;

-- The same against the recursive CTE, for every source and both directions.
SELECT is((SELECT count(*) FROM key_of
           WHERE pg_temp.scan_set(format('SELECT * FROM grail.descendants(%L, %L::%s)', 'g_' || kind, key, key_type))
                 IS DISTINCT FROM pg_temp.oracle('e_' || kind, key, key_type, true, 70)),
          0::bigint, 'descendants: the recursive CTE''s vertices at their least depths, every key kind');
SELECT is((SELECT count(*) FROM key_of
           WHERE pg_temp.scan_set(format('SELECT * FROM grail.ancestors(%L, %L::%s, 2)', 'g_' || kind, key, key_type))
                 IS DISTINCT FROM pg_temp.oracle('e_' || kind, key, key_type, false, 2)),
          0::bigint, 'ancestors within 2 steps: the recursive CTE''s, every key kind');
SELECT ok(pg_temp.scanned($$SELECT * FROM grail.descendants('g_text', 'k3')$$), 'the oracle''s calls ran the scan');

-- bfs's parents: the source's NULL, every other's a vertex one level up with an edge to it.
SELECT is((SELECT count(*) FROM key_of k, LATERAL grail.bfs('g_text', k.key) b
           WHERE k.kind = 'text' AND NOT CASE WHEN b.depth = 0 THEN b.parent IS NULL AND b.vertex = k.key
                 ELSE EXISTS (SELECT FROM e_text e WHERE e.source = b.parent AND e.target = b.vertex)
                      AND EXISTS (SELECT FROM grail.bfs('g_text', k.key) p WHERE p.vertex = b.parent AND p.depth = b.depth - 1) END),
          0::bigint, 'bfs parents: NULL for the source, else an in-neighbour one level up');

-- Key columns keep the key's type.
CREATE TABLE e_oid AS
SELECT (CASE WHEN s < 1000 THEN s::bigint * 70000000 ELSE s END)::oid AS source,
       (CASE WHEN t < 1000 THEN t::bigint * 70000000 ELSE t END)::oid AS target FROM raw_edges;
SELECT ok(grail.create_graph('g_oid', 'e_oid') IS NOT NULL, 'a graph of oid keys, some above 2^31');
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT vertex, pg_typeof(vertex), depth FROM grail.descendants('g_oid', 3500000000::oid)$$,
	$$SELECT *, vertex = 3500000000::oid FROM grail.bfs('g_oid', 280000000::oid)$$,
	$$SELECT * FROM grail.ancestors('g_oid', 4::oid)$$,
	$$SELECT a.vertex, count(*) FROM grail.descendants('g_oid', 3500000000::oid) a JOIN e_oid e ON e.source = a.vertex GROUP BY 1$$
]), '{}', 'oid keys come back as oid, above 2^31 too, and join and group as FunctionScan''s');
SELECT is((SELECT array_agg(DISTINCT pg_typeof(parent)::text) FROM grail.bfs('g_uuid', md5('3')::uuid)), '{uuid}',
          'uuid parents come back as uuid');

-- LATERAL: the inner scan runs once per outer row with that row's source (rescans with new
-- arguments), and an outer join keeps sources without rows.
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT k.n, d.* FROM key_of k, LATERAL grail.descendants('g_text', k.key) d WHERE k.kind = 'text'$$,
	$$SELECT k.n, a.* FROM key_of k CROSS JOIN LATERAL grail.ancestors('g_uuid', k.key::uuid, 1) a WHERE k.kind = 'uuid'$$,
	$$SELECT k.n, b.* FROM key_of k LEFT JOIN LATERAL grail.bfs('g_bigint', k.key::bigint) b ON b.depth = 1 WHERE k.kind = 'bigint'$$,
	$$SELECT k.n, b.* FROM key_of k LEFT JOIN LATERAL grail.bfs('g_int', k.key::int + 1000000) b ON true WHERE k.kind = 'int'$$,
	$$SELECT k.n, d.* FROM key_of k, LATERAL grail.descendants(CASE WHEN k.n % 2 = 0 THEN 'g_text' END, k.key) d WHERE k.kind = 'text'$$,
	$$SELECT k.n, d.* FROM key_of k, LATERAL grail.descendants('g_int', k.key::int, k.n % 3) d WHERE k.kind = 'int' AND d.depth <= 1$$,
	$$SELECT k.n, x.* FROM key_of k LEFT JOIN LATERAL (SELECT d.vertex, 1 AS one FROM grail.descendants('g_text', k.key, 1) d) x ON x.vertex > 'k2' WHERE k.kind = 'text'$$
]), '{}', 'LATERAL joins (inner, outer, NULL graph on some rows, a pushed bound, a placeholder column): FunctionScan''s rows in its order');
SELECT is((SELECT count(*) FROM key_of k, LATERAL grail.descendants('g_text', k.key) d WHERE k.kind = 'text'),
          (SELECT sum(cardinality(pg_temp.oracle('e_text', key, 'text', true, 70))) FROM key_of WHERE kind = 'text')::bigint,
          'LATERAL: each outer row''s descendants, as many as the oracle''s');

-- Rescans with the same arguments give the same rows again, without a second search: under a
-- Result whose filter depends on the outer row the scan is rescanned with no changed parameter.
CREATE FUNCTION pg_temp.sorted(rows text[]) RETURNS text[] LANGUAGE sql AS $$ SELECT array_agg(r ORDER BY r) FROM unnest(rows) r $$;
SET LOCAL enable_material = off;
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT x.x, d.* FROM (VALUES (1), (2), (3)) x(x) CROSS JOIN LATERAL (SELECT * FROM grail.descendants('g_text', 'k4') d WHERE x.x > 0 OFFSET 0) d$$,
	$$SELECT x.x, d.* FROM (VALUES (1), (0), (3)) x(x) CROSS JOIN LATERAL (SELECT * FROM grail.bfs('g_uuid', md5('4')::uuid, 2) d WHERE x.x > 0 OFFSET 0) d$$
]), '{}', 'rescans with unchanged arguments repeat the rows, in order');
SELECT is((SELECT count(*) FROM (VALUES (1), (2), (3)) x(x) CROSS JOIN LATERAL (SELECT * FROM grail.descendants('g_text', 'k4') d WHERE x.x > 0 OFFSET 0) d),
          3 * (SELECT count(*) FROM grail.descendants('g_text', 'k4')), 'three rescans, three times the rows');
RESET enable_material;
-- (Where the join puts the scan is the planner's choice here: the rows are compared sorted.)
SELECT is(pg_temp.sorted(pg_temp.rows_of(q, true)), pg_temp.sorted(pg_temp.rows_of(q, false)), 'a join filter over the scan')
FROM (VALUES ($$SELECT x, d.* FROM generate_series(1, 3) x, grail.bfs('g_text', 'k4', 1) d WHERE d.depth >= x - 2$$)) q(q);

-- LIMIT stops the scan early with the first rows; an outer query reads part of them.
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT * FROM grail.descendants('g_bigint', -8999999997) LIMIT 3$$,
	$$SELECT * FROM grail.bfs('g_uuid', md5('4')::uuid) LIMIT 1 OFFSET 1$$,
	$$SELECT k.n, (SELECT d.vertex FROM grail.descendants('g_text', k.key) d WHERE d.depth = 1 LIMIT 1) FROM key_of k WHERE k.kind = 'text'$$
]), '{}', 'LIMIT, OFFSET and a LIMIT inside a correlated subquery give FunctionScan''s first rows');
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT vertex, depth FROM grail.descendants('g_text', 'k4') WHERE vertex > 'k3' AND depth > 0$$,
	$$SELECT vertex || '!' AS v FROM grail.ancestors('g_text', 'k5')$$,
	$$SELECT count(*), max(depth) FROM grail.bfs('g_int', (-26)::int)$$
]), '{}', 'conditions and projections over the scan');

-- The keys are formed only where something reads them: a count or the depths alone leave them out,
-- a condition, a join, an outer query, a projection or an aggregate of a key column reads them.
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT count(*) FROM grail.descendants('g_text', 'k4')$$,
	$$SELECT depth FROM grail.bfs('g_uuid', md5('4')::uuid)$$,
	$$SELECT depth FROM grail.bfs('g_text', 'k4') WHERE vertex > 'k3'$$,
	$$SELECT depth FROM grail.bfs('g_text', 'k4') WHERE parent IS NULL$$,
	$$SELECT parent FROM grail.bfs('g_bigint', -8999999997)$$,
	$$SELECT count(vertex), count(*) FILTER (WHERE vertex IS NULL) FROM grail.ancestors('g_text', 'k5')$$,
	$$SELECT count(*) FROM (SELECT vertex, depth FROM grail.descendants('g_text', 'k4')) x WHERE x.vertex LIKE 'k1%'$$,
	$$SELECT count(*) FROM grail.descendants('g_text', 'k4') d JOIN e_text e ON e.source = d.vertex$$,
	$$SELECT k.n, (SELECT count(*) FROM grail.descendants('g_text', k.key) d) FROM key_of k WHERE k.kind = 'text'$$,
	$$SELECT k.n, d.depth FROM key_of k, LATERAL grail.ancestors('g_uuid', k.key::uuid) d WHERE k.kind = 'uuid'$$
]), '{}', 'counts, depths alone, and key columns read by conditions, joins, outer queries and aggregates');
SELECT is((SELECT count(*) FROM grail.descendants('g_text', 'k4') WHERE vertex IS NULL), 0::bigint,
          'a key read by a condition alone is formed');

-- Inside a join the scan returns all its columns (no projection a row) and forms the keys only where
-- a node above reads them: a grouping, a sort, a second join, an aggregate of depths alone.
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT k.n, sum(d.depth) FROM key_of k, LATERAL grail.descendants('g_text', k.key) d WHERE k.kind = 'text' GROUP BY k.n$$,
	$$SELECT d.vertex, count(*) FROM key_of k, LATERAL grail.descendants('g_text', k.key) d WHERE k.kind = 'text' GROUP BY d.vertex$$,
	$$SELECT d.vertex, k.n FROM key_of k, LATERAL grail.ancestors('g_text', k.key) d WHERE k.kind = 'text' ORDER BY d.vertex, k.n$$,
	$$SELECT count(*), sum(e.n) FROM key_of k JOIN LATERAL grail.bfs('g_text', k.key) d ON true JOIN (SELECT target, count(*) AS n FROM e_text GROUP BY target) e ON e.target = d.parent WHERE k.kind = 'text'$$,
	$$SELECT d.depth, d.vertex FROM key_of k, LATERAL grail.descendants('g_uuid', k.key::uuid) d WHERE k.kind = 'uuid' AND d.depth > 0$$
]), '{}', 'joined scans: every column returned, the keys read above formed');
-- Alone in its query the scan gives the query's columns, no more.
SELECT results_eq($$SELECT vertex, depth FROM grail.bfs('g_text', 'k4') WHERE depth = 0$$,
                  $$VALUES ('k4'::text, 0)$$, 'a query of the scan alone: its own columns');
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT vertex FROM grail.bfs('g_text', 'k4')$$,
	$$SELECT depth, vertex FROM grail.descendants('g_uuid', md5('4')::uuid) ORDER BY vertex DESC$$,
	$$SELECT x.vertex FROM (SELECT vertex, depth FROM grail.ancestors('g_text', 'k5') ORDER BY depth LIMIT 3) x$$
]), '{}', 'the scan alone in its query or subquery');

-- SCROLL cursors: forward, backward, absolute, over the scan (which reads backward itself).
DECLARE c SCROLL CURSOR FOR SELECT * FROM grail.descendants('g_text', 'k4');
SELECT ok(pg_temp.scanned($$SELECT * FROM grail.descendants('g_text', 'k4')$$), 'the cursor''s query runs the scan');
CREATE TEMP TABLE all_rows AS SELECT row_number() OVER () AS n, d::text AS r FROM grail.descendants('g_text', 'k4') d;
-- Moves over cursor `name`: 3 forward and 1 back, absolute 5, first, the rest forward, then
-- everything backward; the rows met, as text.
CREATE FUNCTION pg_temp.cursor_walk(name text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE cur refcursor := name; rec record; met text[] := '{}';
BEGIN
	MOVE FORWARD 3 FROM cur;
	FETCH BACKWARD FROM cur INTO rec;
	met := met || rec::text;
	FETCH ABSOLUTE 5 FROM cur INTO rec;
	met := met || rec::text;
	FETCH FIRST FROM cur INTO rec;
	met := met || rec::text;
	LOOP
		FETCH NEXT FROM cur INTO rec;
		EXIT WHEN NOT FOUND;
		met := met || rec::text;
	END LOOP;
	LOOP
		FETCH PRIOR FROM cur INTO rec;
		EXIT WHEN NOT FOUND;
		met := met || rec::text;
	END LOOP;
	RETURN met;
END $$;
SELECT is(pg_temp.cursor_walk('c'),
          ARRAY(SELECT r FROM all_rows WHERE n = 2) || ARRAY(SELECT r FROM all_rows WHERE n = 5)
          || ARRAY(SELECT r FROM all_rows ORDER BY n) || ARRAY(SELECT r FROM all_rows ORDER BY n DESC),
          'SCROLL cursor: backward, absolute, first, forward to the end, backward to the start');
CLOSE c;
DECLARE nc NO SCROLL CURSOR FOR SELECT * FROM grail.bfs('g_uuid', md5('4')::uuid);
CREATE FUNCTION pg_temp.forward_all(name text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE cur refcursor := name; rec record; met text[] := '{}';
BEGIN
	LOOP
		FETCH NEXT FROM cur INTO rec;
		EXIT WHEN NOT FOUND;
		met := met || rec::text;
	END LOOP;
	RETURN met;
END $$;
SELECT is(pg_temp.forward_all('nc'), pg_temp.rows_of($$SELECT * FROM grail.bfs('g_uuid', md5('4')::uuid)$$, false),
          'a forward-only cursor');
CLOSE nc;

-- Prepared statements: generic plans take the arguments at each execution.
SET LOCAL plan_cache_mode = force_generic_plan;
PREPARE p(text, int) AS SELECT * FROM grail.descendants('g_text', $1, $2);
CREATE TEMP TABLE prepared_rows (n int, r text[]);
DO $$ BEGIN
	FOR i IN 0..5 LOOP
		INSERT INTO prepared_rows SELECT i, array_agg(d::text) FROM grail.descendants('g_text', 'k' || (i * 11), i % 3) d;
	END LOOP;
END $$;
CREATE FUNCTION pg_temp.executed(statement text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE rec record; met text[];
BEGIN
	FOR rec IN EXECUTE statement LOOP
		met := met || rec::text;
	END LOOP;
	RETURN met;
END $$;
SELECT is(pg_temp.executed($$EXECUTE p('k0', 0)$$), (SELECT r FROM prepared_rows WHERE n = 0), 'generic plan, first execution');
SELECT is(pg_temp.executed($$EXECUTE p('k22', 2)$$), (SELECT r FROM prepared_rows WHERE n = 2), 'generic plan, other arguments');
SELECT is(pg_temp.executed($$EXECUTE p('k55', 2)$$), (SELECT r FROM prepared_rows WHERE n = 5), 'generic plan, again');
SELECT is(pg_temp.executed($$EXECUTE p(NULL, 1)$$), NULL, 'generic plan, a NULL source: no rows');
SELECT ok((SELECT generic_plans >= 3 FROM pg_prepared_statements WHERE name = 'p'), 'those were generic plans');
DEALLOCATE p;
RESET plan_cache_mode;

-- Live graphs: pending inserts and deletes that the statement's snapshot sees, in both
-- directions, from FunctionScan's rows and the oracle's.
INSERT INTO e_text VALUES ('k1000', 'k3'), ('new1', 'k1000'), ('k59', 'new2');
DELETE FROM e_text WHERE source = 'k4' AND target = 'k5';
SELECT ok((SELECT pending_changes > 0 FROM grail.graphs WHERE name = 'g_text'), 'g_text has pending changes');
SELECT is(pg_temp.disagreeing(array_agg(q)), '{}', 'live graph with pending changes: FunctionScan''s rows')
FROM (SELECT format('SELECT * FROM grail.%s(''g_text'', %L)', f, key) AS q
      FROM key_of, unnest(ARRAY['descendants', 'ancestors', 'bfs']) f
      WHERE kind = 'text' AND (n % 9 = 0 OR n IN (4, 5, 1000))
      UNION ALL VALUES ($$SELECT * FROM grail.ancestors('g_text', 'new2')$$), ($$SELECT * FROM grail.descendants('g_text', 'new1')$$)) qs;
SELECT is((SELECT count(*) FROM (SELECT key FROM key_of WHERE kind = 'text' UNION VALUES ('new1'), ('new2')) k(key)
           WHERE pg_temp.scan_set(format('SELECT * FROM grail.descendants(''g_text'', %L)', key))
                 IS DISTINCT FROM pg_temp.oracle('e_text', key, 'text', true, 70)
              OR pg_temp.scan_set(format('SELECT * FROM grail.ancestors(''g_text'', %L)', key))
                 IS DISTINCT FROM pg_temp.oracle('e_text', key, 'text', false, 70)),
          0::bigint, 'live graph with pending changes: the recursive CTE''s rows, both directions');
SELECT ok('new2' = ANY (SELECT vertex FROM grail.descendants('g_text', 'new1')), 'an inserted path is followed');
SELECT ok(NOT ('k5' = ANY (SELECT vertex FROM grail.descendants('g_text', 'k4', 1))) OR EXISTS (SELECT FROM e_text WHERE source = 'k4' AND target = 'k5'),
          'a deleted edge is not');

-- Errors: those of the function, raised when the scan runs.
SELECT throws_ok($$SELECT * FROM grail.descendants('missing', 1)$$, '42704', NULL, 'unknown graph');
SELECT throws_ok($$SELECT * FROM grail.descendants('g_text', 'k1', -1)$$, '22023', NULL, 'a negative max_depth');
SELECT throws_ok($$SELECT * FROM grail.bfs('g_text', 'k1', NULL, 'sideways')$$, '22023', NULL, 'an unknown direction');
SELECT throws_ok($$SELECT * FROM grail.descendants('g_uuid', 'not a uuid')$$, NULL, NULL, 'a text key that is no uuid on a uuid graph');
SELECT is((SELECT count(*) FROM grail.descendants(NULL, 1)) + (SELECT count(*) FROM grail.ancestors('g_bigint', NULL::bigint))
          + (SELECT count(*) FROM grail.bfs('g_text', 'k1', NULL, NULL)), 0::bigint, 'NULL graph, source or direction: no rows');
SELECT is(pg_temp.rows_of($$SELECT * FROM grail.descendants('g_int', (-27)::int, NULL)$$, true),
          pg_temp.rows_of($$SELECT * FROM grail.descendants('g_int', (-27)::int)$$, true), 'a NULL max_depth: no limit');

-- Privileges: the edge table's, checked by the call; EXECUTE on the function, at executor start.
CREATE ROLE traversal_scan_reader;
GRANT USAGE ON SCHEMA grail TO traversal_scan_reader;
GRANT SELECT ON e_int TO traversal_scan_reader;
SET LOCAL ROLE traversal_scan_reader;
SELECT throws_ok($$SELECT * FROM grail.descendants('g_text', 'k1')$$, '42501', NULL, 'no SELECT on the edge table');
SELECT ok((SELECT count(*) FROM grail.descendants('g_int', (-27)::int)) > 0, 'with SELECT on it, rows');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION grail.descendants(text, bigint, int) FROM PUBLIC;
SET LOCAL ROLE traversal_scan_reader;
SELECT throws_ok($$SELECT * FROM grail.descendants('g_int', -27::bigint)$$, '42501', NULL, 'no EXECUTE on the function');
SELECT throws_ok($$EXPLAIN SELECT * FROM grail.descendants('g_int', -27::bigint)$$, '42501', NULL, 'not even for EXPLAIN, as FunctionScan');
RESET ROLE;

-- Left to FunctionScan: WITH ORDINALITY, ROWS FROM several functions, a whole-row reference, the
-- setting off, and any other function.
SELECT ok(NOT pg_temp.scanned($$SELECT * FROM grail.descendants('g_text', 'k1') WITH ORDINALITY$$)
          AND NOT pg_temp.scanned($$SELECT * FROM ROWS FROM (grail.descendants('g_text', 'k1'), generate_series(1, 2))$$)
          AND NOT pg_temp.scanned($$SELECT d FROM grail.descendants('g_text', 'k1') d$$)
          AND NOT pg_temp.scanned($$SELECT * FROM generate_series(1, 3)$$),
          'ordinality, ROWS FROM, whole rows and other functions stay FunctionScans');
SELECT is((SELECT array_agg(d::text) FROM grail.descendants('g_text', 'k4') d),
          pg_temp.rows_of($$SELECT * FROM grail.descendants('g_text', 'k4')$$, true), 'a whole-row reference still has the rows');
SET LOCAL grail.traversal_scan = off;
SELECT ok(NOT pg_temp.scanned($$SELECT * FROM grail.descendants('g_text', 'k1')$$), 'grail.traversal_scan = off: FunctionScan');
RESET grail.traversal_scan;

-- EXPLAIN (VERBOSE) names the call: the graph, the source and the bound pushed into it.
SELECT ok((SELECT string_agg(l, E'\n') FROM (SELECT * FROM pg_temp.explain_lines($$SELECT * FROM grail.ancestors('g_text', 'k1') WHERE depth <= 2$$)) x(l))
          LIKE '%Grail Traversal Scan%Function Call: grail.ancestors(''g_text''::text, ''k1''::text, 2)%', 'EXPLAIN VERBOSE shows the call');
-- Without VERBOSE it names the function and, where it is another name, the alias, as a
-- FunctionScan's "on descendants d" does: two scans of one plan told apart.
CREATE FUNCTION pg_temp.plain_explain(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; plan text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		plan := plan || line || E'\n';
	END LOOP;
	RETURN plan;
END $$;
SELECT ok(pg_temp.plain_explain($$SELECT count(*) FROM key_of k, grail.descendants('g_text', k.key) d,
                                   grail.ancestors('g_text', k.key) WHERE k.kind = 'text'$$)
          ~ '(?s)Traversal Scan\)\n *Function: descendants d\n.*Traversal Scan\)\n *Function: ancestors\n|Traversal Scan\)\n *Function: ancestors\n.*Traversal Scan\)\n *Function: descendants d\n',
          'EXPLAIN names each scan''s function and alias');

SELECT * FROM finish();
ROLLBACK;
