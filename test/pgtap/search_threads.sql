-- A batch of reachable() pairs on helper threads (grail.search_threads, capped by
-- grail.max_search_threads): with 0, 1, 2 and 7 helpers and the default, the array forms answer
-- exactly as the per-row call and as the rows say, on a graph with cycles, in a batch long enough
-- that the labels' pass and the searches both split (over 65,536 pairs, thousands searched); text
-- keys the same; a batch cancelled by statement_timeout leaves the backend answering as before;
-- only a superuser raises the cap.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(19);

SELECT setseed(0.4141);
-- 20,000 vertices, 60,000 edges: forward within 400 (a deep DAG, so that many pairs are searched),
-- one in fifty backward (cycles); ids spread over bigint.
CREATE TABLE st_edges AS
SELECT (a::bigint * 2654435761) % 1000000007 AS source, (b::bigint * 2654435761) % 1000000007 AS target
FROM (SELECT a, CASE WHEN random() < 0.02 THEN greatest(a - 1 - floor(random() * 300)::int, 0)
                     ELSE least(a + 1 + floor(random() * 400)::int, 19999) END AS b
      FROM (SELECT floor(random() * 20000)::int AS a FROM generate_series(1, 60000)) p) q;
CREATE TABLE st_text_edges AS SELECT 'v' || source AS source, 'v' || target AS target FROM st_edges;
SELECT grail.create_graph('st', 'st_edges');
SELECT grail.create_graph('st_text', 'st_text_edges');

-- 100,000 pairs of vertices (and a few unknown ids), as two arrays.
CREATE TABLE st_vertices AS
SELECT row_number() OVER (ORDER BY v) - 1 AS k, v FROM (SELECT source AS v FROM st_edges UNION SELECT target FROM st_edges) u;
CREATE UNIQUE INDEX ON st_vertices (k);
CREATE TABLE st_pairs AS
WITH n AS (SELECT count(*) AS n FROM st_vertices)
SELECT i, CASE WHEN i % 997 = 0 THEN 123456789012 ELSE va.v END AS a, vb.v AS b
FROM generate_series(1, 100000) i CROSS JOIN n
JOIN st_vertices va ON va.k = (i::bigint * 7919) % n.n
JOIN st_vertices vb ON vb.k = ((i::bigint * 104729) # (i / 3)) % n.n;
CREATE TABLE st_arrays AS SELECT array_agg(a ORDER BY i) AS a, array_agg(b ORDER BY i) AS b FROM st_pairs;

-- The answers with n helpers (as a bool[]), and those of the text graph over the same pairs.
CREATE FUNCTION st_answers(n int) RETURNS bool[] LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('grail.search_threads', n::text, true);
	RETURN (SELECT grail.reachable('st', a, b) FROM st_arrays);
END $$;
CREATE FUNCTION st_text_answers(n int) RETURNS bool[] LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('grail.search_threads', n::text, true);
	RETURN (SELECT grail.reachable('st_text', (SELECT array_agg('v' || x) FROM unnest(a) x),
	                               (SELECT array_agg('v' || x) FROM unnest(b) x)) FROM st_arrays);
END $$;
SELECT is(current_setting('grail.search_threads'), '-1', 'grail.search_threads defaults to -1 (2, within the CPUs)');
SELECT is(current_setting('grail.max_search_threads'), '4', 'grail.max_search_threads defaults to 4');
CREATE TABLE st_alone AS SELECT st_answers(0) AS answers;


SELECT ok((SELECT count(*) FILTER (WHERE r) FROM st_alone, unnest(answers) r) BETWEEN 1000 AND 99000,
          'the pairs are a mix of reachable and not');
SELECT is((SELECT count(*) FROM st_pairs p, st_alone s WHERE s.answers[p.i] IS DISTINCT FROM grail.reachable('st', p.a, p.b)),
          0::bigint, 'on one thread the array answers as the per-row call, pair by pair');
-- What 20 sources reach, by the rows.
CREATE TABLE st_sources AS SELECT DISTINCT a AS v FROM st_pairs WHERE i % 5003 = 1;
CREATE TABLE st_reach AS
WITH RECURSIVE r(s, t) AS (SELECT v, v FROM st_sources UNION SELECT r.s, e.target FROM r JOIN st_edges e ON e.source = r.t)
SELECT s, t FROM r;
SELECT is((SELECT count(*) FROM st_pairs p, st_alone s
           WHERE p.a IN (SELECT v FROM st_sources)
             AND s.answers[p.i] IS DISTINCT FROM EXISTS (SELECT 1 FROM st_reach WHERE st_reach.s = p.a AND st_reach.t = p.b)),
          0::bigint, 'the answers of 20 sources'' pairs are what the rows reach');

SELECT is(st_answers(1), (SELECT answers FROM st_alone), 'one helper: the same answers');
SELECT is(st_answers(2), (SELECT answers FROM st_alone), 'two helpers: the same answers');
SELECT is(st_answers(7), (SELECT answers FROM st_alone), 'seven helpers (over the CPUs): the same answers');
SELECT is(st_answers(-1), (SELECT answers FROM st_alone), 'the default: the same answers');
SELECT is(st_answers(2), (SELECT answers FROM st_alone), 'helpers kept from an earlier batch: the same answers');
SELECT is(st_text_answers(2), (SELECT answers FROM st_alone), 'text keys with two helpers: the same answers');
SELECT is(st_text_answers(0), (SELECT answers FROM st_alone), 'text keys on one thread: the same answers');

-- A cancel mid-batch (or none, where the batch ends first): either way the backend answers as before.
SAVEPOINT before_timeout;
SET LOCAL grail.search_threads = 2;
SET LOCAL statement_timeout = '1ms';
CREATE FUNCTION st_timed_out() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM grail.reachable('st', a, b) FROM st_arrays;
	RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
	RETURN 'cancelled';
END $$;
SELECT ok(st_timed_out() IN ('finished', 'cancelled'), 'a batch under a 1 ms statement_timeout ends or is cancelled');
ROLLBACK TO SAVEPOINT before_timeout;
SELECT is(st_answers(2), (SELECT answers FROM st_alone), 'after a cancel the helpers answer as before');

-- The settings' bounds and who may raise the cap.
SELECT throws_ok($$SET grail.search_threads = 17$$, '22023', NULL, 'grail.search_threads stops at 16');
SELECT throws_ok($$SET grail.search_threads = -2$$, '22023', NULL, 'grail.search_threads starts at -1');
CREATE ROLE st_plain;
GRANT USAGE ON SCHEMA grail TO st_plain;
SET LOCAL ROLE st_plain;
SELECT lives_ok($$SET grail.search_threads = 0$$, 'any role may take its batches to one thread');
SELECT throws_ok($$SET grail.max_search_threads = 8$$, '42501', NULL, 'only a superuser raises grail.max_search_threads');
RESET ROLE;
SET LOCAL grail.max_search_threads = 0;
SELECT is(st_answers(7), (SELECT answers FROM st_alone), 'a cap of 0: seven asked, the same answers on one thread');

SELECT * FROM finish();
ROLLBACK;
