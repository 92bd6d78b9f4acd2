-- The bytes of key rows: bfs(), descendants(), ancestors() and scc_components() of text, varchar
-- and uuid graphs form their rows in place (RowOutput::put_cells: each key's bytes copied from the
-- graph's dictionary into a tuple laid out as heap_fill_tuple lays it out), a batch of rows at a
-- time. A row whose bytes were wrong (a header's length, a short header given to a long key, a
-- missing alignment or a nonzero padding byte before an aligned key, a key of another row of the
-- batch) fails here:
--   - keys of every length around the short-header limit (0, 1, 125, 126, 127, 128 bytes), multibyte
--     UTF-8 (two, three and four bytes a character), keys longer than 2 kB that the edge table keeps
--     toasted out of line, uuids at their extremes;
--   - rows against a level-by-level oracle over the edge rows (plpgsql: each level, each new
--     vertex's parent the smallest key of the level before in byte order), in bfs()'s row order,
--     from every key of the pool, for several random graphs with cycles, self-loops, duplicates;
--   - scc_components() against components computed from the edge rows' closure, keys compared with
--     = and by octet_length and md5 of the bytes;
--   - the same rows when the tuplestore spills to a file, on a live graph with pending inserts and
--     deletes of long keys (answers the rows the snapshot sees), and NULL arguments.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(31);
SET client_min_messages = warning;

-- The rows bfs() gives from source in a direction over the edge rows of edges, as
-- 'vertex/depth/parent' (or 'vertex/depth'), in bfs()'s order: level by level, in byte order,
-- each new vertex's parent the smallest key of the level before with a step to it.
CREATE FUNCTION pg_temp.oracle(edges regclass, key_type text, source text, max_depth int, direction text,
                               with_parent boolean)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	steps text;
	c text := CASE key_type WHEN 'uuid' THEN '' ELSE ' COLLATE "C"' END;
	d int := 0;
	added int;
	answer text[];
BEGIN
	steps := CASE direction
		WHEN 'out' THEN format('SELECT source AS a, target AS b FROM %s', edges)
		WHEN 'in' THEN format('SELECT target AS a, source AS b FROM %s', edges)
		ELSE format('SELECT source AS a, target AS b FROM %1$s UNION ALL SELECT target, source FROM %1$s', edges)
	END;
	-- One table of reached keys per key type for the whole test (a table a call would exhaust the
	-- locks of the transaction).
	EXECUTE format('CREATE TEMP TABLE IF NOT EXISTS reached_%1$s (v %1$s PRIMARY KEY, d int, p %1$s)', key_type);
	EXECUTE format('DELETE FROM reached_%s', key_type);
	EXECUTE format('INSERT INTO reached_%1$s VALUES ($1::%1$s, 0, NULL)', key_type) USING source;
	LOOP
		EXIT WHEN max_depth IS NOT NULL AND d >= max_depth;
		EXECUTE format($q$
			INSERT INTO reached_%3$s
			SELECT s.b, $1 + 1, (array_agg(r.v ORDER BY r.v%2$s))[1] FROM reached_%3$s r JOIN (%1$s) s ON s.a = r.v
			WHERE r.d = $1 AND s.b IS NOT NULL AND NOT EXISTS (SELECT FROM reached_%3$s x WHERE x.v = s.b)
			GROUP BY s.b$q$, steps, c, key_type) USING d;
		GET DIAGNOSTICS added = ROW_COUNT;
		EXIT WHEN added = 0;
		d := d + 1;
	END LOOP;
	EXECUTE format($q$SELECT array_agg(CASE WHEN $1 THEN format('%%s/%%s/%%s', v, d, p) ELSE format('%%s/%%s', v, d) END
	                                   ORDER BY d, v%s) FROM reached_%s$q$, c, key_type)
		INTO answer USING with_parent;
	RETURN answer;
END
$$;

-- What fn gives (bfs with a direction, descendants, ancestors), in the same form and row order.
CREATE FUNCTION pg_temp.answer(graph text, key_type text, source text, max_depth int, direction text, fn text)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE answer text[];
BEGIN
	IF fn = 'bfs' THEN
		EXECUTE format('SELECT array_agg(format(''%%s/%%s/%%s'', vertex, depth, parent) ORDER BY n) '
		               'FROM grail.bfs($1, $2::%s, $3, $4) WITH ORDINALITY AS r(vertex, depth, parent, n)', key_type)
			INTO answer USING graph, source, max_depth, direction;
	ELSE
		EXECUTE format('SELECT array_agg(format(''%%s/%%s'', vertex, depth) ORDER BY n) '
		               'FROM grail.%I($1, $2::%s, $3) WITH ORDINALITY AS r(vertex, depth, n)', fn, key_type)
			INTO answer USING graph, source, max_depth;
	END IF;
	RETURN answer;
END
$$;

-- Each source of sources, each way, unlimited and at depth 1: the calls that differ, '' if none.
CREATE FUNCTION pg_temp.mismatches(graph text, edges regclass, key_type text, sources text[])
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
	d int;
	way text[];
	bad text := '';
BEGIN
	FOREACH s IN ARRAY sources LOOP
		FOREACH d IN ARRAY ARRAY[NULL, 1]::int[] LOOP
			FOREACH way SLICE 1 IN ARRAY ARRAY[['bfs', 'out'], ['bfs', 'in'], ['bfs', 'both'],
			                                   ['descendants', 'out'], ['ancestors', 'in']] LOOP
				IF pg_temp.answer(graph, key_type, s, d, way[2], way[1])
				   IS DISTINCT FROM pg_temp.oracle(edges, key_type, s, d, way[2], way[1] = 'bfs') THEN
					bad := bad || format('%s %s from %s (%s bytes) depth %s; ', way[1], way[2], left(s, 20), octet_length(s), d);
				END IF;
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN bad;
END
$$;

-- scc_components() rows against the components of the edge rows' closure (each vertex's component
-- the smallest key, in byte order, of those it reaches and that reach it), compared by =, by
-- octet_length and by md5 of the bytes: the rows that differ.
CREATE FUNCTION pg_temp.scc_mismatches(graph text, edges regclass, key_type text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
	EXECUTE format($q$
		WITH RECURSIVE k AS (SELECT source AS v FROM %1$s UNION SELECT target FROM %1$s),
		reach(a, b) AS (SELECT v, v FROM k UNION SELECT r.a, e.target FROM reach r JOIN %1$s e ON e.source = r.b),
		want AS (SELECT r.a AS vertex, (array_agg(r.b ORDER BY r.b%3$s))[1] AS component FROM reach r JOIN reach q ON q.a = r.b AND q.b = r.a GROUP BY r.a),
		got AS (SELECT vertex, component FROM grail.scc_components($1, NULL::%2$s))
		SELECT count(*) FROM want w FULL JOIN got g ON g.vertex = w.vertex AND g.component = w.component
		                              AND octet_length(g.vertex::text) = octet_length(w.vertex::text)
		                              AND md5(g.component::text) = md5(w.component::text)
		WHERE w.vertex IS NULL OR g.vertex IS NULL$q$,
		edges, key_type, CASE key_type WHEN 'uuid' THEN '' ELSE ' COLLATE "C"' END)
		INTO bad USING graph;
	RETURN bad;
END
$$;

-- The pool of text keys: lengths about the short-header limit (126 bytes of text), multibyte UTF-8,
-- keys the edge table toasts (incompressible, over 2 kB), and plain ones.
CREATE TABLE rb_pool (k text);
INSERT INTO rb_pool VALUES (''), ('a'), ('A'), ('é'), ('日本語'), ('🦀'), ('ö日🦀x'),
	(repeat('p', 125)), (repeat('q', 126)), (repeat('r', 127)), (repeat('s', 128)), (repeat('é', 63)), (repeat('é', 64)),
	(repeat('日', 42)), (repeat('日', 43)),
	((SELECT string_agg(md5(i::text), '') FROM generate_series(1, 80) i)),
	('0' || (SELECT string_agg(md5((i * 7)::text), '') FROM generate_series(1, 70) i)),
	((SELECT string_agg(md5((i * 3)::text) || 'ü', '') FROM generate_series(1, 70) i));
INSERT INTO rb_pool SELECT 'k' || i FROM generate_series(1, 40) i;

-- 1: the long keys are stored out of line in an edge table (toasted), as a user's would be.
CREATE TABLE rb_e (source text, target text);
INSERT INTO rb_e SELECT k, 'k1' FROM rb_pool WHERE octet_length(k) > 2000;
SELECT cmp_ok((SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE oid = 'rb_e'::regclass), '>', 0::bigint,
              'the edge table keeps the long keys out of line (in its TOAST table)');
TRUNCATE rb_e;

-- 2-13: three random graphs over the pool (cycles, self-loops, duplicates), as text and varchar: every
-- key of the pool and a key the graph lacks as source, each way; scc_components against the closure.
CREATE FUNCTION pg_temp.random_round(seed float8) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE sources text[];
BEGIN
	PERFORM setseed(seed);
	PERFORM grail.drop_graph(g) FROM unnest(ARRAY['rb_text', 'rb_varchar']) g WHERE g IN (SELECT name FROM grail.graphs);
	DROP TABLE IF EXISTS rb_e, rb_v;
	CREATE TABLE rb_e AS
	SELECT (SELECT k FROM rb_pool ORDER BY random() + i * 0 LIMIT 1) AS source,
	       (SELECT k FROM rb_pool ORDER BY random() + i * 0 LIMIT 1) AS target
	FROM generate_series(1, 160) i;
	INSERT INTO rb_e SELECT source, target FROM rb_e LIMIT 5;           -- duplicates
	INSERT INTO rb_e SELECT k, k FROM rb_pool ORDER BY random() LIMIT 3;  -- self-loops
	CREATE TABLE rb_v (source varchar, target varchar);
	INSERT INTO rb_v SELECT * FROM rb_e;
	PERFORM grail.create_graph('rb_text', 'rb_e');
	PERFORM grail.create_graph('rb_varchar', 'rb_v');
	SELECT array_agg(k) || ARRAY['absent key'] INTO sources FROM rb_pool WHERE k NOT LIKE 'k%' OR k IN ('k1', 'k2');
	RETURN NEXT pg_temp.mismatches('rb_text', 'rb_e', 'text', sources);
	RETURN NEXT pg_temp.mismatches('rb_varchar', 'rb_v', 'text', sources[1:10]);
	RETURN NEXT pg_temp.scc_mismatches('rb_text', 'rb_e', 'text')::text;
	RETURN NEXT pg_temp.scc_mismatches('rb_varchar', 'rb_v', 'varchar')::text;
END
$$;
SELECT is(r, CASE WHEN n % 4 IN (1, 2) THEN '' ELSE '0' END,
          format('round %s: %s', (n - 1) / 4 + 1, (ARRAY['text graph: bfs, descendants, ancestors rows as the oracle''s',
                                                         'varchar graph: the same', 'text scc_components as the closure''s',
                                                         'varchar scc_components as the closure''s'])[(n - 1) % 4 + 1]))
FROM (SELECT r, row_number() OVER () AS n
      FROM (SELECT pg_temp.random_round(0.17) UNION ALL SELECT pg_temp.random_round(-0.4)
            UNION ALL SELECT pg_temp.random_round(0.77)) x(r)) y;

-- 14-17: one cycle through every key (each row's parent is its neighbour, whatever the lengths);
-- components named by a long key of short vertices: the component's four-byte header aligned after
-- a vertex's one-byte one, with padding bytes before it that must read as padding.
SELECT grail.drop_graph('rb_text');
DROP TABLE rb_e;
CREATE TABLE rb_e AS SELECT k AS source, lead(k, 1, '') OVER (ORDER BY k COLLATE "C") AS target FROM rb_pool;
SELECT grail.create_graph('rb_text', 'rb_e');
SELECT is((SELECT count(*) FROM grail.scc_components('rb_text', NULL::text) s JOIN rb_pool p ON p.k = s.vertex
           WHERE s.component = '' AND md5(s.vertex) = md5(p.k)), (SELECT count(*) FROM rb_pool),
          'one cycle through every key: every vertex once, bytes equal, the component the empty key''s');
SELECT is(pg_temp.mismatches('rb_text', 'rb_e', 'text', ARRAY['a', (SELECT k FROM rb_pool WHERE k LIKE '0%'), repeat('r', 127), '', '🦀']),
          '', 'the cycle: rows from short, long and multibyte keys as the oracle''s');
CREATE TABLE rb_pad (source text, target text);
INSERT INTO rb_pad SELECT 'a', k FROM rb_pool WHERE k LIKE '0%' UNION ALL SELECT k, 'a' FROM rb_pool WHERE k LIKE '0%';
INSERT INTO rb_pad VALUES ('é', repeat('r', 127)), (repeat('r', 127), 'é'), ('a', 'é');
SELECT grail.create_graph('rb_pad', 'rb_pad');
SELECT is((SELECT array_agg(md5(component) ORDER BY vertex COLLATE "C") FROM grail.scc_components('rb_pad', NULL::text)),
          (SELECT ARRAY[md5(k), md5(k), md5(repeat('r', 127)), md5(repeat('r', 127))] FROM rb_pool WHERE k LIKE '0%'),
          'short vertices (''a'', ''é'') whose components are named by long keys: the long keys'' bytes after the padding');
SELECT is(pg_temp.mismatches('rb_pad', 'rb_pad', 'text', ARRAY['a', 'é', (SELECT k FROM rb_pool WHERE k LIKE '0%'), repeat('r', 127)]),
          '', 'rows with long parents of short vertices and the reverse as the oracle''s');

-- 18-21: uuid keys, at their extremes.
CREATE TABLE rb_u AS SELECT md5(source)::uuid AS source, md5(target)::uuid AS target FROM rb_e;
INSERT INTO rb_u VALUES ('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
	('ffffffff-ffff-ffff-ffff-ffffffffffff', md5('a')::uuid), (md5('a')::uuid, '00000000-0000-0000-0000-000000000000');
SELECT grail.create_graph('rb_uuid', 'rb_u');
SELECT is(pg_temp.mismatches('rb_uuid', 'rb_u', 'uuid', ARRAY['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', md5('a'), md5(''), md5('nope')]),
          '', 'uuid keys: rows as the oracle''s, from the extremes and a key the graph lacks');
SELECT is(pg_temp.scc_mismatches('rb_uuid', 'rb_u', 'uuid'), 0::bigint, 'uuid scc_components as the closure''s');
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('rb_uuid', md5('a')) WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('rb_uuid', md5('a')::uuid) WITH ORDINALITY r(vertex, depth, parent, n)),
          'a text source on a uuid graph: the same rows, as text');
SELECT is((SELECT array_agg(vertex ORDER BY n) FROM grail.descendants('rb_uuid', '00000000-0000-0000-0000-000000000000'::uuid, 1) WITH ORDINALITY r(vertex, depth, n)),
          ARRAY['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']::uuid[], 'uuid extremes: the source and its step');

-- 22-24: the same rows when the tuplestore spills to a file.
CREATE TEMP TABLE in_memory AS
SELECT 'bfs' AS fn, array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) AS rows FROM grail.bfs('rb_text', 'a', NULL, 'both') WITH ORDINALITY r(vertex, depth, parent, n)
UNION ALL SELECT 'scc', array_agg(format('%s/%s', vertex, component) ORDER BY n) FROM grail.scc_components('rb_text', NULL::text) WITH ORDINALITY r(vertex, component, n)
UNION ALL SELECT 'uuid', array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('rb_uuid', md5('a')::uuid, NULL, 'both') WITH ORDINALITY r(vertex, depth, parent, n);
SET LOCAL work_mem = '64kB';
SET LOCAL hash_mem_multiplier = 1;
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('rb_text', 'a', NULL, 'both') WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT rows FROM in_memory WHERE fn = 'bfs'), 'spilled: text bfs rows');
SELECT is((SELECT array_agg(format('%s/%s', vertex, component) ORDER BY n) FROM grail.scc_components('rb_text', NULL::text) WITH ORDINALITY r(vertex, component, n)),
          (SELECT rows FROM in_memory WHERE fn = 'scc'), 'spilled: text scc_components rows');
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('rb_uuid', md5('a')::uuid, NULL, 'both') WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT rows FROM in_memory WHERE fn = 'uuid'), 'spilled: uuid bfs rows');
RESET work_mem;
RESET hash_mem_multiplier;

-- 25-28: a live graph with pending inserts and deletes of long and multibyte keys: the rows the
-- snapshot's edge rows give.
SELECT grail.alter_graph('rb_text', true);
INSERT INTO rb_e VALUES (repeat('日', 43), repeat('z', 3000)), (repeat('z', 3000), '🦀'), ('🦀', repeat('日', 43));
DELETE FROM rb_e WHERE source = repeat('q', 126) OR target = 'k7';
SELECT is(pg_temp.mismatches('rb_text', 'rb_e', 'text', ARRAY[repeat('日', 43), repeat('z', 3000), 'a', repeat('q', 126), 'k7', '']),
          '', 'live, pending inserts and deletes: rows as the oracle''s over the rows the snapshot sees');
SELECT is(pg_temp.scc_mismatches('rb_text', 'rb_e', 'text'), 0::bigint, 'live: scc_components as the closure''s');
SELECT is((SELECT md5(component) FROM grail.scc_components('rb_text', NULL::text) WHERE vertex = '🦀'), md5(repeat('z', 3000)),
          'live: a four-byte character''s component is named by the new 3 kB key (byte order), after the padding');
SELECT is((SELECT count(*) FROM grail.descendants('rb_text', repeat('z', 3000)) WHERE vertex IN ('🦀', repeat('日', 43), repeat('z', 3000))), 3::bigint,
          'live: the new cycle from its long key');

-- 29-31: NULL arguments give no rows.
SELECT is((SELECT count(*) FROM grail.descendants('rb_text', NULL::text)), 0::bigint, 'a NULL source: no rows');
SELECT is((SELECT count(*) FROM grail.bfs(NULL, 'a'::text)), 0::bigint, 'a NULL graph: no rows');
SELECT is((SELECT count(*) FROM grail.bfs('rb_text', 'a'::text, NULL, NULL)), 0::bigint, 'a NULL direction: no rows');

SELECT * FROM finish();
ROLLBACK;
