-- The change log of live graphs, row by row: what grail._log_changes writes to
-- grail.pending_change, without SQL, for each kind of write. Statements larger than a batch (8,192
-- edges) with NULL endpoints at batch boundaries, in integer, text and uuid keys; DELETE, an
-- UPDATE's net changes, TRUNCATE's marker, one-row statements; arrays of a full batch (written
-- compressed where the server has lz4) read back element for element. A grail.pending_change
-- whose columns are not those the library writes: a clear error, and the statement leaves nothing.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(23);
SET client_min_messages = warning;

-- The logged edges of a graph as (change, source, target) text rows, NULL endpoints included.
CREATE FUNCTION pg_temp.logged(g text) RETURNS TABLE (change int, s text, t text) LANGUAGE sql AS $$
	SELECT p.change, coalesce(u.s::text, u.sk), coalesce(u.t::text, u.tk)
	FROM grail.pending_change p JOIN grail.graph x ON x.id = p.graph_id,
	     ROWS FROM (unnest(p.source), unnest(p.target), unnest(p.source_key), unnest(p.target_key)) u(s, t, sk, tk)
	WHERE x.name = g
$$;
-- Rows of grail.pending_change of a graph that break the batch rules: arrays of different lengths,
-- of more than 8,192 edges, or both kinds of key.
CREATE FUNCTION pg_temp.bad_batches(g text) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM grail.pending_change p JOIN grail.graph x ON x.id = p.graph_id
	WHERE x.name = g AND (coalesce(cardinality(p.source), cardinality(p.source_key), 0)
	                      <> coalesce(cardinality(p.target), cardinality(p.target_key), 0)
	                      OR coalesce(cardinality(p.source), cardinality(p.source_key), 0) > 8192
	                      OR (p.source IS NOT NULL AND p.source_key IS NOT NULL))
$$;

-- Integer keys: 20,000 rows in one INSERT, some NULL endpoints, two of them at the first batch's
-- last edge and the second batch's first.
CREATE TABLE ll_e (source bigint, target bigint, note text);
INSERT INTO ll_e VALUES (1, 2, 'base');
SELECT grail.create_graph('ll_g', 'll_e', skip_nulls => true);
SELECT grail.alter_graph('ll_g', true);
CREATE TABLE ll_rows AS
SELECT i, CASE WHEN i % 997 = 0 OR i = 8192 THEN NULL ELSE i * 1099511627776 - 7 END AS source,
       CASE WHEN i % 1009 = 0 OR i = 8193 THEN NULL ELSE -i END AS target
FROM generate_series(1, 20000) i;
INSERT INTO ll_e SELECT source, target, 'bulk' FROM ll_rows ORDER BY i;
SELECT is((SELECT count(*) FROM grail.pending_change p JOIN grail.graph x ON x.id = p.graph_id WHERE x.name = 'll_g'),
          3::bigint, 'a 20,000-row INSERT: three rows of the log (8,192 + 8,192 + 3,616 edges)');
SELECT is(pg_temp.bad_batches('ll_g'), 0::bigint, 'each with arrays of one length, integer keys only');
SELECT is((SELECT count(*) FROM (SELECT 1, source::text, target::text FROM ll_rows
                                  EXCEPT ALL SELECT * FROM pg_temp.logged('ll_g')) d), 0::bigint,
          'every row inserted is logged with +1, NULL endpoints as NULL elements');
SELECT is((SELECT count(*) FROM (SELECT * FROM pg_temp.logged('ll_g')
                                  EXCEPT ALL SELECT 1, source::text, target::text FROM ll_rows) d), 0::bigint,
          'and nothing else');
SELECT is(grail.reachable('ll_g', 5 * 1099511627776 - 7, -5), true, 'the logged edges answer');
SELECT is((SELECT array_agg(DISTINCT pg_column_compression(p.source)) FROM grail.pending_change p
           JOIN grail.graph x ON x.id = p.graph_id WHERE x.name = 'll_g' AND cardinality(p.source) = 8192),
          CASE WHEN (SELECT 'lz4' = ANY (enumvals) FROM pg_settings WHERE name = 'default_toast_compression')
               THEN ARRAY['lz4'] ELSE ARRAY[NULL]::text[] END,
          'the arrays of a full batch are stored compressed by lz4 (where the server has it)');

-- DELETE: -1 for each row removed, NULLs included.
DELETE FROM ll_e WHERE note = 'bulk' AND (source IS NULL OR target IS NULL OR source % 3 = 0);
SELECT is((SELECT count(*) FROM pg_temp.logged('ll_g') WHERE change = -1),
          (SELECT count(*) FROM ll_rows WHERE source IS NULL OR target IS NULL OR source % 3 = 0),
          'a DELETE logs -1 for each row it removed');
SELECT is((SELECT count(*) FROM (SELECT -1, source::text, target::text FROM ll_rows
                                  WHERE source IS NULL OR target IS NULL OR source % 3 = 0
                                  EXCEPT ALL SELECT * FROM pg_temp.logged('ll_g') WHERE change = -1) d), 0::bigint,
          'those rows exactly');

-- UPDATE: the net change of each edge whose row count changed; other columns log nothing.
SELECT count(*) AS before_note FROM pg_temp.logged('ll_g') \gset
UPDATE ll_e SET note = 'noted' WHERE note = 'bulk';
SELECT is((SELECT count(*) FROM pg_temp.logged('ll_g')), :before_note::bigint, 'an UPDATE of another column logs nothing');
INSERT INTO ll_e VALUES (7, 8, 'u'), (7, 8, 'u'), (7, 9, 'u');
UPDATE ll_e SET target = 9 WHERE source = 7 AND target = 8;
SELECT is((SELECT array_agg((change, s, t)::text ORDER BY change, t) FROM pg_temp.logged('ll_g') WHERE s = '7'),
          ARRAY['(-2,7,8)', '(1,7,8)', '(1,7,8)', '(1,7,9)', '(2,7,9)'],
          'an UPDATE that moves two rows of (7, 8) to (7, 9) logs -2 and +2');
SELECT is(pg_temp.bad_batches('ll_g'), 0::bigint, 'batches still well formed');

-- TRUNCATE: -1 for every row, then the marker (change 0, NULL arrays).
SELECT count(*) AS rows_before FROM ll_e \gset
SELECT count(*) AS removed_before FROM pg_temp.logged('ll_g') WHERE change = -1 \gset
TRUNCATE ll_e;
SELECT is((SELECT count(*) FROM pg_temp.logged('ll_g') WHERE change = -1) - :removed_before, :rows_before::bigint,
          'TRUNCATE logs -1 for every row');
SELECT is((SELECT count(*) FROM grail.pending_change p JOIN grail.graph x ON x.id = p.graph_id
           WHERE x.name = 'll_g' AND p.change = 0 AND p.source IS NULL AND p.target IS NULL
             AND p.source_key IS NULL AND p.target_key IS NULL), 1::bigint, 'and one marker');
SELECT is((SELECT count(*) FROM (SELECT s, t FROM (SELECT * FROM pg_temp.logged('ll_g') UNION ALL SELECT 1, '1', '2') l
                                  GROUP BY s, t HAVING sum(change) <> 0) d), 0::bigint,
          'the build''s row and the log net to the empty table');

-- One row: one row of the log with arrays of one.
CREATE TABLE ll_one (source int, target int);
SELECT grail.create_graph('ll_one_g', 'll_one');
SELECT grail.alter_graph('ll_one_g', true);
INSERT INTO ll_one VALUES (3, 4);
SELECT is((SELECT array_agg((p.change, p.source, p.target, p.source_key)::text) FROM grail.pending_change p
           JOIN grail.graph x ON x.id = p.graph_id WHERE x.name = 'll_one_g'), ARRAY['(1,{3},{4},)'],
          'a one-row INSERT (int4 keys): one row, arrays of one bigint');

-- Text and uuid keys, past a batch, NULLs at the boundary.
CREATE TABLE ll_t (source text, target varchar(40));
SELECT grail.create_graph('ll_tg', 'll_t', skip_nulls => true);
SELECT grail.alter_graph('ll_tg', true);
CREATE TABLE ll_trows AS
SELECT i, CASE WHEN i = 8192 THEN NULL ELSE 'v' || i || repeat('é', i % 5) END AS source,
       CASE WHEN i = 8193 THEN NULL ELSE md5(i::text) END AS target
FROM generate_series(1, 9000) i;
INSERT INTO ll_t SELECT source, target FROM ll_trows ORDER BY i;
SELECT is(pg_temp.bad_batches('ll_tg'), 0::bigint, 'text keys: batches well formed, text keys only');
SELECT is((SELECT count(*) FROM (SELECT 1, source, target::text FROM ll_trows
                                  EXCEPT ALL SELECT * FROM pg_temp.logged('ll_tg')) d)
          + (SELECT count(*) FROM (SELECT * FROM pg_temp.logged('ll_tg')
                                   EXCEPT ALL SELECT 1, source, target::text FROM ll_trows) d), 0::bigint,
          'text keys: exactly the rows inserted');
CREATE TABLE ll_u (source uuid, target uuid);
SELECT grail.create_graph('ll_ug', 'll_u');
SELECT grail.alter_graph('ll_ug', true);
INSERT INTO ll_u SELECT md5(i::text)::uuid, md5((i + 1)::text)::uuid FROM generate_series(1, 9000) i;
SELECT is((SELECT count(*) FROM (SELECT 1, md5(i::text)::uuid::text, md5((i + 1)::text)::uuid::text FROM generate_series(1, 9000) i
                                  EXCEPT ALL SELECT * FROM pg_temp.logged('ll_ug')) d), 0::bigint,
          'uuid keys: logged in their text form');
SELECT is(grail.reachable('ll_ug', md5('1')::uuid, md5('3')::uuid), true, 'and they answer');

-- A grail.pending_change of another layout (an upgrade not run): the write fails with a clear
-- error, and the statement leaves neither its rows nor any log row.
ALTER TABLE grail.pending_change RENAME COLUMN change TO change_renamed;
SELECT throws_like($$INSERT INTO ll_one SELECT i, i + 1 FROM generate_series(1, 10) i$$,
                   'pg_grail catalog table grail.pending_change does not have the columns that pg_grail''s library%',
                   'a log table of another layout: a clear error');
ALTER TABLE grail.pending_change RENAME COLUMN change_renamed TO change;
SELECT is((SELECT count(*) FROM ll_one), 1::bigint, 'the failed statement left no row');
SELECT is((SELECT count(*) FROM grail.pending_change p JOIN grail.graph x ON x.id = p.graph_id WHERE x.name = 'll_one_g'),
          1::bigint, 'and no log row');
INSERT INTO ll_one VALUES (4, 5);
SELECT is(grail.reachable('ll_one_g', 3, 5), true, 'the next write logs again');

SELECT * FROM finish();
ROLLBACK;
