-- A graph over a plain view is read in each statement by running the view's query, which may call
-- any function of the view's owner: here one that drops the graph being read (grail.drop_graph,
-- which takes the graph's entry out of the backend's cache). The read went on writing into what
-- that entry held, freed (AddressSanitizer: heap-use-after-free in statement_read; without it, a
-- backend that later aborted with "free(): invalid next size" and restarted the server). Now the
-- statement answers from the rows it read, the graph is gone after it, and the backend goes on,
-- for a plain role, time after time. The sanitizer stage (scripts/sanitize.sh) runs this file.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(6);
SET client_min_messages = warning;

CREATE ROLE hvd_role LOGIN;
CREATE SCHEMA hvd AUTHORIZATION hvd_role;
SET ROLE hvd_role;
SET search_path = hvd, public;

CREATE TABLE hvd.edges (s bigint, t bigint);
INSERT INTO hvd.edges SELECT i, i + 1 FROM generate_series(1, 100) i;
-- True for every row; once armed (hvd.drop_armed), it first drops the graph over the view.
CREATE FUNCTION hvd.drop_when_armed() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	IF current_setting('hvd.drop_armed', true) = 'on' THEN
		PERFORM set_config('hvd.drop_armed', 'off', true);
		PERFORM grail.drop_graph('hvd.over_view');
	END IF;
	RETURN true;
END $$;
CREATE VIEW hvd.dropping_view AS SELECT s, t FROM hvd.edges WHERE hvd.drop_when_armed();

SELECT ok(grail.create_graph('hvd.over_view', 'hvd.dropping_view', 's', 't') IS NOT NULL, 'a graph over the view');
SELECT is((SELECT count(*) FROM grail.descendants('hvd.over_view', 1::bigint)), 101::bigint,
          'read as the view gives it');

SELECT set_config('hvd.drop_armed', 'on', true);
SELECT is((SELECT count(*) FROM grail.descendants('hvd.over_view', 1::bigint)), 101::bigint,
          'a read whose view drops the graph answers from the rows it read');
SELECT is((SELECT count(*) FROM grail.graphs WHERE schema = 'hvd' AND name = 'over_view'), 0::bigint,
          'and the graph is gone after it');

-- Again and again, through every function that reads the graph, each read dropping it: the freed
-- entry was written by each.
CREATE FUNCTION hvd.drop_while_read(times int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	answered bigint := 0;
BEGIN
	FOR i IN 1..times LOOP
		PERFORM grail.create_graph('hvd.over_view', 'hvd.dropping_view', 's', 't');
		PERFORM set_config('hvd.drop_armed', 'on', true);
		CASE i % 4
		WHEN 0 THEN answered := answered + (SELECT count(*) FROM grail.descendants('hvd.over_view', 1::bigint));
		WHEN 1 THEN answered := answered + (SELECT count(*) FROM grail.ancestors('hvd.over_view', 101::bigint));
		WHEN 2 THEN answered := answered + CASE WHEN grail.reachable('hvd.over_view', 1, 101) THEN 101 ELSE 0 END;
		ELSE answered := answered + array_length(grail.path('hvd.over_view', 1, 101), 1);
		END CASE;
	END LOOP;
	RETURN answered;
END $$;
SELECT is(hvd.drop_while_read(40), 40 * 101::bigint, 'forty reads that each drop the graph answer');
SELECT is((SELECT count(*) FROM grail.graphs WHERE schema = 'hvd' AND name = 'over_view'), 0::bigint,
          'and the graph is gone after the last');

SELECT * FROM finish();
ROLLBACK;
