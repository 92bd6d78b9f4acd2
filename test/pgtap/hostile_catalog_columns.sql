-- A superuser's hand change to the row type of the catalog tables the library writes and reads
-- through the table access method (grail.pending_change, grail.index_chunk): a column added by
-- hand is refused with a clear error by every reader and writer (a reader of the change log used
-- to deform its rows into arrays of the library's seven columns, and a column added made it write
-- past them: the backend crashed and the server restarted); a column added and dropped again
-- (a dropped attribute stays in the row type) is no obstacle to any of them.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(26);

CREATE TABLE hc_edges (source bigint, target bigint);
INSERT INTO hc_edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (9223372036854775807, -9223372036854775808);
SELECT grail.create_graph('hc_graph', 'hc_edges');
CREATE TABLE hc_text (source text, target text);
INSERT INTO hc_text VALUES ('a', 'b'), ('b', 'c');
SELECT grail.create_graph('hc_text_graph', 'hc_text');
INSERT INTO hc_edges VALUES (4, 5);
INSERT INTO hc_text VALUES ('c', 'd');

-- Many columns added: a reader that deformed a row into seven slots wrote far past them.
DO $$
BEGIN
	EXECUTE 'ALTER TABLE grail.pending_change ' ||
	        (SELECT string_agg(format('ADD COLUMN hc_%s bigint', i), ', ') FROM generate_series(1, 60) i);
END $$;
SELECT throws_ok($$SELECT grail.reachable('hc_graph', 1, 5)$$, '55000', NULL,
                 'reachable() over logged changes refuses a change log with columns added by hand');
SELECT throws_ok($$SELECT count(*) FROM grail.descendants('hc_graph', 1)$$, '55000', NULL,
                 'descendants() over logged changes refuses it too');
SELECT throws_ok($$SELECT grail.reachable('hc_text_graph', 'a', 'd')$$, '55000', NULL,
                 'so does reachable() over text keys');
SELECT throws_ok($$INSERT INTO hc_edges VALUES (5, 6)$$, '55000', NULL,
                 'a write to a live graph''s table refuses to log into it');
SELECT throws_ok($$SELECT count(*) FROM grail.explain_graph('hc_graph')$$, '55000', NULL,
                 'explain_graph() refuses it');

-- Dropped again: dropped attributes stay in the row type, and are no obstacle.
DO $$
BEGIN
	EXECUTE 'ALTER TABLE grail.pending_change ' ||
	        (SELECT string_agg(format('DROP COLUMN hc_%s', i), ', ') FROM generate_series(1, 60) i);
END $$;
SELECT ok((SELECT count(*) FROM pg_attribute WHERE attrelid = 'grail.pending_change'::regclass AND attisdropped) >= 60,
          'the change log has dropped columns');
SELECT is(grail.reachable('hc_graph', 1, 5), true, 'reachable() reads the changes logged before');
SELECT is(grail.reachable('hc_text_graph', 'a', 'd'), true, 'and text keys');
SELECT lives_ok($$INSERT INTO hc_edges VALUES (5, 6), (6, 1)$$, 'a write logs its changes');
SELECT lives_ok($$INSERT INTO hc_text VALUES ('d', 'e')$$, 'a text write too');
SELECT is(grail.reachable('hc_graph', 6, 4), true, 'reachable() sees them');
SELECT is(grail.reachable('hc_text_graph', 'a', 'e'), true, 'text reachable() sees them');
SELECT is(ARRAY(SELECT vertex FROM grail.descendants('hc_graph', 4) ORDER BY vertex), '{1,2,3,4,5,6}'::bigint[],
          'descendants() over the changes equal the rows');
SELECT lives_ok($$SELECT grail.merge_graph('hc_graph')$$, 'a merge reads and deletes them');
SELECT is((SELECT pending_changes FROM grail.graphs WHERE name = 'hc_graph'), 0::bigint, 'none pending after it');
SELECT is(grail.path('hc_graph', 5, 4), '{5,6,1,2,3,4}'::bigint[], 'the merged build answers');

-- grail.index_chunk: a column added is refused; added and dropped, builds store their chunks.
ALTER TABLE grail.index_chunk ADD COLUMN hc_note text;
SELECT throws_ok($$SELECT grail.refresh_graph('hc_graph')$$, '55000', NULL,
                 'a build refuses an index chunk table with a column added by hand');
ALTER TABLE grail.index_chunk DROP COLUMN hc_note;
SELECT lives_ok($$SELECT grail.refresh_graph('hc_graph')$$, 'with the column dropped again, a build stores its image');
INSERT INTO hc_edges VALUES (6, 7);
SELECT lives_ok($$SELECT grail.merge_graph('hc_graph')$$, 'and a merge its delta');
SELECT lives_ok($$CREATE TABLE hc_more AS SELECT i AS source, i + 1 AS target FROM generate_series(1, 3000) i;
                  SELECT grail.create_graph('hc_more_graph', 'hc_more')$$, 'a graph of many chunks is made');
SELECT ok((SELECT count(*) FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id
           WHERE g.name = 'hc_more_graph' AND c.seq >= 0) > 1, 'its chunks are stored');
SELECT is(grail.path('hc_more_graph', 1, 3001), ARRAY(SELECT generate_series(1, 3001)::bigint),
          'and it answers');

-- A trigger on grail.index_chunk that skips rows: the build fails, rather than committing an image
-- no query can read; one that only watches them is no obstacle.
CREATE FUNCTION pg_temp.hc_skip() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER hc_skip BEFORE INSERT ON grail.index_chunk FOR EACH ROW EXECUTE FUNCTION pg_temp.hc_skip();
SELECT throws_ok($$SELECT grail.refresh_graph('hc_more_graph')$$, '55000', NULL,
                 'a build whose chunks a trigger skips fails');
DROP TRIGGER hc_skip ON grail.index_chunk;
CREATE TABLE hc_seen (seq int);
CREATE FUNCTION pg_temp.hc_watch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.hc_seen VALUES (NEW.seq); RETURN NEW; END $$;
CREATE TRIGGER hc_watch BEFORE INSERT ON grail.index_chunk FOR EACH ROW EXECUTE FUNCTION pg_temp.hc_watch();
SELECT lives_ok($$SELECT grail.refresh_graph('hc_more_graph')$$, 'a build beside a trigger that only watches');
DROP TRIGGER hc_watch ON grail.index_chunk;
SELECT is(grail.path('hc_more_graph', 2, 3001), ARRAY(SELECT generate_series(2, 3001)::bigint),
          'its build answers');
SELECT ok((SELECT count(*) FROM hc_seen) > 1, 'the trigger saw its chunks');

SELECT * FROM finish();
ROLLBACK;
