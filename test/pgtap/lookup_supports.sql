-- The supports of the lookup labels, chosen where they pay (a sample of pairs swept for candidates,
-- then a greedy cover), on graphs with more components than supports, which is where a build
-- chooses them: reachable() per row and as an array against a recursive-CTE closure, on deep
-- "local" DAGs and sparse random DAGs over a pool of ids holding the extremes, with cycles,
-- self-loops, duplicate edges and isolated ids; text keys; the same graphs with pending inserts
-- and deletes (answered by the overlay or a rebuild); a refresh after the changes; unknown keys,
-- NULLs and the empty graph.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(54);
SET client_min_messages = warning;
SELECT setseed(0.2718);

-- The pairs of ls_pairs (i, a, b) answered wrongly, by the closure of ls_e's rows from the pairs'
-- sources: per row and as one array, over bigint keys and over text keys ('v' || id).
CREATE FUNCTION pg_temp.ls_check(what text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	DROP TABLE IF EXISTS ls_closure, ls_expected;
	CREATE TEMP TABLE ls_closure AS
	WITH RECURSIVE c(s, t) AS (
		SELECT source, target FROM ls_e
		WHERE source IN (SELECT a FROM ls_pairs) AND target IS NOT NULL
		UNION
		SELECT c.s, e.target FROM c JOIN ls_e e ON e.source = c.t WHERE e.target IS NOT NULL)
	SELECT * FROM c;
	CREATE TEMP TABLE ls_expected AS
	SELECT p.i, p.a, p.b, p.a = p.b OR EXISTS (SELECT 1 FROM ls_closure c WHERE c.s = p.a AND c.t = p.b) AS reached
	FROM ls_pairs p;
	RETURN NEXT is((SELECT count(*) FROM ls_expected WHERE grail.reachable('ls', a, b) IS DISTINCT FROM reached),
	               0::bigint, what || ': per row');
	RETURN NEXT is((SELECT count(*) FROM ls_expected x
	                JOIN unnest((SELECT grail.reachable('ls', array_agg(a ORDER BY i), array_agg(b ORDER BY i)) FROM ls_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached),
	               0::bigint, what || ': one array');
	RETURN NEXT is((SELECT count(*) FROM ls_expected x
	                JOIN unnest((SELECT grail.reachable('lst', array_agg('v' || a ORDER BY i), array_agg('v' || b ORDER BY i)) FROM ls_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached
	                   OR grail.reachable('lst', 'v' || x.a, 'v' || x.b) IS DISTINCT FROM x.reached),
	               0::bigint, what || ': text keys, per row and as an array');
END $f$;

-- Round r: a deep local DAG (pool index i to a few of i+1 .. i+window) or, every third round, a
-- sparse random DAG; a few back edges (cycles), self-loops and duplicates; ids from a pool with
-- both extremes, some in no edge. Pairs: uniform over the pool, and near pairs (a later index a
-- short way on: mostly reachable), and an id in no edge.
CREATE FUNCTION pg_temp.ls_round(r int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	vertices int := 300 + floor(random() * 900)::int;
	win int := 3 + floor(random() * 40)::int;
	random_dag boolean := r % 3 = 0;
BEGIN
	IF r > 1 THEN
		PERFORM grail.drop_graph('ls');
		PERFORM grail.drop_graph('lst');
		DROP TABLE ls_e, ls_et, ls_pool, ls_pairs;
	END IF;
	CREATE TEMP TABLE ls_pool AS
	SELECT i, CASE i WHEN 0 THEN -9223372036854775808 WHEN vertices - 1 THEN 9223372036854775807
	                 ELSE floor(random() * 2e18 - 1e18)::bigint END AS v
	FROM generate_series(0, vertices - 1) i;
	CREATE TABLE ls_e (source bigint, target bigint);
	IF random_dag THEN
		INSERT INTO ls_e
		SELECT pa.v, pb.v
		FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y
		      FROM generate_series(1, vertices * 2)) e
		JOIN ls_pool pa ON pa.i = least(e.x, e.y) JOIN ls_pool pb ON pb.i = greatest(e.x, e.y)
		WHERE e.x <> e.y;
	ELSE
		INSERT INTO ls_e
		SELECT pa.v, pb.v
		FROM (SELECT i, i + 1 + floor(random() * win)::int AS j FROM generate_series(0, vertices - 2) i,
		             generate_series(1, 1 + r % 3) k) e
		JOIN ls_pool pa ON pa.i = e.i JOIN ls_pool pb ON pb.i = least(e.j, vertices - 1);
	END IF;
	-- Cycles (short back edges), self-loops, duplicates; the last 5% of the pool stays isolated
	-- where no edge reached it.
	INSERT INTO ls_e SELECT pb.v, pa.v FROM (SELECT floor(random() * (vertices - 5))::int AS i FROM generate_series(1, vertices / 40)) e
	                 JOIN ls_pool pa ON pa.i = e.i JOIN ls_pool pb ON pb.i = e.i + 1 + floor(random() * 3)::int;
	INSERT INTO ls_e SELECT source, source FROM ls_e ORDER BY random() LIMIT 5;
	INSERT INTO ls_e SELECT * FROM ls_e ORDER BY random() LIMIT 10;
	CREATE TEMP TABLE ls_pairs AS
	SELECT row_number() OVER (ORDER BY random()) AS i, a, b FROM (
		SELECT pa.v AS a, pb.v AS b
		FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y FROM generate_series(1, 600)) p
		JOIN ls_pool pa ON pa.i = p.x JOIN ls_pool pb ON pb.i = p.y
		UNION ALL
		SELECT pa.v, pb.v
		FROM (SELECT x, least(vertices - 1, x + 1 + floor(random() * win * 8)::int) AS y
		      FROM (SELECT floor(random() * vertices)::int AS x FROM generate_series(1, 600)) s) p
		JOIN ls_pool pa ON pa.i = p.x JOIN ls_pool pb ON pb.i = p.y
		UNION ALL SELECT 7, v FROM ls_pool WHERE i < 5 UNION ALL SELECT v, 7 FROM ls_pool WHERE i < 5) q;
	CREATE TABLE ls_et AS SELECT 'v' || source AS source, 'v' || target AS target FROM ls_e;
	PERFORM grail.create_graph('ls', 'ls_e');
	PERFORM grail.create_graph('lst', 'ls_et');
	RETURN QUERY SELECT * FROM pg_temp.ls_check(format('graph %s (%s ids, %s)', r, vertices,
	                                                   CASE WHEN random_dag THEN 'a random DAG' ELSE 'window ' || win END));
	-- Pending changes: inserts (one joins the graph's two ends, one a new id) and deletes.
	INSERT INTO ls_e SELECT pa.v, pb.v FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y
	                                         FROM generate_series(1, 1 + vertices / 50)) e
	                 JOIN ls_pool pa ON pa.i = least(e.x, e.y) JOIN ls_pool pb ON pb.i = greatest(e.x, e.y);
	INSERT INTO ls_e VALUES (7, (SELECT v FROM ls_pool WHERE i = 1)), (-9223372036854775808, 9223372036854775807);
	DELETE FROM ls_e WHERE ctid IN (SELECT ctid FROM ls_e ORDER BY random() LIMIT 1 + vertices / 30);
	DELETE FROM ls_et; INSERT INTO ls_et SELECT 'v' || source, 'v' || target FROM ls_e;
	RETURN QUERY SELECT * FROM pg_temp.ls_check(format('graph %s with pending changes', r));
	PERFORM grail.refresh_graph('ls');
	PERFORM grail.refresh_graph('lst');
	RETURN QUERY SELECT * FROM pg_temp.ls_check(format('graph %s refreshed', r));
END $f$;

-- 5 rounds of 3 x 3: 45.
SELECT pg_temp.ls_round(r) FROM generate_series(1, 5) r;

-- Unknown keys, NULLs, wrong key types on the last graph.
SELECT is(grail.reachable('ls', 123456789012, 123456789012), true, 'an unknown id reaches itself');
SELECT is(grail.reachable('ls', 123456789012, (SELECT v FROM ls_pool WHERE i = 1)), false, 'an unknown id reaches nothing else');
SELECT is(grail.reachable('ls', NULL::bigint, 1::bigint), NULL, 'a NULL source: NULL');
SELECT is(grail.reachable('ls', 1::bigint, NULL::bigint), NULL, 'a NULL target: NULL');
SELECT is(grail.reachable(NULL, 1::bigint, 2::bigint), NULL, 'a NULL graph: NULL');
SELECT throws_ok($$SELECT grail.reachable('ls', 'a'::text, 'b'::text)$$, '42804', NULL, 'text keys on a bigint graph');
-- The empty graph.
CREATE TABLE ls_empty (source bigint, target bigint);
SELECT grail.create_graph('ls_empty', 'ls_empty');
SELECT is(ARRAY[grail.reachable('ls_empty', 1::bigint, 1::bigint), grail.reachable('ls_empty', 1::bigint, 2::bigint)],
          ARRAY[true, false], 'the empty graph');
-- A graph dropped between calls.
SELECT grail.drop_graph('ls_empty');
SELECT throws_ok($$SELECT grail.reachable('ls_empty', 1::bigint, 2::bigint)$$, '42704', NULL, 'a dropped graph');
-- An array with an id in no edge and a new id of the changes.
SELECT is(grail.reachable('ls', ARRAY[5, 6, 7]::bigint[], ARRAY[5, 7, 7]::bigint[]), ARRAY[true, false, true],
          'unknown ids in an array');

SELECT * FROM finish();
ROLLBACK;
