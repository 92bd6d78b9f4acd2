-- The array form of reachable() on a graph where many pairs need a search (a deep random DAG),
-- so that its batched search (on the GPU under grail.device = gpu, the pruned DFS otherwise)
-- answers thousands of pairs: against the single form, against a recursive CTE, with NULLs mixed in.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(5);

SELECT setseed(0.2718);
-- 4,000 vertices, 16,000 edges from each tail to one of the next 300 ids: long paths, so the
-- labels leave many pairs to the search.
CREATE TABLE batch_edges (source bigint, target bigint);
INSERT INTO batch_edges
SELECT a, a + 1 + floor(random() * least(300, 3999 - a))::int
FROM (SELECT floor(random() * 3999)::int AS a FROM generate_series(1, 16000)) x;
SELECT grail.create_graph('batch', 'batch_edges');

CREATE TABLE batch_pairs AS
SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE floor(random() * 4000)::bigint END AS a,
       CASE WHEN i % 89 = 0 THEN NULL ELSE floor(random() * 4000)::bigint END AS b
FROM generate_series(1, 20000) i;

SELECT is((SELECT grail.reachable('batch', array_agg(a ORDER BY i), array_agg(b ORDER BY i)) FROM batch_pairs),
          (SELECT array_agg(grail.reachable('batch', a, b) ORDER BY i) FROM batch_pairs),
          'the array form answers 20,000 pairs (NULLs among them) as the single form');

SELECT ok((SELECT count(*) FROM batch_pairs WHERE grail.reachable('batch', a, b)) > 1000,
          'many of the pairs are reachable');
SELECT ok((SELECT count(*) FROM batch_pairs WHERE NOT grail.reachable('batch', a, b)) > 1000,
          'many of the pairs are not');

-- Every pair out of 40 sources against the closure from those sources.
CREATE TABLE batch_sources AS SELECT DISTINCT a AS s FROM batch_pairs WHERE a IS NOT NULL AND a < 2000 LIMIT 40;
CREATE TABLE batch_closure AS
WITH RECURSIVE r(s, t) AS (
	SELECT s, s FROM batch_sources
	UNION
	SELECT r.s, e.target FROM r JOIN batch_edges e ON e.source = r.t)
SELECT * FROM r;
CREATE TABLE batch_all AS
SELECT row_number() OVER (ORDER BY s, t) AS i, s, t
FROM batch_sources, generate_series(0, 3999) t;

SELECT is((SELECT count(*) FROM batch_all a
           JOIN unnest((SELECT grail.reachable('batch', array_agg(s ORDER BY i), array_agg(t::bigint ORDER BY i))
                        FROM batch_all)) WITH ORDINALITY AS got(reached, i) ON got.i = a.i
           WHERE got.reached IS DISTINCT FROM EXISTS (SELECT 1 FROM batch_closure c WHERE c.s = a.s AND c.t = a.t)),
          0::bigint, 'the array form agrees with the closure on every pair from 40 sources (160,000 pairs)');

SELECT is(grail.reachable('batch', ARRAY[]::bigint[], ARRAY[]::bigint[]), ARRAY[]::boolean[], 'an empty batch');

SELECT * FROM finish();
ROLLBACK;
