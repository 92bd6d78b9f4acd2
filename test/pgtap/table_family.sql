-- A graph's table family as its triggers and queries check it where they use it (validate at
-- use): a graph's trigger on a table outside the graph's family (as a table-only dump restored
-- into another database brings it) ignores the write; test/t/014_table_only_dump.pl does the real
-- dump and checks the WARNING.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(8);
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

SELECT * FROM finish();
ROLLBACK;
