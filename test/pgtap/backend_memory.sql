-- grail.backend_memory_limit: what a backend keeps of graphs between statements (here six live
-- graphs over one table, each answering from its own snapshot rebuild: about 3.9 MB with its
-- reversed edges) stays within the limit by dropping the least recently used graphs' rebuilds,
-- which the next statement that needs one makes again; answers are those without a limit; a cursor keeps its graph across
-- the drops; what one statement holds at once past the limit is a clean 53200 naming the graph and
-- the setting. Also: a plain role cannot change the setting, and pg_grail's schemas cannot be
-- renamed (a clear error before the command runs).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
-- Rebuilds made on the host: a GPU's rebuild keeps its arrays where the device's build left them,
-- which the heap's growth does not see (README, Limits).
SET grail.device = cpu;
SELECT plan(21);

CREATE TABLE mb_e (source bigint, target bigint);
SELECT setseed(0.25);
-- Random edges: cycles, self-loops, duplicates; and one id at each end of bigint.
INSERT INTO mb_e SELECT (random() * 30000)::bigint, (random() * 30000)::bigint FROM generate_series(1, 60000);
INSERT INTO mb_e VALUES (1, 1), (1, 2), (1, 2), (9223372036854775807, -9223372036854775808), (2, 9223372036854775807);
SELECT count(*) FROM (SELECT grail.create_graph('mb_g' || i, 'mb_e') FROM generate_series(1, 6) i) made;
-- Pending changes: every query of the six graphs answers from a snapshot rebuild.
INSERT INTO mb_e VALUES (-9223372036854775808, 30001), (30001, 5);

-- Each graph's answers for a few sources, with no limit, then under one that holds two rebuilds.
CREATE TEMP TABLE mb_sources (v bigint);
INSERT INTO mb_sources VALUES (1), (5), (30001), (9223372036854775807), (424242);
CREATE FUNCTION pg_temp.answers() RETURNS TABLE (g int, v bigint, descendants bigint, ancestors bigint)
LANGUAGE sql AS $$
	SELECT i, s.v, (SELECT count(*) FROM grail.descendants('mb_g' || i, s.v)),
	       (SELECT count(*) FROM grail.ancestors('mb_g' || i, s.v))
	FROM generate_series(1, 6) i, mb_sources s
$$;
SET grail.backend_memory_limit = 0;
CREATE TEMP TABLE mb_unlimited AS SELECT * FROM pg_temp.answers();
SELECT is((SELECT descendants FROM mb_unlimited WHERE g = 3 AND v = 30001),
          (WITH RECURSIVE r(v) AS (SELECT 30001::bigint UNION SELECT e.target FROM r JOIN mb_e e ON e.source = r.v)
           SELECT count(*) FROM r),
          'without a limit, descendants() answers as the closure of the rows');

SET grail.backend_memory_limit = '12MB';
SELECT results_eq('SELECT * FROM pg_temp.answers() ORDER BY 1, 2', 'SELECT * FROM mb_unlimited ORDER BY 1, 2',
                  'under a limit of three rebuilds, six graphs answer as without one');
SELECT results_eq('SELECT * FROM pg_temp.answers() ORDER BY 1, 2', 'SELECT * FROM mb_unlimited ORDER BY 1, 2',
                  'and again, with the dropped rebuilds made again');
SELECT is(grail.reachable('mb_g' || i, -9223372036854775808, 5), true, 'reachable() through the overlay, mb_g' || i)
FROM generate_series(1, 2) i;

-- A cursor holds its graph's rebuild while the other graphs' are made and dropped.
DECLARE mb_cursor CURSOR FOR SELECT vertex FROM grail.descendants('mb_g1', 1::bigint);
MOVE FORWARD 10 IN mb_cursor;
SELECT results_eq('SELECT * FROM pg_temp.answers() WHERE g > 1 ORDER BY 1, 2',
                  'SELECT * FROM mb_unlimited WHERE g > 1 ORDER BY 1, 2',
                  'the other graphs answer while the cursor holds mb_g1');
CREATE FUNCTION pg_temp.rest(c refcursor) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint := 0;
	r record;
BEGIN
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		n := n + 1;
	END LOOP;
	RETURN n;
END $$;
SELECT is(10 + pg_temp.rest('mb_cursor'), (SELECT descendants FROM mb_unlimited WHERE g = 1 AND v = 1),
          'the cursor gives the rest of its rows');
CLOSE mb_cursor;

-- One statement that holds four rebuilds at once (each call site keeps its graph to the end).
SELECT throws_like($$SELECT (SELECT count(*) FROM grail.descendants('mb_g1', 1::bigint)) +
                            (SELECT count(*) FROM grail.descendants('mb_g2', 1::bigint)) +
                            (SELECT count(*) FROM grail.descendants('mb_g3', 1::bigint)) +
                            (SELECT count(*) FROM grail.descendants('mb_g4', 1::bigint))$$,
                   'pg_grail graph "mb_g_" needs % MB for its %, and what this backend''s statements and cursors '
                   'hold of graphs (% MB) leaves no room within '
                   'grail.backend_memory_limit (12 MB)',
                   'a statement that holds more than the limit at once fails, naming the graph and the setting');
SELECT throws_ok($$SELECT (SELECT count(*) FROM grail.descendants('mb_g1', 1::bigint)) +
                          (SELECT count(*) FROM grail.descendants('mb_g2', 1::bigint)) +
                          (SELECT count(*) FROM grail.descendants('mb_g3', 1::bigint)) +
                          (SELECT count(*) FROM grail.descendants('mb_g4', 1::bigint))$$,
                 '53200', NULL, 'with SQLSTATE 53200');
SET grail.backend_memory_limit = '1MB';
SELECT throws_ok($$SELECT count(*) FROM grail.descendants('mb_g4', 1::bigint)$$, '53200', NULL,
                 'one rebuild over the limit fails');
RESET grail.backend_memory_limit;
SELECT results_eq('SELECT * FROM pg_temp.answers() ORDER BY 1, 2', 'SELECT * FROM mb_unlimited ORDER BY 1, 2',
                  'after the errors, the graphs answer as before');

-- What a batch's searches keep for the next batch counts too: a byte a component for the backend
-- and each helper thread (grail.search_threads), with their stacks. A random DAG of 400,000
-- vertices whose 40,000 uniform pairs leave over 1,280 to a search (so that four helpers take part):
-- five threads' marks pass a 1 MB limit, the backend's alone do not.
SELECT setseed(0.5);
CREATE TABLE mb_dag AS SELECT s AS source, s + 1 + (random() * (400000 - s - 1))::bigint AS target
	FROM (SELECT 1 + (random() * 399998)::bigint AS s FROM generate_series(1, 1200000)) x;
SELECT count(*) FROM (SELECT grail.create_graph('mb_scratch', 'mb_dag')) made;
CREATE TEMP TABLE mb_pairs AS SELECT array_agg(1 + (random() * 399999)::bigint) AS a,
	array_agg(1 + (random() * 399999)::bigint) AS b FROM generate_series(1, 40000);
CREATE FUNCTION pg_temp.batch() RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM mb_pairs, unnest(grail.reachable('mb_scratch', a, b)) r WHERE r
$$;
SET grail.search_threads = 4;
CREATE TEMP TABLE mb_batch AS SELECT pg_temp.batch() AS reached;
SELECT cmp_ok((SELECT reached FROM mb_batch), '>', 0::bigint, 'the batch reaches some pairs');
-- Row by row (a function scan: no filter, no batch), the same answers.
SELECT is((SELECT count(*) FROM mb_pairs, unnest(a, b) p(x, y) WHERE grail.reachable('mb_scratch', x, y)),
          (SELECT reached FROM mb_batch), 'the same pairs row by row give the same answers');
SET grail.backend_memory_limit = '1MB';
SELECT throws_like($$SELECT pg_temp.batch()$$,
                   'pg_grail graph "mb_scratch" needs % MB for its search scratch, %grail.backend_memory_limit (1 MB)',
                   'five threads'' search scratch past the limit fails the batch, naming it');
SET grail.search_threads = 0;
SELECT is(pg_temp.batch(), (SELECT reached FROM mb_batch),
          'the scratch went with the failed batch: the backend alone answers within the limit');
RESET grail.backend_memory_limit;
SET grail.search_threads = 4;
SELECT is(pg_temp.batch(), (SELECT reached FROM mb_batch), 'without the limit, five threads again');
RESET grail.search_threads;
-- path() keeps 16 bytes a vertex of depth slots for its next search (6.4 MB here), beside the
-- reversed edges it makes first (8 MB, counted before they are made): a 12 MB limit holds those
-- and the batches' 2 MB, not the slots.
CREATE TEMP TABLE mb_far AS SELECT s.a, max(d.vertex) AS b
	FROM (SELECT min(source) AS a FROM mb_dag) s, grail.descendants('mb_scratch', s.a) d GROUP BY s.a;
SET grail.backend_memory_limit = '12MB';
SELECT throws_like($$SELECT grail.path('mb_scratch', a, b) FROM mb_far$$,
                   'pg_grail graph "mb_scratch" needs % MB for its search scratch%',
                   'path()''s depth slots past the limit fail the call, naming them');
RESET grail.backend_memory_limit;
SELECT is((SELECT p[1] = a AND p[array_length(p, 1)] = b FROM (SELECT a, b, grail.path('mb_scratch', a, b) p FROM mb_far) x),
          true, 'without the limit, path() answers');

-- Only a superuser sets the limit.
CREATE ROLE mb_plain;
SET ROLE mb_plain;
SELECT throws_ok($$SET grail.backend_memory_limit = 0$$, '42501', NULL, 'a plain role cannot lift the limit');
RESET ROLE;

-- The extension's schemas keep their names.
SELECT throws_ok($$ALTER SCHEMA grail RENAME TO g2$$, '0A000',
                 'cannot rename schema "grail": it belongs to extension pg_grail, whose functions, triggers and '
                 'library name it',
                 'ALTER SCHEMA grail RENAME is refused with the reason');
SELECT throws_ok($$ALTER SCHEMA grail_internal RENAME TO g2$$, '0A000', NULL, 'as is grail_internal''s');

SELECT * FROM finish();
ROLLBACK;
