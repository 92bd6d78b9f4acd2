-- The backward DFS order of the lookup records (image format 7 and later), which decides most pairs of
-- skewed ("R-MAT like") DAGs before the GRAIL records are read: reachable() per row and as an
-- array against a recursive-CTE closure, bigint keys over a pool holding both extremes and uuid
-- keys, with cycles, self-loops, duplicate edges and isolated ids; the same graphs with pending
-- inserts and deletes (the overlay answers, without the order) and refreshed; the image format a
-- build writes; unknown keys, NULLs, a graph dropped between calls.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(32);
SET client_min_messages = warning;
SELECT setseed(0.4142);

-- The pairs of bo_pairs (i, a, b) answered wrongly, by the closure of bo_e's rows from the pairs'
-- sources: per row and as one array over bigint keys, and per row and as an array over uuid keys.
CREATE FUNCTION pg_temp.bo_check(what text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	DROP TABLE IF EXISTS bo_closure, bo_expected;
	CREATE TEMP TABLE bo_closure AS
	WITH RECURSIVE c(s, t) AS (
		SELECT source, target FROM bo_e
		WHERE source IN (SELECT a FROM bo_pairs) AND target IS NOT NULL
		UNION
		SELECT c.s, e.target FROM c JOIN bo_e e ON e.source = c.t WHERE e.target IS NOT NULL)
	SELECT * FROM c;
	CREATE TEMP TABLE bo_expected AS
	SELECT p.i, p.a, p.b, p.a = p.b OR EXISTS (SELECT 1 FROM bo_closure c WHERE c.s = p.a AND c.t = p.b) AS reached
	FROM bo_pairs p;
	RETURN NEXT is((SELECT count(*) FROM bo_expected WHERE grail.reachable('bo', a, b) IS DISTINCT FROM reached),
	               0::bigint, what || ': per row');
	RETURN NEXT is((SELECT count(*) FROM bo_expected x
	                JOIN unnest((SELECT grail.reachable('bo', array_agg(a ORDER BY i), array_agg(b ORDER BY i)) FROM bo_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached),
	               0::bigint, what || ': one array');
	RETURN NEXT is((SELECT count(*) FROM bo_expected x
	                JOIN unnest((SELECT grail.reachable('bou', array_agg(pg_temp.bo_uuid(a) ORDER BY i),
	                                                    array_agg(pg_temp.bo_uuid(b) ORDER BY i)) FROM bo_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached
	                   OR grail.reachable('bou', pg_temp.bo_uuid(x.a), pg_temp.bo_uuid(x.b)) IS DISTINCT FROM x.reached),
	               0::bigint, what || ': uuid keys, per row and as an array');
END $f$;

CREATE FUNCTION pg_temp.bo_uuid(v bigint) RETURNS uuid LANGUAGE sql IMMUTABLE AS
$$SELECT md5(v::text)::uuid$$;

-- Round r: a DAG whose edges join ids drawn with a skew towards the pool's front (hubs), each from
-- the smaller pool index to the larger; back edges (cycles), self-loops and duplicates; ids in no
-- edge. Pairs: uniform over the pool, the ends of short walks (reachable), unknown ids.
CREATE FUNCTION pg_temp.bo_round(r int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	vertices int := 400 + floor(random() * 600)::int;
BEGIN
	IF r > 1 THEN
		PERFORM grail.drop_graph('bo');
		PERFORM grail.drop_graph('bou');
		DROP TABLE bo_e, bo_eu, bo_pool, bo_pairs;
	END IF;
	CREATE TEMP TABLE bo_pool AS
	SELECT i, CASE i WHEN 0 THEN -9223372036854775808 WHEN vertices - 1 THEN 9223372036854775807
	                 ELSE floor(random() * 2e18 - 1e18)::bigint END AS v
	FROM generate_series(0, vertices - 1) i;
	CREATE TABLE bo_e (source bigint, target bigint);
	INSERT INTO bo_e
	SELECT pa.v, pb.v
	FROM (SELECT floor(vertices * random() ^ 2)::int AS x, floor(vertices * random() ^ (1 + r % 3))::int AS y
	      FROM generate_series(1, vertices * 3)) e
	JOIN bo_pool pa ON pa.i = least(e.x, e.y) JOIN bo_pool pb ON pb.i = greatest(e.x, e.y)
	WHERE e.x <> e.y;
	INSERT INTO bo_e SELECT pb.v, pa.v FROM (SELECT floor(random() * (vertices - 5))::int AS i FROM generate_series(1, 3)) e
	                 JOIN bo_pool pa ON pa.i = e.i JOIN bo_pool pb ON pb.i = e.i + 1 + floor(random() * 3)::int;
	INSERT INTO bo_e SELECT source, source FROM bo_e ORDER BY random() LIMIT 5;
	INSERT INTO bo_e SELECT * FROM bo_e ORDER BY random() LIMIT 10;
	CREATE TEMP TABLE bo_pairs AS
	WITH RECURSIVE walk(k, a, v, steps) AS (
		SELECT k, p.v, p.v, 1 + floor(random() * 6)::int
		FROM (SELECT k, floor(random() * vertices)::int AS x FROM generate_series(1, 500) k) s JOIN bo_pool p ON p.i = s.x
		UNION ALL
		SELECT w.k, w.a, (SELECT e.target FROM bo_e e WHERE e.source = w.v ORDER BY random() LIMIT 1), w.steps - 1
		FROM walk w WHERE w.steps > 0 AND w.v IS NOT NULL)
	SELECT row_number() OVER (ORDER BY random()) AS i, a, b FROM (
		SELECT pa.v AS a, pb.v AS b
		FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y FROM generate_series(1, 600)) p
		JOIN bo_pool pa ON pa.i = p.x JOIN bo_pool pb ON pb.i = p.y
		UNION ALL
		(SELECT DISTINCT ON (k) a, v FROM walk WHERE v IS NOT NULL ORDER BY k, steps)
		UNION ALL SELECT 7, v FROM bo_pool WHERE i < 5 UNION ALL SELECT v, 7 FROM bo_pool WHERE i < 5) q;
	CREATE TABLE bo_eu AS SELECT pg_temp.bo_uuid(source) AS source, pg_temp.bo_uuid(target) AS target FROM bo_e;
	PERFORM grail.create_graph('bo', 'bo_e');
	PERFORM grail.create_graph('bou', 'bo_eu');
	RETURN QUERY SELECT * FROM pg_temp.bo_check(format('graph %s (%s ids)', r, vertices));
	-- Pending changes: inserts (one joins the graph's two ends, one a new id) and deletes.
	INSERT INTO bo_e SELECT pa.v, pb.v FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y
	                                         FROM generate_series(1, 1 + vertices / 50)) e
	                 JOIN bo_pool pa ON pa.i = least(e.x, e.y) JOIN bo_pool pb ON pb.i = greatest(e.x, e.y);
	INSERT INTO bo_e VALUES (7, (SELECT v FROM bo_pool WHERE i = 1)), (-9223372036854775808, 9223372036854775807);
	DELETE FROM bo_e WHERE ctid IN (SELECT ctid FROM bo_e ORDER BY random() LIMIT 1 + vertices / 30);
	DELETE FROM bo_eu; INSERT INTO bo_eu SELECT pg_temp.bo_uuid(source), pg_temp.bo_uuid(target) FROM bo_e;
	RETURN QUERY SELECT * FROM pg_temp.bo_check(format('graph %s with pending changes', r));
	PERFORM grail.refresh_graph('bo');
	PERFORM grail.refresh_graph('bou');
	RETURN QUERY SELECT * FROM pg_temp.bo_check(format('graph %s refreshed', r));
END $f$;

-- 3 rounds of 3 x 3: 27.
SELECT pg_temp.bo_round(r) FROM generate_series(1, 3) r;

-- A build writes format 8 (the lookup records with the backward order, since format 7).
SELECT is((SELECT min(image_format) FROM grail.explain_graph('bo') WHERE answers_from = 'build'), 8,
          'a build answers from an image of format 8');
-- Unknown keys, NULLs; a graph dropped between calls.
SELECT is(grail.reachable('bo', 123456789012, (SELECT v FROM bo_pool WHERE i = 1)), false, 'an unknown id reaches nothing else');
SELECT is(ARRAY[grail.reachable('bo', NULL::bigint, 1::bigint), grail.reachable('bo', 1::bigint, NULL::bigint),
                grail.reachable(NULL, 1::bigint, 2::bigint)], ARRAY[NULL, NULL, NULL]::boolean[], 'NULLs: NULL');
SELECT grail.drop_graph('bou');
SELECT throws_ok($$SELECT grail.reachable('bou', pg_temp.bo_uuid(1), pg_temp.bo_uuid(2))$$, '42704', NULL,
                 'a graph dropped between calls');
SELECT is((SELECT count(*) FROM bo_expected WHERE grail.reachable('bo', a, b) IS DISTINCT FROM reached), 0::bigint,
          'the other graph still answers');

SELECT * FROM finish();
ROLLBACK;
