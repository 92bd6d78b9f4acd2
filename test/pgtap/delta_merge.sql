-- Delta builds: a merge that changes a small share of a graph stores the change from its base build
-- (grail.graph.base_build, chunks of negative seq) instead of a whole image. After each merge, every
-- function answers as closures of the rows: reachable() over every pair (and an id no row names),
-- bfs() depths from every vertex, scc_components() as mutual reachability, path() and descendants();
-- over inserts and deletes that join and split strongly connected components, deletes of base
-- edges and of all a vertex's rows, duplicates, self-loops, extreme ids, successive delta merges
-- (always from the same base), compaction to a full image past the share, refresh_graph, a graph
-- that is not live merged by hand, text and uuid keys, pending changes over a delta build, and a
-- drop that takes every chunk.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(47);

-- Rows of answers that differ from the closure of the rows of tbl (bigint keys): reachable() for
-- every pair of vertices and `unknown`, bfs() depths from each vertex against the shortest
-- distances, components against mutual reachability, path() against reachability (`unknown`
-- reaches itself alone, and its path to itself is itself).
CREATE FUNCTION pg_temp.wrong(g text, tbl text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	m bigint;
BEGIN
	EXECUTE format($q$
		WITH RECURSIVE v(v) AS (SELECT source FROM %1$s WHERE source IS NOT NULL UNION SELECT target FROM %1$s
		                        WHERE target IS NOT NULL UNION SELECT 424242),
		r(a, b) AS (SELECT v, v FROM v UNION SELECT r.a, e.target FROM r JOIN %1$s e ON e.source = r.b)
		SELECT count(*) FROM v x, v y
		WHERE grail.reachable(%2$L, x.v, y.v) IS DISTINCT FROM EXISTS (SELECT 1 FROM r WHERE r.a = x.v AND r.b = y.v)
		   OR (grail.path(%2$L, x.v, y.v) IS NOT NULL) IS DISTINCT FROM EXISTS (SELECT 1 FROM r WHERE r.a = x.v AND r.b = y.v)
	$q$, tbl, g) INTO n;
	-- bfs depths against a breadth-first search over the rows from each vertex.
	EXECUTE format($q$
		WITH v(v) AS (SELECT source FROM %1$s UNION SELECT target FROM %1$s),
		best AS (SELECT v.v AS s, o.t, o.depth FROM v, pg_temp.bfs_oracle(%1$L, v.v) o),
		got AS (SELECT v.v AS s, b.vertex AS t, b.depth FROM v, grail.bfs(%2$L, v.v) b)
		SELECT count(*) FROM best FULL JOIN got ON best.s = got.s AND best.t = got.t
		WHERE best.depth IS DISTINCT FROM got.depth
	$q$, tbl, g) INTO m;
	n := n + m;
	-- components: same component iff mutually reachable
	EXECUTE format($q$
		WITH RECURSIVE r(a, b) AS (SELECT source, source FROM %1$s UNION SELECT target, target FROM %1$s
		                           UNION SELECT r.a, e.target FROM r JOIN %1$s e ON e.source = r.b),
		c AS (SELECT vertex, component FROM grail.scc_components(%2$L))
		SELECT count(*) FROM c x, c y
		WHERE (x.component = y.component) IS DISTINCT FROM
		      (EXISTS (SELECT 1 FROM r WHERE a = x.vertex AND b = y.vertex) AND
		       EXISTS (SELECT 1 FROM r WHERE a = y.vertex AND b = x.vertex))
	$q$, tbl, g) INTO m;
	n := n + m;
	-- every vertex of the rows has a component, and no other
	EXECUTE format($q$
		SELECT count(*) FROM (SELECT source FROM %1$s UNION SELECT target FROM %1$s) v(v)
		FULL JOIN grail.scc_components(%2$L) c ON c.vertex = v.v WHERE v.v IS NULL OR c.vertex IS NULL
	$q$, tbl, g) INTO m;
	RETURN n + m;
END $$;

-- The shortest distances from s over the rows of tbl, level by level.
CREATE FUNCTION pg_temp.bfs_oracle(tbl text, s bigint) RETURNS TABLE (t bigint, depth int) LANGUAGE plpgsql AS $$
DECLARE
	seen bigint[] := ARRAY[s];
	frontier bigint[] := ARRAY[s];
	d int := 0;
BEGIN
	t := s; depth := 0; RETURN NEXT;
	WHILE cardinality(frontier) > 0 LOOP
		d := d + 1;
		EXECUTE format('SELECT coalesce(array_agg(DISTINCT target), ''{}'') FROM %s WHERE source = ANY ($1) AND NOT target = ANY ($2)', tbl)
			INTO frontier USING frontier, seen;
		seen := seen || frontier;
		FOREACH t IN ARRAY frontier LOOP
			depth := d; RETURN NEXT;
		END LOOP;
	END LOOP;
END $$;

CREATE FUNCTION pg_temp.delta(g text) RETURNS text LANGUAGE sql AS $$
	SELECT CASE WHEN base_build IS NULL THEN 'full' ELSE 'delta of ' || delta_changes END
	FROM grail.graph WHERE name = g
$$;

CREATE FUNCTION pg_temp.base(g text) RETURNS bigint LANGUAGE sql AS $$
	SELECT base_build FROM grail.graph WHERE name = g
$$;

CREATE TABLE dm_e (source bigint, target bigint);
INSERT INTO dm_e VALUES (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (1, 2), (8, 8), (6, 9),
	(-9223372036854775808, 9223372036854775807), (9223372036854775807, 1),
	(20, 21), (21, 22), (22, 20), (22, 1), (30, 31);
SELECT grail.create_graph('dm_g', 'dm_e') IS NOT NULL AS made \gset
SELECT is(pg_temp.delta('dm_g'), 'full', 'create_graph stores a full image');
SELECT build AS b0 FROM grail.graph WHERE name = 'dm_g' \gset

-- One edge inserted: joins 4 and 2 into a cycle.
INSERT INTO dm_e VALUES (4, 2);
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merge of one edge');
SELECT is(pg_temp.delta('dm_g'), 'delta of 1', 'stored as a delta of one change');
SELECT is(pg_temp.base('dm_g'), :b0::bigint, 'from the full build');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'answers after a delta that joins a cycle');
SELECT ok(grail.scc_component('dm_g', 4) = grail.scc_component('dm_g', 2), '2 and 4 in one component');
SELECT is((SELECT count(*) FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id
           WHERE g.name = 'dm_g' AND c.seq < 0), 1::bigint, 'one delta chunk beside the base');

-- Deletes of base edges: splits the cycle 20-21-22 and the new one; one of two duplicate rows.
DELETE FROM dm_e WHERE source = 21 AND target = 22;
DELETE FROM dm_e WHERE source = 3 AND target = 4;
DELETE FROM dm_e WHERE ctid = (SELECT ctid FROM dm_e WHERE source = 1 AND target = 2 LIMIT 1);
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merge of deletes');
SELECT is(pg_temp.base('dm_g'), :b0::bigint, 'a delta from the same base (deltas do not chain)');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'answers after deletes that split components');
SELECT ok(grail.reachable('dm_g', 1, 2), 'the duplicate row''s edge stays');

-- All rows of a vertex deleted (it goes), a self-loop only vertex, a new vertex.
DELETE FROM dm_e WHERE source = 30 OR target = 30;
DELETE FROM dm_e WHERE source = 8;
INSERT INTO dm_e VALUES (40, 40), (41, 9223372036854775807);
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merge of vertices gone and new');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'answers: vertices gone and new');
SELECT is((SELECT count(*) FROM grail.scc_components('dm_g') WHERE vertex IN (8, 30)), 0::bigint,
          'vertices whose rows are gone are gone');
SELECT ok(grail.scc_component('dm_g', 40) = 40, 'a self-loop''s vertex is there');
-- The first delete of the base edge's only row, then its row written again.
DELETE FROM dm_e WHERE source = 5 AND target = 6;
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merge of a delete');
INSERT INTO dm_e VALUES (5, 6);
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merge of the row written again');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'answers after an edge deleted and written again');
SELECT ok(pg_temp.delta('dm_g') LIKE 'delta of %', 'still a delta');

-- Pending changes over a delta build: the overlay and the snapshot rebuild answer over it.
INSERT INTO dm_e VALUES (9, 1);
DELETE FROM dm_e WHERE source = 20 AND target = 21;
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'pending changes over a delta build');
SELECT ok(grail.reachable('dm_g', 9, 3) AND NOT grail.reachable('dm_g', 9, 4), 'the pending edge reaches 3 (its path to 4 was deleted)');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('dm_g', 9::bigint)), (SELECT array_agg(t ORDER BY t) FROM pg_temp.bfs_oracle('dm_e', 9)), 'descendants over it');
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merged');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'and after the merge');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('dm_g', 9::bigint)), (SELECT array_agg(t ORDER BY t) FROM pg_temp.bfs_oracle('dm_e', 9)), 'descendants after it');
SELECT ok((SELECT image LIKE '%base build ' || :b0 || ' + a delta of % changes'
           FROM grail.explain_graph('dm_g') WHERE function = 'reachable(graph, a, b)'),
          'explain_graph names the base build and the delta');

-- Past the share: a full image again (compaction), then deltas from it.
INSERT INTO dm_e SELECT i, i + 1 FROM generate_series(100, 135) i;
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'merge of many changes');
SELECT is(pg_temp.delta('dm_g'), 'full', 'stored as a full image');
SELECT is((SELECT count(*) FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id
           WHERE g.name = 'dm_g' AND c.seq < 0), 0::bigint, 'the delta''s chunks are gone');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'answers after compaction');
SELECT build AS b1 FROM grail.graph WHERE name = 'dm_g' \gset
INSERT INTO dm_e VALUES (135, 100);
SELECT lives_ok($$SELECT grail.merge_graph('dm_g')$$, 'a merge after compaction');
SELECT is(pg_temp.base('dm_g'), :b1::bigint, 'a delta from the new full build');
SELECT is(pg_temp.wrong('dm_g', 'dm_e'), 0::bigint, 'answers');
-- refresh_graph always stores a full image.
SELECT lives_ok($$SELECT grail.refresh_graph('dm_g')$$, 'refresh');
SELECT is(pg_temp.delta('dm_g'), 'full', 'refresh_graph stores a full image');

-- A graph that is not live, merged by hand, and the empty graph.
CREATE TABLE dm_s (source bigint, target bigint);
INSERT INTO dm_s VALUES (1, 2), (2, 3);
SELECT grail.create_graph('dm_sg', 'dm_s', live => false) IS NOT NULL AS made \gset
INSERT INTO dm_s VALUES (3, 1);
SELECT lives_ok($$SELECT grail.merge_graph('dm_sg')$$, 'merge of a graph that is not live');
SELECT is(pg_temp.wrong('dm_sg', 'dm_s'), 0::bigint, 'answers');
DELETE FROM dm_s;
SELECT lives_ok($$SELECT grail.merge_graph('dm_sg')$$, 'merge to the empty graph');
SELECT is(pg_temp.wrong('dm_sg', 'dm_s'), 0::bigint, 'the empty graph answers');

-- Text and uuid keys.
CREATE TABLE dm_t (source text, target text);
INSERT INTO dm_t VALUES ('a', 'b'), ('b', 'c'), ('', 'a'), ('c', 'é');
SELECT grail.create_graph('dm_tg', 'dm_t') IS NOT NULL AS made \gset
INSERT INTO dm_t VALUES ('c', 'a'), ('x', 'y');
DELETE FROM dm_t WHERE source = '';
SELECT lives_ok($$SELECT grail.merge_graph('dm_tg')$$, 'merge of text keys');
SELECT ok(pg_temp.delta('dm_tg') LIKE 'delta of %', 'a delta');
SELECT is((SELECT array_agg(k ORDER BY k) FROM (SELECT vertex AS k FROM grail.bfs('dm_tg', 'a'::text)) x),
          ARRAY['a', 'b', 'c', 'é'], 'text keys: bfs after the delta');
SELECT is((SELECT count(*) FROM grail.scc_components('dm_tg', NULL::text) x WHERE x.vertex = ''), 0::bigint,
          'the deleted key is gone');

CREATE TABLE dm_u (source uuid, target uuid);
INSERT INTO dm_u VALUES ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002');
SELECT grail.create_graph('dm_ug', 'dm_u') IS NOT NULL AS made \gset
INSERT INTO dm_u VALUES ('00000000-0000-0000-0000-000000000002', 'ffffffff-ffff-ffff-ffff-ffffffffffff');
SELECT lives_ok($$SELECT grail.merge_graph('dm_ug')$$, 'merge of uuid keys');
SELECT ok(grail.reachable('dm_ug', '00000000-0000-0000-0000-000000000001'::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid)
          AND NOT grail.reachable('dm_ug', 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid, '00000000-0000-0000-0000-000000000001'::uuid),
          'uuid keys answer after the delta');

-- Drop: every chunk goes.
SELECT id AS dm_id FROM grail.graph WHERE name = 'dm_tg' \gset
SELECT lives_ok($$SELECT grail.drop_graph('dm_tg')$$, 'drop a delta build''s graph');
SELECT is((SELECT count(*) FROM grail.index_chunk WHERE graph_id = :dm_id), 0::bigint, 'no chunk left, base or delta');

SELECT * FROM finish();
ROLLBACK;
