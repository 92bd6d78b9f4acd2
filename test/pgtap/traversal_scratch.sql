-- The memory a backend keeps between traversals (descendants(), ancestors(), bfs()): marks of one
-- call, graph or build must never reach another's answer. Against a recursive query over the
-- edge rows: two graphs of different sizes alternating within one statement (and two call sites
-- of one statement over them), calls cancelled in the middle of a search and then calls on the same
-- and another graph, a graph rebuilt between calls of one session, a live graph with pending
-- inserts and deletes, and bfs() parents after calls that record none.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(22);
SET client_min_messages = warning;

-- 'vertex/depth' of every vertex the source reaches (out: along edges, in: against them), in
-- the functions' order (depth, then vertex): a breadth-first search over the edge rows, a level
-- per statement.
CREATE TEMP TABLE oracle_seen (v bigint PRIMARY KEY, d int);
CREATE INDEX ON oracle_seen (d);
CREATE FUNCTION pg_temp.oracle(edges regclass, source bigint, direction text)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	answer text[];
	a text := CASE direction WHEN 'out' THEN 'source' ELSE 'target' END;
	b text := CASE direction WHEN 'out' THEN 'target' ELSE 'source' END;
	depth int := 0;
	added bigint;
BEGIN
	DELETE FROM oracle_seen;
	INSERT INTO oracle_seen VALUES (source, 0);
	LOOP
		EXECUTE format('INSERT INTO oracle_seen SELECT DISTINCT e.%1$I, $1 + 1 FROM oracle_seen s JOIN %2$s e ON e.%3$I = s.v '
		               'WHERE s.d = $1 ON CONFLICT DO NOTHING', b, edges, a) USING depth;
		GET DIAGNOSTICS added = ROW_COUNT;
		EXIT WHEN added = 0;
		depth := depth + 1;
	END LOOP;
	SELECT array_agg(format('%s/%s', v, d) ORDER BY d, v) INTO answer FROM oracle_seen;
	RETURN answer;
END
$$;

CREATE FUNCTION pg_temp.answer(graph text, source bigint, direction text)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE answer text[];
BEGIN
	EXECUTE format('SELECT array_agg(format(''%%s/%%s'', vertex, depth) ORDER BY n) FROM grail.%s($1, $2) '
	               'WITH ORDINALITY AS r(vertex, depth, n)',
	               CASE direction WHEN 'out' THEN 'descendants' ELSE 'ancestors' END)
		INTO answer USING graph, source;
	RETURN answer;
END
$$;

-- Every source's answer against the oracle; true when all agree.
CREATE FUNCTION pg_temp.all_agree(graph text, edges regclass, sources bigint[])
RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE s bigint; direction text;
BEGIN
	FOREACH s IN ARRAY sources LOOP
		FOREACH direction IN ARRAY ARRAY['out', 'in'] LOOP
			IF pg_temp.answer(graph, s, direction) IS DISTINCT FROM pg_temp.oracle(edges, s, direction) THEN
				RAISE NOTICE '% from % (%) differs', graph, s, direction;
				RETURN false;
			END IF;
		END LOOP;
	END LOOP;
	RETURN true;
END
$$;

-- Whether the statement was cancelled by statement_timeout (set by the caller).
CREATE FUNCTION pg_temp.cancelled(statement text)
RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE statement;
	RETURN false;
EXCEPTION WHEN query_canceled THEN
	RETURN true;
END
$$;

-- A small graph with cycles, self-loops, duplicates and extreme ids, and a large one (a binary tree
-- of 50,001 vertices and an edge from its last leaf back to its root), so that the kept marks
-- cover vertices the small one does not have.
SELECT setseed(0.27);
CREATE TABLE small_edges (source bigint, target bigint);
INSERT INTO small_edges SELECT (random() * 30)::bigint, (random() * 30)::bigint FROM generate_series(1, 60);
INSERT INTO small_edges VALUES (-9223372036854775808, 3), (3, 9223372036854775807), (9223372036854775807, 9223372036854775807),
	(5, 5), (5, 6), (5, 6), (40, 41);
CREATE TABLE large_edges (source bigint, target bigint);
INSERT INTO large_edges SELECT i, 2 * i + k FROM generate_series(1, 25000) i, generate_series(0, 1) k;
INSERT INTO large_edges VALUES (50001, 1);
CREATE INDEX ON large_edges (source);
CREATE INDEX ON large_edges (target);
ANALYZE large_edges;
SELECT lives_ok($$SELECT grail.create_graph('small', 'small_edges')$$, 'small graph');
SELECT lives_ok($$SELECT grail.create_graph('large', 'large_edges')$$, 'large graph');
CREATE TEMP TABLE small_sources AS
	SELECT DISTINCT v FROM (SELECT source AS v FROM small_edges UNION SELECT target FROM small_edges) k;

SELECT ok(pg_temp.all_agree('small', 'small_edges', (SELECT array_agg(v ORDER BY v) FROM small_sources) || ARRAY[12345::bigint]),
          'small graph: every vertex and an unknown key, both directions');

-- Two graphs alternating in one statement: each row's call opens the other graph.
CREATE TEMP TABLE alternating AS
	SELECT i, CASE WHEN i % 2 = 0 THEN 'small' ELSE 'large' END AS graph,
	       CASE WHEN i % 2 = 0 THEN (SELECT array_agg(v ORDER BY v) FROM small_sources)[1 + i % (SELECT count(*) FROM small_sources)::int]
	            WHEN i = 1 THEN 2 ELSE 49990 - i END AS v
	FROM generate_series(1, 40) i;
SELECT is((SELECT count(*) FROM alternating a
           WHERE (SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY n)
                  FROM grail.descendants(a.graph, a.v) WITH ORDINALITY AS r(vertex, depth, n))
                 IS DISTINCT FROM pg_temp.oracle(CASE a.graph WHEN 'small' THEN 'small_edges' ELSE 'large_edges' END::regclass, a.v, 'out')),
          0::bigint, 'descendants: two graphs alternating within one statement');
SELECT is((SELECT count(*) FROM alternating a
           WHERE (SELECT array_agg(format('%s/%s', vertex, depth) ORDER BY n)
                  FROM grail.ancestors(a.graph, a.v) WITH ORDINALITY AS r(vertex, depth, n))
                 IS DISTINCT FROM pg_temp.oracle(CASE a.graph WHEN 'small' THEN 'small_edges' ELSE 'large_edges' END::regclass, a.v, 'in')),
          0::bigint, 'ancestors: two graphs alternating within one statement');
-- Two call sites in one statement, one per graph, in a lateral join (each call between the
-- other's).
SELECT is((SELECT count(*) FROM (SELECT v FROM small_sources WHERE v BETWEEN 0 AND 100 ORDER BY v LIMIT 10) s,
                                LATERAL (SELECT count(*) AS n FROM grail.descendants('small', s.v)) x,
                                LATERAL (SELECT count(*) AS n FROM grail.ancestors('large', 49000 - s.v)) y
           WHERE x.n <> cardinality(pg_temp.oracle('small_edges', s.v, 'out'))
              OR y.n <> cardinality(pg_temp.oracle('large_edges', 49000 - s.v, 'in'))),
          0::bigint, 'two call sites of one statement over two graphs');

-- bfs() parents after searches that recorded none: against the smallest parent at the depth above.
SELECT is((SELECT count(*) FROM small_sources s, grail.bfs('small', s.v) b
           WHERE b.depth > 0 AND b.parent IS DISTINCT FROM
                 (SELECT min(p.vertex) FROM grail.bfs('small', s.v) p JOIN small_edges e ON e.source = p.vertex AND e.target = b.vertex
                  WHERE p.depth = b.depth - 1)),
          0::bigint, 'bfs() parents after descendants() and ancestors() in the same backend');

-- Calls cancelled in the middle (statement_timeout over many calls on the large graph), then
-- calls on both graphs: the marks of the cut search must not reach them.
SET statement_timeout = '150ms';
SELECT ok(pg_temp.cancelled($$SELECT count(*) FROM generate_series(1, 1000000) i, grail.descendants('large', 1 + i % 7)$$),
          'descendants cancelled');
SET statement_timeout = 0;
SELECT ok(pg_temp.all_agree('large', 'large_edges', ARRAY[1, 2, 150000, 49999, 50001, 50002]::bigint[]), 'large graph after a cancel');
SELECT ok(pg_temp.all_agree('small', 'small_edges', (SELECT array_agg(v ORDER BY v) FROM small_sources)), 'small graph after a cancel');
SET statement_timeout = '90ms';
SELECT ok(pg_temp.cancelled($$SELECT count(*) FROM generate_series(1, 1000000) i, grail.ancestors('large', 50001 - i % 5)$$),
          'ancestors cancelled');
SET statement_timeout = '110ms';
SELECT ok(pg_temp.cancelled($$SELECT count(*) FROM generate_series(1, 1000000) i, grail.bfs('large', 1 + i % 3)$$),
          'bfs cancelled');
SET statement_timeout = 0;
SELECT ok(pg_temp.all_agree('small', 'small_edges', (SELECT array_agg(v ORDER BY v) FROM small_sources)), 'small graph after cancels');
SELECT ok(pg_temp.all_agree('large', 'large_edges', ARRAY[1, 7, 25000, 50000]::bigint[]), 'large graph after cancels');
SELECT is((SELECT count(*) FROM grail.bfs('large', 1) b WHERE b.depth > 0 AND b.parent IS NULL), 0::bigint,
          'bfs() after cancels: a parent for every row but the source');

-- A graph rebuilt between calls of one session: the large graph becomes small (and the other way),
-- under the same names.
SELECT ok(pg_temp.answer('large', 1, 'out') IS NOT NULL, 'large graph answers before its rebuild');
DELETE FROM large_edges WHERE source > 20;
INSERT INTO small_edges SELECT i, i + 1 FROM generate_series(100, 5000) i;
SELECT lives_ok($$SELECT grail.refresh_graph('large')$$, 'large graph rebuilt smaller');
SELECT lives_ok($$SELECT grail.refresh_graph('small')$$, 'small graph rebuilt larger');
SELECT ok(pg_temp.all_agree('large', 'large_edges', ARRAY[1, 5, 20, 21, 150000]::bigint[]), 'rebuilt large graph');
SELECT ok(pg_temp.all_agree('small', 'small_edges', ARRAY[0, 3, 5, 100, 2500, 5001, -9223372036854775808]::bigint[]), 'rebuilt small graph');

-- A live graph with pending inserts and deletes (no merge): the rows the snapshot sees.
SELECT lives_ok($$SELECT grail.create_graph('live', 'small_edges', live => true)$$, 'live graph');
DELETE FROM small_edges WHERE source % 3 = 0 AND source < 40;
INSERT INTO small_edges SELECT (random() * 30)::bigint, (random() * 30)::bigint FROM generate_series(1, 25);
INSERT INTO small_edges VALUES (5001, 100), (-9223372036854775808, 9223372036854775807);
SELECT ok(pg_temp.all_agree('live', 'small_edges', ARRAY[0, 1, 2, 3, 5, 17, 100, 4999, 5001, -9223372036854775808, 9223372036854775807]::bigint[]),
          'live graph with pending inserts and deletes, both directions');

SELECT * FROM finish();
ROLLBACK;
