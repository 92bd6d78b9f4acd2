-- PL/pgSQL keeps the call sites of simple expressions for the whole transaction, and with them
-- the graphs they opened, though each statement has ended: a block of statements that each opened
-- another graph failed with 53200 under grail.backend_memory_limit ("what this backend's
-- statements and cursors hold"), though no statement held more than one graph and no cursor was
-- open. Now, past the limit, a call site whose call has returned lets go of its graph (it opens it
-- again at its next call); one in a call keeps it, and so does a traversal scan's, whose rows
-- point into its graph: a cursor over it reads the same rows after the drops.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
-- Rebuilds made on the host (backend_memory.sql says why).
SET grail.device = cpu;
SELECT plan(6);

CREATE TABLE hic_e (source bigint, target bigint);
SELECT setseed(0.5);
INSERT INTO hic_e SELECT (random() * 20000)::bigint, (random() * 20000)::bigint FROM generate_series(1, 40000);
INSERT INTO hic_e VALUES (1, 1), (1, 2), (2, 3), (3, 1), (9223372036854775807, -9223372036854775808);
SELECT count(*) FROM (SELECT grail.create_graph('hic_g' || i, 'hic_e') FROM generate_series(1, 6) i) made;
-- Pending changes: path() and find_cycle() answer from each graph's snapshot rebuild (about 3 MB
-- with its reversed edges).
INSERT INTO hic_e VALUES (-9223372036854775808, 20001), (20001, 5), (5, 20002);

-- Six statements, each with its own simple expression over another graph.
CREATE FUNCTION pg_temp.six_paths() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint := 0;
BEGIN
	n := n + coalesce(array_length(grail.path('hic_g1', 1, 5), 1), 0);
	n := n + coalesce(array_length(grail.path('hic_g2', 1, 20002), 1), 0);
	n := n + coalesce(array_length(grail.path('hic_g3', -9223372036854775808, 5), 1), 0);
	n := n + coalesce(array_length(grail.find_cycle('hic_g4', 1), 1), 0);
	n := n + coalesce(array_length(grail.path('hic_g5', 20001, 1), 1), 0);
	n := n + coalesce(array_length(grail.path('hic_g6', 2, 20002), 1), 0);
	RETURN n;
END $$;

-- Room for about three rebuilds: the six statements' graphs never all fit. First, with none kept
-- yet (a graph kept from an earlier statement is not made again, and makes no room).
SET grail.backend_memory_limit = '9MB';
SELECT lives_ok('CREATE TEMP TABLE hic_limited AS SELECT pg_temp.six_paths() AS n',
                'under the limit, six statements that each open another graph answer (no 53200)');
SET grail.backend_memory_limit = 0;
CREATE TEMP TABLE hic_unlimited AS SELECT pg_temp.six_paths() AS n;
SELECT is((SELECT n FROM hic_limited), (SELECT n FROM hic_unlimited), 'as without a limit');
SET grail.backend_memory_limit = '9MB';
SELECT is(pg_temp.six_paths(), (SELECT n FROM hic_unlimited), 'and again, the graphs opened again');

-- A cursor over a traversal scan keeps its graph while the six statements make and drop theirs.
DECLARE hic_cursor SCROLL CURSOR FOR SELECT vertex, depth FROM grail.descendants('hic_g1', 1::bigint);
MOVE FORWARD 10 IN hic_cursor;
SELECT is(pg_temp.six_paths(), (SELECT n FROM hic_unlimited), 'the six statements beside an open cursor');
CREATE FUNCTION pg_temp.rest(c refcursor) RETURNS TABLE (vertex bigint, depth int) LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		vertex := r.vertex;
		depth := r.depth;
		RETURN NEXT;
	END LOOP;
END $$;
SELECT set_eq('SELECT * FROM pg_temp.rest(''hic_cursor'')',
              'SELECT vertex, depth FROM grail.descendants(''hic_g1'', 1::bigint) OFFSET 10',
              'the cursor reads the rest of its rows');
MOVE ABSOLUTE 0 IN hic_cursor;
SELECT set_eq('SELECT * FROM pg_temp.rest(''hic_cursor'')',
              'SELECT vertex, depth FROM grail.descendants(''hic_g1'', 1::bigint)',
              'and all of them again from the start');

SELECT * FROM finish();
ROLLBACK;
