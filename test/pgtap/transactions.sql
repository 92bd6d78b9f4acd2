-- Builds are transactional: a rolled-back create, refresh or drop leaves the previous state.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(12);

CREATE TABLE tx_edges (source bigint, target bigint);
INSERT INTO tx_edges VALUES (1, 2), (2, 3);

SAVEPOINT before_create;
SELECT lives_ok($$SELECT grail.create_graph('tx', 'tx_edges')$$, 'create_graph inside a savepoint');
ROLLBACK TO before_create;
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'tx'), 0::bigint, 'no graph after ROLLBACK of create_graph');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'tx_edges'::regclass), 0::bigint,
          'no trigger after ROLLBACK of create_graph');
SELECT is((SELECT count(*) FROM grail.index_chunk), 0::bigint, 'no index chunk after ROLLBACK of create_graph');
SELECT throws_ok($$SELECT grail.reachable('tx', 1, 3)$$, '42704', 'pg_grail graph "tx" does not exist',
                 'a rolled-back graph cannot be queried');

SELECT lives_ok($$SELECT grail.create_graph('tx', 'tx_edges')$$, 'create_graph again');
SELECT is(grail.reachable('tx', 1, 3), true, 'the new graph answers');

-- A rolled-back refresh keeps the old index; the change that made it stale is rolled back too.
SAVEPOINT before_refresh;
INSERT INTO tx_edges VALUES (3, 1);
SELECT lives_ok($$SELECT grail.refresh_graph('tx')$$, 'refresh after a change');
SELECT is(grail.reachable('tx', 3, 1), true, 'the refreshed index sees the new edge');
ROLLBACK TO before_refresh;
SELECT is(grail.reachable('tx', 3, 1), false, 'after ROLLBACK the previous index answers');

SAVEPOINT before_drop;
SELECT grail.drop_graph('tx');
ROLLBACK TO before_drop;
SELECT is(grail.reachable('tx', 1, 3), true, 'a rolled-back drop keeps the graph');

-- A failed build inside a savepoint leaves nothing.
INSERT INTO tx_edges VALUES (NULL, 1);
SELECT throws_ok($$SELECT grail.create_graph('tx2', 'tx_edges')$$, '23502', NULL, 'NULL endpoints fail the build');

SELECT * FROM finish();
ROLLBACK;
