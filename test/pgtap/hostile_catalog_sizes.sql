-- A superuser's hand edits of pg_grail's catalog: a recorded image or delta size set to a terabyte
-- (below the hard cap that check_index_size applies) used to say "out of memory" (53200) while
-- allocating it; it is a damaged index (XX001) with the rebuild as its hint. The (graph_id, xid)
-- index of grail.pending_change dropped used to give an internal error (XX000); an index of those
-- columns made again by hand with a WHERE clause was used as it, and its scans missed the rows it
-- left out: the pending deletes below were not seen (a silent wrong answer). Either is now 55000
-- naming the index to make again.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(20);

CREATE TABLE hcs_edges (source bigint, target bigint);
INSERT INTO hcs_edges SELECT g, g + 1 FROM generate_series(1, 2000) g;
SELECT grail.create_graph('hcs', 'hcs_edges');

-- A full image's recorded size: a terabyte.
UPDATE grail.graph SET index_bytes = 1000000000000 WHERE name = 'hcs';
SELECT throws_ok($$SELECT grail.reachable('hcs', 1, 5)$$, 'XX001', NULL,
                 'a recorded image size of a terabyte is a damaged index, not out of memory');
-- (Where the host lets a terabyte be reserved, the read finds the chunks short instead.)
SELECT throws_matching($$SELECT grail.reachable('hcs', 1, 5)$$,
                       'recorded size is 1000000000000 bytes, its chunks hold|damaged: [0-9]+ of 1000000000000 bytes found',
                       'the message says what is stored');
SELECT lives_ok($$SELECT grail.refresh_graph('hcs')$$, 'the hint''s rebuild mends it');
SELECT is(grail.reachable('hcs', 1, 2001), true, 'and it answers again');

-- A delta build's recorded delta size and image size: a terabyte. The build uuid is made new as
-- well, so that no cached image of the build answers before the delta is read.
INSERT INTO hcs_edges VALUES (5000, 5001);
SELECT grail.merge_graph('hcs');
SELECT ok((SELECT base_build IS NOT NULL FROM grail.graph WHERE name = 'hcs'), 'the merge stored a delta');
UPDATE grail.graph SET delta_bytes = 1000000000000, build_uuid = gen_random_uuid() WHERE name = 'hcs';
SELECT throws_ok($$SELECT grail.reachable('hcs', 1, 5)$$, 'XX001', NULL,
                 'a recorded delta size of a terabyte is a damaged delta, not out of memory');
SELECT grail.refresh_graph('hcs');
INSERT INTO hcs_edges VALUES (5001, 5002);
SELECT grail.merge_graph('hcs');
UPDATE grail.graph SET index_bytes = 1000000000000, build_uuid = gen_random_uuid() WHERE name = 'hcs';
SELECT throws_ok($$SELECT grail.reachable('hcs', 1, 5)$$, 'XX001', NULL,
                 'a delta build''s recorded image size of a terabyte: the delta makes another size');
SELECT lives_ok($$SELECT grail.refresh_graph('hcs')$$, 'a rebuild mends it');

-- A merge whose base's recorded size is impossible (below zero, or a terabyte): the base cannot be
-- read, so the merge stores a full image from the rows with a WARNING, as for any damaged base. It
-- used to fail instead (the size's error was not taken for damage). A delta build over such a base
-- is named as one in its error.
INSERT INTO hcs_edges VALUES (5002, 5003);
SELECT grail.merge_graph('hcs');
UPDATE grail.graph SET base_index_bytes = -5, build_uuid = gen_random_uuid() WHERE name = 'hcs';
SELECT throws_like($$SELECT grail.reachable('hcs', 1, 5)$$, '%is stored as a delta from build%',
                   'a delta build over a base of an impossible size: named as such');
INSERT INTO hcs_edges VALUES (5003, 5004);
SELECT lives_ok($$SELECT grail.merge_graph('hcs')$$, 'a merge over a base of a negative recorded size stores a full image');
SELECT is((SELECT base_build FROM grail.graph WHERE name = 'hcs'), NULL, 'a full image, not a delta');
SELECT is(grail.reachable('hcs', 5000, 5004), true, 'and answers from the rows');
INSERT INTO hcs_edges VALUES (5004, 5005);
SELECT grail.merge_graph('hcs');
UPDATE grail.graph SET base_index_bytes = 1000000000000 WHERE name = 'hcs';
INSERT INTO hcs_edges VALUES (5005, 5006);
SELECT lives_ok($$SELECT grail.merge_graph('hcs')$$, 'a merge over a base of a terabyte recorded stores a full image');
SELECT is(grail.reachable('hcs', 5000, 5006), true, 'which answers from the rows');

-- The change log's index.
SELECT grail.create_graph('hcs_live', 'hcs_edges');
DELETE FROM hcs_edges WHERE source = 1000;
SELECT is(grail.reachable('hcs_live', 1, 2001), false, 'a pending delete cuts the chain');
DROP INDEX grail.pending_change_graph;
SELECT throws_ok($$SELECT grail.reachable('hcs_live', 1, 2001)$$, '55000',
                 'pg_grail catalog table grail.pending_change has no usable index on (graph_id, xid)',
                 'the change log''s index dropped: a clear error, not an internal one');
CREATE INDEX pending_change_graph ON grail.pending_change (graph_id, xid) WHERE change > 0;
SELECT throws_ok($$SELECT grail.reachable('hcs_live', 1, 2001)$$, '55000', NULL,
                 'an index with a WHERE clause is refused, not used to miss the pending delete');
DROP INDEX grail.pending_change_graph;
CREATE INDEX pending_change_graph ON grail.pending_change ((graph_id + 0), xid);
SELECT throws_ok($$SELECT grail.reachable('hcs_live', 1, 2001)$$, '55000', NULL, 'nor one of an expression');
DROP INDEX grail.pending_change_graph;
CREATE INDEX pending_change_graph ON grail.pending_change (graph_id, xid DESC);
SELECT throws_ok($$SELECT grail.reachable('hcs_live', 1, 2001)$$, '55000', NULL, 'nor a descending one');
DROP INDEX grail.pending_change_graph;
CREATE INDEX ON grail.pending_change (graph_id, xid);
SELECT is(grail.reachable('hcs_live', 1, 2001), false, 'the index made again as the hint says: the delete is seen');

SELECT * FROM finish();
ROLLBACK;
