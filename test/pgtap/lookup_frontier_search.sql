-- reachable() where the labels leave most pairs to the search (one GRAIL traversal), which goes
-- level by level with the misses of a whole frontier overlapped: per row and as an array against a
-- recursive-CTE closure on wide random DAGs, deep chains with short jumps and layered graphs, with
-- cycles, self-loops, duplicate edges, both extreme ids and unknown ids; the same graphs with
-- pending inserts and deletes (the overlay answers) and refreshed; the empty graph; NULLs.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(23);
SET client_min_messages = warning;
SELECT setseed(0.2718);

-- The pairs of fs_pairs (i, a, b) answered wrongly, by the closure of fs_e's rows from the pairs'
-- sources: per row, and as one array.
CREATE FUNCTION pg_temp.fs_check(what text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	DROP TABLE IF EXISTS fs_closure, fs_expected;
	CREATE TEMP TABLE fs_closure AS
	WITH RECURSIVE c(s, t) AS (
		SELECT source, target FROM fs_e WHERE source IN (SELECT a FROM fs_pairs)
		UNION
		SELECT c.s, e.target FROM c JOIN fs_e e ON e.source = c.t)
	SELECT * FROM c;
	CREATE TEMP TABLE fs_expected AS
	SELECT p.i, p.a, p.b, p.a = p.b OR EXISTS (SELECT 1 FROM fs_closure c WHERE c.s = p.a AND c.t = p.b) AS reached
	FROM fs_pairs p;
	RETURN NEXT is((SELECT count(*) FROM fs_expected WHERE grail.reachable('fs', a, b) IS DISTINCT FROM reached),
	               0::bigint, what || ': per row');
	RETURN NEXT is((SELECT count(*) FROM fs_expected x
	                JOIN unnest((SELECT grail.reachable('fs', array_agg(a ORDER BY i), array_agg(b ORDER BY i)) FROM fs_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached),
	               0::bigint, what || ': one array');
END $f$;

-- Round r, shape r % 3: 0 wide (uniform pairs of the pool, smaller index to larger), 1 deep (a
-- chain, most links kept, with jumps of up to 8), 2 layered (each vertex to 1-3 of the next layer).
-- Then back edges (cycles), self-loops and duplicates. Pairs: uniform, ends of walks, unknown ids.
CREATE FUNCTION pg_temp.fs_round(r int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	vertices int := 300 + floor(random() * 500)::int;
	width int := 2 + floor(random() * 30)::int;
BEGIN
	IF r > 0 THEN
		PERFORM grail.drop_graph('fs');
		DROP TABLE fs_e, fs_pool, fs_pairs;
	END IF;
	CREATE TEMP TABLE fs_pool AS
	SELECT i, CASE i WHEN 0 THEN -9223372036854775808 WHEN vertices - 1 THEN 9223372036854775807
	                 ELSE floor(random() * 2e18 - 1e18)::bigint END AS v
	FROM generate_series(0, vertices - 1) i;
	CREATE TABLE fs_e (source bigint, target bigint);
	IF r % 3 = 0 THEN
		INSERT INTO fs_e SELECT pa.v, pb.v
		FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y
		      FROM generate_series(1, vertices * 4)) e
		JOIN fs_pool pa ON pa.i = least(e.x, e.y) JOIN fs_pool pb ON pb.i = greatest(e.x, e.y) WHERE e.x <> e.y;
	ELSIF r % 3 = 1 THEN
		INSERT INTO fs_e SELECT pa.v, pb.v FROM fs_pool pa JOIN fs_pool pb ON pb.i = pa.i + 1 WHERE random() < 0.9;
		INSERT INTO fs_e SELECT pa.v, pb.v FROM fs_pool pa
		JOIN fs_pool pb ON pb.i = least(vertices - 1, pa.i + 1 + floor(random() * 8)::int) WHERE pa.i < vertices - 1;
	ELSE
		INSERT INTO fs_e SELECT pa.v, pb.v FROM fs_pool pa, generate_series(1, 1 + floor(random() * 3)::int) k,
		LATERAL (SELECT (pa.i / width + 1) * width + floor(random() * width)::int + 0 * k AS j) t
		JOIN fs_pool pb ON pb.i = t.j;
	END IF;
	INSERT INTO fs_e SELECT pb.v, pa.v FROM (SELECT floor(random() * (vertices - 5))::int AS i FROM generate_series(1, 4)) e
	                 JOIN fs_pool pa ON pa.i = e.i JOIN fs_pool pb ON pb.i = e.i + 1 + floor(random() * 3)::int;
	INSERT INTO fs_e SELECT source, source FROM fs_e ORDER BY random() LIMIT 5;
	INSERT INTO fs_e SELECT * FROM fs_e ORDER BY random() LIMIT 10;
	CREATE TEMP TABLE fs_pairs AS
	WITH RECURSIVE walk(k, a, v, steps) AS (
		SELECT k, p.v, p.v, 1 + floor(random() * 12)::int
		FROM (SELECT k, floor(random() * vertices)::int AS x FROM generate_series(1, 300) k) s JOIN fs_pool p ON p.i = s.x
		UNION ALL
		SELECT w.k, w.a, (SELECT e.target FROM fs_e e WHERE e.source = w.v ORDER BY random() LIMIT 1), w.steps - 1
		FROM walk w WHERE w.steps > 0 AND w.v IS NOT NULL)
	SELECT row_number() OVER (ORDER BY random()) AS i, a, b FROM (
		SELECT pa.v AS a, pb.v AS b
		FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y FROM generate_series(1, 700)) p
		JOIN fs_pool pa ON pa.i = p.x JOIN fs_pool pb ON pb.i = p.y
		UNION ALL
		(SELECT DISTINCT ON (k) a, v FROM walk WHERE v IS NOT NULL ORDER BY k, steps)
		UNION ALL SELECT 7, v FROM fs_pool WHERE i < 3 UNION ALL SELECT v, 7 FROM fs_pool WHERE i < 3) q;
	PERFORM grail.create_graph('fs', 'fs_e', labels => 1);
	RETURN QUERY SELECT * FROM pg_temp.fs_check(format('graph %s (%s ids)', r, vertices));
	-- Pending changes: inserts (one a new id, one joining both extremes) and deletes.
	INSERT INTO fs_e SELECT pa.v, pb.v FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y
	                                         FROM generate_series(1, 1 + vertices / 50)) e
	                 JOIN fs_pool pa ON pa.i = least(e.x, e.y) JOIN fs_pool pb ON pb.i = greatest(e.x, e.y);
	INSERT INTO fs_e VALUES (7, (SELECT v FROM fs_pool WHERE i = 1)), (-9223372036854775808, 9223372036854775807);
	DELETE FROM fs_e WHERE ctid IN (SELECT ctid FROM fs_e ORDER BY random() LIMIT 1 + vertices / 30);
	RETURN QUERY SELECT * FROM pg_temp.fs_check(format('graph %s with pending changes', r));
	PERFORM grail.refresh_graph('fs');
	RETURN QUERY SELECT * FROM pg_temp.fs_check(format('graph %s refreshed', r));
END $f$;

-- 3 rounds of 3 x 2: 18.
SELECT pg_temp.fs_round(r) FROM generate_series(0, 2) r;

-- The empty graph; unknown keys; NULLs; a dropped graph.
CREATE TABLE fs_empty (source bigint, target bigint);
SELECT lives_ok($$SELECT grail.create_graph('fs_empty', 'fs_empty', labels => 1)$$, 'the empty graph builds');
SELECT is(ARRAY[grail.reachable('fs_empty', 1::bigint, 1::bigint), grail.reachable('fs_empty', 1::bigint, 2::bigint)],
          ARRAY[true, false], 'the empty graph: a key reaches only itself');
SELECT is(grail.reachable('fs', 123456789012, (SELECT v FROM fs_pool WHERE i = 1)), false, 'an unknown id reaches nothing else');
SELECT is(ARRAY[grail.reachable('fs', NULL::bigint, 1::bigint), grail.reachable('fs', 1::bigint, NULL::bigint),
                grail.reachable(NULL, 1::bigint, 2::bigint)], ARRAY[NULL, NULL, NULL]::boolean[], 'NULLs: NULL');
SELECT grail.drop_graph('fs_empty');
SELECT throws_ok($$SELECT grail.reachable('fs_empty', 1::bigint, 2::bigint)$$, '42704', NULL, 'a graph dropped between calls');

SELECT * FROM finish();
ROLLBACK;
