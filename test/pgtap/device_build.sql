-- Graph builds on each device (grail.device = cpu, auto, gpu) against brute-force answers computed
-- in SQL by a recursive CTE: on the GPU the graph, its components and its DAG are made on the device
-- from the rows, and must answer exactly as the CPU's build. Random graphs with cycles, self-loops
-- (a vertex only in a self-loop row is isolated), duplicate rows and ids at the limits of bigint.
-- Without a usable GPU, grail.device = gpu refuses with its error and the other two build on the
-- CPU. Then the read's memory limit: the rows count as the host's build holds them unless the GPU
-- makes the graph, and a build the GPU leaves to the host keeps the host's limit.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(20 * 3 + 4);

SELECT setseed(0.2626);
CREATE TABLE devb_edges (g int, source bigint, target bigint);
CREATE TABLE devb_vertices (g int, k int, v bigint);
INSERT INTO devb_vertices
SELECT g, k, CASE WHEN g % 2 = 1 AND k = 0 THEN -9223372036854775808
                  WHEN g % 2 = 1 AND k = 1 THEN 9223372036854775807
                  ELSE (k * 7919 + g * 131) % 2000 - 1000 END
FROM generate_series(1, 20) g, generate_series(0, 2 + g % 12) k;
-- Random rows (duplicates among them), every fourth graph a DAG, and a self-loop row on the last
-- vertex, which has no other row in half the graphs.
CREATE TABLE devb_picks AS
SELECT g, floor(random() * (2 + g % 12))::int AS a, floor(random() * (2 + g % 12))::int AS b
FROM generate_series(1, 20) g, generate_series(1, 3 + (g * 11) % 40) i;
UPDATE devb_picks SET a = least(a, b), b = greatest(a, b) WHERE g % 4 = 0;
INSERT INTO devb_picks SELECT g, 2 + g % 12, 2 + g % 12 FROM generate_series(1, 20) g;
INSERT INTO devb_picks SELECT g, 0, 1 FROM generate_series(1, 20) g WHERE g % 2 = 0;
INSERT INTO devb_edges
SELECT p.g, va.v, vb.v
FROM devb_picks p
JOIN devb_vertices va ON va.g = p.g AND va.k = p.a
JOIN devb_vertices vb ON vb.g = p.g AND vb.k = p.b;

-- 'ok' when graph g built under device answers every pair of its vertices (and two ids that are
-- none) and every component as the closure of its rows does; 'no GPU' when the device is gpu and
-- none is usable; else the first difference.
CREATE FUNCTION devb_check(g int, device text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	name text := format('devb_%s_%s', g, device);
	bad text;
BEGIN
	EXECUTE format('CREATE TABLE %I AS SELECT source, target FROM devb_edges WHERE g = %s',
	               name, g);
	PERFORM set_config('grail.device', device, true);
	BEGIN
		PERFORM grail.create_graph(name, name::regclass);
	EXCEPTION WHEN OTHERS THEN
		IF device = 'gpu' AND SQLERRM LIKE '%no GPU is usable%' THEN
			RETURN 'no GPU';
		END IF;
		RETURN 'create_graph: ' || SQLERRM;
	END;
	PERFORM set_config('grail.device', 'cpu', true);
	WITH RECURSIVE ids(v) AS (
		SELECT source FROM devb_edges WHERE devb_edges.g = devb_check.g
		UNION SELECT target FROM devb_edges WHERE devb_edges.g = devb_check.g
	), reach(a, b) AS (
		SELECT v, v FROM ids
		UNION
		SELECT r.a, e.target FROM reach r JOIN devb_edges e ON e.g = devb_check.g AND e.source = r.b
	), pairs AS (
		SELECT a.v AS a, b.v AS b, EXISTS (SELECT 1 FROM reach WHERE reach.a = a.v AND reach.b = b.v) AS expected
		FROM (SELECT v FROM ids UNION SELECT 4242424242) a, (SELECT v FROM ids UNION SELECT -4242424242) b
	), components AS (
		SELECT v, (SELECT min(r.b) FROM reach r WHERE r.a = ids.v
		           AND EXISTS (SELECT 1 FROM reach s WHERE s.a = r.b AND s.b = ids.v)) AS component
		FROM ids
	)
	SELECT coalesce(
	    (SELECT format('reachable(%s, %s) is %s', a, b, NOT expected) FROM pairs
	     WHERE grail.reachable(name, a, b) IS DISTINCT FROM expected LIMIT 1),
	    (SELECT format('vertex %s in component %s, not %s', c.v, s.component, c.component)
	     FROM components c FULL JOIN grail.scc_components(name) s ON s.vertex = c.v
	     WHERE s.component IS DISTINCT FROM c.component LIMIT 1))
	INTO bad;
	RETURN coalesce(bad, 'ok');
END
$$;

SELECT is(devb_check(g, device), 'ok', format('graph %s built under grail.device = %s', g, device))
FROM generate_series(1, 20) g, unnest(ARRAY['cpu', 'auto']) device ORDER BY g, device;
SELECT ok(devb_check(g, 'gpu') IN ('ok', 'no GPU'), format('graph %s built under grail.device = gpu', g))
FROM generate_series(1, 20) g;

-- The read's limit. 20001 rows: more than 1MB allows at the host's 80 bytes per row.
CREATE TABLE devb_rows (source bigint, target bigint);
INSERT INTO devb_rows SELECT i, i + 1 FROM generate_series(1, 20001) i;
SET grail.build_memory_limit = '1MB';
SET grail.device = cpu;
SELECT throws_like($$SELECT grail.create_graph('devb_rows', 'devb_rows')$$,
                   '%needs more memory than grail.build_memory_limit allows: it has more than 13107 rows%',
                   'under cpu the read counts 80 bytes per row');
-- Under auto a graph this small is not sent to the GPU, whether or not one is usable: refused by
-- the read (no GPU) or before the host's steps allocate (rows read for a GPU).
SET grail.device = auto;
SELECT throws_ok($$SELECT grail.create_graph('devb_rows', 'devb_rows')$$, '54000', NULL,
                 'under auto the host''s limit holds for a graph the GPU does not make');
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'devb_rows'), 0::bigint, 'and nothing was stored');
RESET grail.build_memory_limit;
SELECT lives_ok($$SELECT grail.create_graph('devb_rows', 'devb_rows')$$, 'without the small limit it builds');

SELECT * FROM finish();
ROLLBACK;
