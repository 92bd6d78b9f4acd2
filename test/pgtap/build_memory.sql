-- grail.build_memory_limit while text keys are read: a key counts against the limit before it is
-- copied or decompressed, so a small table of long, well-compressed keys is refused before its keys
-- take the memory (10 rows of 5 MB keys are about 1 MB of table and 100 MB of keys). Builds by
-- create_graph, refresh_graph and merge_graph, and a live graph's snapshot rebuild for a query, all
-- refuse with the error that names the limit; keys that fit, repeated or not, still build.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(9);

CREATE TABLE long_keys (source text, target text);
INSERT INTO long_keys
SELECT 's' || i || repeat('x', 5000000), 't' || i || repeat('y', 5000000) FROM generate_series(1, 10) i;
SELECT cmp_ok(pg_total_relation_size('long_keys'), '<', 8::bigint << 20, 'the table is smaller than the limit');

SET grail.build_memory_limit = '8MB';
SELECT throws_like($$SELECT grail.create_graph('long_keys', 'long_keys', live => false)$$,
                   '%needs more memory than grail.build_memory_limit allows: after 1 rows its keys need%limit of 8 MB%',
                   'create_graph refuses long keys while it reads them, naming the limit');
SELECT is((SELECT 1), 1, 'the session is alive');

-- Keys that fit: many rows of a few keys (repeats are not counted again), and one long key.
CREATE TABLE short_keys (source text, target text);
INSERT INTO short_keys SELECT repeat('k', 100) || (i % 50), repeat('k', 100) || ((i + 1) % 50) FROM generate_series(1, 20000) i;
INSERT INTO short_keys VALUES (repeat('z', 1000000), repeat('k', 100) || '1');
SELECT lives_ok($$SELECT grail.create_graph('short_keys', 'short_keys', live => true)$$,
                'keys that fit the limit build');
SELECT is(grail.reachable('short_keys', repeat('z', 1000000), repeat('k', 100) || '7'), true, 'and answer');

-- Rebuilds: a long key written after the build.
INSERT INTO short_keys SELECT 'long' || i || repeat('w', 5000000), 'x' FROM generate_series(1, 4) i;
SELECT throws_like($$SELECT * FROM grail.bfs('short_keys', 'x'::text)$$, '%grail.build_memory_limit%',
                   'a query that rebuilds a live graph from its rows refuses');
SELECT throws_like($$SELECT grail.merge_graph('short_keys')$$, '%grail.build_memory_limit%', 'merge_graph refuses');
SELECT throws_like($$SELECT grail.refresh_graph('short_keys')$$, '%grail.build_memory_limit%',
                   'refresh_graph refuses');

RESET grail.build_memory_limit;
SELECT lives_ok($$SELECT grail.refresh_graph('short_keys')$$, 'without the limit the same keys build');

SELECT * FROM finish();
ROLLBACK;
