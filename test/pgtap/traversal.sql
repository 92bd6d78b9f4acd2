-- Traversal in both directions: bfs(graph, source, max_depth, direction), descendants() and
-- ancestors() against a recursive query (UNION) over the edge rows, for bigint, text and uuid keys,
-- on random graphs with cycles, self-loops, duplicate edges, isolated vertices and ids at the limits
-- of bigint, from every vertex and from keys the graph lacks, at several depths; then on live
-- graphs with pending inserts and deletes (the answer is the one the snapshot's rows give), across
-- a merge, and the errors and NULLs.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(53);
SET client_min_messages = warning;

-- The oracle: the rows (vertex, depth, parent) that bfs() in that direction gives, as
-- 'vertex/depth/parent' in bfs()'s order (depth, then vertex in key order: byte order for text),
-- or 'vertex/depth' without parents. A step goes from a to b: along an edge (out), against it (in),
-- either way (both). Depths are the least of a walk bounded by the number of keys.
CREATE FUNCTION pg_temp.oracle(edges regclass, key_type text, source text, max_depth int, direction text,
                               with_parent boolean)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	steps text;
	order_by text := CASE key_type WHEN 'text' THEN ' COLLATE "C"' ELSE '' END;
	bound int;
	answer text[];
BEGIN
	steps := CASE direction
		WHEN 'out' THEN format('SELECT source AS a, target AS b FROM %s', edges)
		WHEN 'in' THEN format('SELECT target AS a, source AS b FROM %s', edges)
		WHEN 'both' THEN format('SELECT source AS a, target AS b FROM %1$s UNION ALL SELECT target, source FROM %1$s', edges)
	END;
	EXECUTE format('SELECT count(*)::int FROM (SELECT source FROM %1$s UNION SELECT target FROM %1$s) k', edges) INTO bound;
	bound := least(coalesce(max_depth, bound), bound);
	EXECUTE format($q$
		WITH RECURSIVE step(a, b) AS (%1$s),
		walk(v, d) AS (SELECT $1::%2$s, 0
		               UNION
		               SELECT step.b, walk.d + 1 FROM walk JOIN step ON step.a = walk.v WHERE walk.d < $2),
		best AS (SELECT v, min(d) AS d FROM walk GROUP BY v)
		SELECT array_agg(CASE WHEN $3 THEN format('%%s/%%s/%%s', b.v, b.d,
		                                          (SELECT p.v FROM best p JOIN step ON step.a = p.v AND step.b = b.v
		                                           WHERE p.d = b.d - 1 ORDER BY p.v%3$s LIMIT 1))
		                      ELSE format('%%s/%%s', b.v, b.d) END
		                 ORDER BY b.d, b.v%3$s)
		FROM best b$q$, steps, key_type, order_by) INTO answer USING source, bound, with_parent;
	RETURN answer;
END
$$;

-- What the functions give, in the same form and in the order they return the rows.
CREATE FUNCTION pg_temp.answer(graph text, key_type text, source text, max_depth int, direction text, fn text)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE answer text[];
BEGIN
	IF fn = 'bfs' THEN
		EXECUTE format('SELECT array_agg(format(''%%s/%%s/%%s'', vertex, depth, parent) ORDER BY n) '
		               'FROM grail.bfs($1, $2::%s, $3, $4) WITH ORDINALITY AS r(vertex, depth, parent, n)', key_type)
			INTO answer USING graph, source, max_depth, direction;
	ELSIF fn = 'bfs3' THEN  -- the three-argument bfs(), which goes along edges
		EXECUTE format('SELECT array_agg(format(''%%s/%%s/%%s'', vertex, depth, parent) ORDER BY n) '
		               'FROM grail.bfs($1, $2::%s, $3) WITH ORDINALITY AS r(vertex, depth, parent, n)', key_type)
			INTO answer USING graph, source, max_depth;
	ELSE
		EXECUTE format('SELECT array_agg(format(''%%s/%%s'', vertex, depth) ORDER BY n) '
		               'FROM grail.%I($1, $2::%s, $3) WITH ORDINALITY AS r(vertex, depth, n)', fn, key_type)
			INTO answer USING graph, source, max_depth;
	END IF;
	RETURN answer;
END
$$;

-- Every key of the pool (and the absent one) as source, each depth, each function: the calls whose
-- answer differs from the oracle's, '' when none.
CREATE FUNCTION pg_temp.mismatches(graph text, edges regclass, key_type text, pool regclass, absent text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	k text;
	d int;
	dir text;
	got text[];
	want text[];
	bad text := '';
	calls int := 0;
BEGIN
	FOR k IN EXECUTE format('SELECT k::text FROM %s UNION ALL SELECT $1', pool) USING absent LOOP
		FOREACH d IN ARRAY ARRAY[NULL, 0, 1, 2, 2147483647]::int[] LOOP
			FOREACH dir IN ARRAY ARRAY['out', 'in', 'both'] LOOP
				want := pg_temp.oracle(edges, key_type, k, d, dir, true);
				got := pg_temp.answer(graph, key_type, k, d, dir, 'bfs');
				calls := calls + 1;
				IF got IS DISTINCT FROM want THEN
					bad := bad || format(E'bfs(%s, %s, %s): %s, not %s\n', k, d, dir, got, want);
				END IF;
				IF dir = 'out' THEN
					got := pg_temp.answer(graph, key_type, k, d, dir, 'bfs3');
					IF got IS DISTINCT FROM want THEN
						bad := bad || format(E'bfs(%s, %s): %s, not %s\n', k, d, got, want);
					END IF;
				END IF;
				CONTINUE WHEN dir = 'both';
				want := pg_temp.oracle(edges, key_type, k, d, dir, false);
				got := pg_temp.answer(graph, key_type, k, d, dir, CASE dir WHEN 'out' THEN 'descendants' ELSE 'ancestors' END);
				IF got IS DISTINCT FROM want THEN
					bad := bad || format(E'%s(%s, %s): %s, not %s\n', CASE dir WHEN 'out' THEN 'descendants' ELSE 'ancestors' END,
					                     k, d, got, want);
				END IF;
			END LOOP;
		END LOOP;
	END LOOP;
	IF calls = 0 THEN
		RETURN 'no calls';
	END IF;
	RETURN left(bad, 2000);
END
$$;

-- Random edges over a pool: n rows, sources and targets drawn from the pool (self-loops and
-- duplicates come by chance), plus a few of each on purpose.
CREATE FUNCTION pg_temp.fill(edges regclass, pool regclass, n int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %1$s (source, target) '
	               'SELECT (SELECT k FROM %2$s ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM %2$s ORDER BY random() + i * 0 LIMIT 1) '
	               'FROM generate_series(1, $1) i', edges, pool) USING n;
	EXECUTE format('INSERT INTO %1$s (source, target) SELECT source, target FROM %1$s LIMIT 2', edges);  -- duplicates
	EXECUTE format('INSERT INTO %1$s (source, target) SELECT source, source FROM %1$s LIMIT 1', edges);  -- a self-loop
END
$$;

-- Random writes on a live graph: inserts, deletes of some rows (one copy of a duplicate or all).
CREATE FUNCTION pg_temp.scribble(edges regclass, pool regclass)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_temp.fill(edges, pool, 3);
	EXECUTE format('DELETE FROM %1$s WHERE ctid IN (SELECT ctid FROM %1$s ORDER BY random() LIMIT 4)', edges);
END
$$;

SELECT setseed(0.27);
CREATE TABLE int_pool (k bigint);
INSERT INTO int_pool VALUES (-9223372036854775808), (9223372036854775807), (0), (-1), (1), (2), (3), (5), (8), (13),
       (-42), (1099511627776);
CREATE TABLE text_pool (k text);
INSERT INTO text_pool VALUES (''), ('a'), ('A'), ('b'), ('B'), ('é'), ('e'), ('a b'), ('ab'), ('Z'), ('zz'), ('été');
CREATE TABLE uuid_pool (k uuid);
INSERT INTO uuid_pool SELECT md5(i::text)::uuid FROM generate_series(1, 10) i;
INSERT INTO uuid_pool VALUES ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff');

CREATE TABLE int_e (source bigint, target bigint);
CREATE TABLE text_e (source text, target text);
CREATE TABLE uuid_e (source uuid, target uuid);

-- Per key type: 4 random graphs of growing density, each checked built, then live with pending
-- inserts and deletes (twice), then merged. 3 * 4 * 3 = 36 assertions.
CREATE FUNCTION pg_temp.rounds(kind text, absent text)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	edges regclass := format('%s_e', kind)::regclass;
	pool regclass := format('%s_pool', kind)::regclass;
	graph text := format('tr_%s', kind);
	key_type text := CASE kind WHEN 'int' THEN 'bigint' ELSE kind END;
	round int;
BEGIN
	FOR round IN 1 .. 4 LOOP
		EXECUTE format('DELETE FROM %s', edges);
		PERFORM pg_temp.fill(edges, pool, 4 + round * 6);
		PERFORM grail.create_graph(graph, edges::text);
		RETURN NEXT is(pg_temp.mismatches(graph, edges, key_type, pool, absent), '',
		               format('%s keys, graph %s: every source, depth and direction as the recursive query', kind, round));
		PERFORM pg_temp.scribble(edges, pool);
		PERFORM pg_temp.scribble(edges, pool);
		RETURN NEXT is(pg_temp.mismatches(graph, edges, key_type, pool, absent), '',
		               format('%s keys, graph %s with pending inserts and deletes: as the rows say', kind, round));
		PERFORM grail.merge_graph(graph);
		PERFORM pg_temp.scribble(edges, pool);
		RETURN NEXT is(pg_temp.mismatches(graph, edges, key_type, pool, absent), '',
		               format('%s keys, graph %s after a merge and more writes', kind, round));
		PERFORM grail.drop_graph(graph);
	END LOOP;
END
$$;

SELECT * FROM pg_temp.rounds('int', '77');
SELECT * FROM pg_temp.rounds('text', 'not a key');
SELECT * FROM pg_temp.rounds('uuid', '12345678-1234-1234-1234-123456789abc');

-- The empty graph: every key is only itself.
DELETE FROM int_e;
SELECT grail.create_graph('tr_empty', 'int_e');
SELECT is(pg_temp.mismatches('tr_empty', 'int_e', 'bigint', 'int_pool', '7'), '', 'the empty graph');

-- Errors and NULLs.
CREATE TABLE small_e (source bigint, target bigint);
INSERT INTO small_e VALUES (1, 2), (2, 3), (3, 1), (3, 4), (5, 4);
SELECT grail.create_graph('tr_small', 'small_e');
SELECT throws_ok($$SELECT * FROM grail.bfs('tr_small', 1, NULL, 'up')$$, '22023',
                 'direction must be ''out'', ''in'' or ''both'', not "up"', 'an unknown direction is an error');
SELECT throws_ok($$SELECT * FROM grail.bfs('tr_small', 1, NULL, 'IN')$$, '22023', NULL, 'directions are lower case');
SELECT throws_ok($$SELECT * FROM grail.bfs('tr_small', 1, NULL, repeat('x', 100000))$$, '22023',
                 'direction must be ''out'', ''in'' or ''both'', not "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."',
                 'a long direction is echoed cut');
SELECT throws_ok($$SELECT * FROM grail.bfs('tr_small', 1, NULL, repeat('é', 20))$$, '22023',
                 'direction must be ''out'', ''in'' or ''both'', not "' || repeat('é', 16) || '..."',
                 'and cut between characters');
SELECT throws_ok($$SELECT * FROM grail.ancestors('tr_small', 1, -1)$$, '22023',
                 'max_depth must be at least 0, not -1', 'a negative depth is an error');
SELECT is(ARRAY[(SELECT count(*) FROM grail.descendants(NULL, 1::bigint)),
                (SELECT count(*) FROM grail.ancestors('tr_small', NULL::bigint)),
                (SELECT count(*) FROM grail.ancestors(NULL::text, NULL::uuid, NULL)),
                (SELECT count(*) FROM grail.bfs('tr_small', 1, NULL, NULL)),
                (SELECT count(*) FROM grail.bfs('tr_small', 1, 1, NULL))],
          '{0,0,0,0,0}'::bigint[], 'a NULL graph, vertex or direction gives no rows');
SELECT throws_ok($$SELECT * FROM grail.descendants('tr_small', 'x'::text)$$, NULL, NULL,
                 'text keys on a graph of integer keys are an error');
SELECT throws_ok($$SELECT * FROM grail.ancestors('tr_nothing', 1::bigint)$$, '42704', NULL, 'an unknown graph is an error');


-- Without SELECT on the edge table, no answer.
CREATE ROLE tr_stranger;
SET LOCAL ROLE tr_stranger;
SELECT throws_ok($$SELECT * FROM grail.ancestors('tr_small', 4)$$, '42501', NULL,
                 'ancestors() needs the right to read the edge table');
SELECT throws_ok($$SELECT * FROM grail.bfs('tr_small', 4, NULL, 'in')$$, '42501', NULL,
                 'bfs() in a direction too');
RESET ROLE;

-- A graph dropped between calls, then made again over other rows: the backend's cached build and
-- its reversed edges are not reused.
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.ancestors('tr_small', 4)), '{1,2,3,4,5}'::bigint[],
          'ancestors of 4');
SELECT grail.drop_graph('tr_small');
SELECT throws_ok($$SELECT * FROM grail.ancestors('tr_small', 4)$$, '42704', NULL, 'a dropped graph is an error');
DELETE FROM small_e WHERE source = 5;
INSERT INTO small_e VALUES (4, 6);
SELECT grail.create_graph('tr_small', 'small_e');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.ancestors('tr_small', 4)), '{1,2,3,4}'::bigint[],
          'the graph made again answers from its new rows');

-- The edge table's columns renamed: the graph follows them; then a write under the new names is
-- pending and seen.
ALTER TABLE small_e RENAME COLUMN source TO tail;
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('tr_small', 4)), '{4,6}'::bigint[],
          'descendants after the edge columns were renamed');
INSERT INTO small_e (tail, target) VALUES (6, 7), (7, 1);
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n)
           FROM grail.bfs('tr_small', 1, NULL, 'in') WITH ORDINALITY AS r(vertex, depth, parent, n)),
          '{1/0/,3/1/1,7/1/1,2/2/3,6/2/7,4/3/6}', 'bfs against the edges with pending inserts, after the rename');

-- Where a GPU is usable, grail.device = gpu gives the CPU's rows along and against edge direction
-- (the GPU BFS over the build's CSR and over its reverse); 'both' runs on the CPU either way.
CREATE TABLE gpu_e AS
SELECT (random() * 60)::bigint AS source, (random() * 60)::bigint AS target FROM generate_series(1, 300);
SELECT grail.create_graph('tr_gpu', 'gpu_e');
CREATE FUNCTION pg_temp.device_rows(device text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE answer text;
BEGIN
	PERFORM set_config('grail.device', device, true);
	SELECT string_agg(format('%s/%s/%s/%s/%s', k, dir, b.vertex, b.depth, b.parent), ' ' ORDER BY k, dir, b.n) INTO answer
	FROM (SELECT DISTINCT source AS k FROM gpu_e) v, unnest(ARRAY['out', 'in', 'both']) dir,
	     grail.bfs('tr_gpu', k, NULL, dir) WITH ORDINALITY AS b(vertex, depth, parent, n);
	PERFORM set_config('grail.device', 'auto', true);
	RETURN answer;
END
$$;
SELECT CASE WHEN grail.device_info() LIKE 'GPU:%' THEN is(pg_temp.device_rows('gpu'), pg_temp.device_rows('cpu'),
                                                         'the GPU gives the CPU''s rows in every direction')
            ELSE skip('no usable GPU here', 1) END;

SELECT * FROM finish();
ROLLBACK;
