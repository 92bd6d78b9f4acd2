-- reachable() as a lookup: the array form (its pairs decided in a pipeline that prefetches several
-- pairs ahead) and the per-row forms (bigint, integer, smallint, oid keys) against a recursive-CTE
-- closure on many random graphs (cycles, self-loops, duplicate edges, isolated vertices, the
-- extreme ids, unknown ids, text and uuid keys, the empty graph, arrays of every length around the
-- pipeline's depth, live graphs with pending inserts and deletes); and what a call site keeps in
-- fn_extra (the graph, the type of its keys) across calls: a graph dropped and made again with
-- keys of another type between calls of one plpgsql call site, two graphs alternating in one
-- query, a prepared statement across a rebuild, a role without privileges on the same site, NULLs
-- and keys of a wrong type.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(144);
SET client_min_messages = warning;
SELECT setseed(0.6180);

-- The pairs of lr_pairs (i, a, b) that reachable() answers wrongly, by the closure of lr_e's rows:
-- per row, as one array, and as arrays of the first n pairs for n around the pipeline's depth; the
-- same on copies keyed by text ('v' || id) and uuid (md5 of the id).
CREATE FUNCTION pg_temp.lr_check(what text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	bad bigint;
	n int;
BEGIN
	DROP TABLE IF EXISTS lr_closure, lr_expected;
	CREATE TEMP TABLE lr_closure AS
	WITH RECURSIVE c(s, t) AS (
		SELECT source, target FROM lr_e WHERE source IS NOT NULL AND target IS NOT NULL
		UNION
		SELECT c.s, e.target FROM c JOIN lr_e e ON e.source = c.t WHERE e.target IS NOT NULL)
	SELECT * FROM c;
	CREATE TEMP TABLE lr_expected AS
	SELECT p.i, p.a, p.b, p.a = p.b OR EXISTS (SELECT 1 FROM lr_closure c WHERE c.s = p.a AND c.t = p.b) AS reached
	FROM lr_pairs p;
	RETURN NEXT is((SELECT count(*) FROM lr_expected WHERE grail.reachable('lr', a, b) IS DISTINCT FROM reached),
	               0::bigint, what || ': per row');
	RETURN NEXT is((SELECT count(*) FROM lr_expected x
	                JOIN unnest((SELECT grail.reachable('lr', array_agg(a ORDER BY i), array_agg(b ORDER BY i)) FROM lr_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached)
	               + abs((SELECT count(*) FROM lr_expected) - (SELECT cardinality(grail.reachable('lr', array_agg(a), array_agg(b))) FROM lr_expected)),
	               0::bigint, what || ': one array');
	bad := 0;
	FOREACH n IN ARRAY ARRAY[0, 1, 2, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 65] LOOP
		bad := bad + (SELECT count(*) FROM (SELECT * FROM lr_expected WHERE i <= n) x
		              JOIN unnest((SELECT grail.reachable('lr', coalesce(array_agg(a ORDER BY i), '{}'), coalesce(array_agg(b ORDER BY i), '{}'))
		                           FROM lr_expected WHERE i <= n)) WITH ORDINALITY AS got(r, i) ON got.i = x.i
		              WHERE got.r IS DISTINCT FROM x.reached)
		           + abs(least(n, (SELECT count(*) FROM lr_expected))
		                 - (SELECT coalesce(cardinality(grail.reachable('lr', coalesce(array_agg(a ORDER BY i), '{}'), coalesce(array_agg(b ORDER BY i), '{}'))), 0)
		                    FROM lr_expected WHERE i <= n));
	END LOOP;
	RETURN NEXT is(bad, 0::bigint, what || ': arrays of 0 to 65 pairs');
	RETURN NEXT is((SELECT count(*) FROM lr_expected x
	                JOIN unnest((SELECT grail.reachable('lrt', array_agg('v' || a ORDER BY i), array_agg('v' || b ORDER BY i)) FROM lr_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached
	                   OR grail.reachable('lrt', 'v' || x.a, 'v' || x.b) IS DISTINCT FROM x.reached),
	               0::bigint, what || ': text keys, per row and as an array');
	RETURN NEXT is((SELECT count(*) FROM lr_expected x
	                JOIN unnest((SELECT grail.reachable('lru', array_agg(md5(a::text)::uuid ORDER BY i), array_agg(md5(b::text)::uuid ORDER BY i)) FROM lr_expected))
	                     WITH ORDINALITY AS got(r, i) ON got.i = x.i
	                WHERE got.r IS DISTINCT FROM x.reached
	                   OR grail.reachable('lru', md5(x.a::text)::uuid, md5(x.b::text)::uuid) IS DISTINCT FROM x.reached),
	               0::bigint, what || ': uuid keys, per row and as an array');
END $f$;

-- A random graph over a pool of ids (the extremes among them; some never in an edge), with
-- self-loops and duplicate edges; a DAG (edges from the smaller pool index) every other round, so
-- that searches are needed; then pending inserts and deletes on the live graphs.
CREATE FUNCTION pg_temp.lr_round(r int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	vertices int := 3 + floor(random() * 60)::int;
	edges int := CASE WHEN r = 1 THEN 0 ELSE floor(random() * vertices * 3)::int END;
	dag boolean := r % 2 = 0;
BEGIN
	DROP TABLE IF EXISTS lr_pool, lr_pairs;
	IF r > 1 THEN
		PERFORM grail.drop_graph('lr');
		PERFORM grail.drop_graph('lrt');
		PERFORM grail.drop_graph('lru');
		DROP TABLE lr_e, lr_et, lr_eu;
	END IF;
	CREATE TEMP TABLE lr_pool AS
	SELECT i, CASE i WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807 WHEN 2 THEN 0
	                 ELSE floor(random() * 2e18 - 1e18)::bigint END AS v
	FROM generate_series(0, vertices - 1) i;
	CREATE TABLE lr_e (source bigint, target bigint);
	INSERT INTO lr_e
	SELECT CASE WHEN dag THEN pa.v ELSE pa.v END, pb.v
	FROM (SELECT g, floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y FROM generate_series(1, edges) g) e
	JOIN lr_pool pa ON pa.i = CASE WHEN dag THEN least(e.x, e.y) ELSE e.x END
	JOIN lr_pool pb ON pb.i = CASE WHEN dag THEN greatest(e.x, e.y) ELSE e.y END
	WHERE NOT dag OR e.x <> e.y;
	IF edges > 0 THEN
		INSERT INTO lr_e SELECT * FROM lr_e LIMIT 3;                          -- duplicates
		INSERT INTO lr_e SELECT source, source FROM lr_e LIMIT 1;             -- a self-loop
	END IF;
	-- Every pair of the pool (vertices and ids in no edge), and an id in none.
	CREATE TEMP TABLE lr_pairs AS
	SELECT row_number() OVER (ORDER BY random()) AS i, a, b
	FROM (SELECT x.v AS a, y.v AS b FROM lr_pool x, lr_pool y
	      UNION ALL SELECT 7, v FROM lr_pool UNION ALL SELECT v, 7 FROM lr_pool) p;
	CREATE TABLE lr_et AS SELECT 'v' || source AS source, 'v' || target AS target FROM lr_e;
	CREATE TABLE lr_eu AS SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM lr_e;
	PERFORM grail.create_graph('lr', 'lr_e');
	PERFORM grail.create_graph('lrt', 'lr_et');
	PERFORM grail.create_graph('lru', 'lr_eu');
	RETURN QUERY SELECT * FROM pg_temp.lr_check(format('graph %s (%s vertices, %s edges%s)', r, vertices, edges,
	                                                   CASE WHEN dag THEN ', a DAG' ELSE '' END));
	-- Pending changes the live graphs answer through their overlay or a rebuild: inserts (new
	-- vertices among them) and deletes.
	INSERT INTO lr_e SELECT pa.v, pb.v FROM (SELECT floor(random() * vertices)::int AS x, floor(random() * vertices)::int AS y
	                                         FROM generate_series(1, 1 + vertices / 8)) e
	                 JOIN lr_pool pa ON pa.i = least(e.x, e.y) JOIN lr_pool pb ON pb.i = greatest(e.x, e.y);
	INSERT INTO lr_e VALUES (7, (SELECT v FROM lr_pool WHERE i = 2));
	DELETE FROM lr_e WHERE ctid IN (SELECT ctid FROM lr_e ORDER BY random() LIMIT 1 + vertices / 10);
	DELETE FROM lr_et; INSERT INTO lr_et SELECT 'v' || source, 'v' || target FROM lr_e;
	DELETE FROM lr_eu; INSERT INTO lr_eu SELECT md5(source::text)::uuid, md5(target::text)::uuid FROM lr_e;
	RETURN QUERY SELECT * FROM pg_temp.lr_check(format('graph %s with pending changes', r));
END $f$;

-- 12 rounds of 2 x 5 (the first with no edge at all): 120.
SELECT pg_temp.lr_round(r) FROM generate_series(1, 12) r;

-- What a call site keeps. A plpgsql simple expression keeps its call site for the transaction:
-- these functions' calls of reachable() are one site each, across statements.
CREATE FUNCTION public.lk_reach(g text, a oid, b oid) RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	RETURN grail.reachable(g, a, b);
END $f$;
CREATE FUNCTION public.lk_reach4(g text, a int, b int) RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	RETURN grail.reachable(g, a, b);
END $f$;
CREATE TABLE lk_oid (source oid, target oid);
INSERT INTO lk_oid VALUES (1, 2), (2, 3), (4294967295, 1);
CREATE TABLE lk_big (source bigint, target bigint);
INSERT INTO lk_big VALUES (3, 2), (2, 1);
SELECT grail.create_graph('lk', 'lk_oid');
SELECT is(ARRAY[lk_reach('lk', 1, 3), lk_reach('lk', 3, 1), lk_reach('lk', 4294967295, 3), lk_reach4('lk', 1, 3)],
          ARRAY[true, false, true, true], 'oid graph: the oid and integer call sites answer');
-- The graph dropped and made again over bigint keys: the same oid site refuses, the integer one
-- answers for the new edges.
SELECT grail.drop_graph('lk');
SELECT grail.create_graph('lk', 'lk_big');
SELECT throws_ok($$SELECT lk_reach('lk', 1, 3)$$, '42804', 'pg_grail graph "lk" has bigint keys, not oid keys',
                 'the oid call site refuses the graph made again with bigint keys');
SELECT is(ARRAY[lk_reach4('lk', 1, 3), lk_reach4('lk', 3, 1)], ARRAY[false, true],
          'the integer call site answers for the graph made again');
-- And again over oid keys, with one more edge.
SELECT grail.drop_graph('lk');
INSERT INTO lk_oid VALUES (3, 5);
SELECT grail.create_graph('lk', 'lk_oid');
SELECT is(ARRAY[lk_reach('lk', 1, 5), lk_reach('lk', 5, 1), lk_reach('lk', 4294967295, 5)], ARRAY[true, false, true],
          'the oid call site answers for the graph made again over oid keys');
-- Dropped between calls: the site opens it again and finds none.
SELECT grail.drop_graph('lk');
SELECT throws_ok($$SELECT lk_reach('lk', 1, 5)$$, '42704', 'pg_grail graph "lk" does not exist',
                 'the call site of a dropped graph');
SELECT grail.create_graph('lk', 'lk_oid');

-- Two graphs alternating in one query, through one call site each of the oid, regclass, integer
-- and smallint forms.
CREATE TABLE lk_oid2 (source oid, target oid);
INSERT INTO lk_oid2 VALUES (5, 3), (3, 1);
SELECT grail.create_graph('lk2', 'lk_oid2');
CREATE TABLE lk_alt AS
SELECT i, CASE WHEN i % 2 = 0 THEN 'lk' ELSE 'lk2' END AS g, x::oid AS a, y::oid AS b
FROM generate_series(1, 200) i, LATERAL (SELECT (ARRAY[1, 2, 3, 5, 4294967295])[1 + (i * 7) % 5] AS x,
                                                 (ARRAY[1, 2, 3, 5, 4294967295])[1 + (i * 3 + i / 5) % 5] AS y) p;
CREATE TABLE lk_alt_expected AS
WITH RECURSIVE c(g, s, t) AS (
	SELECT 'lk', source, target FROM lk_oid UNION SELECT 'lk2', source, target FROM lk_oid2
	UNION
	SELECT c.g, c.s, e.target FROM c JOIN (SELECT 'lk' AS g, * FROM lk_oid UNION ALL SELECT 'lk2', * FROM lk_oid2) e
	  ON e.g = c.g AND e.source = c.t)
SELECT l.i, l.a = l.b OR EXISTS (SELECT 1 FROM c WHERE c.g = l.g AND c.s = l.a AND c.t = l.b) AS reached FROM lk_alt l;
SELECT is((SELECT count(*) FROM lk_alt l JOIN lk_alt_expected x USING (i)
           WHERE grail.reachable(l.g, l.a, l.b) IS DISTINCT FROM x.reached), 0::bigint,
          'two oid graphs alternating row by row in one query');
SELECT is((SELECT count(*) FROM lk_alt l JOIN lk_alt_expected x USING (i)
           WHERE l.a < 100 AND l.b < 100 AND (grail.reachable(l.g, l.a::int, l.b::int) IS DISTINCT FROM x.reached
                                OR grail.reachable(l.g, l.a::int::smallint, l.b::int::smallint) IS DISTINCT FROM x.reached
                                OR grail.reachable(l.g, l.a::bigint, l.b::bigint) IS DISTINCT FROM x.reached)), 0::bigint,
          'the integer, smallint and bigint forms, alternating');
SELECT is((SELECT count(*) FROM lk_alt l JOIN lk_alt_expected x USING (i)
           WHERE lk_reach(l.g, l.a, l.b) IS DISTINCT FROM x.reached), 0::bigint,
          'one plpgsql call site, alternating');
-- An oid graph and a bigint graph alternating at an oid call site: the bigint one is refused.
SELECT grail.create_graph('lkb', 'lk_big');
SELECT throws_ok($$SELECT count(*) FROM generate_series(1, 4) i WHERE grail.reachable(CASE WHEN i % 2 = 1 THEN 'lk' ELSE 'lkb' END, 1::oid, 2::oid)$$,
                 '42804', 'pg_grail graph "lkb" has bigint keys, not oid keys', 'an oid site alternating onto a bigint graph');
-- A regclass graph at the same oid site: oid keys are accepted there.
CREATE TABLE lk_cls (source regclass, target regclass);
INSERT INTO lk_cls VALUES ('pg_class', 'pg_type'), ('pg_type', 'pg_proc');
SELECT grail.create_graph('lkc', 'lk_cls');
SELECT is(ARRAY[lk_reach('lkc', 'pg_class'::regclass::oid, 'pg_proc'::regclass::oid), lk_reach('lkc', 'pg_proc'::regclass::oid, 'pg_class'::regclass::oid),
                lk_reach('lk', 1, 5)],
          ARRAY[true, false, true], 'the oid site on a regclass graph, then back on the oid graph');
SELECT throws_ok($$SELECT grail.reachable(g, 'pg_class'::regclass, 'pg_proc'::regclass) FROM (VALUES ('lkc'), ('lk2'), ('lkb')) v(g)$$,
                 '42804', 'pg_grail graph "lkb" has bigint keys, not regclass keys',
                 'a regclass site alternating onto an oid graph (answered) and a bigint graph (refused)');

-- A prepared statement across rebuilds (a generic plan and a custom one).
PREPARE lk_q(oid, oid) AS SELECT grail.reachable('lk', $1, $2);
SET plan_cache_mode = force_generic_plan;
PREPARE lk_qg(oid, oid) AS SELECT grail.reachable('lk', $1, $2);
CREATE FUNCTION pg_temp.lk_exec(a oid, b oid) RETURNS boolean[] LANGUAGE plpgsql AS $f$
DECLARE
	x boolean;
	y boolean;
BEGIN
	EXECUTE format('EXECUTE lk_q(%s, %s)', a, b) INTO x;
	EXECUTE format('EXECUTE lk_qg(%s, %s)', a, b) INTO y;
	RETURN ARRAY[x, y];
END $f$;
SELECT is(pg_temp.lk_exec(1, 6), ARRAY[false, false], 'prepared statements before the edge');
INSERT INTO lk_oid VALUES (5, 6);
SELECT grail.refresh_graph('lk');
SELECT is(pg_temp.lk_exec(1, 6), ARRAY[true, true], 'prepared statements after a rebuild');
SELECT grail.drop_graph('lk');
SELECT grail.create_graph('lk', 'lk_big');
SELECT throws_ok($$SELECT pg_temp.lk_exec(1, 6)$$, '42804', 'pg_grail graph "lk" has bigint keys, not oid keys',
                 'prepared statements after the graph was made again with bigint keys');
SELECT grail.drop_graph('lk');
SELECT grail.create_graph('lk', 'lk_oid');
SELECT is(pg_temp.lk_exec(6, 1), ARRAY[false, false], 'prepared statements after it was made again with oid keys');
RESET plan_cache_mode;

-- A role without privileges on the edge table, at a site its owner used.
CREATE ROLE lk_nobody;
GRANT USAGE ON SCHEMA grail TO lk_nobody;
SELECT is(lk_reach('lk', 1, 6), true, 'the owner at the site');
SET LOCAL ROLE lk_nobody;
SELECT throws_ok($$SELECT lk_reach('lk', 1, 6)$$, '42501', NULL, 'a role that may not read the edge table, at the same site');
SELECT throws_ok($$SELECT grail.reachable('lk', 1::oid, 6::oid)$$, '42501', NULL, 'nor at a new one');
RESET ROLE;
SELECT is(lk_reach('lk', 1, 6), true, 'the owner again at the site');

-- NULLs in every argument, and keys of a type that holds none.
SELECT is(ARRAY[grail.reachable(NULL, 1::oid, 2::oid), grail.reachable('lk', NULL::oid, 2::oid), grail.reachable('lk', 1::oid, NULL::oid),
                grail.reachable(NULL, 1, 2), grail.reachable('lk', NULL::int, 2), grail.reachable('lk', 1::smallint, NULL::smallint),
                lk_reach(NULL, 1, 2), lk_reach('lk', NULL, 2), lk_reach4('lk', 1, NULL)],
          ARRAY[NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL]::boolean[], 'a NULL in any argument: NULL');
SELECT is(grail.reachable('lk', ARRAY[1, NULL, 1]::oid[], ARRAY[6, 6, NULL]::oid[]), ARRAY[true, NULL, NULL],
          'NULL elements of oid arrays: NULL answers');
SELECT is(grail.reachable('lk', NULL::oid[], ARRAY[1]::oid[]), NULL, 'a NULL array: NULL');
SELECT throws_ok($$SELECT grail.reachable('lk', 1.5, 2.5)$$, '42804', NULL, 'numeric keys');
SELECT throws_ok($$SELECT grail.reachable('lk', x, x) FROM (VALUES (1.5), (2.5)) v(x)$$, '42804', NULL,
                 'numeric keys, row after row');

SELECT * FROM finish();
ROLLBACK;
