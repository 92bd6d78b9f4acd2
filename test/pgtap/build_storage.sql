-- How a build stores its index image in grail.index_chunk, and that what it stores loads and
-- answers as the rows say: each row within one heap page (no TOAST), the chunks in order adding
-- up to the image, lz4-compressed where the server has lz4; a trigger someone put on the table
-- still fires (the rows then go through SQL); an image stored as one large toasted row, as builds
-- before 0.7.0 stored them in 4 MB rows, still loads. Answers against a recursive CTE over the
-- edge rows, for integer and text keys.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(27);

SELECT setseed(0.5151);
-- 3,000 vertices with ids spread over bigint (the extremes included), 12,000 edges: mostly from a
-- lower to a higher number within 200 (a deep DAG), one in twenty backwards (cycles), some
-- self-loops and duplicate rows.
CREATE TABLE bs_ids AS
SELECT k, CASE k WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807
                 ELSE (k::bigint * 2654435761) % 1000000007 - 500000000 END AS v
FROM generate_series(0, 2999) k;
CREATE UNIQUE INDEX ON bs_ids (k);
CREATE TABLE bs_picks AS
SELECT a, CASE WHEN random() < 0.05 THEN greatest(a - 1 - floor(random() * 300)::int, 0)
               WHEN random() < 0.01 THEN a
               ELSE least(a + 1 + floor(random() * 200)::int, 2999) END AS b
FROM (SELECT floor(random() * 3000)::int AS a FROM generate_series(1, 12000)) p;
INSERT INTO bs_picks SELECT * FROM bs_picks LIMIT 500;
CREATE TABLE bs_edges AS
SELECT ia.v AS source, ib.v AS target FROM bs_picks p JOIN bs_ids ia ON ia.k = p.a JOIN bs_ids ib ON ib.k = p.b;
CREATE TABLE bs_text_edges AS SELECT 'v' || source AS source, 'v' || target AS target FROM bs_edges;

-- What every vertex of 25 sample sources reaches, by the rows.
CREATE TABLE bs_sources AS SELECT v FROM bs_ids WHERE k IN (0, 1, 2) OR k % 131 = 7;
CREATE TABLE bs_closure AS
WITH RECURSIVE r(s, t) AS (
	SELECT s.v, e.target FROM bs_sources s JOIN bs_edges e ON e.source = s.v
	UNION
	SELECT r.s, e.target FROM r JOIN bs_edges e ON e.source = r.t)
SELECT * FROM r;
CREATE TABLE bs_vertices AS SELECT source AS v FROM bs_edges UNION SELECT target FROM bs_edges;

-- The pairs (sample source, any vertex or an id of no vertex) where reachable() disagrees with the
-- closure; text keys as 'v' || id.
CREATE FUNCTION bs_wrong(graph text, text_keys boolean) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM bs_sources s, (SELECT v FROM bs_vertices UNION ALL SELECT 123) t
	WHERE CASE WHEN text_keys THEN grail.reachable(graph, 'v' || s.v, 'v' || t.v)
	           ELSE grail.reachable(graph, s.v, t.v) END
	      IS DISTINCT FROM (s.v = t.v OR EXISTS (SELECT 1 FROM bs_closure c WHERE c.s = s.v AND c.t = t.v))
$$;

-- The rows of a graph's chunks as stored.
CREATE FUNCTION bs_chunks(graph text) RETURNS TABLE (seq int, stored int, raw int, compression text)
LANGUAGE sql AS $$
	SELECT c.seq, pg_column_size(c.data), octet_length(c.data), pg_column_compression(c.data)
	FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id WHERE g.name = graph
$$;

-- The rows of the TOAST table of grail.index_chunk this transaction sees.
CREATE FUNCTION bs_toasted() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s',
	               (SELECT reltoastrelid::regclass FROM pg_class WHERE oid = 'grail.index_chunk'::regclass)) INTO n;
	RETURN n;
END
$$;

CREATE TEMP TABLE bs_lz4 AS
SELECT EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) AS lz4;

-- 1. A build of many chunks.
SELECT lives_ok($$SELECT grail.create_graph('bs_int', 'bs_edges')$$, 'a graph of 3,000 vertices is built');
SELECT cmp_ok((SELECT count(*) FROM bs_chunks('bs_int')), '>=', 10::bigint, 'its image is stored in many rows');
SELECT is((SELECT max(stored) <= 8124 FROM bs_chunks('bs_int')), true,
          'every row''s data fits one heap page with the row');
SELECT is(bs_toasted(), 0::bigint, 'no chunk went to TOAST');
SELECT is((SELECT array_agg(seq ORDER BY seq) FROM bs_chunks('bs_int')),
          (SELECT array_agg(i) FROM generate_series(0, (SELECT count(*) FROM bs_chunks('bs_int'))::int - 1) i),
          'the rows are numbered 0, 1, 2, ...');
SELECT is((SELECT sum(raw) FROM bs_chunks('bs_int')), (SELECT index_bytes FROM grail.graphs WHERE name = 'bs_int'),
          'the rows hold the image''s bytes');
SELECT CASE WHEN (SELECT lz4 FROM bs_lz4) THEN
	collect_tap(
		is((SELECT count(*) > 0 FROM bs_chunks('bs_int') WHERE compression = 'lz4'), true, 'rows are lz4-compressed'),
		cmp_ok((SELECT sum(stored) FROM bs_chunks('bs_int'))::numeric,
		       '<', (SELECT 0.8 * index_bytes FROM grail.graphs WHERE name = 'bs_int'), 'into fewer bytes than the image'),
		is((SELECT count(*) FROM bs_chunks('bs_int') WHERE compression IS NULL AND raw > 8120), 0::bigint,
		   'a row left uncompressed holds at most 8120 bytes'))
ELSE skip('the server has no lz4', 3) END;
SELECT is(bs_wrong('bs_int', false), 0::bigint, 'reachable() from the stored image agrees with the rows');
SELECT is((SELECT count(*) FROM grail.scc_components('bs_int') s
           WHERE s.component <> (SELECT min(x.v) FROM bs_vertices x
                                 WHERE x.v = s.vertex
                                    OR (EXISTS (SELECT 1 FROM bs_closure c WHERE c.s = s.vertex AND c.t = x.v)
                                        AND EXISTS (SELECT 1 FROM bs_closure c WHERE c.s = x.v AND c.t = s.vertex)))
             AND s.vertex IN (SELECT v FROM bs_sources)),
          0::bigint, 'scc_components() from the stored image agrees with the rows');

-- 2. Text keys: the image's key dictionary stored the same way.
SELECT lives_ok($$SELECT grail.create_graph('bs_text', 'bs_text_edges')$$, 'a text-keyed graph is built');
SELECT is((SELECT max(stored) <= 8124 FROM bs_chunks('bs_text')), true, 'its rows fit one page each');
SELECT is(bs_toasted(), 0::bigint, 'no chunk went to TOAST');
SELECT is(bs_wrong('bs_text', true), 0::bigint, 'reachable() on text keys agrees with the rows');

-- 3. A trigger on grail.index_chunk fires for a build's rows, which go through SQL then.
CREATE TABLE bs_fired (n int);
CREATE FUNCTION bs_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.bs_fired VALUES (1);
	RETURN NULL;
END
$$;
CREATE TRIGGER bs_count_rows AFTER INSERT ON grail.index_chunk FOR EACH ROW EXECUTE FUNCTION bs_count_rows();
SELECT lives_ok($$SELECT grail.create_graph('bs_trigger', 'bs_edges')$$, 'a graph is built under the trigger');
SELECT is((SELECT count(*) FROM bs_fired), (SELECT count(*) FROM bs_chunks('bs_trigger')),
          'the trigger fired once for each row');
SELECT is((SELECT max(stored) <= 8124 FROM bs_chunks('bs_trigger')), true, 'the rows fit one page each');
SELECT is((SELECT sum(raw) FROM bs_chunks('bs_trigger')),
          (SELECT index_bytes FROM grail.graphs WHERE name = 'bs_trigger'), 'and hold the image''s bytes');
SELECT is(bs_wrong('bs_trigger', false), 0::bigint, 'reachable() agrees with the rows');
DROP TRIGGER bs_count_rows ON grail.index_chunk;

-- 4. An image stored as one toasted row, as older builds stored images of up to 4 MB, loads: the
-- rows of a build not opened yet, put together.
SELECT lives_ok($$SELECT grail.create_graph('bs_old', 'bs_edges')$$, 'another build');
CREATE TEMP TABLE bs_whole AS
SELECT c.graph_id, string_agg(c.data, ''::bytea ORDER BY c.seq) AS data
FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id WHERE g.name = 'bs_old' GROUP BY c.graph_id;
DELETE FROM grail.index_chunk WHERE graph_id = (SELECT graph_id FROM bs_whole);
INSERT INTO grail.index_chunk SELECT graph_id, 0, data FROM bs_whole;
SELECT is((SELECT count(*) FROM bs_chunks('bs_old')), 1::bigint, 'its image is one row');
SELECT cmp_ok(bs_toasted(), '>', 0::bigint, 'stored in TOAST');
SELECT is(bs_wrong('bs_old', false), 0::bigint, 'reachable() from it agrees with the rows');

-- 5. The empty graph: an image of one row.
CREATE TABLE bs_empty (source bigint, target bigint);
SELECT lives_ok($$SELECT grail.create_graph('bs_empty', 'bs_empty')$$, 'an empty graph is built');
SELECT is((SELECT count(*) FROM bs_chunks('bs_empty')), 1::bigint, 'its image is one row');
SELECT is(grail.reachable('bs_empty', 1, 2), false, 'and answers');

SELECT * FROM finish();
ROLLBACK;
