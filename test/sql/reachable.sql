-- reachable(): single pairs and arrays, on the graph 'g' that create_graph.sql builds and refreshes:
-- 1 -> 2 -> 3 -> 1 (an SCC), 3 -> 4 -> 5 -> 1, 5 -> 5, 6 -> 7, min -> max.
CREATE TABLE edges (source bigint, target bigint);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 5), (4, 5), (6, 7),
	(-9223372036854775808, 9223372036854775807), (5, 1);
SELECT regexp_replace(grail.create_graph('g', 'edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT s, t, grail.reachable('g', s, t)
FROM (VALUES (1, 2), (2, 1), (1, 5), (5, 3), (4, 4), (6, 7), (7, 6), (1, 6), (6, 1)) AS p(s, t)
ORDER BY s, t;

-- Extreme ids.
SELECT grail.reachable('g', -9223372036854775808, 9223372036854775807),
       grail.reachable('g', 9223372036854775807, -9223372036854775808);

-- Every vertex reaches itself; an id that is not in the graph reaches only itself.
SELECT grail.reachable('g', 42, 42), grail.reachable('g', 42, 1), grail.reachable('g', 1, 42);

-- NULL arguments give NULL.
SELECT grail.reachable('g', NULL, 1) IS NULL, grail.reachable('g', 1, NULL) IS NULL,
       grail.reachable(NULL, 1, 1) IS NULL;

-- Arrays: one answer per pair, NULL for a NULL element.
SELECT grail.reachable('g', ARRAY[1, 2, 6, 7, NULL, 42, 42]::bigint[], ARRAY[5, 1, 7, 6, 1, NULL, 42]::bigint[]);
SELECT grail.reachable('g', ARRAY[]::bigint[], ARRAY[]::bigint[]);
SELECT grail.reachable('g', NULL::bigint[], ARRAY[1]::bigint[]) IS NULL;

-- Per row over a table, two graphs in one statement.
CREATE TABLE other_edges (source bigint, target bigint);
INSERT INTO other_edges VALUES (7, 6);
SELECT regexp_replace(grail.create_graph('h', 'other_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT gname, count(*) FILTER (WHERE grail.reachable(gname, s, t)) AS reachable_pairs
FROM (VALUES ('g'), ('h')) AS gs(gname), generate_series(1, 7) AS s, generate_series(1, 7) AS t
GROUP BY gname ORDER BY gname;
SELECT grail.drop_graph('h');
DROP TABLE other_edges;

-- A parallel plan gives the same answers.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE pairs AS SELECT s, t FROM generate_series(-1, 8) s, generate_series(-1, 8) t;
SELECT count(*) FILTER (WHERE grail.reachable('g', s, t)) FROM pairs;
RESET ALL;
SELECT count(*) FILTER (WHERE grail.reachable('g', s, t)) FROM pairs;
DROP TABLE pairs;
SELECT grail.drop_graph('g');
DROP TABLE edges;
