-- path() and find_cycle() on graphs with hubs (a few vertices with long lists of out- and
-- in-edges among sparse random edges, as R-MAT has): the search that finds a shortest path's
-- vertices past the forward ball reads a level either from their out-edges or from the backward
-- ball's in-edges, whichever is shorter. Either way the path must be the bfs() parent chain, of the
-- least length (a recursive CTE over the edge rows), every step an edge; a cycle the least one
-- through its vertex. Extreme ids, a live graph with pending inserts and deletes (the rows the
-- snapshot sees), and the answers again after a merge.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(11);
SELECT setseed(0.2718);

-- Vertex k of n as a key: 0 and 1 the extreme bigints, the rest spread around zero.
CREATE FUNCTION pg_temp.key(k int) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE k WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807 ELSE k::bigint * 1000003 - 500000000 END
$$;

-- n vertices, `hubs` hubs each with `spokes` out-edges and `spokes` in-edges to random vertices,
-- `sparse` random edges (self-loops and duplicates among them).
CREATE FUNCTION pg_temp.hubbed(tbl text, n int, hubs int, spokes int, sparse int) RETURNS void
LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format('CREATE TABLE %I (s bigint, t bigint)', tbl);
	EXECUTE format($q$INSERT INTO %I
	               SELECT pg_temp.key(h), pg_temp.key(floor(random() * %2$s)::int) FROM generate_series(0, %3$s - 1) h, generate_series(1, %4$s)
	               UNION ALL
	               SELECT pg_temp.key(floor(random() * %2$s)::int), pg_temp.key(h) FROM generate_series(0, %3$s - 1) h, generate_series(1, %4$s)
	               UNION ALL
	               SELECT pg_temp.key(floor(random() * %2$s)::int), pg_temp.key(floor(random() * %2$s)::int) FROM generate_series(1, %5$s)
	               UNION ALL
	               SELECT pg_temp.key(k), pg_temp.key(k) FROM generate_series(0, %2$s - 1, 37) k$q$,
	               tbl, n, hubs, spokes, sparse);
END
$f$;

-- Wrong answers of path() over `pairs` random pairs of graph g (table tbl), and of find_cycle()
-- through their sources: path NULL exactly when the CTE finds none, else the bfs() parent chain,
-- of the CTE's length, along edges; a cycle NULL exactly when none, else of the least length,
-- from the vertex back to it, along edges.
CREATE FUNCTION pg_temp.wrong(g text, tbl text, pairs int, OUT wrong bigint, OUT connected bigint, OUT cycles bigint)
LANGUAGE plpgsql SET client_min_messages = warning AS $f$
DECLARE
	added bigint;
BEGIN
	DROP TABLE IF EXISTS ph_e, ph_v, ph_q, ph_d, ph_bfs, ph_chain, ph_p, ph_c;
	EXECUTE format('CREATE TEMP TABLE ph_e AS SELECT DISTINCT s, t FROM %I WHERE s <> t', tbl);
	EXECUTE format('CREATE TEMP TABLE ph_v AS SELECT s AS v FROM %1$I UNION SELECT t FROM %1$I', tbl);
	EXECUTE format('CREATE TEMP TABLE ph_q AS SELECT a.v AS a, b.v AS b
	                FROM (SELECT v, row_number() OVER (ORDER BY random()) r FROM ph_v) a
	                JOIN (SELECT v, row_number() OVER (ORDER BY random()) r FROM ph_v) b ON a.r %% 25 = b.r %% 25
	                ORDER BY random() LIMIT %s', pairs);
	-- The distances from the pairs' sources, a level per statement (each (a, v) once).
	CREATE TEMP TABLE ph_d (a bigint, v bigint, depth int, PRIMARY KEY (a, v));
	INSERT INTO ph_d SELECT DISTINCT a, a, 0 FROM ph_q;
	FOR level IN 0..1000 LOOP
		INSERT INTO ph_d SELECT DISTINCT d.a, e.t, level + 1 FROM ph_d d JOIN ph_e e ON e.s = d.v
		WHERE d.depth = level ON CONFLICT DO NOTHING;
		GET DIAGNOSTICS added = ROW_COUNT;
		EXIT WHEN added = 0;
	END LOOP;
	EXECUTE format('CREATE TEMP TABLE ph_bfs AS SELECT a.a, r.vertex AS v, r.parent
	                FROM (SELECT DISTINCT a FROM ph_q) a, grail.bfs(%L, a.a) r', g);
	CREATE TEMP TABLE ph_chain AS
	WITH RECURSIVE c(a, b, cur, chain) AS (
		SELECT q.a, q.b, q.b, ARRAY[q.b] FROM ph_q q
		UNION ALL
		SELECT c.a, c.b, x.parent, x.parent || c.chain
		FROM c JOIN ph_bfs x ON x.a = c.a AND x.v = c.cur WHERE x.parent IS NOT NULL)
	SELECT a, b, chain FROM c WHERE cur = a;
	EXECUTE format('CREATE TEMP TABLE ph_p AS SELECT a, b, grail.path(%L, a, b) AS p FROM ph_q', g);
	EXECUTE format('CREATE TEMP TABLE ph_c AS SELECT a, grail.find_cycle(%L, a) AS c FROM (SELECT DISTINCT a FROM ph_q) q', g);
	SELECT count(*) INTO wrong
	FROM ph_p p
	LEFT JOIN ph_d d ON d.a = p.a AND d.v = p.b
	LEFT JOIN ph_chain ch ON ch.a = p.a AND ch.b = p.b
	WHERE (p.p IS NULL) <> (d.depth IS NULL)
	   OR p.p IS DISTINCT FROM ch.chain
	   OR (p.p IS NOT NULL
	       AND (cardinality(p.p) - 1 <> d.depth
	            OR EXISTS (SELECT 1 FROM generate_subscripts(p.p, 1) k
	                       WHERE k < cardinality(p.p)
	                         AND NOT EXISTS (SELECT 1 FROM ph_e e WHERE e.s = p.p[k] AND e.t = p.p[k + 1]))));
	-- The least cycle through a: 1 + the least depth from a of a vertex with an edge back to a.
	wrong := wrong + (SELECT count(*) FROM ph_c c
	                  LEFT JOIN LATERAL (SELECT min(d.depth) + 1 AS len FROM ph_d d JOIN ph_e e ON e.s = d.v AND e.t = d.a
	                                     WHERE d.a = c.a) m ON true
	                  WHERE (c.c IS NULL) <> (m.len IS NULL)
	                     OR (c.c IS NOT NULL
	                         AND (cardinality(c.c) - 1 <> m.len OR c.c[1] <> c.a OR c.c[cardinality(c.c)] <> c.a
	                              OR EXISTS (SELECT 1 FROM generate_subscripts(c.c, 1) k
	                                         WHERE k < cardinality(c.c)
	                                           AND NOT EXISTS (SELECT 1 FROM ph_e e WHERE e.s = c.c[k] AND e.t = c.c[k + 1])))));
	SELECT count(p) INTO connected FROM ph_p;
	SELECT count(c) INTO cycles FROM ph_c;
END
$f$;

SELECT pg_temp.hubbed('ph_g' || i, 120 * i, 1 + i % 4, 15 * i, 120 * i * (1 + i % 2)) FROM generate_series(1, 4) i;
SELECT grail.create_graph('ph' || i, 'ph_g' || i, 's', 't') FROM generate_series(1, 4) i;
CREATE TEMP TABLE ph_results AS SELECT i, w.* FROM generate_series(1, 4) i, pg_temp.wrong('ph' || i, 'ph_g' || i, 150) w;
SELECT is(wrong, 0::bigint, format('hub graph %s: paths are the bfs() parent chains of the least length, cycles the least', i))
FROM ph_results ORDER BY i;
SELECT cmp_ok((SELECT sum(connected) FROM ph_results), '>', 250::numeric, 'many of the pairs are connected');
SELECT cmp_ok((SELECT sum(cycles) FROM ph_results), '>', 40::numeric, 'many sources are on a cycle');

-- A live graph: pending deletes of hub edges and inserts of new ones, then a merge.
SELECT pg_temp.hubbed('ph_live_e', 400, 3, 60, 600);
SELECT grail.create_graph('ph_live', 'ph_live_e', 's', 't', live => true);
SELECT is((SELECT wrong FROM pg_temp.wrong('ph_live', 'ph_live_e', 150)), 0::bigint, 'live graph, nothing pending');
DELETE FROM ph_live_e WHERE s IN (pg_temp.key(0), pg_temp.key(1)) AND random() < 0.5;
INSERT INTO ph_live_e SELECT pg_temp.key(2), pg_temp.key(floor(random() * 400)::int) FROM generate_series(1, 60);
INSERT INTO ph_live_e SELECT pg_temp.key(floor(random() * 400)::int), pg_temp.key(floor(random() * 400)::int) FROM generate_series(1, 100);
SELECT cmp_ok((SELECT pending_changes FROM grail.graphs WHERE name = 'ph_live'), '>', 100::bigint, 'changes are pending');
SELECT is((SELECT wrong FROM pg_temp.wrong('ph_live', 'ph_live_e', 150)), 0::bigint,
          'live graph with pending inserts and deletes: answers from the rows the snapshot sees');
DELETE FROM ph_live_e WHERE t = pg_temp.key(3);
SELECT is((SELECT wrong FROM pg_temp.wrong('ph_live', 'ph_live_e', 150)), 0::bigint, 'and after more deletes');
SELECT grail.merge_graph('ph_live');
SELECT is((SELECT wrong FROM pg_temp.wrong('ph_live', 'ph_live_e', 150)), 0::bigint, 'after the merge');

SELECT * FROM finish();
ROLLBACK;
