-- reachable(), scc_components() and bfs() against brute-force answers computed in SQL by
-- recursive CTEs, on 36 random graphs: DAGs and cyclic ones, self-loops, duplicate edges,
-- isolated query ids and ids at the limits of bigint.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(36 * 5);

SELECT setseed(0.4242);
CREATE TABLE oracle_edges (g int, source bigint, target bigint);
CREATE TABLE oracle_vertices (g int, k int, v bigint);

-- Graph g: n = 2 + g % 13 vertices with ids spread over bigint (the extremes in odd graphs),
-- m = (g * 7) % 45 random edges; every third graph a DAG (edges from lower to higher index).
INSERT INTO oracle_vertices
SELECT g, k, CASE WHEN g % 2 = 1 AND k = 0 THEN -9223372036854775808
                  WHEN g % 2 = 1 AND k = 1 THEN 9223372036854775807
                  ELSE (k * 7919 + g * 31) % 1000 - 500 END
FROM generate_series(1, 36) g, generate_series(0, 1 + g % 13) k;

CREATE TABLE oracle_picks AS
SELECT g, floor(random() * (2 + g % 13))::int AS a, floor(random() * (2 + g % 13))::int AS b
FROM generate_series(1, 36) g, generate_series(1, (g * 7) % 45) i;
UPDATE oracle_picks SET a = least(a, b), b = greatest(a, b) WHERE g % 3 = 0;

INSERT INTO oracle_edges
SELECT p.g, va.v, vb.v
FROM oracle_picks p
JOIN oracle_vertices va ON va.g = p.g AND va.k = p.a
JOIN oracle_vertices vb ON vb.g = p.g AND vb.k = p.b;

-- One table and graph per case.
DO $$
BEGIN
	FOR i IN 1..36 LOOP
		EXECUTE format('CREATE TABLE oracle_g%s (source bigint, target bigint)', i);
		EXECUTE format('INSERT INTO oracle_g%s SELECT source, target FROM oracle_edges WHERE g = %s', i, i);
		PERFORM grail.create_graph('oracle' || i, format('oracle_g%s', i)::regclass);
	END LOOP;
END
$$;

CREATE TABLE oracle_closure AS
WITH RECURSIVE r(g, s, t) AS (
	SELECT g, source, target FROM oracle_edges
	UNION
	SELECT r.g, r.s, e.target FROM r JOIN oracle_edges e ON e.g = r.g AND e.source = r.t)
SELECT * FROM r;

-- Vertices that appear in edges, plus ids that are not in the graph.
CREATE TABLE oracle_ids AS
SELECT DISTINCT g, v FROM (SELECT g, source AS v FROM oracle_edges UNION SELECT g, target FROM oracle_edges
                           UNION SELECT g, 123456789 FROM generate_series(1, 36) g) x;

SELECT is((SELECT count(*) FROM oracle_ids a JOIN oracle_ids b ON a.g = b.g AND a.g = i
           WHERE grail.reachable('oracle' || i, a.v, b.v)
                 IS DISTINCT FROM (a.v = b.v OR EXISTS (SELECT 1 FROM oracle_closure c
                                                         WHERE c.g = i AND c.s = a.v AND c.t = b.v))),
          0::bigint, format('graph %s: reachable() agrees with the transitive closure on every pair', i))
FROM generate_series(1, 36) i;

SELECT is((SELECT grail.reachable('oracle' || i, array_agg(a.v ORDER BY a.v, b.v), array_agg(b.v ORDER BY a.v, b.v))
           FROM oracle_ids a JOIN oracle_ids b ON a.g = b.g AND a.g = i),
          (SELECT array_agg(grail.reachable('oracle' || i, a.v, b.v) ORDER BY a.v, b.v)
           FROM oracle_ids a JOIN oracle_ids b ON a.g = b.g AND a.g = i),
          format('graph %s: the array form answers as the single form', i))
FROM generate_series(1, 36) i;

-- Component = smallest vertex among those it reaches and that reach it.
SELECT set_eq(format('SELECT vertex, component FROM grail.scc_components(%L)', 'oracle' || i),
              format($q$SELECT a.v, min(b.v) FROM oracle_ids a JOIN oracle_ids b ON a.g = b.g
                        WHERE a.g = %s AND a.v <> 123456789
                          AND (a.v = b.v OR (EXISTS (SELECT 1 FROM oracle_closure c WHERE c.g = a.g AND c.s = a.v AND c.t = b.v)
                                         AND EXISTS (SELECT 1 FROM oracle_closure c WHERE c.g = a.g AND c.s = b.v AND c.t = a.v)))
                        GROUP BY a.v$q$, i),
              format('graph %s: scc_components() agrees with mutual reachability', i))
FROM generate_series(1, 36) i;

-- BFS from the smallest vertex: depth = shortest distance, parent = smallest vertex one level up.
CREATE TABLE oracle_depth AS
WITH RECURSIVE src AS (SELECT g, min(v) AS s FROM oracle_ids WHERE v <> 123456789 GROUP BY g),
d(g, v, depth) AS (
	SELECT g, s, 0 FROM src
	UNION
	SELECT d.g, e.target, d.depth + 1 FROM d JOIN oracle_edges e ON e.g = d.g AND e.source = d.v WHERE d.depth < 16)
SELECT g, v, min(depth) AS depth FROM d GROUP BY g, v;

SELECT set_eq(format('SELECT vertex, depth FROM grail.bfs(%L, (SELECT min(v) FROM oracle_ids WHERE g = %s))', 'oracle' || i, i),
              format('SELECT v, depth FROM oracle_depth WHERE g = %s', i),
              format('graph %s: bfs() depths are the shortest distances', i))
FROM generate_series(1, 36) i;

SELECT is((SELECT count(*) FROM grail.bfs('oracle' || i, (SELECT min(v) FROM oracle_ids WHERE g = i)) b
           WHERE b.parent IS DISTINCT FROM (SELECT min(e.source) FROM oracle_edges e JOIN oracle_depth d
                                           ON d.g = e.g AND d.v = e.source
                                           WHERE e.g = i AND e.target = b.vertex AND d.depth = b.depth - 1)),
          0::bigint, format('graph %s: bfs() parents are the smallest vertices one level up', i))
FROM generate_series(1, 36) i;

SELECT * FROM finish();
ROLLBACK;
