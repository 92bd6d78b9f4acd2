-- grail.device: cpu and auto run everywhere; gpu without a usable GPU is an error that says why.
CREATE TABLE device_edges (source int, target int);
INSERT INTO device_edges VALUES (1, 2), (2, 3), (3, 1), (3, 4);
SELECT regexp_replace(grail.create_graph('device', 'device_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT boot_val FROM pg_settings WHERE name = 'grail.device';
SELECT grail.device_info() ~ '^(GPU|CPU only): ' AS device_info_explains;
SET grail.device = cpu;
SELECT * FROM grail.bfs('device', 1);
SET grail.device = auto;
SELECT * FROM grail.bfs('device', 1);
-- Where a GPU is usable, the build's components and bfs() are computed there with the same
-- results; elsewhere, the error says why.
SET grail.device = gpu;
DO $$
DECLARE
	gpu_rows text;
	cpu_rows text;
BEGIN
	PERFORM grail.refresh_graph('device');
	IF (SELECT array_agg(component ORDER BY vertex) FROM grail.scc_components('device')) <> ARRAY[1, 1, 1, 4]::bigint[] THEN
		RAISE EXCEPTION 'GPU components differ from the CPU''s';
	END IF;
	SELECT string_agg(format('%s/%s/%s', vertex, depth, parent), ' ') INTO gpu_rows FROM grail.bfs('device', 1);
	-- (The GPU service's CPU stand-in, which the test clusters run, answers as the GPU would.)
	IF grail.device_info() NOT LIKE 'GPU:%' AND grail.device_info() NOT LIKE '%GPU service: running%' THEN
		RAISE EXCEPTION 'bfs() ran under grail.device = gpu without a GPU or the GPU service';
	END IF;
	PERFORM set_config('grail.device', 'cpu', true);
	SELECT string_agg(format('%s/%s/%s', vertex, depth, parent), ' ') INTO cpu_rows FROM grail.bfs('device', 1);
	IF gpu_rows IS DISTINCT FROM cpu_rows THEN
		RAISE EXCEPTION 'GPU rows % differ from CPU rows %', gpu_rows, cpu_rows;
	END IF;
EXCEPTION WHEN invalid_parameter_value THEN
	IF grail.device_info() LIKE 'GPU:%' OR SQLERRM NOT LIKE 'grail.device is gpu, but no GPU is usable: %' THEN
		RAISE;
	END IF;
END
$$;
SET grail.device = tpu;
SET grail.gpu_min_edges = -1;
RESET grail.device;
SELECT grail.drop_graph('device');
DROP TABLE device_edges;
