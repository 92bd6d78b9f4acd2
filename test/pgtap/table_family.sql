-- A graph's table family as its triggers and queries check it where they use it (validate at
-- use): a graph's trigger on a table outside the graph's family (as a table-only dump restored
-- into another database brings it) ignores the write; test/t/014_table_only_dump.pl does the real
-- dump and checks the WARNING. A foreign table that joins the family (created or attached as a
-- partition) makes the graph stale, and a query that reads the rows anyway (stale_policy = warn)
-- refuses to scan it. A table of the family that inherits from a second parent too is written
-- through that parent as well: the graph watches the second parent as an ancestor.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(32);
SET client_min_messages = error;

-- A graph's triggers on a table of another graph, as a restore of a table-only dump makes them:
-- its id the one of an unrelated graph here.
CREATE TABLE fam_edges (source bigint, target bigint);
INSERT INTO fam_edges VALUES (1, 2);
SELECT grail.create_graph('fam_live', 'fam_edges');
SELECT grail.create_graph('fam_fixed', 'fam_edges', live => false);
CREATE TABLE fam_stray (source bigint, target bigint);
CREATE TABLE fam_stray_parent (source bigint, target bigint);
DO $$
DECLARE
	g record;
BEGIN
	FOR g IN SELECT id FROM grail.graph WHERE name IN ('fam_live', 'fam_fixed') LOOP
		EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON fam_stray REFERENCING NEW TABLE AS grail_new '
		               'FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L)', 'grail_log_' || g.id || '_insert', g.id);
		EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON fam_stray REFERENCING OLD TABLE AS grail_old '
		               'FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L)', 'grail_log_' || g.id || '_delete', g.id);
		EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON fam_stray '
		               'FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L)', 'grail_log_' || g.id || '_truncate', g.id);
		EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON fam_stray_parent '
		               'FOR EACH STATEMENT EXECUTE FUNCTION grail._mark_stale(%L)', 'grail_stale_' || g.id, g.id);
	END LOOP;
END $$;
INSERT INTO fam_stray VALUES (100, 999), (2, 3);
SELECT is(grail.reachable('fam_live', 100, 999), false, 'a stray log trigger logs no edge into the live graph with its id');
SELECT is(grail.reachable('fam_live', 1, 3), false, 'nor one that joins the graph''s own edges');
SELECT is((SELECT pending_changes FROM grail.graphs WHERE name = 'fam_live'), 0::bigint, 'the live graph has no pending change');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fam_fixed'), false, 'nor does it make the graph that is not live stale');
DELETE FROM fam_stray;
TRUNCATE fam_stray;
INSERT INTO fam_stray_parent VALUES (5, 6);
SELECT is((SELECT stale FROM grail.graphs WHERE name IN ('fam_live', 'fam_fixed') AND stale), NULL,
          'stray DELETE, TRUNCATE and staleness triggers leave both graphs answering');
SELECT is(grail.reachable('fam_fixed', 1, 2), true, 'the graph still answers from its own rows');
-- The graphs' own triggers still work.
INSERT INTO fam_edges VALUES (2, 3);
SELECT is(grail.reachable('fam_live', 1, 3), true, 'a write to the edge table is still logged');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fam_fixed'), true, 'and still makes the other graph stale');

-- A foreign partition created after the build, with a change pending: the graph is stale, and
-- reading the rows instead (stale_policy = warn) refuses the foreign table.
CREATE FOREIGN DATA WRAPPER fam_dummy_fdw;
CREATE SERVER fam_dummy_server FOREIGN DATA WRAPPER fam_dummy_fdw;
CREATE TABLE fp (k int, s bigint, t bigint) PARTITION BY LIST (k);
CREATE TABLE fp1 PARTITION OF fp FOR VALUES IN (1);
INSERT INTO fp VALUES (1, 1, 2);
SELECT grail.create_graph('fpg', 'fp', 's', 't');
INSERT INTO fp VALUES (1, 2, 3);
SELECT lives_ok($$CREATE FOREIGN TABLE fp9 PARTITION OF fp FOR VALUES IN (9) SERVER fam_dummy_server$$,
                'a foreign partition can be created');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fpg'), true, 'which makes the graph stale');
SELECT throws_ok($$SELECT grail.reachable('fpg', 1, 3)$$, '55000', NULL, 'a query refuses');
SET grail.stale_policy = warn;
SELECT throws_ok($$SELECT * FROM grail.bfs('fpg', 1)$$, '42809',
                 'pg_grail cannot read the edges of "fp9", a table of the edge table''s inheritance family: it is a foreign table, whose rows are elsewhere',
                 'reading the rows instead refuses the foreign table');
RESET grail.stale_policy;
SELECT throws_ok($$SELECT grail.refresh_graph('fpg')$$, '42809', NULL, 'so does a rebuild');
-- Attached: the same.
CREATE TABLE fa (k int, s bigint, t bigint) PARTITION BY LIST (k);
CREATE TABLE fa1 PARTITION OF fa FOR VALUES IN (1);
INSERT INTO fa VALUES (1, 1, 2);
SELECT grail.create_graph('fag', 'fa', 's', 't');
CREATE FOREIGN TABLE fa9 (k int, s bigint, t bigint) SERVER fam_dummy_server;
SELECT lives_ok($$ALTER TABLE fa ATTACH PARTITION fa9 FOR VALUES IN (9)$$, 'a foreign table can be attached');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fag'), true, 'which makes the graph stale');
INSERT INTO fa VALUES (1, 2, 3);
SET grail.stale_policy = warn;
SELECT throws_ok($$SELECT * FROM grail.bfs('fag', 1)$$, '42809', NULL, 'reading the rows instead refuses it');
RESET grail.stale_policy;
-- Detached again, the graph can be rebuilt and answers.
ALTER TABLE fa DETACH PARTITION fa9;
SELECT lives_ok($$SELECT grail.refresh_graph('fag')$$, 'detached, the graph can be rebuilt');
SELECT is(grail.reachable('fag', 1, 3), true, 'and answers');

-- A child of the edge table gains a second parent, through which its rows are then written.
CREATE TABLE mp (s bigint, t bigint);
CREATE TABLE mc () INHERITS (mp);
CREATE TABLE mq (s bigint, t bigint);
INSERT INTO mp VALUES (1, 2);
INSERT INTO mc VALUES (2, 3);
SELECT grail.create_graph('mpg', 'mp', 's', 't');
ALTER TABLE mc INHERIT mq;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'mpg'), true, 'a child that gains a second parent makes the graph stale');
SELECT lives_ok($$SELECT grail.refresh_graph('mpg')$$, 'the graph can be rebuilt');
SELECT is(grail.reachable('mpg', 1, 3), true, 'and answers');
UPDATE mq SET t = 9 WHERE s = 2;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'mpg'), true, 'a write through the second parent makes it stale');
SELECT throws_ok($$SELECT grail.reachable('mpg', 2, 9)$$, '55000', NULL, 'and it refuses rather than answer from the old rows');
SELECT lives_ok($$SELECT grail.refresh_graph('mpg')$$, 'rebuilt');
SELECT is(grail.reachable('mpg', 2, 9) AND NOT grail.reachable('mpg', 2, 3), true, 'it answers for the new rows');
-- A new child of the edge table and another table: the graph watches the other parent at once.
CREATE TABLE mr (s bigint, t bigint);
CREATE TABLE mc2 () INHERITS (mp, mr);
DELETE FROM mr;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'mpg'), true, 'a write through a new child''s other parent makes it stale');
SELECT ok((SELECT watched_tables FROM grail.graph WHERE name = 'mpg') @> ARRAY['mq', 'mr']::regclass[],
          'the other parents are watched');

-- A live graph whose family gains a table it cannot watch (temporary: one session's rows; unlogged:
-- emptied by crash recovery without a trigger) refuses, saying so, until the table leaves.
CREATE TABLE lp (s bigint, t bigint);
INSERT INTO lp VALUES (1, 2), (2, 3);
SELECT grail.create_graph('lpg', 'lp', 's', 't', live => true);
CREATE TEMP TABLE lp_temp () INHERITS (lp);
SELECT throws_ok($$SELECT grail.reachable('lpg', 1, 3)$$, '55000',
                 'pg_grail graph "lpg" cannot tell whether its edge table "lp" changed: a trigger that watches its family '
                 'was dropped or disabled, or a temporary, unlogged or foreign table joined the family',
                 'a live graph with a temporary child refuses and names the cause');
DROP TABLE lp_temp;
SELECT lives_ok($$SELECT grail.refresh_graph('lpg')$$, 'the temporary child gone (its rows with it), it refreshes');
CREATE UNLOGGED TABLE lp_unlogged () INHERITS (lp);
SELECT throws_ok($$SELECT grail.reachable('lpg', 1, 3)$$, '55000', NULL, 'so it does with an unlogged child');
SELECT throws_ok($$SELECT grail.refresh_graph('lpg')$$, '0A000', NULL, 'which a refresh refuses too');
DROP TABLE lp_unlogged;
SELECT grail.refresh_graph('lpg');
SELECT is(grail.reachable('lpg', 1, 3), true, 'and answers once it is gone');

SELECT * FROM finish();
ROLLBACK;
