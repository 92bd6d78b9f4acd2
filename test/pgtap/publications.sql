-- A publication FOR ALL TABLES publishes the extension's catalog tables too: every write the
-- extension makes to them must still work (a published table without a replica identity refuses
-- UPDATE and DELETE).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(10);

-- (Without wal_level = logical it warns, and still checks what a publication checks.)
SET client_min_messages = error;
CREATE PUBLICATION grail_everything FOR ALL TABLES;
RESET client_min_messages;

SELECT is(ARRAY(SELECT c.relname::text FROM pg_class c
                WHERE c.relnamespace = 'grail'::regnamespace AND c.relkind = 'r'
                  AND (c.relreplident = 'n'
                       OR c.relreplident = 'd' AND NOT EXISTS (SELECT 1 FROM pg_index i
                                                               WHERE i.indrelid = c.oid AND i.indisprimary))
                ORDER BY 1),
          '{}', 'every catalog table has a replica identity');

CREATE TABLE published_edges (source bigint, target bigint);
INSERT INTO published_edges VALUES (1, 2), (2, 3);
SELECT lives_ok($$SELECT grail.create_graph('published_graph', 'published_edges')$$, 'create_graph');

INSERT INTO published_edges VALUES (3, 4);
SELECT lives_ok($$SELECT grail.merge_graph('published_graph')$$, 'merge_graph deletes the merged changes');
SELECT ok(grail.reachable('published_graph', 1, 4), 'the merged graph answers');
SELECT is((SELECT pending_changes FROM grail.graphs WHERE name = 'published_graph'), 0::bigint, 'no changes pending');

INSERT INTO published_edges VALUES (4, 5);
SELECT lives_ok($$SELECT grail.refresh_graph('published_graph')$$, 'refresh_graph');
SELECT lives_ok($$SELECT grail.alter_graph('published_graph', false)$$, 'alter_graph');

INSERT INTO published_edges VALUES (5, 6);
SELECT lives_ok($$SELECT grail.drop_graph('published_graph')$$, 'drop_graph');

SELECT grail.create_graph('published_graph', 'published_edges');
INSERT INTO published_edges VALUES (6, 7);
SELECT lives_ok('DROP TABLE published_edges', 'DROP TABLE of an edge table with pending changes');
SELECT is((SELECT count(*) FROM grail.graph WHERE name = 'published_graph'), 0::bigint, 'its graph went with it');

SELECT * FROM finish();
ROLLBACK;
