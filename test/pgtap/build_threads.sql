-- Builds on helper threads, as many as grail.build_threads (-1, the default: 2 for a statement's
-- build; test/t/041_build_threads_cap.pl counts them): a graph built
-- with helpers answers exactly as one built without them and as the rows say (integer ids with
-- the extremes, cycles, self-loops, duplicate rows; text and uuid keys; a live graph with pending
-- inserts and deletes, answered from its snapshot's rebuild); the stored sizes are the same; a
-- build cancelled by statement_timeout at any point leaves the backend with its one thread and
-- no graph, and the next build answers right.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(30);

SELECT setseed(0.2929);
-- 1,500 vertices over bigint (the extremes included), 6,000 edges: mostly forward within 150, one
-- in twenty backward (cycles), some self-loops, 300 duplicate rows; and 40 isolated vertices
-- (self-loops only).
CREATE TABLE bt_ids AS
SELECT k, CASE k WHEN 0 THEN -9223372036854775808 WHEN 1 THEN 9223372036854775807
                 ELSE (k::bigint * 2654435761) % 1000000007 - 500000000 END AS v
FROM generate_series(0, 1539) k;
CREATE UNIQUE INDEX ON bt_ids (k);
CREATE TABLE bt_picks AS
SELECT a, CASE WHEN random() < 0.05 THEN greatest(a - 1 - floor(random() * 200)::int, 0)
               WHEN random() < 0.01 THEN a
               ELSE least(a + 1 + floor(random() * 150)::int, 1499) END AS b
FROM (SELECT floor(random() * 1500)::int AS a FROM generate_series(1, 6000)) p;
INSERT INTO bt_picks SELECT * FROM bt_picks LIMIT 300;
INSERT INTO bt_picks SELECT k, k FROM generate_series(1500, 1539) k;
CREATE TABLE bt_edges AS
SELECT ia.v AS source, ib.v AS target FROM bt_picks p JOIN bt_ids ia ON ia.k = p.a JOIN bt_ids ib ON ib.k = p.b;
CREATE TABLE bt_text_edges AS SELECT 'v' || source AS source, 'v' || target AS target FROM bt_edges;
CREATE TABLE bt_uuid_edges AS
SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM bt_edges;

-- What 30 sample sources reach, by the rows (a source reaches itself).
CREATE TABLE bt_sources AS SELECT v FROM bt_ids WHERE k IN (0, 1, 2, 1520) OR k % 59 = 3;
CREATE FUNCTION bt_closure(edges regclass) RETURNS TABLE (s bigint, t bigint) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH RECURSIVE r(s, t) AS (
			SELECT v, v FROM bt_sources
			UNION
			SELECT r.s, e.target FROM r JOIN %s e ON e.source = r.t)
		SELECT s, t FROM r$q$, edges);
END $$;
CREATE TABLE bt_reach AS SELECT * FROM bt_closure('bt_edges');
CREATE TABLE bt_targets AS SELECT v FROM bt_ids UNION ALL SELECT 123456789;

-- The pairs (sample source, any vertex or an unknown id) where a graph disagrees with the closure,
-- for integer, text ('v' || id) and uuid (md5 of the id) keys.
CREATE FUNCTION bt_wrong(graph text, keys text, closure regclass DEFAULT 'bt_reach') RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$
	SELECT count(*) FROM bt_sources s, bt_targets t
	WHERE CASE $1 WHEN 'int' THEN grail.reachable($2, s.v, t.v)
	              WHEN 'text' THEN grail.reachable($2, 'v' || s.v, 'v' || t.v)
	              ELSE grail.reachable($2, md5(s.v::text)::uuid, md5(t.v::text)::uuid) END
	      IS DISTINCT FROM (EXISTS (SELECT 1 FROM %s c WHERE c.s = s.v AND c.t = t.v)
	                        AND t.v <> 123456789)$q$, closure)
	INTO n USING keys, graph;
	RETURN n;
END $$;

-- Every pair of the sample sources and all vertices where two graphs answer differently.
CREATE FUNCTION bt_differ(a text, b text) RETURNS bigint LANGUAGE sql AS $$
	SELECT count(*) FROM bt_sources s, bt_targets t
	WHERE grail.reachable(a, s.v, t.v) IS DISTINCT FROM grail.reachable(b, s.v, t.v)
$$;
CREATE FUNCTION bt_sizes(graph text) RETURNS bigint[] LANGUAGE sql AS $$
	SELECT ARRAY[vertices, edges, components, dag_edges, index_bytes] FROM grail.graph g WHERE g.name = bt_sizes.graph
$$;

SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'grail.build_threads'), '-1',
          'grail.build_threads: -1 by default (the build decides: 2 for a statement, none for a background merge)');
SELECT throws_ok($$SET grail.build_threads = 17$$, '22023', NULL, 'grail.build_threads: at most 16');
SELECT throws_ok($$SET grail.build_threads = -2$$, '22023', NULL, 'grail.build_threads: not below -1');
SET LOCAL grail.build_threads = 0;
SELECT lives_ok($$SELECT grail.create_graph('bt_0', 'bt_edges', labels => 16)$$, 'a build without helpers');
SET LOCAL grail.build_threads = 3;
SELECT lives_ok($$SELECT grail.create_graph('bt_3', 'bt_edges', labels => 16)$$, 'a build with three helpers');
SET LOCAL grail.build_threads = 1;
SELECT lives_ok($$SELECT grail.create_graph('bt_1', 'bt_edges', labels => 3)$$, 'a build with one helper');
SELECT is(bt_wrong('bt_0', 'int'), 0::bigint, 'without helpers: every pair as the rows say');
SELECT is(bt_wrong('bt_3', 'int'), 0::bigint, 'with three helpers: every pair as the rows say');
SELECT is(bt_wrong('bt_1', 'int'), 0::bigint, 'with one helper and 3 labels: every pair as the rows say');
SELECT is(bt_differ('bt_0', 'bt_3'), 0::bigint, 'with and without helpers: the same answers');
SELECT is(bt_sizes('bt_3'), bt_sizes('bt_0'), 'with and without helpers: the same sizes, image bytes included');

CREATE ROLE bt_user;
GRANT SELECT ON bt_text_edges, bt_uuid_edges TO bt_user;
SET LOCAL ROLE bt_user;
SET LOCAL grail.build_threads = 4;
SELECT is(current_setting('grail.build_threads'), '4', 'any user sets grail.build_threads');
RESET ROLE;
SELECT lives_ok($$SELECT grail.create_graph('bt_text', 'bt_text_edges')$$, 'text keys with helpers');
SELECT lives_ok($$SELECT grail.create_graph('bt_uuid', 'bt_uuid_edges')$$, 'uuid keys with helpers');
SELECT is(bt_wrong('bt_text', 'text'), 0::bigint, 'text keys: every pair as the rows say');
SELECT is(bt_wrong('bt_uuid', 'uuid'), 0::bigint, 'uuid keys: every pair as the rows say');

-- An empty table, and a refresh with helpers.
CREATE TABLE bt_empty (source bigint, target bigint);
SELECT lives_ok($$SELECT grail.create_graph('bt_none', 'bt_empty')$$, 'an empty graph with helpers');
SELECT is(grail.reachable('bt_none', 1, 2), false, 'the empty graph: no id reaches another');
SELECT lives_ok($$SELECT grail.refresh_graph('bt_3')$$, 'a refresh with helpers');
SELECT is(bt_wrong('bt_3', 'int'), 0::bigint, 'after the refresh: every pair as the rows say');

-- A live graph with pending inserts and deletes: the snapshot's answers are a rebuild's, with helpers.
CREATE TABLE bt_live AS SELECT * FROM bt_edges;
SELECT lives_ok($$SELECT grail.create_graph('bt_live', 'bt_live', live => true)$$, 'a live graph with helpers');
DELETE FROM bt_live WHERE (source % 7 + target % 7) % 7 = 0;
INSERT INTO bt_live SELECT target, source FROM bt_edges WHERE (source % 97 + target % 97) % 97 = 1;
INSERT INTO bt_live VALUES (9223372036854775807, -9223372036854775808), (42, 9223372036854775807);
CREATE TABLE bt_live_reach AS SELECT * FROM bt_closure('bt_live');
SELECT is(bt_wrong('bt_live', 'int', 'bt_live_reach'), 0::bigint,
          'a live graph with pending inserts and deletes: every pair as its snapshot''s rows say');
SELECT lives_ok($$SELECT grail.merge_graph('bt_live')$$, 'the merge builds with helpers');
SELECT is(bt_wrong('bt_live', 'int', 'bt_live_reach'), 0::bigint, 'after the merge: every pair as the rows say');

-- Builds cancelled by statement_timeout wherever it lands (the read, the components, the labels on
-- two threads, the hash table beside them, the store): each either completes or is cancelled, the
-- backend keeps one thread (no helper outlives a cancel), and a cancelled build leaves no graph.
CREATE TABLE bt_big AS
SELECT (i * 7919) % 300007 AS source, (i * 7919) % 300007 + 1 + i % 500 AS target
FROM generate_series(1::bigint, 600000) i;
CREATE TABLE bt_outcomes (timeout_ms int, outcome text, threads bigint, graphs bigint);
CREATE FUNCTION bt_try(timeout_ms int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	outcome text := 'built';
BEGIN
	BEGIN
		BEGIN
			PERFORM grail.create_graph('bt_cancelled', 'bt_big');
			PERFORM grail.drop_graph('bt_cancelled');
		EXCEPTION WHEN query_canceled THEN
			outcome := 'cancelled';
		END;
		INSERT INTO bt_outcomes
		SELECT timeout_ms, outcome, (SELECT count(*) FROM pg_ls_dir('/proc/self/task')),
		       (SELECT count(*) FROM grail.graph WHERE name = 'bt_cancelled');
	EXCEPTION WHEN query_canceled THEN -- the timeout came after the build: it comes only once
		INSERT INTO bt_outcomes
		SELECT timeout_ms, outcome, (SELECT count(*) FROM pg_ls_dir('/proc/self/task')),
		       (SELECT count(*) FROM grail.graph WHERE name = 'bt_cancelled');
	END;
END $$;
SET LOCAL grail.build_threads = 2;
SELECT bt_try(NULL); -- no timeout: compiles the function, and one build to its end
-- A timeout landing outside the function (on a loaded machine) rolls back only its statement.
\set ON_ERROR_ROLLBACK on
SET LOCAL statement_timeout = '40ms';
SELECT bt_try(40);
SET LOCAL statement_timeout = '100ms';
SELECT bt_try(100);
SET LOCAL statement_timeout = '200ms';
SELECT bt_try(200);
SET LOCAL statement_timeout = '400ms';
SELECT bt_try(400);
SET LOCAL statement_timeout = '800ms';
SELECT bt_try(800);
SET LOCAL statement_timeout = '1500ms';
SELECT bt_try(1500);
SET LOCAL statement_timeout = 0;
\set ON_ERROR_ROLLBACK off
SELECT ok((SELECT count(*) FROM bt_outcomes WHERE outcome = 'cancelled') >= 1, 'some builds were cancelled');
-- The first build (no timeout) sets the count: one thread, or with a usable GPU the CUDA runtime's
-- own threads as well, which stay with the backend's context.
SELECT ok((SELECT threads FROM bt_outcomes WHERE timeout_ms IS NULL) = 1 OR grail.device_info() LIKE 'GPU:%',
          'after a build the backend has one thread (without a GPU runtime in it)');
SELECT is((SELECT array_agg(DISTINCT threads) FROM bt_outcomes),
          (SELECT array_agg(threads) FROM bt_outcomes WHERE timeout_ms IS NULL),
          'after every build, cancelled or not, the backend has as many threads as after the first');
SELECT is((SELECT sum(graphs) FROM bt_outcomes), 0::numeric, 'no cancelled build left a graph');
SELECT lives_ok($$SELECT grail.create_graph('bt_after', 'bt_edges')$$, 'a build after the cancels');
SELECT is(bt_wrong('bt_after', 'int'), 0::bigint, 'after the cancels: every pair as the rows say');

SELECT * FROM finish();
ROLLBACK;
