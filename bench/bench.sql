-- Helpers of the benchmark harness (bench/run.sh), in their own schema "bench" of the benchmark
-- database. Timings are taken inside the server with clock_timestamp(), so they do not include
-- the client round trip or psql's output.

SET client_min_messages = warning;
DROP SCHEMA IF EXISTS bench CASCADE;
CREATE SCHEMA bench;

-- Runs each query of qs, runs times, interleaved (q1 q2 ... q1 q2 ...) so that drift of the
-- machine hits every query alike. Each query must return one value (e.g. a count). Every query
-- runs once untimed first (warms caches, loads the index into this backend).
CREATE FUNCTION bench.time_queries(qs text[], runs int)
RETURNS TABLE (query int, run int, ms float8, result text)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz;
	r text;
BEGIN
	FOR k IN 1 .. array_length(qs, 1) LOOP
		EXECUTE qs[k] INTO r;
	END LOOP;
	FOR i IN 1 .. runs LOOP
		FOR k IN 1 .. array_length(qs, 1) LOOP
			t0 := clock_timestamp();
			EXECUTE qs[k] INTO r;
			query := k;
			run := i;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			result := r;
			RETURN NEXT;
		END LOOP;
	END LOOP;
END
$$;

-- Median ms and the (single) result per query of bench.time_queries; raises if a query gave
-- different results in different runs.
CREATE FUNCTION bench.medians(qs text[], runs int)
RETURNS TABLE (query int, median_ms float8, min_ms float8, max_ms float8, result text)
LANGUAGE sql AS $$
	SELECT query,
	       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms),
	       min(ms), max(ms),
	       CASE WHEN count(DISTINCT result) = 1 THEN min(result)
	            ELSE 'INCONSISTENT:' || string_agg(DISTINCT result, ',') END
	FROM bench.time_queries(qs, runs)
	GROUP BY query
	ORDER BY query
$$;

-- One query, one run, timed (for the first call in a fresh backend: the index load).
CREATE FUNCTION bench.time_once(q text)
RETURNS TABLE (ms float8, result text)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE q INTO result;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	RETURN NEXT;
END
$$;

-- The recursive-CTE baseline: does a path lead from a to b in public.edges? Breadth-first over
-- the edge table (UNION removes revisits, so it ends on cyclic graphs too); PostgreSQL
-- evaluates a WITH query only as far as its reader fetches, so LIMIT 1 stops at the first hit.
-- Needs an index on public.edges (source) to be anything but hopeless. Returns 'result|ms'.
CREATE FUNCTION bench.cte_reachable(a bigint, b bigint)
RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	found boolean;
BEGIN
	WITH RECURSIVE reach(v) AS (
		SELECT a
		UNION
		SELECT e.target FROM reach r JOIN public.edges e ON e.source = r.v
	)
	SELECT EXISTS (SELECT 1 FROM reach WHERE v = b LIMIT 1) INTO found;
	RETURN found::text || '|' || round((extract(epoch FROM clock_timestamp() - t0) * 1000)::numeric, 3)::text;
END
$$;
