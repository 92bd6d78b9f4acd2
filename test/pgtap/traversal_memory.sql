-- The memory of descendants(), ancestors() and bfs() is kept with the graph's loaded build: made by
-- the first traversal, freed when the graph is dropped or rebuilt. A graph dropped and made again
-- under the same name (larger, then smaller), rebuilt, or dropped after a cancelled search must
-- answer from its new build's memory, never the old one's marks: each answer against a breadth-first
-- search over the edge rows, bfs() parents against the smallest vertex one level up.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(12);
SET client_min_messages = warning;

-- 'vertex/depth' of every vertex source reaches (out) or that reaches it (in), by depth then key.
CREATE FUNCTION pg_temp.oracle(edges regclass, source bigint, direction text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	a text := CASE direction WHEN 'out' THEN 'source' ELSE 'target' END;
	b text := CASE direction WHEN 'out' THEN 'target' ELSE 'source' END;
	depth int := 0;
	added bigint;
	answer text[];
BEGIN
	DROP TABLE IF EXISTS tm_seen;
	CREATE TEMP TABLE tm_seen (v bigint PRIMARY KEY, d int);
	INSERT INTO tm_seen VALUES (source, 0);
	LOOP
		EXECUTE format('INSERT INTO tm_seen SELECT DISTINCT e.%1$I, $1 + 1 FROM tm_seen s JOIN %2$s e ON e.%3$I = s.v '
		               'WHERE s.d = $1 ON CONFLICT DO NOTHING', b, edges, a) USING depth;
		GET DIAGNOSTICS added = ROW_COUNT;
		EXIT WHEN added = 0;
		depth := depth + 1;
	END LOOP;
	SELECT array_agg(format('%s/%s', v, d) ORDER BY d, v) INTO answer FROM tm_seen;
	RETURN answer;
END
$$;

-- Sources whose descendants, ancestors or bfs() parents are wrong on graph g over table edges.
CREATE FUNCTION pg_temp.wrong(g text, edges regclass, sources bigint[]) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	s bigint;
	bad bigint := 0;
BEGIN
	FOREACH s IN ARRAY sources LOOP
		IF (SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY n) FROM grail.descendants(g, s) WITH ORDINALITY AS r(vertex, depth, n))
		   IS DISTINCT FROM pg_temp.oracle(edges, s, 'out') THEN
			bad := bad + 1;
		END IF;
		IF (SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY n) FROM grail.ancestors(g, s) WITH ORDINALITY AS r(vertex, depth, n))
		   IS DISTINCT FROM pg_temp.oracle(edges, s, 'in') THEN
			bad := bad + 1;
		END IF;
		DROP TABLE IF EXISTS tm_bfs;
		CREATE TEMP TABLE tm_bfs AS SELECT * FROM grail.bfs(g, s);
		CREATE INDEX ON tm_bfs (vertex);
		IF (SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY depth, vertex) FROM tm_bfs)
		   IS DISTINCT FROM pg_temp.oracle(edges, s, 'out') THEN
			bad := bad + 1;
		END IF;
		EXECUTE format('SELECT count(*) FROM tm_bfs b
		                WHERE (b.depth = 0) <> (b.parent IS NULL)
		                   OR (b.depth > 0 AND b.parent IS DISTINCT FROM
		                       (SELECT min(p.vertex) FROM %s e JOIN tm_bfs p ON p.vertex = e.source
		                        WHERE e.target = b.vertex AND p.depth = b.depth - 1))', edges)
			INTO s;
		bad := bad + s;
	END LOOP;
	RETURN bad;
END
$$;

-- A small graph (cycles, a self-loop, duplicates, extreme ids), then a larger one under the same name.
CREATE TABLE tm_small (source bigint, target bigint);
INSERT INTO tm_small VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 4), (4, 5), (4, 5), (5, 9223372036854775807),
	(-9223372036854775808, 1), (7, 8);
CREATE TABLE tm_large (source bigint, target bigint);
INSERT INTO tm_large SELECT i, 2 * i + k FROM generate_series(1, 1500) i, generate_series(0, 1) k;
INSERT INTO tm_large VALUES (3001, 1), (5, 5);
CREATE INDEX ON tm_small (target);
CREATE INDEX ON tm_large (target);

SELECT grail.create_graph('tm', 'tm_small');
SELECT is(pg_temp.wrong('tm', 'tm_small', ARRAY[1, 3, 4, 7, 8, -9223372036854775808, 9223372036854775807, 42]), 0::bigint,
          'small graph');
SELECT grail.drop_graph('tm');
SELECT grail.create_graph('tm', 'tm_large');
SELECT is(pg_temp.wrong('tm', 'tm_large', ARRAY[1, 2, 1000, 1501, 3001]), 0::bigint,
          'dropped and made again larger under the same name');
SELECT grail.drop_graph('tm');
SELECT grail.create_graph('tm', 'tm_small');
SELECT is(pg_temp.wrong('tm', 'tm_small', ARRAY[1, 2, 5, 7, -9223372036854775808, 9223372036854775807]), 0::bigint,
          'dropped and made again smaller');

-- A search cut short leaves its build's memory to be cleared in full: the graph is then dropped
-- and made again, and rebuilt, and each answer is the new build's.
SELECT grail.drop_graph('tm');
SELECT grail.create_graph('tm', 'tm_large');
SET statement_timeout = '100ms';
CREATE FUNCTION pg_temp.cancelled(q text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN false;
EXCEPTION WHEN query_canceled THEN
	RETURN true;
END
$$;
SELECT ok(pg_temp.cancelled($$SELECT count(*) FROM generate_series(1, 1000000) i, grail.bfs('tm', 1 + i % 5)$$),
          'bfs() cancelled in the middle');
SET statement_timeout = 0;
SELECT is(pg_temp.wrong('tm', 'tm_large', ARRAY[1, 3001]), 0::bigint, 'the same build after the cancel');
SET statement_timeout = '100ms';
SELECT ok(pg_temp.cancelled($$SELECT count(*) FROM generate_series(1, 1000000) i, grail.ancestors('tm', 3000 - i % 5)$$),
          'ancestors() cancelled in the middle');
SET statement_timeout = 0;
SELECT grail.drop_graph('tm');
SELECT grail.create_graph('tm', 'tm_small');
SELECT is(pg_temp.wrong('tm', 'tm_small', ARRAY[1, 3, 4, 9223372036854775807]), 0::bigint,
          'dropped after a cancelled search and made again');
INSERT INTO tm_small SELECT i, i + 1 FROM generate_series(100, 800) i;
INSERT INTO tm_small VALUES (5, 100), (800, 1);
SELECT lives_ok($$SELECT grail.refresh_graph('tm')$$, 'rebuilt larger');
SELECT is(pg_temp.wrong('tm', 'tm_small', ARRAY[1, 100, 800, -9223372036854775808]), 0::bigint, 'the rebuilt graph');

-- Dropped and made again within one statement's reach: a function that traverses, drops, makes
-- the graph again over the other table and traverses again.
CREATE FUNCTION pg_temp.swap_and_count(g text, other text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE before bigint; after bigint;
BEGIN
	SELECT count(*) INTO before FROM grail.bfs(g, 1);
	PERFORM grail.drop_graph(g);
	PERFORM grail.create_graph(g, other);
	SELECT count(*) INTO after FROM grail.bfs(g, 1);
	RETURN after;
END
$$;
SELECT is(pg_temp.swap_and_count('tm', 'tm_large'), (SELECT cardinality(pg_temp.oracle('tm_large', 1, 'out')))::bigint,
          'dropped and made again inside one function: the new graph answers');
SELECT is(pg_temp.wrong('tm', 'tm_large', ARRAY[1, 1501]), 0::bigint, 'and in the next statement');
-- Unknown keys and NULLs on the new build.
SELECT is((SELECT array_agg(vertex) FROM grail.descendants('tm', 999999)), ARRAY[999999]::bigint[], 'an unknown key reaches itself');

SELECT * FROM finish();
ROLLBACK;
