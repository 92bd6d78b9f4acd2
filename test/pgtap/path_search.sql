-- path() on graphs big enough that its search meets far from both ends (layered graphs with many
-- shortest paths of one length, where the tie rule picks one), against the bfs() parent chain and
-- the distance by a recursive CTE over the edge rows; many calls in one statement (the finder kept
-- with the build); text keys on uuid and integer graphs read as the graph's kind; a graph rebuilt,
-- dropped or renamed between statements.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(19);
SELECT setseed(0.1337);

-- Layered graphs: `layers` layers of `width` vertices (ids spread around zero), 3 * width random
-- edges between consecutive layers, then `back` random edges anywhere (cycles, shortcuts, self-loops).
CREATE FUNCTION pg_temp.layered(tbl text, layers int, width int, back int) RETURNS void
LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format('CREATE TABLE %I (s bigint, t bigint)', tbl);
	EXECUTE format($q$INSERT INTO %I
	               SELECT (l * %2$s + floor(random() * %2$s)::int) * 7 - 1000,
	                      ((l + 1) * %2$s + floor(random() * %2$s)::int) * 7 - 1000
	               FROM generate_series(0, %3$s - 2) l, generate_series(1, 3 * %2$s)$q$, tbl, width, layers);
	EXECUTE format($q$INSERT INTO %I
	               SELECT floor(random() * %2$s * %3$s)::int * 7 - 1000, floor(random() * %2$s * %3$s)::int * 7 - 1000
	               FROM generate_series(1, %4$s)$q$, tbl, width, layers, back);
END
$f$;

-- Wrong answers of path() over `pairs` random pairs of graph g (table tbl): NULL exactly when the
-- CTE finds no path, else the bfs() parent chain, of the CTE's length, every step an edge.
CREATE FUNCTION pg_temp.path_wrong(g text, tbl text, pairs int, OUT wrong bigint, OUT connected bigint, OUT longest int)
LANGUAGE plpgsql SET client_min_messages = warning AS $f$
BEGIN
	DROP TABLE IF EXISTS ps_e, ps_v, ps_q, ps_d, ps_bfs, ps_chain, ps_p;
	EXECUTE format('CREATE TEMP TABLE ps_e AS SELECT DISTINCT s, t FROM %I WHERE s <> t', tbl);
	EXECUTE format('CREATE TEMP TABLE ps_v AS SELECT s AS v FROM %1$I UNION SELECT t FROM %1$I', tbl);
	EXECUTE format('CREATE TEMP TABLE ps_q AS SELECT a.v AS a, b.v AS b
	                FROM (SELECT v, row_number() OVER (ORDER BY random()) r FROM ps_v) a
	                JOIN (SELECT v, row_number() OVER (ORDER BY random()) r FROM ps_v) b ON a.r %% 40 = b.r %% 40
	                ORDER BY random() LIMIT %s', pairs);
	CREATE TEMP TABLE ps_d AS
	WITH RECURSIVE d(a, v, depth) AS (
		SELECT DISTINCT a, a, 0 FROM ps_q
		UNION
		SELECT d.a, e.t, d.depth + 1 FROM d JOIN ps_e e ON e.s = d.v WHERE d.depth < 60)
	SELECT a, v, min(depth) AS depth FROM d GROUP BY a, v;
	EXECUTE format('CREATE TEMP TABLE ps_bfs AS SELECT a.a, r.vertex AS v, r.parent
	                FROM (SELECT DISTINCT a FROM ps_q) a, grail.bfs(%L, a.a) r', g);
	CREATE TEMP TABLE ps_chain AS
	WITH RECURSIVE c(a, b, cur, chain) AS (
		SELECT q.a, q.b, q.b, ARRAY[q.b] FROM ps_q q
		UNION ALL
		SELECT c.a, c.b, x.parent, x.parent || c.chain
		FROM c JOIN ps_bfs x ON x.a = c.a AND x.v = c.cur WHERE x.parent IS NOT NULL)
	SELECT a, b, chain FROM c WHERE cur = a;
	EXECUTE format('CREATE TEMP TABLE ps_p AS SELECT a, b, grail.path(%L, a, b) AS p FROM ps_q', g);
	SELECT count(*) INTO wrong
	FROM ps_p p
	LEFT JOIN ps_d d ON d.a = p.a AND d.v = p.b
	LEFT JOIN ps_chain ch ON ch.a = p.a AND ch.b = p.b
	WHERE (p.p IS NULL) <> (d.depth IS NULL)
	   OR p.p IS DISTINCT FROM ch.chain
	   OR (p.p IS NOT NULL
	       AND (cardinality(p.p) - 1 <> d.depth
	            OR EXISTS (SELECT 1 FROM generate_subscripts(p.p, 1) k
	                       WHERE k < cardinality(p.p)
	                         AND NOT EXISTS (SELECT 1 FROM ps_e e WHERE e.s = p.p[k] AND e.t = p.p[k + 1]))));
	SELECT count(p), max(cardinality(p)) - 1 INTO connected, longest FROM ps_p;
END
$f$;

SELECT pg_temp.layered('ps_g' || i, 4 + i * 3, 3 + i * 2, (i % 3) * (3 + i * 2))
FROM generate_series(1, 6) i;
SELECT grail.create_graph('ps' || i, 'ps_g' || i, 's', 't') FROM generate_series(1, 6) i;
SELECT is((SELECT wrong FROM pg_temp.path_wrong('ps' || i, 'ps_g' || i, 300)), 0::bigint,
          format('layered graph %s: path() is the bfs() parent chain, of the least length, along edges', i))
FROM generate_series(1, 6) i;
SELECT cmp_ok((SELECT sum(connected) FROM generate_series(1, 6) i, pg_temp.path_wrong('ps' || i, 'ps_g' || i, 300)),
              '>', 300::numeric, 'many of the pairs are connected');
SELECT cmp_ok((SELECT max(longest) FROM generate_series(1, 6) i, pg_temp.path_wrong('ps' || i, 'ps_g' || i, 300)),
              '>=', 8, 'and some paths are long');

-- Text keys on an integer graph, and on a uuid graph: read as the graph's kind, answered as text.
SELECT is(grail.path('ps3', '-1000', (SELECT max(t) FROM ps_g3)::text),
          grail.path('ps3', -1000, (SELECT max(t) FROM ps_g3))::text[], 'path(text) on an integer graph: as the integers');
SELECT is(grail.find_cycle('ps6', (SELECT s FROM ps_g6 WHERE grail.find_cycle('ps6', s) IS NOT NULL ORDER BY s LIMIT 1)::text),
          grail.find_cycle('ps6', (SELECT s FROM ps_g6 WHERE grail.find_cycle('ps6', s) IS NOT NULL ORDER BY s LIMIT 1))::text[],
          'find_cycle(text) on an integer graph: as the integer');
CREATE TABLE ps_uuid (s uuid, t uuid);
INSERT INTO ps_uuid
SELECT ('00000000-0000-0000-0000-' || lpad(s::text, 12, '0'))::uuid, ('00000000-0000-0000-0000-' || lpad(t::text, 12, '0'))::uuid
FROM (SELECT s + 1000, t + 1000 FROM ps_g4) e(s, t);
SELECT grail.create_graph('ps_uuid', 'ps_uuid', 's', 't');
SELECT is((SELECT count(*) FROM ps_uuid a, ps_uuid b
           WHERE grail.path('ps_uuid', a.s::text, b.t::text) IS DISTINCT FROM grail.path('ps_uuid', a.s, b.t)::text[]),
          0::bigint, 'path(text) on a uuid graph: as the uuids, on every pair of edge rows');
SELECT is((SELECT count(*) FROM ps_uuid a
           WHERE grail.find_cycle('ps_uuid', a.s::text) IS DISTINCT FROM grail.find_cycle('ps_uuid', a.s)::text[]),
          0::bigint, 'find_cycle(text) on a uuid graph: as the uuids');
SELECT is(grail.path('ps_uuid', '00000000-0000-0000-0000-999999999999', '00000000-0000-0000-0000-000000000000'), NULL,
          'path(text) on a uuid graph: an unknown uuid is NULL');
SELECT throws_ok($$SELECT grail.path('ps_uuid', 'not a uuid', '00000000-0000-0000-0000-000000000000')$$, '42804', NULL,
                 'path(text) on a uuid graph: a text that is no uuid is the wrong kind of key');
SELECT throws_ok($$SELECT grail.find_cycle('ps1', '1.5')$$, '42804', NULL,
                 'find_cycle(text) on an integer graph: a text that is no integer is the wrong kind of key');

-- The graph rebuilt, dropped, made again between statements: the kept finder never answers for it.
CREATE TABLE ps_moving (s bigint, t bigint);
INSERT INTO ps_moving VALUES (1, 2), (2, 4), (1, 5), (5, 6), (6, 4);
SELECT grail.create_graph('ps_moving', 'ps_moving', 's', 't');
SELECT is(grail.path('ps_moving', 1, 4), ARRAY[1, 2, 4]::bigint[], 'before the change');
DELETE FROM ps_moving WHERE s = 2;
SELECT grail.refresh_graph('ps_moving');
SELECT is(grail.path('ps_moving', 1, 4), ARRAY[1, 5, 6, 4]::bigint[], 'refreshed: the new build answers');
SELECT grail.drop_graph('ps_moving');
SELECT throws_ok($$SELECT grail.path('ps_moving', 1, 4)$$, '42704', NULL, 'dropped: the name is no graph');
INSERT INTO ps_moving VALUES (4, 1);
SELECT grail.create_graph('ps_moving', 'ps_moving', 's', 't');
SELECT is(grail.find_cycle('ps_moving', 4), ARRAY[4, 1, 5, 6, 4]::bigint[], 'made again with a cycle: the new build answers');

SELECT * FROM finish();
ROLLBACK;
