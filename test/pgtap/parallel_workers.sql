-- reachable() evaluated by a parallel worker answers as the leader would: inside a user's AFTER
-- ROW trigger, the write statement's rows are in the edge table but not yet in the graph's log
-- (its statement trigger has not fired), and only the leader's trigger queue says so. A worker
-- must read the rows too, not answer from the build and the log alone.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(5);

CREATE TABLE pw_edges (s bigint, t bigint);
INSERT INTO pw_edges SELECT i, i + 1 FROM generate_series(1, 14) i;   -- the chain 1 -> ... -> 15
SELECT lives_ok($$SELECT grail.create_graph('pw', 'pw_edges', 's', 't')$$, 'a live graph over the chain');
CREATE TABLE pw_answers (t bigint, reached boolean, counted bigint);
-- 20,000 rows of vertex 1, for a parallel scan that the workers share.
CREATE TABLE pw_helper AS SELECT 1::bigint AS x FROM generate_series(1, 20000);
ANALYZE pw_helper;
-- The query is planned with a Gather under force_parallel_mode, so that a worker evaluates
-- reachable(); the leader records its answer. (EXECUTE: plpgsql runs a static SELECT ... INTO
-- without parallelism, and the leader evaluates a scalar subquery itself, as an initplan.)
CREATE FUNCTION pw_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	reached boolean;
	counted bigint;
BEGIN
	EXECUTE 'SELECT grail.reachable($1, 1, $2)' INTO reached USING 'pw'::text, NEW.t;
	EXECUTE 'SELECT count(*) FROM pw_helper h WHERE grail.reachable($1, h.x, $2)' INTO counted
		USING 'pw'::text, NEW.t;
	INSERT INTO pw_answers VALUES (NEW.t, reached, counted);
	RETURN NULL;
END $$;
CREATE TRIGGER pw_after AFTER INSERT ON pw_edges FOR EACH ROW EXECUTE FUNCTION pw_check();

SET LOCAL force_parallel_mode = on;
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
SET LOCAL parallel_leader_participation = off;   -- the workers scan every row
SELECT is((SELECT count(*) FROM (SELECT grail.reachable('pw', 1, 15)) r), 1::bigint,
	'control: a query runs under these settings');

INSERT INTO pw_edges VALUES (15, 16);
SELECT is((SELECT reached FROM pw_answers WHERE t = 16), true,
	'in the AFTER ROW trigger, a worker sees the statement''s own new edge');
INSERT INTO pw_edges VALUES (16, 17), (17, 18);
SELECT is((SELECT array_agg(reached ORDER BY t) FROM pw_answers WHERE t > 16), '{t,t}'::boolean[],
	'and each row''s edge of a statement of several rows');

SELECT is((SELECT array_agg(counted ORDER BY t) FROM pw_answers), '{20000,20000,20000}'::bigint[],
	'a parallel scan by the workers counts every row');

SELECT * FROM finish();
ROLLBACK;
