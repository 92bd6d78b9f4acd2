-- A condition on the depth column of bfs(), descendants() and ancestors() reaches the search as
-- its max_depth: EXPLAIN (VERBOSE) shows the bound in the call, and the rows are exactly those of
-- the unbounded search filtered afterwards (a MATERIALIZED CTE keeps the condition away from the
-- call), on random graphs with cycles, self-loops and duplicates, in every direction, for every
-- form of the condition. Conditions that do not bound the depth from above with a constant are
-- left alone, and so is any function that is not pg_grail's.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(24);

-- The call of a query's verbose plan's last function scan.
CREATE FUNCTION pg_temp.call_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE line text; call text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
		IF line LIKE '%Function Call:%' THEN
			call := btrim(split_part(line, 'Function Call:', 2));
		END IF;
	END LOOP;
	RETURN call;
END $$;

SELECT setseed(0.41);
CREATE TABLE edges AS
SELECT (random() * 400)::bigint AS source, (random() * 400)::bigint AS target FROM generate_series(1, 900);
INSERT INTO edges VALUES (7, 7), (7, 7), (1, 2), (1, 2);
SELECT ok(grail.create_graph('g', 'edges') IS NOT NULL, 'graph built');

-- The bound reaches the call, in each form of the condition.
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth <= 2$$),
          $$grail.bfs('g'::text, 1, 2)$$, 'depth <= k becomes max_depth k');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth < 4$$),
          $$grail.bfs('g'::text, 1, 3)$$, 'depth < k becomes max_depth k - 1');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.descendants('g', 1) d WHERE 3 >= d.depth$$),
          $$grail.descendants('g'::text, 1, 3)$$, 'k >= depth, written the other way round');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.ancestors('g', 1) WHERE depth = 2$$),
          $$grail.ancestors('g'::text, 1, 2)$$, 'depth = k bounds it by k');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth <= 5 AND depth < 3 AND depth <= 9::bigint$$),
          $$grail.bfs('g'::text, 1, 2)$$, 'the smallest of several bounds, int8 constants included');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1, 1) WHERE depth <= 5$$),
          $$grail.bfs('g'::text, 1, 1)$$, 'a smaller max_depth in the call stays');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1, NULL, 'in') WHERE depth BETWEEN 1 AND 2$$),
          $$grail.bfs('g'::text, 1, 2, 'in'::text)$$, 'bfs with a direction; BETWEEN bounds it');
SELECT is(pg_temp.call_of($$SELECT b.* FROM generate_series(1, 3) s, LATERAL grail.descendants('g', s) b WHERE b.depth <= 1$$),
          $$grail.descendants('g'::text, s.s, 1)$$, 'a lateral call is bounded too');
SELECT is(pg_temp.call_of($$SELECT * FROM (SELECT * FROM grail.bfs('g', 1)) sub WHERE sub.depth <= 1$$),
          $$grail.bfs('g'::text, 1, 1)$$, 'a condition outside a subquery reaches it');

-- Conditions that do not bound the depth from above with a constant are left alone.
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth >= 2$$),
          $$grail.bfs('g'::text, 1, NULL::integer)$$, 'a lower bound is not pushed');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth <= 1 OR vertex = 5$$),
          $$grail.bfs('g'::text, 1, NULL::integer)$$, 'a bound inside OR is not pushed');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth::bigint <= 1$$),
          $$grail.bfs('g'::text, 1, NULL::integer)$$, 'a bound on an expression of the depth is not pushed');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth <= -1$$),
          $$grail.bfs('g'::text, 1, NULL::integer)$$, 'a negative bound is left to the condition');
SELECT is((SELECT count(*) FROM grail.bfs('g', 1) WHERE depth < 0), 0::bigint, 'and gives no rows');
SELECT is(pg_temp.call_of($$SELECT * FROM grail.bfs('g', 1) WHERE depth <= 9999999999$$),
          $$grail.bfs('g'::text, 1, NULL::integer)$$, 'a bound past max_depth''s range is left alone');
CREATE SCHEMA other;
CREATE FUNCTION other.bfs(graph text, source bigint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int, parent bigint) LANGUAGE sql AS $$ SELECT source, 0, NULL::bigint $$;
SELECT is(pg_temp.call_of($$SELECT * FROM other.bfs('g', 1) WHERE depth <= 2$$),
          $$other.bfs('g'::text, '1'::bigint, NULL::integer)$$, 'a function of another schema is not rewritten');
PREPARE bounded(int) AS SELECT * FROM grail.bfs('g', 1) WHERE depth <= $1;
SET LOCAL plan_cache_mode = force_generic_plan;
SELECT results_eq($$EXECUTE bounded(2)$$,
                  $$WITH f AS MATERIALIZED (SELECT * FROM grail.bfs('g', 1)) SELECT * FROM f WHERE depth <= 2$$,
                  'a parameter is not pushed into a generic plan, and the rows are right');
RESET plan_cache_mode;

-- The rows: every source, every bound, every function and direction, against the unbounded
-- search filtered afterwards (order included: the bounded search's rows come in the same order).
CREATE FUNCTION pg_temp.mismatches(fn text, extra text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE bad bigint := 0; n bigint; s bigint; k int;
BEGIN
	FOR s IN SELECT DISTINCT source FROM edges ORDER BY 1 LIMIT 40 LOOP
		FOR k IN 0..4 LOOP
			EXECUTE format($q$SELECT count(*) FROM (
				(SELECT * FROM %1$s('g', %2$s, NULL%3$s) WHERE depth <= %4$s
				 EXCEPT ALL
				 (WITH f AS MATERIALIZED (SELECT * FROM %1$s('g', %2$s, NULL%3$s)) SELECT * FROM f WHERE depth <= %4$s))
				UNION ALL
				((WITH f AS MATERIALIZED (SELECT * FROM %1$s('g', %2$s, NULL%3$s)) SELECT * FROM f WHERE depth <= %4$s)
				 EXCEPT ALL
				 SELECT * FROM %1$s('g', %2$s, NULL%3$s) WHERE depth <= %4$s)) d$q$, fn, s, extra, k) INTO n;
			bad := bad + n;
		END LOOP;
	END LOOP;
	RETURN bad;
END $$;
SELECT is(pg_temp.mismatches('grail.bfs', ''), 0::bigint, 'bfs: bounded rows equal the filtered rows');
SELECT is(pg_temp.mismatches('grail.bfs', ', ''in'''), 0::bigint, 'bfs in: bounded rows equal the filtered rows');
SELECT is(pg_temp.mismatches('grail.bfs', ', ''both'''), 0::bigint, 'bfs both: bounded rows equal the filtered rows');
SELECT is(pg_temp.mismatches('grail.descendants', ''), 0::bigint, 'descendants: bounded rows equal the filtered rows');
SELECT is(pg_temp.mismatches('grail.ancestors', ''), 0::bigint, 'ancestors: bounded rows equal the filtered rows');

-- A live graph with pending changes: the bound answers from the rows the snapshot sees.
INSERT INTO edges VALUES (1, 10001), (10001, 10002), (10002, 10003);
DELETE FROM edges WHERE source = 1 AND target = 2;
SELECT is(pg_temp.mismatches('grail.bfs', ''), 0::bigint, 'live graph with pending changes: same rows');

SELECT * FROM finish();
ROLLBACK;
