-- The row paths: bfs(), descendants(), ancestors() and scc_components() write their rows through
-- a tuplestore sized to hold them (tuples of bigint/integer columns formed once and overwritten,
-- text and uuid keys formed in reused buffers), the host BFS runs wide levels bottom-up, and
-- reachable(graph, bigint[], bigint[]) without NULLs reads and answers the arrays in place. Here,
-- on graphs large enough for those paths (hubs, wide levels, thousands of rows) and small ones:
--   - bfs/descendants/ancestors rows and their order against a level-by-level oracle over the edge
--     rows (plpgsql, a set of reached keys and each level's smallest parent), for bigint keys at
--     the limits of bigint, text and uuid keys, from hubs, leaves and keys the graph lacks;
--   - the same rows when the tuplestore spills (work_mem and hash_mem_multiplier at their least);
--   - scc_components() rows, in vertex order, against scc_component() per vertex, each kind;
--   - reachable() arrays against the per-row form: NULL elements, unknown keys, extreme ids,
--     empty arrays, arrays of different lengths, text and uuid arrays;
--   - a live graph with pending inserts and deletes: every answer the one the snapshot's rows give.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(40);
SET client_min_messages = warning;

-- The rows bfs() gives from source in a direction ('out' along edges, 'in' against them, 'both'
-- either way) over the edge rows of edges, as 'vertex/depth/parent' (or 'vertex/depth') in bfs()'s
-- order: level by level, each new vertex's parent the smallest key of the level before with a step
-- to it (byte order for text: COLLATE "C").
CREATE FUNCTION pg_temp.oracle(edges regclass, key_type text, source text, max_depth int, direction text,
                               with_parent boolean)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	steps text;
	c text := CASE key_type WHEN 'text' THEN ' COLLATE "C"' ELSE '' END;
	d int := 0;
	added int;
	answer text[];
BEGIN
	steps := CASE direction
		WHEN 'out' THEN format('SELECT source AS a, target AS b FROM %s', edges)
		WHEN 'in' THEN format('SELECT target AS a, source AS b FROM %s', edges)
		ELSE format('SELECT source AS a, target AS b FROM %1$s UNION ALL SELECT target, source FROM %1$s', edges)
	END;
	DROP TABLE IF EXISTS pg_temp.reached;
	EXECUTE format('CREATE TEMP TABLE reached (v %s PRIMARY KEY, d int, p %s)', key_type, key_type);
	EXECUTE format('INSERT INTO reached VALUES ($1::%s, 0, NULL)', key_type) USING source;
	LOOP
		EXIT WHEN max_depth IS NOT NULL AND d >= max_depth;
		EXECUTE format($q$
			INSERT INTO reached
			SELECT s.b, $1 + 1, (array_agg(r.v ORDER BY r.v%2$s))[1] FROM reached r JOIN (%1$s) s ON s.a = r.v
			WHERE r.d = $1 AND s.b IS NOT NULL AND NOT EXISTS (SELECT FROM reached x WHERE x.v = s.b)
			GROUP BY s.b$q$, steps, c) USING d;
		GET DIAGNOSTICS added = ROW_COUNT;
		EXIT WHEN added = 0;
		d := d + 1;
	END LOOP;
	EXECUTE format($q$SELECT array_agg(CASE WHEN $1 THEN format('%%s/%%s/%%s', v, d, p) ELSE format('%%s/%%s', v, d) END
	                                   ORDER BY d, v%s) FROM reached$q$, c)
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

-- Each source of sources, each way, unlimited and at depth 2: the calls that differ, '' if none.
CREATE FUNCTION pg_temp.mismatches(graph text, edges regclass, key_type text, sources text[])
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	s text;
	d int;
	way text[];
	bad text := '';
BEGIN
	FOREACH s IN ARRAY sources LOOP
		FOREACH d IN ARRAY ARRAY[NULL, 2]::int[] LOOP
			FOREACH way SLICE 1 IN ARRAY ARRAY[['bfs', 'out'], ['bfs', 'in'], ['bfs', 'both'],
			                                   ['descendants', 'out'], ['ancestors', 'in']] LOOP
				IF pg_temp.answer(graph, key_type, s, d, way[2], way[1])
				   IS DISTINCT FROM pg_temp.oracle(edges, key_type, s, d, way[2], way[1] = 'bfs') THEN
					bad := bad || format('%s %s from %s depth %s; ', way[1], way[2], s, d);
				END IF;
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN bad;
END
$$;

-- Sources worth searching from: the two keys of most out-edges (hubs: wide levels, bottom-up),
-- the two of most in-edges, one of no out-edge, and the smallest and largest keys.
CREATE FUNCTION pg_temp.sources(edges regclass) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE answer text[];
BEGIN
	EXECUTE format($q$
		SELECT array_agg(DISTINCT k::text) FROM (
			(SELECT source AS k FROM %1$s GROUP BY source ORDER BY count(*) DESC, source LIMIT 2)
			UNION ALL (SELECT target FROM %1$s GROUP BY target ORDER BY count(*) DESC, target LIMIT 2)
			UNION ALL (SELECT target FROM %1$s EXCEPT SELECT source FROM %1$s ORDER BY 1 LIMIT 1)
			UNION ALL (SELECT source FROM %1$s ORDER BY source LIMIT 1)
			UNION ALL (SELECT target FROM %1$s ORDER BY target DESC LIMIT 1)) s$q$, edges)
		INTO answer;
	RETURN answer;
END
$$;

-- scc_components() rows (in the order given) against scc_component() per vertex, and the order
-- (ascending keys; byte order for text).
CREATE FUNCTION pg_temp.scc_mismatches(graph text, key_type text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
	EXECUTE format($q$
		WITH r AS (SELECT vertex, component, n FROM grail.scc_components($1, NULL::%1$s) WITH ORDINALITY r(vertex, component, n)),
		o AS (SELECT *, row_number() OVER (ORDER BY vertex%2$s) AS rn FROM r)
		SELECT count(*) FROM o WHERE component IS DISTINCT FROM grail.scc_component($1, vertex) OR n <> rn$q$,
		key_type, CASE key_type WHEN 'text' THEN ' COLLATE "C"' ELSE '' END)
		INTO bad USING graph;
	RETURN bad;
END
$$;

-- A scale-free-ish random graph: hubs (a few keys with many out-edges), a long chain (many thin
-- levels), cycles, self-loops, duplicate edges, isolated pairs; n keys mapped to key_type by key().
SELECT setseed(0.31);
CREATE TABLE int_e (source bigint, target bigint);
INSERT INTO int_e
SELECT CASE WHEN random() < 0.3 THEN (random() * 4)::int ELSE (random() * 2999)::int END, (random() * 2999)::int
FROM generate_series(1, 12000);
INSERT INTO int_e SELECT i, i + 1 FROM generate_series(3000, 3400) i;          -- a chain
INSERT INTO int_e VALUES (3400, 3000), (5, 5), (5002, 5002), (5000, 5001), (5000, 5001), (5001, 5000);  -- cycles, loops, duplicates
INSERT INTO int_e VALUES (9000, 9001);                                          -- an isolated pair
-- Extreme ids: the two ends of bigint joined to the rest.
INSERT INTO int_e VALUES (-9223372036854775808, 0), (1, 9223372036854775807), (9223372036854775807, -9223372036854775808);
CREATE TABLE text_e AS SELECT 'k' || source AS source, 'k' || target AS target FROM int_e
                       WHERE source BETWEEN 0 AND 3400 AND target BETWEEN 0 AND 3400;
INSERT INTO text_e VALUES ('', 'k1'), ('k1', 'é'), ('é', 'E'), ('a b', 'k0');
CREATE TABLE uuid_e AS SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM int_e
                       WHERE source BETWEEN 0 AND 3400 AND target BETWEEN 0 AND 3400;
INSERT INTO uuid_e VALUES ('00000000-0000-0000-0000-000000000000', md5('1')::uuid),
                          (md5('2')::uuid, 'ffffffff-ffff-ffff-ffff-ffffffffffff');
SELECT grail.create_graph('ro_int', 'int_e');
SELECT grail.create_graph('ro_text', 'text_e');
SELECT grail.create_graph('ro_uuid', 'uuid_e');

-- 1-3: the rows of every way from every kind of source, against the oracle.
SELECT is(pg_temp.mismatches('ro_int', 'int_e', 'bigint', pg_temp.sources('int_e') || ARRAY['-9223372036854775808', '424242']),
          '', 'bigint keys: bfs, descendants, ancestors rows and order as the oracle''s, hubs, chain, extremes, a missing key');
SELECT is(pg_temp.mismatches('ro_text', 'text_e', 'text', pg_temp.sources('text_e') || ARRAY['', 'absent']),
          '', 'text keys: the same');
SELECT is(pg_temp.mismatches('ro_uuid', 'uuid_e', 'uuid', pg_temp.sources('uuid_e') || ARRAY['00000000-0000-0000-0000-000000000000', md5('nope')]),
          '', 'uuid keys: the same');

-- 4-6: the hub's search is a wide one (most of the graph).
SELECT cmp_ok((SELECT count(*) FROM grail.bfs('ro_int', 0::bigint)), '>', 2000::bigint, 'the hub reaches most of the graph');
SELECT is((SELECT count(*) FROM grail.bfs('ro_int', 3000::bigint, NULL, 'out')), 402::bigint, 'the chain: 402 levels of one vertex');
SELECT is((SELECT max(depth) FROM grail.bfs('ro_int', 3000::bigint, NULL, 'out')), 401, 'the chain''s last level is 401');

-- 7-9: the rows as text when a text key is given to a bigint or uuid graph, from the hub.
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_int', '0'::text) WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_int', 0::bigint) WITH ORDINALITY r(vertex, depth, parent, n)),
          'a text source on a bigint graph: the same rows, as text');
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_uuid', md5('0')) WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_uuid', md5('0')::uuid) WITH ORDINALITY r(vertex, depth, parent, n)),
          'a text source on a uuid graph: the same rows, as text');
SELECT is((SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY n) FROM grail.descendants('ro_int', '0'::text) WITH ORDINALITY r(vertex, depth, n)),
          pg_temp.oracle('int_e', 'bigint', '0', NULL, 'out', false),
          'descendants() from a text key on a bigint graph: the oracle''s rows');

-- 10-12: scc_components() against scc_component() per vertex, in key order.
SELECT is(pg_temp.scc_mismatches('ro_int', 'bigint'), 0::bigint, 'bigint scc_components rows as scc_component(), in order');
SELECT is(pg_temp.scc_mismatches('ro_text', 'text'), 0::bigint, 'text scc_components rows as scc_component(), in order');
SELECT is(pg_temp.scc_mismatches('ro_uuid', 'uuid'), 0::bigint, 'uuid scc_components rows as scc_component(), in order');
-- 13-14: every vertex once, and the components the cycles make.
SELECT is((SELECT count(*) FROM grail.scc_components('ro_int')),
          (SELECT count(*) FROM (SELECT source FROM int_e UNION SELECT target FROM int_e) k), 'one row per vertex');
SELECT is((SELECT array_agg(component ORDER BY vertex) FROM grail.scc_components('ro_int') WHERE vertex IN (3000, 3200, 3400, 3401, 5000, 5001, 5002, 9000)),
          ARRAY[3000, 3000, 3000, 3401, 5000, 5000, 5002, 9000]::bigint[], 'the chain closed into a cycle, its tail, a 2-cycle, a self-loop, an isolated vertex');

-- 15-20: the same rows when the tuplestore spills to a file (the least memory it may have).
CREATE TABLE in_memory AS
SELECT 'bfs' AS fn, array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) AS rows FROM grail.bfs('ro_int', 0::bigint) WITH ORDINALITY r(vertex, depth, parent, n)
UNION ALL SELECT 'ancestors', array_agg(format('%s/%s', vertex, depth) ORDER BY n) FROM grail.ancestors('ro_int', 5::bigint) WITH ORDINALITY r(vertex, depth, n)
UNION ALL SELECT 'scc', array_agg(format('%s/%s', vertex, component) ORDER BY n) FROM grail.scc_components('ro_int') WITH ORDINALITY r(vertex, component, n)
UNION ALL SELECT 'text bfs', array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_text', 'k0') WITH ORDINALITY r(vertex, depth, parent, n)
UNION ALL SELECT 'text scc', array_agg(format('%s/%s', vertex, component) ORDER BY n) FROM grail.scc_components('ro_text', NULL::text) WITH ORDINALITY r(vertex, component, n)
UNION ALL SELECT 'uuid bfs', array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_uuid', md5('0')::uuid) WITH ORDINALITY r(vertex, depth, parent, n);
SET LOCAL work_mem = '64kB';
SET LOCAL hash_mem_multiplier = 1;
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_int', 0::bigint) WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT rows FROM in_memory WHERE fn = 'bfs'), 'spilled: bfs rows unchanged');
SELECT is((SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY n) FROM grail.ancestors('ro_int', 5::bigint) WITH ORDINALITY r(vertex, depth, n)),
          (SELECT rows FROM in_memory WHERE fn = 'ancestors'), 'spilled: ancestors rows unchanged');
SELECT is((SELECT array_agg(format('%s/%s', vertex, component) ORDER BY n) FROM grail.scc_components('ro_int') WITH ORDINALITY r(vertex, component, n)),
          (SELECT rows FROM in_memory WHERE fn = 'scc'), 'spilled: scc_components rows unchanged');
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_text', 'k0') WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT rows FROM in_memory WHERE fn = 'text bfs'), 'spilled: text bfs rows unchanged');
SELECT is((SELECT array_agg(format('%s/%s', vertex, component) ORDER BY n) FROM grail.scc_components('ro_text', NULL::text) WITH ORDINALITY r(vertex, component, n)),
          (SELECT rows FROM in_memory WHERE fn = 'text scc'), 'spilled: text scc_components rows unchanged');
SELECT is((SELECT array_agg(format('%s/%s/%s', vertex, depth, parent) ORDER BY n) FROM grail.bfs('ro_uuid', md5('0')::uuid) WITH ORDINALITY r(vertex, depth, parent, n)),
          (SELECT rows FROM in_memory WHERE fn = 'uuid bfs'), 'spilled: uuid bfs rows unchanged');
RESET work_mem;
RESET hash_mem_multiplier;

-- 21-22: a scan of the rows twice (a rescan of the function's tuplestore) gives them twice.
SELECT is((SELECT count(*) FROM generate_series(1, 2) g, LATERAL (SELECT * FROM grail.bfs('ro_int', 0::bigint)) b),
          2 * (SELECT count(*) FROM grail.bfs('ro_int', 0::bigint)), 'bfs rows joined twice');
SELECT is((SELECT count(*) FROM (SELECT 1 FROM grail.scc_components('ro_int') a, generate_series(1, 2)) x),
          2 * (SELECT count(*) FROM grail.scc_components('ro_int')), 'scc_components rows in a nested loop');

-- reachable(graph, a[], b[]) against the per-row reachable(graph, a, b), element by element; NULL
-- where either element is NULL.
CREATE FUNCTION pg_temp.batch_mismatches(graph text, key_type text, a text[], b text[]) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE bad bigint;
BEGIN
	EXECUTE format($q$
		SELECT count(*) FROM unnest(grail.reachable($1, $2::%1$s[], $3::%1$s[]), $2::%1$s[], $3::%1$s[]) x(r, a, b)
		WHERE r IS DISTINCT FROM (CASE WHEN x.a IS NULL OR x.b IS NULL THEN NULL ELSE grail.reachable($1, x.a, x.b) END)$q$,
		key_type) INTO bad USING graph, a, b;
	RETURN bad;
END
$$;
-- Pairs over the graph's keys, a missing key and NULLs.
CREATE TABLE int_keys AS SELECT k::text AS k FROM (SELECT source AS k FROM int_e UNION SELECT target FROM int_e) s
                         UNION ALL SELECT '424242';
CREATE TABLE int_pairs AS SELECT (SELECT array_agg(k ORDER BY random()) FROM int_keys) AS a, (SELECT array_agg(k ORDER BY random()) FROM int_keys) AS b;
-- 23-30
SELECT is(pg_temp.batch_mismatches('ro_int', 'bigint', a, b), 0::bigint, 'bigint arrays without NULL (answered in place) as per row') FROM int_pairs;
SELECT is(pg_temp.batch_mismatches('ro_int', 'bigint', a || ARRAY['0', NULL, '-9223372036854775808'], b || ARRAY[NULL, '1', '9223372036854775807']),
          0::bigint, 'bigint arrays with NULL elements as per row') FROM int_pairs;
SELECT is(pg_temp.batch_mismatches('ro_int', 'bigint', a, a), 0::bigint, 'bigint: every key against itself') FROM int_pairs;
SELECT is(grail.reachable('ro_int', ARRAY[0, 3000, 3400, 424242, 424242, -9223372036854775808]::bigint[],
                          ARRAY[9223372036854775807, 3400, 3000, 424242, 0, 9223372036854775807]::bigint[]),
          ARRAY[true, true, true, true, false, true], 'bigint arrays: extremes, a cycle, a missing key');
SELECT is(grail.reachable('ro_int', '{}'::bigint[], '{}'::bigint[]), '{}'::boolean[], 'empty arrays: an empty array');
SELECT is(cardinality(grail.reachable('ro_int', (SELECT array_agg(k::bigint) FROM int_keys), (SELECT array_agg(k::bigint) FROM int_keys))),
          (SELECT count(*)::int FROM int_keys), 'one answer per pair');
SELECT throws_ok($$SELECT grail.reachable('ro_int', ARRAY[1, 2]::bigint[], ARRAY[1]::bigint[])$$, '2202E',
                 'sources and targets must have the same length, not 2 and 1', 'arrays of different lengths: an error');
SELECT throws_ok($$SELECT grail.reachable('ro_int', ARRAY[[1, 2]]::bigint[], ARRAY[1, 2]::bigint[])$$, '2202E',
                 'sources must be a one-dimensional array, not 2-dimensional', 'a two-dimensional array: an error');
-- 31-33
SELECT is(pg_temp.batch_mismatches('ro_text', 'text', a, b), 0::bigint, 'text arrays with NULL and missing keys as per row')
FROM (SELECT array_agg(k ORDER BY random()) || ARRAY[NULL, 'absent', ''] AS a, array_agg(k ORDER BY random()) || ARRAY['k0', 'absent', NULL] AS b
      FROM (SELECT source AS k FROM text_e UNION SELECT target FROM text_e) s) p;
SELECT is(pg_temp.batch_mismatches('ro_uuid', 'uuid', a, b), 0::bigint, 'uuid arrays with NULL and missing keys as per row')
FROM (SELECT array_agg(k::text ORDER BY random()) || ARRAY[NULL, md5('absent'), md5('0')] AS a, array_agg(k::text ORDER BY random()) || ARRAY[md5('1'), md5('absent'), NULL] AS b
      FROM (SELECT source AS k FROM uuid_e UNION SELECT target FROM uuid_e) s) p;
SELECT throws_ok($$SELECT grail.reachable('ro_text', ARRAY[1]::bigint[], ARRAY[1]::bigint[])$$, '42804', NULL,
                 'bigint arrays on a text graph: the key type error');

-- Live: pending inserts and deletes; every answer is the one the snapshot's rows give.
CREATE TABLE live_e AS SELECT * FROM int_e WHERE source BETWEEN -1 AND 3500 AND target BETWEEN -1 AND 3500;
SELECT grail.create_graph('ro_live', 'live_e');
INSERT INTO live_e SELECT (random() * 2999)::int, (random() * 2999)::int FROM generate_series(1, 40);
INSERT INTO live_e VALUES (3400, 777777), (777777, 3201), (1, 3001);
DELETE FROM live_e WHERE ctid IN (SELECT ctid FROM live_e WHERE source < 3000 ORDER BY random() LIMIT 30);
DELETE FROM live_e WHERE source = 3200;  -- the chain cut: 3000 .. 3200, and 3201 .. 3400 -> 3000
-- 34-37
SELECT cmp_ok((SELECT pending_changes FROM grail.graphs WHERE name = 'ro_live'), '>', 0::bigint, 'the live graph has pending changes');
SELECT is(pg_temp.mismatches('ro_live', 'live_e', 'bigint', pg_temp.sources('live_e') || ARRAY['777777', '3000', '3201']),
          '', 'live, pending changes: bfs, descendants, ancestors rows as the oracle''s over the rows');
SELECT is(pg_temp.scc_mismatches('ro_live', 'bigint'), 0::bigint, 'live: scc_components as scc_component()');
SELECT is((SELECT array_agg(component ORDER BY vertex) FROM grail.scc_components('ro_live') WHERE vertex IN (3000, 3200, 3201, 3400, 777777)),
          ARRAY[3000, 3200, 3201, 3201, 3201]::bigint[], 'live: the cut chain, and the inserted key in the new cycle 3201 .. 3400 -> 777777');
-- 38-39
SELECT is(pg_temp.batch_mismatches('ro_live', 'bigint', a || ARRAY['777777', '3000', '1'], b || ARRAY['3201', '3400', '3001']),
          0::bigint, 'live: bigint arrays as per row') FROM int_pairs;
SELECT is(grail.reachable('ro_live', ARRAY[3000, 3000, 3201, 1, 777777]::bigint[], ARRAY[3199, 3201, 3000, 3001, 3000]::bigint[]),
          ARRAY[true, false, true, true, true], 'live: the cut chain and inserted edges in the arrays');

-- 40: NULL arguments still give no rows or NULL.
SELECT ok((SELECT count(*) FROM grail.bfs('ro_int', NULL::bigint)) = 0
          AND (SELECT count(*) FROM grail.bfs(NULL, 0::bigint)) = 0
          AND grail.reachable('ro_int', NULL::bigint[], ARRAY[1]::bigint[]) IS NULL
          AND (SELECT count(*) FROM grail.scc_components(NULL)) = 0,
          'NULL graph, source or array: no rows, NULL');

SELECT * FROM finish();
ROLLBACK;
