-- A superuser's hand edits of a delta build (grail.graph's base columns, grail.index_chunk's
-- rows): each is a clear error naming the damage, never a wait, a crash or a wrong answer. New
-- build uuids make every statement load the image from the chunks (no cache holds them). A delta
-- that named its own build as its base used to wait for ever on the lock of the image file its own
-- open held.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(14);

CREATE TABLE hd_edges (source bigint, target bigint);
INSERT INTO hd_edges SELECT i, i + 1 FROM generate_series(1, 2000) i;
SELECT grail.create_graph('hd_graph', 'hd_edges');
INSERT INTO hd_edges VALUES (2001, 1);
SELECT grail.merge_graph('hd_graph');
SELECT ok((SELECT base_build IS NOT NULL AND delta_bytes > 0 FROM grail.graph WHERE name = 'hd_graph'),
          'the merge stored a delta');
CREATE TEMP TABLE hd_row AS SELECT * FROM grail.graph WHERE name = 'hd_graph';
CREATE TEMP TABLE hd_chunks AS SELECT c.* FROM grail.index_chunk c JOIN hd_row g ON g.id = c.graph_id;

-- New uuids for the build and its base: the next statement reads both from the chunks.
CREATE FUNCTION pg_temp.reload() RETURNS void LANGUAGE sql AS $$
	UPDATE grail.graph SET build_uuid = gen_random_uuid(), base_build_uuid = gen_random_uuid()
	WHERE name = 'hd_graph';
$$;
-- The build and its chunks as the merge left them, under new uuids.
CREATE FUNCTION pg_temp.restore() RETURNS void LANGUAGE sql AS $$
	DELETE FROM grail.index_chunk WHERE graph_id = (SELECT id FROM hd_row);
	INSERT INTO grail.index_chunk SELECT * FROM hd_chunks;
	UPDATE grail.graph g SET build = r.build, base_build = r.base_build, base_index_bytes = r.base_index_bytes,
	                         delta_bytes = r.delta_bytes, index_bytes = r.index_bytes
	FROM hd_row r WHERE g.id = r.id;
	SELECT pg_temp.reload();
$$;

SELECT pg_temp.reload();
SELECT is(grail.reachable('hd_graph', 2000, 5), true, 'base and delta read from the chunks answer');
SELECT is((SELECT count(*) FROM grail.descendants('hd_graph', 7)), 2001::bigint, 'descendants() too');

-- A delta whose base is its own build.
SET LOCAL statement_timeout = '20s';
UPDATE grail.graph SET build_uuid = gen_random_uuid(), base_build = build WHERE name = 'hd_graph';
UPDATE grail.graph SET base_build_uuid = build_uuid WHERE name = 'hd_graph';
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL,
                 'a delta whose base is its own build is an error, not a wait');
SELECT pg_temp.restore();
UPDATE grail.graph SET base_build = build WHERE name = 'hd_graph';
SELECT is(grail.reachable('hd_graph', 2000, 5), true,
          'a base of the build''s number but another uuid is read from the base''s chunks');
SELECT pg_temp.restore();
UPDATE grail.graph SET base_build_uuid = build_uuid WHERE name = 'hd_graph';
SELECT throws_ok($$SELECT count(*) FROM grail.descendants('hd_graph', 1)$$, 'XX001', NULL,
                 'a delta whose base has its own uuid is an error');
RESET statement_timeout;

-- Damaged chunks: of the delta, of the base.
SELECT pg_temp.restore();
UPDATE grail.index_chunk SET data = set_byte(data, 20, (get_byte(data, 20) + 1) % 256)
WHERE graph_id = (SELECT id FROM hd_row) AND seq = -1;
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL, 'a damaged delta is an error');
SELECT pg_temp.restore();
DELETE FROM grail.index_chunk WHERE graph_id = (SELECT id FROM hd_row) AND seq < 0;
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL, 'a missing delta is an error');
SELECT pg_temp.restore();
DELETE FROM grail.index_chunk WHERE graph_id = (SELECT id FROM hd_row) AND seq = 1;
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL, 'a base chunk missing is an error');
SELECT pg_temp.restore();
UPDATE grail.graph SET base_index_bytes = -5 WHERE name = 'hd_graph';
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL, 'a negative base size is an error');

-- NULL data, once the column's NOT NULL is dropped: refused as damage, not read through.
SELECT pg_temp.restore();
ALTER TABLE grail.index_chunk ALTER COLUMN data DROP NOT NULL;
UPDATE grail.index_chunk SET data = NULL WHERE graph_id = (SELECT id FROM hd_row) AND seq = -1;
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL, 'a NULL delta chunk is an error');
SELECT pg_temp.restore();
UPDATE grail.index_chunk SET data = NULL WHERE graph_id = (SELECT id FROM hd_row) AND seq = 2;
SELECT throws_ok($$SELECT grail.reachable('hd_graph', 2000, 5)$$, 'XX001', NULL, 'a NULL base chunk is an error');
SELECT pg_temp.restore();
ALTER TABLE grail.index_chunk ALTER COLUMN data SET NOT NULL;

-- Restored, it answers again; refresh_graph() is the remedy the hints name.
SELECT pg_temp.restore();
SELECT is(grail.reachable('hd_graph', 2000, 5), true, 'restored, the delta build answers');
UPDATE grail.graph SET base_build = build WHERE name = 'hd_graph';
SELECT lives_ok($$SELECT grail.refresh_graph('hd_graph')$$, 'refresh_graph() makes a full build over any of it');

SELECT * FROM finish();
ROLLBACK;
