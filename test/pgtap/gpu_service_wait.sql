-- grail.gpu_service_wait: how long a call under grail.device = auto waits for the GPU service
-- before the CPU answers (TAP test/t/025 holds requests in a running service to see it act). Here,
-- where no service runs: the setting's definition, its bad values, and that under any wait the
-- answers stay those of a recursive query over the edge rows (random graphs with cycles,
-- self-loops, duplicate edges, extreme ids, keys the graph lacks, NULLs).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(13);
SET client_min_messages = warning;

SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'grail.gpu_service_wait'), '5000', 'default: 5 s');
SELECT is((SELECT unit FROM pg_settings WHERE name = 'grail.gpu_service_wait'), 'ms', 'unit: ms');
SELECT is((SELECT min_val FROM pg_settings WHERE name = 'grail.gpu_service_wait'), '0', 'minimum 0 (no limit)');
SELECT is((SELECT context FROM pg_settings WHERE name = 'grail.gpu_service_wait'), 'user', 'any session may set it');
SELECT throws_ok($$SET grail.gpu_service_wait = -1$$, '22023', NULL, 'a negative wait is refused');
SELECT throws_ok($$SET grail.gpu_service_wait = 'soon'$$, '22023', NULL, 'a wait that is no duration is refused');
SET grail.gpu_service_wait = '2s';
SELECT is(current_setting('grail.gpu_service_wait'), '2s', 'a duration is taken');

SELECT setseed(0.5);
CREATE TABLE wait_e (source bigint, target bigint);
INSERT INTO wait_e SELECT (random() * 60)::bigint, (random() * 60)::bigint FROM generate_series(1, 90);
INSERT INTO wait_e VALUES (7, 7), (7, 7), (8, 9), (8, 9), (-9223372036854775808, 9223372036854775807),
	(9223372036854775807, 3), (3, -9223372036854775808);
-- Reachability by a recursive query over the rows.
CREATE FUNCTION pg_temp.reaches(a bigint, b bigint) RETURNS boolean LANGUAGE sql AS $$
	SELECT a IS NOT NULL AND b IS NOT NULL AND (a = b OR EXISTS (
		WITH RECURSIVE walk(v) AS (SELECT a UNION SELECT e.target FROM walk JOIN wait_e e ON e.source = walk.v)
		SELECT 1 FROM walk WHERE v = b))
$$;
SELECT lives_ok($$SELECT grail.create_graph('wait_g', 'wait_e')$$, 'a graph');
CREATE TEMP TABLE wait_pairs AS
SELECT a, b FROM (SELECT (random() * 70)::bigint AS a, (random() * 70)::bigint AS b FROM generate_series(1, 300)) p
UNION ALL VALUES (NULL::bigint, 1::bigint), (1, NULL), (-9223372036854775808, 3), (3, 9223372036854775807), (99999, 99999), (99999, 3);
SET grail.device = auto;
SET grail.gpu_min_edges = 0;
SET grail.gpu_service_wait = 1;
SELECT is((SELECT grail.reachable('wait_g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)) FROM wait_pairs),
          (SELECT array_agg(CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE pg_temp.reaches(a, b) END ORDER BY a, b) FROM wait_pairs),
          'auto, a 1 ms wait, no service: a batch answers as the rows say');
SET grail.gpu_service_wait = 0;
SELECT is((SELECT array_agg(grail.reachable('wait_g', a, b) ORDER BY a, b) FROM wait_pairs),
          (SELECT array_agg(CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE pg_temp.reaches(a, b) END ORDER BY a, b) FROM wait_pairs),
          'auto, no limit, no service: pair by pair as the rows say');
SET grail.gpu_service_wait = 1;
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('wait_g', 3)),
          (WITH RECURSIVE walk(v) AS (SELECT 3::bigint UNION SELECT e.target FROM walk JOIN wait_e e ON e.source = walk.v)
           SELECT array_agg(v ORDER BY v) FROM walk),
          'descendants under a 1 ms wait: as the rows say');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.ancestors('wait_g', 9223372036854775807)),
          (WITH RECURSIVE walk(v) AS (SELECT 9223372036854775807::bigint UNION SELECT e.source FROM walk JOIN wait_e e ON e.target = walk.v)
           SELECT array_agg(v ORDER BY v) FROM walk),
          'ancestors under a 1 ms wait: as the rows say');
SELECT is((SELECT count(*) FROM grail.bfs('wait_g', 123456)), 1::bigint, 'a key the graph lacks: its one row');

SELECT * FROM finish();
ROLLBACK;
