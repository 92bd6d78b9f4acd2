-- A filter whose kept rows spread over nearly every vertex of the table: the filtered graph is then
-- a sparse DAG of about as many components as vertices (the whole table's graph condenses into a
-- giant component), the shape whose labelling is most of a filtered build. Its answers are checked
-- against a recursive CTE over the rows the filter passes (NULL filter results leave the row out),
-- and against a graph over a table of just those rows (same counts, same answers), for 1, 5 and 16
-- labels, integer (extreme ids) and text keys; a hub with more children than the labelling asks
-- ahead for, a long chain and a cycle among the kept rows; then a live filtered graph with pending
-- inserts and deletes (across the filter), before and after a merge.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(28);
SET client_min_messages = warning;
SELECT setseed(0.4142);

CREATE TABLE fs_e (id serial, source bigint, target bigint, kind text);
-- 6000 random rows over 4000 ids; one in five 'prod', one in twenty NULL, else 'dev'.
INSERT INTO fs_e (source, target, kind)
SELECT floor(random() * 4000)::bigint, floor(random() * 4000)::bigint,
       CASE WHEN i % 5 = 0 THEN 'prod' WHEN i % 20 = 1 THEN NULL ELSE 'dev' END
FROM generate_series(1, 6000) i;
-- Among the kept rows: a hub with 40 children, a chain of 60, a cycle of 3, self-loops, duplicates
-- and the extreme ids; rows with the same edges left out by 'dev' and NULL.
INSERT INTO fs_e (source, target, kind)
SELECT 5000, 5001 + c, 'prod' FROM generate_series(0, 39) c
UNION ALL SELECT 6000 + c, 6001 + c, 'prod' FROM generate_series(0, 59) c
UNION ALL VALUES (7000::bigint, 7001::bigint, 'prod'), (7001, 7002, 'prod'), (7002, 7000, 'prod'), (7002, 5000, 'prod'),
                 (6060, 7000, 'prod'), (7003, 7003, 'prod'), (5001, 5002, 'prod'), (5001, 5002, 'prod'),
                 (-9223372036854775808, 6000, 'prod'), (6030, 9223372036854775807, 'prod'),
                 (9223372036854775807, 1, 'dev'), (1, -9223372036854775808, NULL), (5040, 6000, 'dev'), (5040, 7000, NULL);
CREATE TABLE fs_kept AS SELECT source, target FROM fs_e WHERE kind = 'prod';
CREATE TABLE fs_text (source text, target text, kind text);
INSERT INTO fs_text SELECT 'v' || source, 'v' || target, kind FROM fs_e;
CREATE TABLE fs_text_kept AS SELECT source, target FROM fs_text WHERE kind = 'prod';

SELECT ok(grail.create_graph('fs_g' || l, 'fs_e', labels => l, live => false, filter => 'kind = ''prod''') IS NOT NULL,
          'filtered graph, ' || l || ' labels')
FROM unnest(ARRAY[1, 5, 16]) l;
SELECT ok(grail.create_graph('fs_copy', 'fs_kept', live => false) IS NOT NULL, 'graph of the kept rows');
SELECT ok(grail.create_graph('fs_tg', 'fs_text', live => false, filter => 'kind = ''prod''') IS NOT NULL,
          'filtered graph, text keys');
SELECT ok(grail.create_graph('fs_tcopy', 'fs_text_kept', live => false) IS NOT NULL, 'graph of the kept text rows');

-- The shape: the kept rows' graph has about as many components as vertices; the whole table's not.
SELECT ok((SELECT components > 0.9 * vertices FROM grail.graph WHERE name = 'fs_g5'),
          'the filtered graph is a sparse DAG of about as many components as vertices');
SELECT is((SELECT array_agg((vertices, edges, components)::text ORDER BY name) FROM grail.graph
           WHERE name IN ('fs_g1', 'fs_g5', 'fs_g16', 'fs_copy')),
          (SELECT array_fill((vertices, edges, components)::text, ARRAY[4]) FROM grail.graph WHERE name = 'fs_copy'),
          'the filtered graphs have the counts of the graph of the kept rows');

-- Pairs: sources and targets among the kept rows' vertices, the hub, chain and cycle, the extreme
-- ids, and ids that are no vertex of the filtered graph (only in left-out rows, or nowhere).
CREATE TABLE fs_points AS
SELECT v FROM (SELECT source AS v FROM fs_kept UNION SELECT target FROM fs_kept) k ORDER BY random() LIMIT 70;
INSERT INTO fs_points VALUES (5000), (5001), (5039), (6000), (6059), (6060), (7000), (7002), (7003),
       (-9223372036854775808), (9223372036854775807), (5040), (123456789), (-1);
INSERT INTO fs_points SELECT 6006 + 6 * c FROM generate_series(0, 8) c UNION ALL SELECT 5008 + 7 * c FROM generate_series(0, 4) c;
CREATE TABLE fs_closure AS
WITH RECURSIVE r(s, v) AS (
	SELECT v, v FROM fs_points
	UNION
	SELECT r.s, k.target FROM r JOIN fs_kept k ON k.source = r.v
)
SELECT s, v FROM r;
CREATE TABLE fs_pairs AS SELECT a.v AS a, b.v AS b, EXISTS (SELECT 1 FROM fs_closure c WHERE c.s = a.v AND c.v = b.v) AS reaches
FROM fs_points a CROSS JOIN fs_points b;
SELECT ok((SELECT count(*) FILTER (WHERE reaches AND a <> b) > 100 FROM fs_pairs), 'some pairs reach');

SELECT is((SELECT count(*) FROM fs_pairs WHERE grail.reachable('fs_g' || l, a, b) IS DISTINCT FROM reaches), 0::bigint,
          'reachable() per row agrees with the recursive CTE over the kept rows, ' || l || ' labels')
FROM unnest(ARRAY[1, 5, 16]) l;
SELECT is((SELECT array_agg(x ORDER BY i) FROM unnest(grail.reachable('fs_g' || l, (SELECT array_agg(a ORDER BY a, b) FROM fs_pairs),
                                                              (SELECT array_agg(b ORDER BY a, b) FROM fs_pairs))) WITH ORDINALITY r(x, i)),
          (SELECT array_agg(reaches ORDER BY a, b) FROM fs_pairs),
          'reachable() over arrays agrees with the recursive CTE, ' || l || ' labels')
FROM unnest(ARRAY[1, 5, 16]) l;
SELECT is((SELECT count(*) FROM fs_pairs WHERE grail.reachable('fs_copy', a, b) IS DISTINCT FROM reaches), 0::bigint,
          'the graph of the kept rows agrees too');
SELECT is((SELECT count(*) FROM fs_pairs WHERE grail.reachable('fs_tg', 'v' || a, 'v' || b) IS DISTINCT FROM reaches),
          0::bigint, 'text keys: reachable() agrees with the recursive CTE');
SELECT is((SELECT count(*) FROM fs_pairs WHERE grail.reachable('fs_tcopy', 'v' || a, 'v' || b) IS DISTINCT FROM reaches),
          0::bigint, 'text keys: the graph of the kept rows agrees too');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('fs_g5', 5000::bigint) WHERE vertex <> 5000),
          (SELECT array_agg(v ORDER BY v) FROM fs_closure WHERE s = 5000 AND v <> 5000),
          'descendants() of the hub: the kept rows'' closure');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('fs_g16', '-9223372036854775808'::bigint)
           WHERE vertex <> -9223372036854775808),
          (SELECT array_agg(v ORDER BY v) FROM fs_closure WHERE s = -9223372036854775808 AND v <> -9223372036854775808),
          'descendants() from the smallest id: the chain, the cycle, the hub and the largest id');
SELECT is(grail.reachable('fs_g5', 9223372036854775807, 1), false, 'a left-out row is no edge');
SELECT is(grail.reachable('fs_g5', 1, -9223372036854775808), false, 'a row with a NULL filter result is no edge');
SELECT is(grail.reachable('fs_g5', NULL::bigint, 1), NULL, 'NULL source: NULL');

-- A live filtered graph: pending inserts and deletes, across the filter, answer as the rows the
-- snapshot sees; a merge (a new build, labelled again) answers the same.
SELECT ok(grail.create_graph('fs_live', 'fs_e', filter => 'kind = ''prod''') IS NOT NULL, 'live filtered graph');
INSERT INTO fs_e (source, target, kind) VALUES (6059, 5000, 'prod'), (5039, 6000, 'dev'), (7003, 6000, NULL),
       (5039, -9223372036854775808, 'prod');
DELETE FROM fs_e WHERE source = 6030 AND target = 6031;
UPDATE fs_e SET kind = 'dev' WHERE source = 7001 AND target = 7002;
UPDATE fs_e SET kind = 'prod' WHERE source = 5040 AND target = 6000;
CREATE TEMP TABLE fs_closure2 AS
WITH RECURSIVE r(s, v) AS (
	SELECT v, v FROM fs_points
	UNION
	SELECT r.s, e.target FROM r JOIN fs_e e ON e.source = r.v AND e.kind = 'prod'
)
SELECT s, v FROM r;
CREATE TEMP TABLE fs_pairs2 AS SELECT a.v AS a, b.v AS b,
       EXISTS (SELECT 1 FROM fs_closure2 c WHERE c.s = a.v AND c.v = b.v) AS reaches
FROM fs_points a CROSS JOIN fs_points b;
SELECT ok((SELECT count(*) FROM fs_pairs2 p JOIN fs_pairs q USING (a, b) WHERE p.reaches <> q.reaches) > 0,
          'the writes change some answers');
SELECT is((SELECT count(*) FROM fs_pairs2 WHERE grail.reachable('fs_live', a, b) IS DISTINCT FROM reaches), 0::bigint,
          'pending changes: reachable() agrees with the recursive CTE over the rows the snapshot sees');
SELECT ok(grail.merge_graph('fs_live') IS NOT NULL, 'merged');
SELECT is((SELECT count(*) FROM fs_pairs2 WHERE grail.reachable('fs_live', a, b) IS DISTINCT FROM reaches), 0::bigint,
          'after the merge: reachable() agrees with the recursive CTE');

SELECT * FROM finish();
ROLLBACK;
