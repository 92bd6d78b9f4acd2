-- What a backend keeps of a graph counts the heap's growth over its making. A graph over a view is
-- made while the view's query runs, and the view's functions may free memory meanwhile (here a
-- 12 MB setting set to ''): the growth was then nothing, each read counted nothing, and a plain
-- role kept any number of reads past grail.backend_memory_limit. Now a read counts at least its
-- index's arrays (Index::array_bytes, all of them: counting only the ids, edges and DAG left the
-- labels and hash tables, three quarters of it, uncounted), so that reads held at once pass the
-- limit as they do without the trick: 53200.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SET grail.device = cpu;
SELECT plan(3);

CREATE TABLE hfr_e (source bigint, target bigint);
SELECT setseed(0.5);
INSERT INTO hfr_e SELECT (random() * 20000)::bigint, (random() * 20000)::bigint FROM generate_series(1, 40000);
-- True for every row; the first row read frees the setting hfr.pad<k>, one for each view.
CREATE FUNCTION pg_temp.free_pad(k int) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	IF coalesce(current_setting('hfr.pad' || k, true), '') <> '' THEN
		PERFORM set_config('hfr.pad' || k, '', true);
	END IF;
	RETURN true;
END $$;
CREATE VIEW hfr_view1 AS SELECT source, target FROM hfr_e WHERE pg_temp.free_pad(1);
CREATE VIEW hfr_view2 AS SELECT source, target FROM hfr_e WHERE pg_temp.free_pad(2);
CREATE VIEW hfr_view3 AS SELECT source, target FROM hfr_e WHERE pg_temp.free_pad(3);
SELECT count(*) FROM (SELECT grail.create_graph('hfr_g' || i, 'hfr_view' || i) FROM generate_series(1, 3) i) made;

-- Three reads held at once by one statement (each scalar subquery's scan holds its graph).
CREATE FUNCTION pg_temp.three_reads(pad boolean) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	IF pad THEN
		PERFORM set_config('hfr.pad' || i, repeat('x', 12000000), true) FROM generate_series(1, 3) i;
	END IF;
	SELECT (SELECT count(*) FROM grail.descendants('hfr_g1', 1::bigint)) +
	       (SELECT count(*) FROM grail.descendants('hfr_g2', 1::bigint)) +
	       (SELECT count(*) FROM grail.descendants('hfr_g3', 1::bigint))
	INTO n;
	RETURN n;
END $$;
SELECT cmp_ok(pg_temp.three_reads(false), '>', 3::bigint, 'without a limit, three reads of the view');

-- Each read's index is 2.7 MB of arrays (0.6 MB of them ids, edges and DAG): three pass 6 MB.
SET grail.backend_memory_limit = '6MB';
SELECT throws_ok('SELECT pg_temp.three_reads(false)', '53200', NULL, 'three reads held at once pass the limit');
SELECT throws_ok('SELECT pg_temp.three_reads(true)', '53200', NULL,
                 'and so they do when the view frees memory while it is read');

SELECT * FROM finish();
ROLLBACK;
