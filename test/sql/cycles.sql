-- chordless_cycles(), chordless_cycle_counts(), save_chordless_cycles(): induced cycles of the
-- undirected simple view of a graph, each once, from its smallest id towards the smaller neighbour.
CREATE TABLE cyc_edges (source bigint, target bigint);
-- A square 1-2-3-4 with the chord 2-4 (given both ways): two triangles, no 4-cycle. A pentagon
-- 10..14 given against its direction, with a tail. A self-loop, a duplicate edge, and a triangle
-- on the extreme ids.
INSERT INTO cyc_edges VALUES (1, 2), (2, 3), (3, 4), (4, 1), (2, 4), (4, 2), (3, 3), (1, 2),
	(11, 10), (12, 11), (13, 12), (14, 13), (10, 14), (14, 20), (20, 21),
	(-9223372036854775808, 0), (0, 9223372036854775807), (9223372036854775807, -9223372036854775808);
SELECT regexp_replace(grail.create_graph('cyc', 'cyc_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');

SELECT c AS cycle FROM grail.chordless_cycles('cyc') c ORDER BY c;
SELECT c AS cycle FROM grail.chordless_cycles('cyc', 4) c ORDER BY c;
SELECT c AS cycle FROM grail.chordless_cycles('cyc', 3, 3) c ORDER BY c;
SELECT c AS cycle FROM grail.chordless_cycles('cyc', max_length => 4) c ORDER BY c;
SELECT c AS cycle FROM grail.chordless_cycles('cyc', 6) c ORDER BY c;
SELECT * FROM grail.chordless_cycle_counts('cyc');
SELECT * FROM grail.chordless_cycle_counts('cyc', 4);
SELECT * FROM grail.chordless_cycle_counts('cyc', max_length => 3);

-- NULL graph or min_length: no rows; NULL max_length: no limit.
SELECT count(*) FROM grail.chordless_cycles(NULL);
SELECT count(*) FROM grail.chordless_cycles('cyc', NULL::int);
SELECT count(*) FROM grail.chordless_cycles('cyc', 3, NULL);
SELECT count(*) FROM grail.chordless_cycle_counts(NULL);
SELECT * FROM grail.chordless_cycle_counts('cyc', NULL);

-- A graph without edges has no cycles.
CREATE TABLE cyc_empty (source int, target int);
SELECT regexp_replace(grail.create_graph('cyc_empty', 'cyc_empty'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT count(*) FROM grail.chordless_cycles('cyc_empty');
SELECT count(*) FROM grail.chordless_cycle_counts('cyc_empty');

-- The Petersen graph: 12 chordless 5-cycles and 10 chordless 6-cycles.
CREATE TABLE petersen (source int, target int);
INSERT INTO petersen SELECT i, (i + 1) % 5 FROM generate_series(0, 4) i
	UNION ALL SELECT i, i + 5 FROM generate_series(0, 4) i
	UNION ALL SELECT i + 5, (i + 2) % 5 + 5 FROM generate_series(0, 4) i;
SELECT regexp_replace(grail.create_graph('petersen', 'petersen'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT * FROM grail.chordless_cycle_counts('petersen');
SELECT cardinality(c) AS length, count(*) FROM grail.chordless_cycles('petersen') c GROUP BY 1 ORDER BY 1;
SELECT count(DISTINCT c) FROM grail.chordless_cycles('petersen') c;

-- Grids of Table 1 in papers/gpu-chordless-cycles.txt: 5 x 10 has 52,620 chordless cycles,
-- 6 x 10 has 800,139, 8 x 10 has 71,535,910.
CREATE TABLE grid (source int, target int);
CREATE FUNCTION grid_edges(rows int, cols int) RETURNS TABLE (source int, target int) LANGUAGE sql AS $$
	SELECT r * 100 + c, r * 100 + c + 1 FROM generate_series(0, rows - 1) r, generate_series(0, cols - 2) c
	UNION ALL
	SELECT r * 100 + c, (r + 1) * 100 + c FROM generate_series(0, rows - 2) r, generate_series(0, cols - 1) c
$$;
INSERT INTO grid SELECT * FROM grid_edges(5, 10);
SELECT regexp_replace(grail.create_graph('grid', 'grid'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT count(*) FROM grail.chordless_cycles('grid');
SELECT sum(cycles) FROM grail.chordless_cycle_counts('grid');
-- Counts by length agree with the enumeration.
SELECT count(*) AS disagreements
FROM (SELECT cardinality(c) AS length, count(*) AS cycles FROM grail.chordless_cycles('grid') c GROUP BY 1) e
FULL JOIN grail.chordless_cycle_counts('grid') n USING (length)
WHERE e.cycles IS DISTINCT FROM n.cycles;
SELECT * FROM grail.chordless_cycle_counts('grid', 8);

-- grail.device: where a GPU is usable, gpu gives the same cycles and counts as cpu, and a graph
-- above the GPU search's 4,096 vertices is an error under gpu and runs on the CPU under auto;
-- elsewhere gpu is an error that says why.
-- C_5000 given both ways, so that auto's rule (edges >= 2 * vertices) sends it to the GPU.
CREATE TABLE cyc_big AS SELECT i AS source, (i + 1) % 5000 AS target FROM generate_series(0, 4999) i
	UNION ALL SELECT (i + 1) % 5000, i FROM generate_series(0, 4999) i;
SELECT regexp_replace(grail.create_graph('cyc_big', 'cyc_big'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SET grail.device = gpu;
DO $$
DECLARE
	g text;
	on_gpu text[];
	on_cpu text[];
BEGIN
	FOREACH g IN ARRAY ARRAY['cyc', 'petersen', 'grid'] LOOP
		on_gpu := ARRAY[(SELECT string_agg(c::text, ' ' ORDER BY c) FROM grail.chordless_cycles(g) c),
		                (SELECT string_agg(c::text, ' ' ORDER BY c) FROM grail.chordless_cycles(g, 5, 7) c),
		                (SELECT string_agg(format('%s:%s', length, cycles), ' ') FROM grail.chordless_cycle_counts(g)),
		                (SELECT string_agg(format('%s:%s', length, cycles), ' ') FROM grail.chordless_cycle_counts(g, 6))];
		IF grail.device_info() NOT LIKE 'GPU:%' THEN
			RAISE EXCEPTION 'chordless cycles ran under grail.device = gpu without a GPU';
		END IF;
		PERFORM set_config('grail.device', 'cpu', true);
		on_cpu := ARRAY[(SELECT string_agg(c::text, ' ' ORDER BY c) FROM grail.chordless_cycles(g) c),
		                (SELECT string_agg(c::text, ' ' ORDER BY c) FROM grail.chordless_cycles(g, 5, 7) c),
		                (SELECT string_agg(format('%s:%s', length, cycles), ' ') FROM grail.chordless_cycle_counts(g)),
		                (SELECT string_agg(format('%s:%s', length, cycles), ' ') FROM grail.chordless_cycle_counts(g, 6))];
		PERFORM set_config('grail.device', 'gpu', true);
		IF on_gpu IS DISTINCT FROM on_cpu THEN
			RAISE EXCEPTION 'graph %: GPU cycles or counts differ from the CPU''s', g;
		END IF;
	END LOOP;
	BEGIN
		PERFORM grail.chordless_cycle_counts('cyc_big');
		RAISE EXCEPTION 'a graph of 5000 vertices ran on the GPU';
	EXCEPTION WHEN program_limit_exceeded THEN
		IF SQLERRM NOT LIKE '%5000 vertices%4096%' THEN
			RAISE;
		END IF;
	END;
	PERFORM set_config('grail.device', 'auto', true);
	PERFORM set_config('grail.gpu_min_edges', '0', true);
	PERFORM set_config('client_min_messages', 'warning', true); -- the NOTICE of the fallback
	IF (SELECT array_agg(c) FROM grail.chordless_cycles('cyc_big') c) <> ARRAY[(SELECT array_agg(i::bigint) FROM generate_series(0, 4999) i)] THEN
		RAISE EXCEPTION 'C_5000 under auto: wrong cycle';
	END IF;
EXCEPTION WHEN invalid_parameter_value THEN
	IF grail.device_info() LIKE 'GPU:%' OR SQLERRM NOT LIKE 'grail.device is gpu, but no GPU is usable: %' THEN
		RAISE;
	END IF;
END
$$;
RESET grail.device;
SELECT grail.drop_graph('cyc_big');
DROP TABLE cyc_big;
TRUNCATE grid;
INSERT INTO grid SELECT * FROM grid_edges(6, 10);
-- The graph is live: the new rows answer at once, as after a refresh.
SELECT count(*) FROM grail.chordless_cycles('grid');
SELECT regexp_replace(grail.refresh_graph('grid'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT sum(cycles) FROM grail.chordless_cycle_counts('grid');

-- In the select list the rows stream: LIMIT stops a search of 71.5 million cycles at once.
TRUNCATE grid;
INSERT INTO grid SELECT * FROM grid_edges(8, 10);
SELECT regexp_replace(grail.refresh_graph('grid'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT clock_timestamp() AS started \gset
-- Which cycles come first depends on the device (grail.device): only their lengths are shown.
SELECT cardinality(c) >= 12 AS long_enough FROM (SELECT grail.chordless_cycles('grid', 12) AS c LIMIT 3) s;
SELECT cardinality(c) FROM (SELECT grail.chordless_cycles('grid', 20, 20) AS c LIMIT 2) s;
SELECT clock_timestamp() - :'started' < interval '2 s' AS stopped_early;
-- Once per outer row, each run from the start: the 63 squares of the grid.
SELECT n, count(*) FROM (SELECT n, grail.chordless_cycles('grid', 4, 4) FROM generate_series(1, 2) n) s GROUP BY n ORDER BY n;
SELECT n, cardinality(c) >= 5 + n AS long_enough FROM generate_series(1, 2) n, LATERAL (SELECT grail.chordless_cycles('grid', 5 + n) AS c LIMIT 1) s;

-- statement_timeout stops the search promptly, enumerating or counting: on a 10x10 grid, whose
-- count takes far longer than the timeout on the CPU and the GPU alike (the 8x10 grid's 71.5
-- million cycles are counted within it on an H100).
TRUNCATE grid;
INSERT INTO grid SELECT * FROM grid_edges(10, 10);
SELECT regexp_replace(grail.refresh_graph('grid'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT clock_timestamp() AS started \gset
SET statement_timeout = '300ms';
SELECT count(*) FROM grail.chordless_cycles('grid');
SELECT * FROM grail.chordless_cycle_counts('grid');
RESET statement_timeout;
SELECT clock_timestamp() - :'started' < interval '1.5 s' AS stopped_promptly;

-- Persisting: a new table (id, length, vertices); the name is read like an SQL name and quoted.
SELECT grail.save_chordless_cycles('cyc', 'Saved_Cycles');
SELECT id BETWEEN 1 AND 4 AS id_in_range, length, vertices FROM saved_cycles ORDER BY vertices;
SELECT count(DISTINCT id) FROM saved_cycles;
SELECT grail.save_chordless_cycles('cyc', '"Odd ""name"".x"', 4);
SELECT * FROM "Odd ""name"".x";
CREATE SCHEMA cyc_schema;
SELECT grail.save_chordless_cycles('cyc', 'cyc_schema."Triangles"', 3, 3);
SELECT length, vertices FROM cyc_schema."Triangles" ORDER BY vertices;
SELECT grail.save_chordless_cycles('petersen', 'petersen_cycles', max_length => 5);
SELECT length, count(*) FROM petersen_cycles GROUP BY 1;
\d saved_cycles

-- Bad input: a clear error, and no table left behind.
SELECT grail.save_chordless_cycles('cyc', 'saved_cycles');
SELECT grail.save_chordless_cycles('cyc', 'x; DROP TABLE cyc_edges');
SELECT grail.save_chordless_cycles('cyc', 'a.b.c.d');
SELECT grail.save_chordless_cycles('cyc', 'no_such_schema.t');
SELECT grail.save_chordless_cycles('nope', 'bad1');
SELECT grail.save_chordless_cycles('cyc', 'bad2', 2);
SELECT grail.save_chordless_cycles('cyc', 'bad3', 5, 4);
SELECT grail.save_chordless_cycles(NULL, 'bad4');
SELECT grail.save_chordless_cycles('cyc', NULL);
SELECT grail.save_chordless_cycles('cyc', 'bad5', NULL);
SELECT count(*) FROM pg_class WHERE relname IN ('bad1', 'bad2', 'bad3', 'bad4', 'bad5');
SELECT * FROM grail.chordless_cycles('nope');
SELECT * FROM grail.chordless_cycle_counts('nope');
SELECT * FROM grail.chordless_cycles('cyc', 2);
SELECT * FROM grail.chordless_cycles('cyc', -1);
SELECT * FROM grail.chordless_cycles('cyc', 5, 4);
SELECT * FROM grail.chordless_cycles('cyc', max_length => 2);
SELECT * FROM grail.chordless_cycle_counts('cyc', 2);
SELECT * FROM grail.chordless_cycle_counts('cyc', 0);

-- No SELECT on the edge table: no cycles from its graph either.
CREATE ROLE cyc_tester;
SET ROLE cyc_tester;
SELECT * FROM grail.chordless_cycles('cyc');
SELECT * FROM grail.chordless_cycle_counts('cyc');
RESET ROLE;
DROP ROLE cyc_tester;

DROP SCHEMA cyc_schema CASCADE;
DROP TABLE saved_cycles, "Odd ""name"".x", petersen_cycles;
DROP TABLE cyc_edges, cyc_empty, petersen, grid;
DROP FUNCTION grid_edges(int, int);
SELECT name FROM grail.graphs WHERE name IN ('cyc', 'cyc_empty', 'petersen', 'grid');
