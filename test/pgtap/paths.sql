-- path() and find_cycle() against brute-force answers in SQL over the edge rows: the distance by a
-- recursive CTE, each step of an answer an edge of the table, a path equal to the parent chain that
-- bfs() reports, a cycle's last edge from the first vertex in bfs() order with an edge back. On
-- random graphs (cycles, self-loops, duplicates, ids at the limits of bigint, text and uuid keys),
-- the empty graph, unknown keys, NULLs, errors, and live graphs with pending inserts and deletes,
-- whose answers must equal a recomputation from the rows the snapshot sees.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(113);
SELECT setseed(0.2727);

-- The surface: signatures, return types, STRICT and STABLE.
SELECT function_returns('grail', 'path', ARRAY['text', 'bigint', 'bigint'], 'bigint[]');
SELECT is_strict('grail', 'path', ARRAY['text', 'bigint', 'bigint']);
SELECT volatility_is('grail', 'path', ARRAY['text', 'bigint', 'bigint'], 'stable');
SELECT function_returns('grail', 'path', ARRAY['text', 'text', 'text'], 'text[]');
SELECT is_strict('grail', 'path', ARRAY['text', 'text', 'text']);
SELECT volatility_is('grail', 'path', ARRAY['text', 'text', 'text'], 'stable');
SELECT function_returns('grail', 'path', ARRAY['text', 'uuid', 'uuid'], 'uuid[]');
SELECT is_strict('grail', 'path', ARRAY['text', 'uuid', 'uuid']);
SELECT volatility_is('grail', 'path', ARRAY['text', 'uuid', 'uuid'], 'stable');
SELECT function_returns('grail', 'find_cycle', ARRAY['text', 'bigint'], 'bigint[]');
SELECT is_strict('grail', 'find_cycle', ARRAY['text', 'bigint']);
SELECT volatility_is('grail', 'find_cycle', ARRAY['text', 'bigint'], 'stable');
SELECT function_returns('grail', 'find_cycle', ARRAY['text', 'text'], 'text[]');
SELECT is_strict('grail', 'find_cycle', ARRAY['text', 'text']);
SELECT volatility_is('grail', 'find_cycle', ARRAY['text', 'text'], 'stable');
SELECT function_returns('grail', 'find_cycle', ARRAY['text', 'uuid'], 'uuid[]');
SELECT is_strict('grail', 'find_cycle', ARRAY['text', 'uuid']);
SELECT volatility_is('grail', 'find_cycle', ARRAY['text', 'uuid'], 'stable');

-- The oracle over table tbl (columns s, t of key type kt) and graph g, for every pair of its
-- vertices and an unknown key: how many answers are wrong, and how many non-trivial ones there were.
CREATE FUNCTION pg_temp.paths_check(g text, tbl text, kt text, unknown text,
                                    OUT wrong_paths bigint, OUT wrong_cycles bigint,
                                    OUT long_paths bigint, OUT cycles bigint)
LANGUAGE plpgsql SET client_min_messages = warning AS $f$
BEGIN
	DROP TABLE IF EXISTS pc_e, pc_v, pc_vu, pc_d, pc_p, pc_bfs, pc_chain, pc_c;
	EXECUTE format('CREATE TEMP TABLE pc_e AS SELECT DISTINCT s::text AS s, t::text AS t FROM %s
	                WHERE s IS NOT NULL AND t IS NOT NULL AND s <> t', tbl);
	EXECUTE format('CREATE TEMP TABLE pc_v AS SELECT s::text AS v FROM %1$s WHERE s IS NOT NULL AND t IS NOT NULL
	                UNION SELECT t::text FROM %1$s WHERE s IS NOT NULL AND t IS NOT NULL', tbl);
	CREATE TEMP TABLE pc_vu AS SELECT v FROM pc_v UNION SELECT unknown;
	CREATE TEMP TABLE pc_d AS
	WITH RECURSIVE d(s, v, depth) AS (
		SELECT v, v, 0 FROM pc_vu
		UNION
		SELECT d.s, e.t, d.depth + 1 FROM d JOIN pc_e e ON e.s = d.v WHERE d.depth < (SELECT count(*) FROM pc_v))
	SELECT s, v, min(depth) AS depth FROM d GROUP BY s, v;
	EXECUTE format('CREATE TEMP TABLE pc_p AS SELECT a.v AS a, b.v AS b, grail.path(%L, a.v::%s, b.v::%2$s)::text[] AS p
	                FROM pc_vu a, pc_vu b', g, kt);
	EXECUTE format('CREATE TEMP TABLE pc_bfs AS SELECT a.v AS a, r.vertex::text AS v, r.parent::text AS parent, r.ord
	                FROM pc_vu a, grail.bfs(%L, a.v::%s) WITH ORDINALITY r(vertex, depth, parent, ord)', g, kt);
	CREATE TEMP TABLE pc_chain AS
	WITH RECURSIVE c(a, b, cur, chain) AS (
		SELECT a, v, v, ARRAY[v] FROM pc_bfs
		UNION ALL
		SELECT c.a, c.b, x.parent, x.parent || c.chain
		FROM c JOIN pc_bfs x ON x.a = c.a AND x.v = c.cur WHERE x.parent IS NOT NULL)
	SELECT a, b, chain FROM c WHERE cur = a;
	EXECUTE format('CREATE TEMP TABLE pc_c AS SELECT v, grail.find_cycle(%L, v::%s)::text[] AS c FROM pc_vu', g, kt);

	SELECT count(*) INTO wrong_paths
	FROM pc_p p
	LEFT JOIN pc_d d ON d.s = p.a AND d.v = p.b
	LEFT JOIN pc_chain ch ON ch.a = p.a AND ch.b = p.b
	WHERE (p.p IS NULL) <> (d.depth IS NULL)
	   OR p.p IS DISTINCT FROM ch.chain
	   OR (p.p IS NOT NULL
	       AND (cardinality(p.p) - 1 <> d.depth OR p.p[1] <> p.a OR p.p[cardinality(p.p)] <> p.b
	            OR EXISTS (SELECT 1 FROM generate_subscripts(p.p, 1) k
	                       WHERE k < cardinality(p.p)
	                         AND NOT EXISTS (SELECT 1 FROM pc_e e WHERE e.s = p.p[k] AND e.t = p.p[k + 1]))));
	SELECT count(*) INTO long_paths FROM pc_p WHERE cardinality(p) > 2;

	SELECT count(*) INTO wrong_cycles
	FROM (SELECT c.v, c.c,
	             (SELECT min(d.depth) + 1 FROM pc_e e JOIN pc_d d ON d.s = c.v AND d.v = e.s WHERE e.t = c.v) AS len,
	             (SELECT p.p || c.v FROM pc_p p
	              WHERE p.a = c.v
	                AND p.b = (SELECT x.v FROM pc_bfs x WHERE x.a = c.v
	                             AND EXISTS (SELECT 1 FROM pc_e e WHERE e.s = x.v AND e.t = c.v)
	                           ORDER BY x.ord LIMIT 1)) AS expected
	      FROM pc_c c) x
	WHERE (x.c IS NULL) <> (x.len IS NULL)
	   OR x.c IS DISTINCT FROM x.expected
	   OR (x.c IS NOT NULL
	       AND (cardinality(x.c) - 1 <> x.len OR x.c[1] <> x.v OR x.c[cardinality(x.c)] <> x.v
	            OR EXISTS (SELECT 1 FROM generate_subscripts(x.c, 1) k
	                       WHERE k < cardinality(x.c)
	                         AND NOT EXISTS (SELECT 1 FROM pc_e e WHERE e.s = x.c[k] AND e.t = x.c[k + 1]))));
	SELECT count(*) INTO cycles FROM pc_c WHERE c IS NOT NULL;
END
$f$;

-- 24 random bigint graphs: n = 3 + i % 12 vertices (the extremes of bigint in odd ones), up to
-- 3n edges, self-loops and duplicates as they come, every fourth a DAG, a NULL row in some.
CREATE TABLE paths_pool (i int, k int, v bigint);
INSERT INTO paths_pool
SELECT i, k, CASE WHEN i % 2 = 1 AND k = 0 THEN -9223372036854775808
                  WHEN i % 2 = 1 AND k = 1 THEN 9223372036854775807
                  ELSE (k * 7919 + i * 31) % 1000 - 500 END
FROM generate_series(1, 24) i, generate_series(0, 2 + i % 12) k;
DO $$
DECLARE
	n int;
BEGIN
	FOR i IN 1..24 LOOP
		n := 3 + i % 12;
		EXECUTE format('CREATE TABLE paths_g%s (s bigint, t bigint)', i);
		EXECUTE format($q$INSERT INTO paths_g%1$s
		               SELECT a.v, b.v FROM (SELECT floor(random() * %2$s)::int x, floor(random() * %2$s)::int y
		                                     FROM generate_series(1, floor(random() * 3 * %2$s)::int + 1)) r
		               JOIN paths_pool a ON a.i = %1$s AND a.k = CASE WHEN %1$s %% 4 = 0 THEN least(r.x, r.y) ELSE r.x END
		               JOIN paths_pool b ON b.i = %1$s AND b.k = CASE WHEN %1$s %% 4 = 0 THEN greatest(r.x, r.y) ELSE r.y END$q$,
		               i, n);
		IF i % 5 = 0 THEN
			EXECUTE format('INSERT INTO paths_g%s VALUES (NULL, 1), (2, NULL)', i);
		END IF;
		PERFORM grail.create_graph('paths' || i, format('paths_g%s', i)::regclass, 's', 't', skip_nulls => i % 5 = 0);
	END LOOP;
END
$$;

SELECT is((SELECT (wrong_paths, wrong_cycles)::text FROM pg_temp.paths_check('paths' || i, 'paths_g' || i, 'bigint', '123456789')),
          '(0,0)', format('graph %s: path() and find_cycle() agree with the oracle on every key', i))
FROM generate_series(1, 24) i;
SELECT cmp_ok((SELECT sum(long_paths) FROM generate_series(1, 24) i, pg_temp.paths_check('paths' || i, 'paths_g' || i, 'bigint', '0')),
              '>', 100::numeric, 'the random graphs have many paths of two edges or more');
SELECT cmp_ok((SELECT sum(cycles) FROM generate_series(1, 24) i, pg_temp.paths_check('paths' || i, 'paths_g' || i, 'bigint', '0')),
              '>', 20::numeric, 'and many vertices on cycles');

-- Text keys, in byte order unlike the collation's, and uuid keys.
CREATE TABLE paths_text (s text, t text);
INSERT INTO paths_text
SELECT (ARRAY['a', 'B', 'é', 'Z', 'b', '', ' x', 'ä', 'A', 'c'])[1 + floor(random() * 10)::int],
       (ARRAY['a', 'B', 'é', 'Z', 'b', '', ' x', 'ä', 'A', 'c'])[1 + floor(random() * 10)::int]
FROM generate_series(1, 22);
INSERT INTO paths_text VALUES ('a', 'a'), ('loop1', 'loop2'), ('loop2', 'loop1');
SELECT grail.create_graph('paths_text', 'paths_text', 's', 't');
SELECT is((SELECT (wrong_paths, wrong_cycles)::text FROM pg_temp.paths_check('paths_text', 'paths_text', 'text', 'nope')),
          '(0,0)', 'text keys: path() and find_cycle() agree with the oracle');
SELECT is(grail.path('paths_text', 'loop1', 'loop2'), ARRAY['loop1', 'loop2'], 'text path of one edge');
SELECT is(grail.find_cycle('paths_text', 'loop2'), ARRAY['loop2', 'loop1', 'loop2'], 'text cycle of two edges');

CREATE TABLE paths_uuid (s uuid, t uuid);
INSERT INTO paths_uuid
SELECT ('00000000-0000-0000-0000-' || lpad((floor(random() * 12))::text, 12, '0'))::uuid,
       ('00000000-0000-0000-0000-' || lpad((floor(random() * 12))::text, 12, '0'))::uuid
FROM generate_series(1, 30);
INSERT INTO paths_uuid VALUES ('ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000000');
SELECT grail.create_graph('paths_uuid', 'paths_uuid', 's', 't');
SELECT is((SELECT (wrong_paths, wrong_cycles)::text
           FROM pg_temp.paths_check('paths_uuid', 'paths_uuid', 'uuid', '12345678-1234-1234-1234-123456789abc')),
          '(0,0)', 'uuid keys: path() and find_cycle() agree with the oracle');

-- Fixed cases.
CREATE TABLE paths_fixed (s bigint, t bigint);
INSERT INTO paths_fixed VALUES (1, 2), (2, 3), (3, 1), (3, 4), (5, 5), (6, 5), (1, 3), (7, 8), (7, 9), (8, 10), (9, 10);
SELECT grail.create_graph('paths_fixed', 'paths_fixed', 's', 't');
SELECT is(grail.path('paths_fixed', 1, 4), ARRAY[1, 3, 4]::bigint[], 'the shortest path, not the first found');
SELECT is(grail.path('paths_fixed', 7, 10), ARRAY[7, 8, 10]::bigint[], 'a tie goes to the smallest parent');
SELECT is(grail.path('paths_fixed', 4, 1), NULL, 'unreachable: NULL');
SELECT is(grail.path('paths_fixed', 4, 4), ARRAY[4]::bigint[], 'source = target: ARRAY[source]');
SELECT is(grail.path('paths_fixed', 5, 5), ARRAY[5]::bigint[], 'a self-loop is no step of a path');
SELECT is(grail.path('paths_fixed', 1, 99), NULL, 'unknown target: NULL');
SELECT is(grail.path('paths_fixed', 99, 1), NULL, 'unknown source: NULL');
-- A key that is not in the graph reaches only itself (reachable() says so): path() agrees, in
-- every key kind and overload.
SELECT is(grail.path('paths_fixed', 99, 99), ARRAY[99]::bigint[], 'unknown source = target: the key alone');
SELECT is(grail.path('paths_fixed', 99, 99) IS NOT NULL, grail.reachable('paths_fixed', 99, 99),
          'unknown source = target: path() and reachable() agree');
SELECT is(grail.path('paths_fixed', 99::int, 99::int), ARRAY[99]::bigint[], 'the same through the integer overload');
SELECT is(grail.path('paths_fixed', '-9223372036854775808', '-9223372036854775808'), ARRAY['-9223372036854775808'],
          'the same through the text form on an integer graph (text[])');
SELECT is(grail.path('paths_fixed', 98, 99), NULL, 'two unknown keys: NULL');
SELECT is(grail.path('paths_text', 'not-a-vertex', 'not-a-vertex'), ARRAY['not-a-vertex'], 'an unknown text key: the key alone');
SELECT is(grail.path('paths_text', repeat('é', 3000), repeat('é', 3000)), ARRAY[repeat('é', 3000)],
          'a long unknown text key: the key alone');
SELECT is(grail.path('paths_text', 'not-a-vertex', 'not-a-Vertex'), NULL, 'text keys are compared byte for byte');
SELECT is(grail.path('paths_uuid', '12345678-1234-1234-1234-123456789abc'::uuid, '12345678-1234-1234-1234-123456789abc'::uuid),
          ARRAY['12345678-1234-1234-1234-123456789abc'::uuid], 'an unknown uuid key: the key alone');
SELECT is(grail.path('paths_uuid', '12345678-1234-1234-1234-123456789ABC', '{12345678-1234-1234-1234-123456789abc}'),
          ARRAY['12345678-1234-1234-1234-123456789abc'], 'the same through the text form on a uuid graph, one key in two spellings');
SELECT is(grail.find_cycle('paths_fixed', 1), ARRAY[1, 3, 1]::bigint[], 'the shortest cycle through 1');
SELECT is(grail.find_cycle('paths_fixed', 2), ARRAY[2, 3, 1, 2]::bigint[], 'the cycle through 2');
SELECT is(grail.find_cycle('paths_fixed', 4), NULL, 'a vertex on no cycle: NULL');
SELECT is(grail.find_cycle('paths_fixed', 5), NULL, 'a self-loop alone is no cycle (self-loops are not part of a graph)');
SELECT is(grail.find_cycle('paths_fixed', 99), NULL, 'unknown vertex: NULL');

-- NULLs in every argument.
SELECT is(grail.path(NULL, 1::bigint, 2::bigint), NULL, 'path(NULL graph)');
SELECT is(grail.path('paths_fixed', NULL::bigint, 2), NULL, 'path(NULL source)');
SELECT is(grail.path('paths_fixed', 1, NULL::bigint), NULL, 'path(NULL target)');
SELECT is(grail.path('paths_text', NULL::text, 'a'), NULL, 'path(NULL text source)');
SELECT is(grail.path('paths_uuid', NULL::uuid, NULL::uuid), NULL, 'path(NULL uuids)');
SELECT is(grail.find_cycle(NULL, 1::bigint), NULL, 'find_cycle(NULL graph)');
SELECT is(grail.find_cycle('paths_fixed', NULL::bigint), NULL, 'find_cycle(NULL vertex)');
SELECT is(grail.find_cycle('paths_text', NULL::text), NULL, 'find_cycle(NULL text vertex)');

-- The empty graph.
CREATE TABLE paths_empty (s bigint, t bigint);
SELECT grail.create_graph('paths_empty', 'paths_empty', 's', 't');
SELECT is(grail.path('paths_empty', 1, 1), ARRAY[1]::bigint[], 'empty graph: path(v, v) is v alone, as reachable(v, v)');
SELECT is(grail.path('paths_empty', 1, 2), NULL, 'empty graph: path');
SELECT is(grail.find_cycle('paths_empty', 1), NULL, 'empty graph: find_cycle');

-- Errors: a missing graph, keys of another kind, no right to read the edge table, a graph
-- dropped or renamed between calls.
SELECT throws_ok($$SELECT grail.path('paths_missing', 1, 2)$$, '42704', NULL, 'path() on a missing graph');
SELECT throws_ok($$SELECT grail.find_cycle('paths_missing', 1)$$, '42704', NULL, 'find_cycle() on a missing graph');
SELECT throws_like($$SELECT grail.path('paths_text', 1, 2)$$, '%text keys%', 'bigint keys on a text graph');
SELECT throws_like($$SELECT grail.find_cycle('paths_fixed', 'a'::text)$$, '%integer keys%', 'text key on a bigint graph');
SELECT throws_like($$SELECT grail.path('paths_uuid', 'a'::text, 'b'::text)$$, '%uuid keys%', 'text keys on a uuid graph');
CREATE ROLE paths_reader;
GRANT USAGE ON SCHEMA public TO paths_reader;
SET LOCAL ROLE paths_reader;
SELECT throws_ok($$SELECT grail.path('paths_fixed', 1, 4)$$, '42501', NULL, 'path() without SELECT on the edge table');
SELECT throws_ok($$SELECT grail.find_cycle('paths_fixed', 1)$$, '42501', NULL, 'find_cycle() without SELECT on the edge table');
RESET ROLE;
CREATE TABLE paths_moving (s bigint, t bigint);
INSERT INTO paths_moving VALUES (1, 2), (2, 1);
SELECT grail.create_graph('paths_moving', 'paths_moving', 's', 't');
SELECT is(grail.find_cycle('paths_moving', 1), ARRAY[1, 2, 1]::bigint[], 'before the drop');
SELECT grail.drop_graph('paths_moving');
SELECT throws_ok($$SELECT grail.find_cycle('paths_moving', 1)$$, '42704', NULL, 'a graph dropped between calls: undefined_object');
SELECT grail.create_graph('paths_moving', 'paths_moving', 's', 't');
DELETE FROM paths_moving WHERE s = 2;
SELECT is(grail.find_cycle('paths_moving', 1), NULL, 'made again and changed: the new rows answer');

-- Live graphs: rounds of random inserts and deletes left pending (answered from the snapshot's
-- rebuild), a merge every fourth round (not the last two); each round against the oracle over the current rows.
CREATE TABLE paths_live (s bigint, t bigint);
INSERT INTO paths_live SELECT floor(random() * 10), floor(random() * 10) FROM generate_series(1, 15);
INSERT INTO paths_live VALUES (-9223372036854775808, 9223372036854775807), (9223372036854775807, -9223372036854775808);
SELECT grail.create_graph('paths_live', 'paths_live', 's', 't');
CREATE TABLE paths_live_text (s text, t text);
INSERT INTO paths_live_text SELECT 'k' || floor(random() * 8), 'k' || floor(random() * 8) FROM generate_series(1, 12);
SELECT grail.create_graph('paths_live_text', 'paths_live_text', 's', 't');

CREATE FUNCTION pg_temp.paths_round(r int) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
	INSERT INTO paths_live SELECT floor(random() * 13), floor(random() * 13) FROM generate_series(1, 1 + r % 4);
	DELETE FROM paths_live WHERE ctid IN (SELECT ctid FROM paths_live ORDER BY random() LIMIT 1 + r % 3);
	INSERT INTO paths_live_text SELECT 'k' || floor(random() * 11), 'k' || floor(random() * 11) FROM generate_series(1, 1 + r % 3);
	DELETE FROM paths_live_text WHERE ctid IN (SELECT ctid FROM paths_live_text ORDER BY random() LIMIT 1 + r % 2);
	IF r % 4 = 2 THEN
		PERFORM grail.merge_graph('paths_live');
		PERFORM grail.merge_graph('paths_live_text');
	END IF;
	RETURN (SELECT (wrong_paths, wrong_cycles)::text FROM pg_temp.paths_check('paths_live', 'paths_live', 'bigint', '123456789'))
	    || (SELECT (wrong_paths, wrong_cycles)::text FROM pg_temp.paths_check('paths_live_text', 'paths_live_text', 'text', 'nope'));
END
$f$;
SELECT is(pg_temp.paths_round(r), '(0,0)(0,0)', format('live round %s: answers equal the oracle over the current rows', r))
FROM generate_series(1, 16) r;
SELECT cmp_ok((SELECT pending_changes FROM grail.graphs WHERE name = 'paths_live'), '>', 0::bigint,
              'the last rounds left changes pending');
-- A key only the pending rows have, and a deleted edge that a path used.
INSERT INTO paths_live VALUES (1000, 1001), (1001, 1000);
SELECT is(grail.find_cycle('paths_live', 1000), ARRAY[1000, 1001, 1000]::bigint[], 'a cycle of pending rows only');
SELECT is(grail.path('paths_live', 1001, 1000), ARRAY[1001, 1000]::bigint[], 'a path over a pending row');
DELETE FROM paths_live WHERE s = 1001;
SELECT is(grail.path('paths_live', 1001, 1000), NULL, 'the deleted row is no step any more');
SELECT is(grail.find_cycle('paths_live', 1000), NULL, 'nor part of a cycle');
INSERT INTO paths_live_text VALUES ('new1', 'new2'), ('new2', 'new1');
SELECT is(grail.find_cycle('paths_live_text', 'new2'), ARRAY['new2', 'new1', 'new2'], 'text keys only the pending rows have');

SELECT * FROM finish();
ROLLBACK;
