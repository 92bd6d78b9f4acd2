-- On a graph of oid (or reg*) keys, a bigint key outside 0 .. 4294967295 is refused (22003) as a
-- cast of it to oid is ((-1)::bigint::oid and 4294967296::bigint::oid are errors); it used to be
-- read as a key the graph lacks, so that reachable(g, 4294967296, 1) answered false where no oid
-- was asked about. Integer and smallint keys keep PostgreSQL's cast ((-1)::integer::oid is
-- 4294967295), and an in-range bigint is the oid of its value.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(24);

CREATE TABLE hob_edges (source oid, target oid);
INSERT INTO hob_edges VALUES (4294967295, 1), (1, 2), (2, 0), (0, 4294967295);
SELECT grail.create_graph('hob', 'hob_edges');

SELECT throws_ok($$SELECT grail.reachable('hob', 4294967296::bigint, 1::bigint)$$, '22003',
                 'pg_grail graph "hob" has oid keys, and the bigint 4294967296 is no oid',
                 'reachable(): a bigint past the largest oid is no oid');
SELECT throws_ok($$SELECT grail.reachable('hob', 1::bigint, -1::bigint)$$, '22003', NULL,
                 'reachable(): nor a negative bigint');
SELECT throws_ok($$SELECT grail.reachable('hob', -9223372036854775808::bigint, 1::bigint)$$, '22003', NULL,
                 'reachable(): nor the smallest bigint');
SELECT throws_ok($$SELECT grail.reachable('hob', ARRAY[1, 9223372036854775807]::bigint[], ARRAY[2, 2]::bigint[])$$,
                 '22003', NULL, 'reachable() of bigint arrays: an element past the largest oid');
SELECT throws_ok($$SELECT grail.reachable('hob', ARRAY[1, NULL, 1]::bigint[], ARRAY[2, 2, 4294967296]::bigint[])$$,
                 '22003', NULL, 'reachable() of bigint arrays with NULLs: an element past the largest oid');
SELECT throws_ok($$SELECT grail.scc_component('hob', 4294967296::bigint)$$, '22003', NULL,
                 'scc_component(): a bigint past the largest oid');
SELECT throws_ok($$SELECT count(*) FROM grail.bfs('hob', 4294967296::bigint)$$, '22003', NULL,
                 'bfs(): a bigint past the largest oid');
SELECT throws_ok($$SELECT count(*) FROM grail.descendants('hob', -1::bigint)$$, '22003', NULL,
                 'descendants(): a negative bigint');
SELECT throws_ok($$SELECT count(*) FROM grail.ancestors('hob', 4294967296::bigint, 2)$$, '22003', NULL,
                 'ancestors(): a bigint past the largest oid');
SELECT throws_ok($$SELECT grail.path('hob', 1::bigint, 4294967296::bigint)$$, '22003', NULL,
                 'path(): a bigint past the largest oid');
SELECT throws_ok($$SELECT grail.find_cycle('hob', -9223372036854775808::bigint)$$, '22003', NULL,
                 'find_cycle(): the smallest bigint');
-- What a cast would accept still answers, the extremes included.
SELECT is((SELECT count(*) FROM grail.bfs('hob', 4294967295::bigint)), 4::bigint,
          'bfs() of the largest oid as a bigint');
SELECT is((SELECT count(*) FROM grail.ancestors('hob', 0::bigint)), 4::bigint,
          'ancestors() of oid 0 as a bigint');
SELECT is(grail.path('hob', 4294967295::bigint, 2::bigint)::text, '{4294967295,1,2}',
          'path() between in-range bigints');
SELECT is(cardinality(grail.find_cycle('hob', 0::bigint)), 5, 'find_cycle() of an in-range bigint');
SELECT is(grail.reachable('hob', 4294967295::bigint, 0::bigint), true, 'the largest oid as a bigint');
SELECT is(grail.reachable('hob', 0::bigint, 2::bigint), true, 'oid 0 as a bigint');
SELECT is(grail.reachable('hob', ARRAY[4294967295, NULL, 3]::bigint[], ARRAY[2, 1, 3]::bigint[]),
          ARRAY[true, NULL, true], 'bigint arrays in range, NULLs kept, a key the graph lacks reaches itself');
SELECT is(grail.scc_component('hob', 4294967295::bigint), grail.scc_component('hob', 0::bigint),
          'scc_component() of in-range bigints');
SELECT is(grail.reachable('hob', -1, 2), true, 'an integer -1 is still oid 4294967295, as its cast');
SELECT is(grail.reachable('hob', NULL::bigint, 4294967296::bigint), NULL, 'a NULL key gives NULL before any check');
-- A graph of bigint keys holds no oids: every bigint is a key there.
CREATE TABLE hob_big (source bigint, target bigint);
INSERT INTO hob_big VALUES (4294967296, -1), (-1, 9223372036854775807);
SELECT grail.create_graph('hob_big', 'hob_big');
SELECT is(grail.reachable('hob_big', 4294967296::bigint, 9223372036854775807::bigint), true,
          'a bigint graph: the same bigints are keys');
SELECT is(grail.reachable('hob_big', ARRAY[4294967296]::bigint[], ARRAY[-1]::bigint[]), ARRAY[true],
          'a bigint graph: bigint arrays too');
-- A live oid graph with pending changes: the same refusal.
INSERT INTO hob_edges VALUES (7, 8);
SELECT throws_ok($$SELECT grail.reachable('hob', 7::bigint, 4294967296::bigint)$$, '22003', NULL,
                 'a live graph with pending changes refuses it too');

SELECT * FROM finish();
ROLLBACK;
