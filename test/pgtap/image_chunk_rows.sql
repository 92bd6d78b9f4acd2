-- How a build cuts its image into rows of grail.index_chunk, checked by reading the rows back: each
-- row holds as many image bytes as compress into one page, lz4-compressed in the layout
-- toast_compress_datum makes (the server decompresses it) or plain where the bytes do not
-- compress (random ids, a CSR's targets); stretches of the image are made into rows on helper
-- threads with grail.build_threads (and on one by default, none with grail.max_build_threads = 0).
-- A row stored wrongly (bytes out of place, a wrong raw size in
-- its header) fails the image's checksum when it is loaded, or the row's decompression: every
-- graph here is answered from its rows, in the transaction that built it (no cache has it).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(42);

SELECT setseed(0.2718);
-- 200,000 vertices with random ids over all of bigint, 600,000 edges between random ones: an
-- image of several 4 MB stretches, much of it incompressible.
CREATE TABLE icr_random AS
SELECT (random() * 1.8e19 - 9e18)::bigint AS v FROM generate_series(1, 200000);
CREATE TABLE icr_edges AS
SELECT a.v AS source, b.v AS target
FROM (SELECT floor(random() * 200000)::int + 1 AS a, floor(random() * 200000)::int + 1 AS b
      FROM generate_series(1, 600000)) p
JOIN (SELECT row_number() OVER () AS k, v FROM icr_random) a ON a.k = p.a
JOIN (SELECT row_number() OVER () AS k, v FROM icr_random) b ON b.k = p.b;
-- A deep local DAG of small ids (compressible all along) and a few back edges.
CREATE TABLE icr_local AS
SELECT i::bigint AS source, (i + 1 + (i * 7919) % 13)::bigint AS target FROM generate_series(1, 150000) i
UNION ALL SELECT i * 1000, i * 1000 - 500 FROM generate_series(1, 100) i;
CREATE INDEX ON icr_local (source);
ANALYZE icr_local;
CREATE TABLE icr_text AS SELECT 'vertex-' || source AS source, 'vertex-' || target AS target FROM icr_local;
CREATE TABLE icr_tiny (source bigint, target bigint);
INSERT INTO icr_tiny VALUES (1, 2), (2, 3), (3, 1), (3, 4);

-- The rows of a graph's chunks as stored.
CREATE FUNCTION icr_chunks(graph text) RETURNS TABLE (seq int, stored int, raw int, compression text)
LANGUAGE sql AS $$
	SELECT c.seq, pg_column_size(c.data), octet_length(c.data), pg_column_compression(c.data)
	FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id WHERE g.name = graph
$$;

-- What any row of a graph's chunks breaks of the rules: numbered 0, 1, 2, ...; each within one heap
-- page with its row; a plain row at most a page of image bytes; together the image's size.
CREATE FUNCTION icr_broken(graph text) RETURNS text[] LANGUAGE sql AS $$
	SELECT array_remove(ARRAY[
		CASE WHEN (SELECT array_agg(seq ORDER BY seq) FROM icr_chunks(graph))
		          IS DISTINCT FROM (SELECT array_agg(i) FROM generate_series(0, (SELECT count(*) FROM icr_chunks(graph))::int - 1) i)
		     THEN 'numbering' END,
		CASE WHEN (SELECT max(stored) FROM icr_chunks(graph)) > 8124 THEN 'row past a page' END,
		CASE WHEN (SELECT count(*) FROM icr_chunks(graph) WHERE compression IS NULL AND raw > 8120) > 0
		     THEN 'plain row past a page' END,
		CASE WHEN (SELECT sum(raw) FROM icr_chunks(graph)) IS DISTINCT FROM
		          (SELECT index_bytes FROM grail.graphs WHERE name = graph) THEN 'bytes' END], NULL)
$$;

-- How many vertices each of a few sources reaches, by the graph (bfs, loading its image from its
-- rows) and by the rows of its table.
CREATE TEMP TABLE icr_truth AS
SELECT s, (WITH RECURSIVE r(v) AS (SELECT s UNION SELECT e.target FROM r JOIN icr_local e ON e.source = r.v)
           SELECT count(*) FROM r) AS n
FROM unnest(ARRAY[1, 5000, 77777, 149990]::bigint[]) s;
-- The sources where a graph's bfs() (from its image, loaded from its rows) reaches other than
-- the table's rows say.
CREATE FUNCTION icr_wrong_reach(graph text) RETURNS bigint[] LANGUAGE sql AS $$
	SELECT coalesce(array_agg(s ORDER BY s), '{}') FROM icr_truth WHERE (SELECT count(*) FROM grail.bfs(graph, s)) <> n
$$;

CREATE TEMP TABLE icr_lz4 AS
SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) AS lz4;

-- 1. Random ids, on the backend's thread alone and with helper threads.
SET grail.build_threads = 0;
SELECT lives_ok($$SELECT grail.create_graph('icr_random0', 'icr_edges')$$, 'random ids: built without helpers');
SET grail.build_threads = 2;
SELECT lives_ok($$SELECT grail.create_graph('icr_random2', 'icr_edges')$$, 'random ids: built with 2 helpers');
SELECT cmp_ok((SELECT index_bytes FROM grail.graphs WHERE name = 'icr_random2'), '>', 12000000::bigint,
              'an image of more than three stretches');
SELECT is(icr_broken('icr_random0'), '{}'::text[], 'its rows (no helpers) keep the rules');
SELECT is(icr_broken('icr_random2'), '{}'::text[], 'its rows (2 helpers) keep the rules');
SELECT CASE WHEN (SELECT lz4 FROM icr_lz4) THEN
	collect_tap(
		cmp_ok((SELECT count(*) FROM icr_chunks('icr_random2') WHERE compression = 'lz4'), '>', 10::bigint,
		       'rows that compress are lz4-compressed'),
		cmp_ok((SELECT count(*) FROM icr_chunks('icr_random2') WHERE compression IS NULL), '>', 10::bigint,
		       'rows that do not are plain'),
		cmp_ok((SELECT count(*) FROM icr_chunks('icr_random2') WHERE compression = 'lz4' AND raw < 8120 * 5 / 4),
		       '<=', (SELECT ceil(index_bytes / 4194304.0)::bigint FROM grail.graphs WHERE name = 'icr_random2'),
		       'a compressed row holds a quarter more than a plain one, but for a 4 MB stretch''s last'),
		is((SELECT count(*) FROM icr_chunks('icr_random2') WHERE compression = 'lz4' AND raw > 8 * 8120), 0::bigint,
		   'and at most 8 pages of image bytes'))
ELSE skip('the server has no lz4', 4) END;
SELECT is((SELECT count(*) FROM grail.scc_components('icr_random0')),
          (SELECT count(*) FROM (SELECT source FROM icr_edges UNION SELECT target FROM icr_edges) v),
          'scc_components() reads every vertex from the rows (no helpers)');
SELECT is((SELECT count(*) FROM grail.scc_components('icr_random2')),
          (SELECT count(*) FROM (SELECT source FROM icr_edges UNION SELECT target FROM icr_edges) v),
          'scc_components() reads every vertex from the rows (2 helpers)');
SELECT is((SELECT array_agg(x ORDER BY x) FROM (SELECT count(*) AS x FROM grail.scc_components('icr_random2') GROUP BY component) c),
          (SELECT array_agg(x ORDER BY x) FROM (SELECT count(*) AS x FROM grail.scc_components('icr_random0') GROUP BY component) c),
          'both builds find the same components');
SELECT is((SELECT count(*) FROM icr_edges e WHERE NOT grail.reachable('icr_random2', e.source, e.target)), 0::bigint,
          'every edge''s target is reachable from its source (2 helpers)');

-- 2. A compressible image, on 0, 1 and 16 helpers (more than its stretches).
SET grail.build_threads = 0;
SELECT lives_ok($$SELECT grail.create_graph('icr_local0', 'icr_local')$$, 'a local DAG built without helpers');
SET grail.build_threads = 1;
SELECT lives_ok($$SELECT grail.create_graph('icr_local1', 'icr_local')$$, 'with 1 helper');
SET grail.build_threads = 16;
SELECT lives_ok($$SELECT grail.create_graph('icr_local16', 'icr_local')$$, 'with 16 helpers');
SELECT is(icr_broken('icr_local0'), '{}'::text[], 'its rows keep the rules (no helpers)');
SELECT is(icr_broken('icr_local1'), '{}'::text[], 'its rows keep the rules (1 helper)');
SELECT is(icr_broken('icr_local16'), '{}'::text[], 'its rows keep the rules (16 helpers)');
SELECT CASE WHEN (SELECT lz4 FROM icr_lz4) THEN
	cmp_ok((SELECT sum(stored) FROM icr_chunks('icr_local1'))::numeric, '<',
	       (SELECT 0.6 * index_bytes FROM grail.graphs WHERE name = 'icr_local1'), 'stored in less than 60% of its size')
ELSE skip('the server has no lz4') END;
SELECT is(icr_wrong_reach('icr_local0'), '{}'::bigint[], 'bfs() from its rows agrees with the table (no helpers)');
SELECT is(icr_wrong_reach('icr_local1'), '{}'::bigint[], 'bfs() from its rows agrees with the table (1 helper)');
SELECT is(icr_wrong_reach('icr_local16'), '{}'::bigint[], 'bfs() from its rows agrees with the table (16 helpers)');
-- With no helper allowed at all, the store compresses and writes on the backend's thread.
SET grail.build_threads = 0;
SET grail.max_build_threads = 0;
SELECT lives_ok($$SELECT grail.create_graph('icr_local_alone', 'icr_local')$$, 'built with no helper at all');
RESET grail.max_build_threads;
SELECT is(icr_broken('icr_local_alone'), '{}'::text[], 'its rows keep the rules (no helper at all)');
SELECT is(icr_wrong_reach('icr_local_alone'), '{}'::bigint[], 'bfs() from its rows agrees with the table (no helper at all)');

-- 3. Text keys: the key dictionary's bytes among the rows.
SET grail.build_threads = 2;
SELECT lives_ok($$SELECT grail.create_graph('icr_text', 'icr_text')$$, 'a text-keyed graph built with 2 helpers');
SELECT is(icr_broken('icr_text'), '{}'::text[], 'its rows keep the rules');
SELECT is((SELECT count(*) FROM grail.bfs('icr_text', 'vertex-5000')), (SELECT n FROM icr_truth WHERE s = 5000),
          'bfs() on text keys agrees with the table');

-- 4. A merge stores a delta's rows the same way, numbered -1, -2, ...
SET grail.build_threads = 2;
CREATE TABLE icr_merged AS SELECT * FROM icr_local;
CREATE INDEX ON icr_merged (source);
SELECT lives_ok($$SELECT grail.create_graph('icr_merged', 'icr_merged')$$, 'a live graph');
INSERT INTO icr_merged SELECT i, i + 2 FROM generate_series(150001, 150400) i;
SELECT lives_ok($$SELECT grail.merge_graph('icr_merged')$$, 'merged after 400 new edges');
SELECT is((SELECT array_agg(seq ORDER BY seq DESC) FROM icr_chunks('icr_merged') WHERE seq < 0),
          (SELECT array_agg(-i) FROM generate_series(1, (SELECT count(*) FROM icr_chunks('icr_merged') WHERE seq < 0)::int) i),
          'its delta''s rows are numbered -1, -2, ...');
SELECT is((SELECT max(stored) FROM icr_chunks('icr_merged')) <= 8124, true, 'each within a page');
SELECT is((SELECT count(*) FROM grail.bfs('icr_merged', 149990::bigint)),
          (WITH RECURSIVE r(v) AS (SELECT 149990::bigint UNION SELECT e.target FROM r JOIN icr_merged e ON e.source = r.v)
           SELECT count(*) FROM r),
          'the merged graph answers from its base and delta');

-- 5. Images of a row or less: one row each.
SELECT lives_ok($$SELECT grail.create_graph('icr_tiny', 'icr_tiny')$$, 'a graph of 4 vertices');
SELECT is((SELECT count(*) FROM icr_chunks('icr_tiny')), 1::bigint, 'its image is one row');
SELECT is(icr_broken('icr_tiny'), '{}'::text[], 'which keeps the rules');
SELECT is(grail.reachable('icr_tiny', 2, 4), true, 'and answers');
SELECT is(grail.reachable('icr_tiny', 4, 1), false, 'both ways');

-- 6. The rows read back after the transaction that wrote them committed are the ones checked here:
-- another graph of the same table in a subtransaction rolled back leaves no row behind.
SAVEPOINT icr_before;
SELECT lives_ok($$SELECT grail.create_graph('icr_gone', 'icr_local')$$, 'a build in a subtransaction');
ROLLBACK TO SAVEPOINT icr_before;
SELECT is((SELECT count(*) FROM grail.index_chunk c WHERE NOT EXISTS (SELECT 1 FROM grail.graph g WHERE g.id = c.graph_id)),
          0::bigint, 'rolled back, it leaves no rows');
SELECT is(icr_wrong_reach('icr_local0'), '{}'::bigint[], 'and the other graphs still answer');

SELECT * FROM finish();
ROLLBACK;
