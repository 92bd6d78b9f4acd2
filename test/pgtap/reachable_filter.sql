-- reachable(graph, a, b) in a table's WHERE answered by batches (the Grail Reachability Filter,
-- grail.reachable_batch): the plan takes it where it is safe and not elsewhere, and every query
-- returns the same rows with it as without it (row by row): other conditions (a costlier one
-- sees only the rows the call lets through), NOT reachable(), integer, smallint, text and uuid
-- keys, NULL and unknown keys, expressions as keys, ORDER BY
-- and LIMIT, joins, a correlated subquery (rescans with new parameters), cursors (forward, SCROLL
-- backward, backward without SCROLL), a prepared statement's generic plan, a
-- materialized view, a live graph with pending inserts and deletes, batches past the largest
-- (200,000 rows), a role without EXECUTE on the array form (answered row by row) or on the
-- per-row function (refused, as without the filter), a missing graph, a graph's error with the
-- per-row call's hint, a text key that is no literal of the graph's kind on a later row (with the
-- per-row call's hint too, in a serial and in a parallel plan), the calls counted in
-- pg_stat_user_functions and a cancel.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(80);

SELECT setseed(0.5151);
-- 3,000 vertices, 9,000 edges, forward within 60 (deep), one in thirty backward (cycles).
CREATE TABLE rf_edges AS
SELECT a::bigint AS source, b::bigint AS target
FROM (SELECT a, CASE WHEN random() < 0.033 THEN greatest(a - 1 - floor(random() * 50)::int, 0)
                     ELSE least(a + 1 + floor(random() * 60)::int, 2999) END AS b
      FROM (SELECT floor(random() * 3000)::int AS a FROM generate_series(1, 9000)) p) q;
SELECT grail.create_graph('rf', 'rf_edges', live => false);
-- 200,000 pairs: near pairs (often reachable), far ones, NULLs, unknown ids and equal keys.
CREATE TABLE rf_pairs AS
SELECT i, CASE WHEN i % 101 = 0 THEN NULL WHEN i % 103 = 0 THEN 99999 ELSE (i * 7919) % 3000 END::bigint AS a,
       CASE WHEN i % 107 = 0 THEN NULL WHEN i % 3 = 0 THEN (i * 7919) % 3000 + (i % 400)
            ELSE (i * 104729) % 3000 END::bigint AS b,
       'p' || i AS label
FROM generate_series(1::bigint, 200000) i;
UPDATE rf_pairs SET b = a WHERE i % 109 = 0;
ANALYZE rf_pairs;
CREATE TABLE rf_labels AS SELECT k AS id, 'vertex ' || k AS name FROM generate_series(0, 2999, 7) k;
ANALYZE rf_labels;

-- A query's EXPLAIN (VERBOSE), its lines joined.
CREATE FUNCTION rf_explained(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	lines text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (VERBOSE) ' || query LOOP
		lines := lines || line || E'\n';
	END LOOP;
	RETURN lines;
END $$;
-- Whether the plan of a query holds the filter.
CREATE FUNCTION rf_filtered(query text) RETURNS boolean LANGUAGE sql AS $$
	SELECT rf_explained(query) LIKE '%Grail Reachability Filter%'
$$;
-- A query's rows (as text, in its order) with the filter and without it, each checked to have
-- run as said.
CREATE FUNCTION rf_rows(query text, batched boolean) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	result text[];
BEGIN
	PERFORM set_config('grail.reachable_batch', batched::text, true);
	EXECUTE format('SELECT array_agg(r::text) FROM (%s) r', query) INTO result;
	RETURN coalesce(result, '{}');
END $$;
CREATE FUNCTION rf_same(query text, what text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	batched text[];
	by_rows text[];
BEGIN
	PERFORM set_config('grail.reachable_batch', 'on', true);
	IF NOT rf_filtered(query) THEN
		RETURN is(false, true, what || ': the plan takes the filter');
	END IF;
	batched := rf_rows(query, true);
	by_rows := rf_rows(query, false);
	PERFORM set_config('grail.reachable_batch', 'on', true);
	RETURN is(batched, by_rows, what || ' (' || cardinality(by_rows) || ' rows)');
END $$;

SELECT ok((SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)) BETWEEN 20000 AND 180000,
          'a mix of reachable and unreachable pairs');
SELECT rf_same($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, 'count over 200,000 rows');
SELECT rf_same($$SELECT i, a, b, label FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i$$,
               'every column of the rows that pass, in order');
SELECT rf_same($$SELECT i FROM rf_pairs WHERE i % 5 = 1 AND grail.reachable('rf', a, b) AND label LIKE 'p1%' ORDER BY i$$,
               'with other conditions');
SELECT rf_same($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a + 0, b * 1) ORDER BY i$$, 'keys as expressions');
SELECT rf_same($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('r' || 'f', a, b) AND (a IS NULL OR b IS NULL OR a = 99999)$$,
               'NULL and unknown keys (none returned but unknown = unknown)');
SELECT rf_same($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i DESC LIMIT 17$$, 'ORDER BY ... LIMIT');
SELECT rf_same($$SELECT p.i, l.name FROM rf_pairs p JOIN rf_labels l ON l.id = p.a WHERE grail.reachable('rf', p.a, p.b) ORDER BY p.i$$,
               'a join on the table');
SELECT rf_same($$SELECT x, (SELECT count(*) FROM rf_pairs p WHERE p.a = x AND grail.reachable('rf', p.a, p.b)) FROM generate_series(0, 2999, 97) x ORDER BY x$$,
               'a correlated subquery (rescans with new parameters)');
SELECT rf_same($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) AND i <= (SELECT max(id) FROM rf_labels) ORDER BY i$$,
               'a condition with an initplan');

-- NOT reachable(...): the rows answered false (a NULL key: no row either way).
SELECT rf_same($$SELECT i FROM rf_pairs WHERE NOT grail.reachable('rf', a, b) ORDER BY i$$, 'NOT reachable()');
SELECT rf_same($$SELECT i FROM rf_pairs WHERE NOT grail.reachable('rf', a, b) AND i % 3 = 0 ORDER BY i$$,
               'NOT reachable() with another condition');
-- Keys of every kind with an array form: integer and smallint columns on the bigint graph, text
-- and uuid keys on graphs of those kinds, text keys on the integer graph (valid literals).
CREATE TABLE rf_small_pairs AS SELECT i, a::int AS a4, b::int AS b4, least(a, 32000)::smallint AS a2, least(b, 32000)::smallint AS b2,
       'v' || a AS at, 'v' || b AS bt, md5(a::text)::uuid AS au, md5(b::text)::uuid AS bu, a::text AS an, b::text AS bn
FROM rf_pairs WHERE i <= 40000;
CREATE TABLE rf_text_edges AS SELECT 'v' || source AS source, 'v' || target AS target FROM rf_edges;
SELECT grail.create_graph('rf_text', 'rf_text_edges', live => false);
CREATE TABLE rf_uuid_edges AS SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM rf_edges;
SELECT grail.create_graph('rf_uuid', 'rf_uuid_edges', live => false);
SELECT rf_same($$SELECT i FROM rf_small_pairs WHERE grail.reachable('rf', a4, b4) ORDER BY i$$, 'integer keys');
SELECT rf_same($$SELECT i FROM rf_small_pairs WHERE grail.reachable('rf', a2, b2) ORDER BY i$$, 'smallint keys');
SELECT rf_same($$SELECT i, at FROM rf_small_pairs WHERE grail.reachable('rf_text', at, bt) ORDER BY i$$, 'text keys');
SELECT rf_same($$SELECT i, bu FROM rf_small_pairs WHERE grail.reachable('rf_uuid', au, bu) ORDER BY i$$, 'uuid keys');
SELECT rf_same($$SELECT i FROM rf_small_pairs WHERE NOT grail.reachable('rf_text', at, bt) ORDER BY i$$, 'NOT with text keys');
SELECT rf_same($$SELECT i FROM rf_small_pairs WHERE grail.reachable('rf', an, bn) ORDER BY i$$,
               'text keys on the integer graph');
SELECT is((SELECT count(*) FROM rf_small_pairs WHERE grail.reachable('rf_text', at, bt)),
          (SELECT count(*) FROM rf_small_pairs WHERE grail.reachable('rf', a4, b4)), 'the text graph answers as the integer one');

-- A condition that PostgreSQL orders after reachable() (a costlier one: a PL/pgSQL function costs
-- 100) sees only the rows reachable() lets through, as row by row; this one fails on any other.
CREATE FUNCTION rf_must_reach(x bigint, y bigint) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
	IF NOT grail.reachable('rf', x, y) THEN
		RAISE EXCEPTION 'rf_must_reach saw the unreachable pair (%, %)', x, y;
	END IF;
	RETURN true;
END $$;
SELECT rf_same($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) AND rf_must_reach(a, b) AND i % 3 = 0 ORDER BY i$$,
               'a costlier condition sees only the rows that reachable() lets through');
CREATE FUNCTION rf_label_has(label text, digit text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
	RETURN strpos(label, digit) > 0;
END $$;
SELECT rf_same($$SELECT i, a FROM rf_pairs WHERE grail.reachable('rf', a, b) AND rf_label_has(label, '3') ORDER BY i$$,
               'a costlier condition on a column that nothing else reads');

-- Partitions and inheritance children: the filter over each member of the Append, the parent's
-- own rows included; a UNION ALL of two tables likewise.
CREATE TABLE rf_parts (i bigint, a bigint, b bigint, label text) PARTITION BY RANGE (i);
CREATE TABLE rf_parts_low PARTITION OF rf_parts FOR VALUES FROM (MINVALUE) TO (70000);
CREATE TABLE rf_parts_mid PARTITION OF rf_parts FOR VALUES FROM (70000) TO (140000);
CREATE TABLE rf_parts_high PARTITION OF rf_parts FOR VALUES FROM (140000) TO (MAXVALUE);
INSERT INTO rf_parts SELECT * FROM rf_pairs;
ANALYZE rf_parts;
CREATE TABLE rf_parent AS SELECT * FROM rf_pairs WHERE i % 3 = 0;
CREATE TABLE rf_heir (extra int) INHERITS (rf_parent);
INSERT INTO rf_heir SELECT *, 1 FROM rf_pairs WHERE i % 3 = 1;
ANALYZE rf_parent, rf_heir;
SELECT rf_same($$SELECT i, a, b FROM rf_parts WHERE grail.reachable('rf', a, b) ORDER BY i$$, 'a partitioned table');
SELECT ok(rf_explained($$SELECT count(*) FROM rf_parts WHERE grail.reachable('rf', a, b)$$)
            ~ 'Append.*Grail Reachability Filter.*rf_parts_low.*Grail Reachability Filter.*rf_parts_mid',
          'a filter over each partition');
SELECT rf_same($$SELECT i FROM rf_parts WHERE i BETWEEN 60000 AND 80000 AND NOT grail.reachable('rf', a, b) ORDER BY i$$,
               'NOT reachable() over the partitions a condition leaves');
SELECT rf_same($$SELECT i, label FROM rf_parent WHERE grail.reachable('rf', a, b) ORDER BY i$$,
               'an inheritance parent and its child');
SELECT rf_same($$SELECT i FROM (SELECT i, a, b FROM rf_parent UNION ALL SELECT i, a, b FROM rf_pairs) u
                 WHERE grail.reachable('rf', a, b) ORDER BY i$$, 'a UNION ALL of two tables');

-- Where it does not apply: a volatile condition, row locks, a write, the text form, an OR.
SELECT ok(NOT rf_filtered($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b) AND random() < 2$$),
          'not with a volatile condition');
SELECT ok(NOT rf_filtered($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) FOR UPDATE$$), 'not with FOR UPDATE');
SELECT ok(NOT rf_filtered($$DELETE FROM rf_pairs WHERE grail.reachable('rf', a, b) AND false$$), 'not in a DELETE');
SELECT ok(NOT rf_filtered($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b) OR i < 3$$), 'not inside an OR');
SELECT ok(NOT rf_filtered($$SELECT count(*) FROM rf_pairs WHERE grail.reachable(label, a, b)$$),
          'not where the graph is a column');
SET LOCAL grail.reachable_batch = off;
SELECT ok(NOT rf_filtered($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$),
          'not with grail.reachable_batch off');
RESET grail.reachable_batch;

-- Cursors: forward in steps; SCROLL backward (a Material node keeps the rows). rf_cursor opens
-- the query as a cursor, moves `skip` rows forward, then fetches `take` rows in `direction`.
CREATE FUNCTION rf_cursor(query text, scroll boolean, skip int, direction text, take int) RETURNS bigint[]
LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'rf_cursor';
	got bigint[] := '{}';
	v bigint;
BEGIN
	EXECUTE format('DECLARE rf_cursor %s CURSOR FOR %s', CASE WHEN scroll THEN 'SCROLL' ELSE 'NO SCROLL' END, query);
	EXECUTE format('MOVE %s FROM rf_cursor', skip);
	FOR k IN 1..take LOOP
		IF direction = 'forward' THEN
			FETCH NEXT FROM c INTO v;
		ELSE
			FETCH PRIOR FROM c INTO v;
		END IF;
		got := got || v;
	END LOOP;
	CLOSE c;
	RETURN got;
END $$;
SELECT is(rf_cursor($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, false, 70000, 'forward', 5),
          (SELECT array_agg(i) FROM (SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) OFFSET 70000 LIMIT 5) s),
          'a cursor fetches the same rows past several batches');
SELECT is(rf_cursor($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, true, 3000, 'backward', 3),
          (SELECT array_agg(i ORDER BY n DESC) FROM (SELECT i, row_number() OVER () AS n FROM rf_pairs WHERE grail.reachable('rf', a, b)) s WHERE n BETWEEN 2997 AND 2999),
          'a SCROLL cursor goes back over the same rows');

-- A cursor declared without SCROLL or NO SCROLL moves backward over the filter as over the plain
-- scan (PostgreSQL makes it scrollable where the plan reads backward): rf_moves reads 5 rows,
-- then 2 back, the 3,000th, 7 back, the last and the one before it.
CREATE FUNCTION rf_moves(query text, batched boolean) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := 'rf_moving';
	got bigint[] := '{}';
	v bigint;
BEGIN
	PERFORM set_config('grail.reachable_batch', batched::text, true);
	EXECUTE format('DECLARE rf_moving CURSOR FOR %s', query);
	FOR k IN 1..5 LOOP
		FETCH NEXT FROM c INTO v;
		got := got || v;
	END LOOP;
	FOR k IN 1..2 LOOP
		FETCH PRIOR FROM c INTO v;
		got := got || v;
	END LOOP;
	FETCH ABSOLUTE 3000 FROM c INTO v;
	got := got || v;
	FETCH RELATIVE -7 FROM c INTO v;
	got := got || v;
	MOVE LAST FROM c;
	FETCH PRIOR FROM c INTO v;
	got := got || v;
	CLOSE c;
	PERFORM set_config('grail.reachable_batch', 'on', true);
	RETURN got;
END $$;
SELECT is(rf_moves($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) AND i % 2 = 0$$, true),
          rf_moves($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) AND i % 2 = 0$$, false),
          'a cursor declared without SCROLL moves backward as over the plain scan');

-- A prepared statement's generic plan, the graph a parameter.
SET LOCAL plan_cache_mode = force_generic_plan;
PREPARE rf_prepared(text, int) AS SELECT count(*) FROM rf_pairs WHERE grail.reachable($1, a, b) AND i > $2;
DO $$
DECLARE
	n bigint;
BEGIN
	EXECUTE 'EXECUTE rf_prepared(''rf'', 1000)' INTO n;
	PERFORM set_config('rf.prepared', n::text, true);
END $$;
SET LOCAL grail.reachable_batch = off;
SELECT is(current_setting('rf.prepared')::bigint, (SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b) AND i > 1000),
          'a prepared statement''s generic plan with the graph as a parameter');
RESET grail.reachable_batch;
RESET plan_cache_mode;
DEALLOCATE rf_prepared;

-- A materialized view as the table.
CREATE MATERIALIZED VIEW rf_view AS SELECT * FROM rf_pairs WHERE i % 2 = 0;
ANALYZE rf_view;
SELECT rf_same($$SELECT i FROM rf_view WHERE grail.reachable('rf', a, b) ORDER BY i$$, 'a materialized view');

-- A live graph with pending inserts and deletes: the rows the snapshot sees.
CREATE TABLE rf_live_edges AS SELECT * FROM rf_edges;
SELECT grail.create_graph('rf_live', 'rf_live_edges');
INSERT INTO rf_live_edges SELECT k, k + 200 FROM generate_series(0, 2700, 300) k;
DELETE FROM rf_live_edges WHERE source % 97 = 3;
SELECT rf_same($$SELECT i FROM rf_pairs WHERE grail.reachable('rf_live', a, b) ORDER BY i$$,
               'a live graph with pending inserts and deletes');
SELECT is((SELECT count(*) FROM rf_pairs p WHERE p.i % 50 = 0 AND p.a <> p.b AND p.a IS NOT NULL AND p.b IS NOT NULL
             AND grail.reachable('rf_live', p.a, p.b) IS DISTINCT FROM EXISTS (
               WITH RECURSIVE r(v) AS (SELECT p.a UNION SELECT e.target FROM r JOIN rf_live_edges e ON e.source = r.v)
               SELECT 1 FROM r WHERE r.v = p.b)),
          0::bigint, 'the live graph''s answers are what its rows reach');

-- Rights: without EXECUTE on the array form, row by row (the same rows); without it on the
-- per-row function, refused as a plain scan refuses.
CREATE ROLE rf_reader;
GRANT USAGE ON SCHEMA grail TO rf_reader;
GRANT SELECT ON rf_pairs, rf_edges TO rf_reader;
REVOKE EXECUTE ON FUNCTION grail.reachable(text, bigint[], bigint[]) FROM PUBLIC;
SET LOCAL ROLE rf_reader;
SELECT ok(rf_filtered($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$),
          'a role without EXECUTE on the array form still gets the filter');
SELECT is(rf_rows($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i$$, true),
          rf_rows($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i$$, false),
          'and the same rows, answered row by row');
RESET ROLE;
GRANT EXECUTE ON FUNCTION grail.reachable(text, bigint[], bigint[]) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION grail.reachable(text, bigint, bigint) FROM PUBLIC;
SET LOCAL ROLE rf_reader;
SELECT throws_ok($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, '42501', NULL,
                 'without EXECUTE on the per-row function: refused with the filter');
SET LOCAL grail.reachable_batch = off;
SELECT throws_ok($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, '42501', NULL,
                 'and without it');
RESET grail.reachable_batch;
RESET ROLE;
GRANT EXECUTE ON FUNCTION grail.reachable(text, bigint, bigint) TO PUBLIC;

-- Row security: a policy's reachable() must run before a user's condition, which may leak what
-- the policy hides (a cheap IMMUTABLE function that writes each row it sees into a setting):
-- no filter then, and nothing leaked. A policy of plain conditions and the user's reachable():
-- the filter, after the policy.
CREATE TABLE rf_secrets AS SELECT i AS owner, (i * 7) % 3000 AS target, 'secret ' || i AS secret
FROM generate_series(0::bigint, 2999) i;
ALTER TABLE rf_secrets ENABLE ROW LEVEL SECURITY;
CREATE POLICY rf_reach ON rf_secrets USING (grail.reachable('rf', owner, 5));
GRANT SELECT ON rf_secrets TO rf_reader;
CREATE FUNCTION rf_leak(text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE COST 0.0001 AS $$
BEGIN
	PERFORM set_config('rf.seen', current_setting('rf.seen', true) || $1 || ',', false);
	RETURN true;
END $$;
SET LOCAL ROLE rf_reader;
SELECT ok(NOT rf_filtered($$SELECT count(*) FROM rf_secrets WHERE rf_leak(secret)$$),
          'no filter where a policy''s reachable() must run before the user''s condition');
SELECT set_config('rf.seen', '', false);
SELECT is((SELECT count(*) FROM rf_secrets WHERE rf_leak(secret)),
          (SELECT count(*) FROM rf_secrets), 'the policy''s rows');
SELECT is(cardinality(string_to_array(rtrim(current_setting('rf.seen'), ','), ',')), (SELECT count(*)::int FROM rf_secrets),
          'the user''s condition saw only the rows the policy lets through');
RESET ROLE;
DROP POLICY rf_reach ON rf_secrets;
CREATE POLICY rf_some ON rf_secrets USING (owner % 3 = 0);
SET LOCAL ROLE rf_reader;
SELECT rf_same($$SELECT owner FROM rf_secrets WHERE grail.reachable('rf', owner, target) ORDER BY owner$$,
               'the user''s reachable() under a policy of plain conditions');
RESET ROLE;

-- Batches bounded by work_mem (a few rows each at 64kB).
SET LOCAL work_mem = '64kB';
SELECT rf_same($$SELECT i, label FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i$$, 'batches within a small work_mem');
RESET work_mem;

-- Errors as a row-by-row call raises them.
SELECT throws_ok($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf_none', a, b)$$, NULL, NULL,
                 'a missing graph is an error with the filter');
SELECT is((SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b) AND false), 0::bigint,
          'a condition that is never true: no rows');
SELECT is((SELECT count(*) FROM (SELECT * FROM rf_pairs LIMIT 0) p WHERE grail.reachable('rf', a, b)), 0::bigint,
          'no rows at all');
CREATE FUNCTION rf_timed_out() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b);
	RETURN 'finished';
EXCEPTION WHEN query_canceled THEN
	RETURN 'cancelled';
END $$;
SAVEPOINT before_timeout;
SET LOCAL statement_timeout = '5ms';
SELECT ok(rf_timed_out() IN ('finished', 'cancelled'), 'under a 5 ms statement_timeout: ends or is cancelled');
ROLLBACK TO SAVEPOINT before_timeout;
SELECT rf_same($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, 'and answers as before afterwards');

-- An error that the graph raises (here: keys of another kind, bigint keys on the text graph) is
-- the per-row call's, hint included, not the array form's.
CREATE FUNCTION rf_error(query text, batched boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	state text;
	message text;
	hint text;
BEGIN
	PERFORM set_config('grail.reachable_batch', batched::text, true);
	EXECUTE query;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
	RETURN state || ': ' || message || ' (' || hint || ')';
END $$;
SELECT ok(rf_filtered($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf_text', a, b)$$),
          'a graph of text keys named with bigint keys: the filter');
SELECT is(rf_error($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf_text', a, b)$$, true),
          rf_error($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf_text', a, b)$$, false),
          'and the error of the per-row call, hint included');
-- A text key that is no integer literal, on a row past a batch's first (answered by the array form,
-- as the other keys' of its batch): the per-row call's hint, which gives the call the query makes,
-- not a call of arrays (in a parallel plan too, below).
CREATE TABLE rf_text_keys AS SELECT i, a::text AS a, b::text AS b FROM rf_pairs;
UPDATE rf_text_keys SET a = 'no key' WHERE i = 150000;
ANALYZE rf_text_keys;
SELECT ok(rf_filtered($$SELECT count(*) FROM rf_text_keys WHERE grail.reachable('rf', a, b)$$),
          'text keys on the integer graph: the filter');
SELECT is(rf_error($$SELECT count(*) FROM rf_text_keys WHERE grail.reachable('rf', a, b)$$, true),
          rf_error($$SELECT count(*) FROM rf_text_keys WHERE grail.reachable('rf', a, b)$$, false),
          'a key that is no literal of the graph''s kind, on a later row: the per-row call''s error, hint included');

-- pg_stat_user_functions counts the calls the filter makes (none before this: track_functions
-- was none): each batch's first pair by the per-row function, the others by the array form.
SET LOCAL track_functions = 'all';
SELECT is((SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b) AND i <= 30000), 15259::bigint,
          'the rows of 30,000, by four batches');
SELECT is(ARRAY(SELECT calls FROM pg_stat_xact_user_functions
                WHERE funcid IN ('grail.reachable(text, bigint, bigint)'::regprocedure,
                                 'grail.reachable(text, bigint[], bigint[])'::regprocedure)
                ORDER BY funcid::regprocedure::text),
          ARRAY[4, 4]::bigint[], 'pg_stat_user_functions counts the calls, four of each');
-- Within a small work_mem a batch still holds many rows: the batch's own arrays (1.5 MB for the
-- largest) do not count against it, else each batch would be one row answered by two calls.
CREATE FUNCTION rf_array_calls(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	before bigint;
	after bigint;
BEGIN
	SELECT coalesce(sum(calls), 0) INTO before FROM pg_stat_xact_user_functions
	WHERE funcid = 'grail.reachable(text, bigint[], bigint[])'::regprocedure;
	EXECUTE query;
	SELECT coalesce(sum(calls), 0) INTO after FROM pg_stat_xact_user_functions
	WHERE funcid = 'grail.reachable(text, bigint[], bigint[])'::regprocedure;
	RETURN after - before;
END $$;
SET LOCAL work_mem = '64kB';
SELECT cmp_ok(rf_array_calls($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$), '<', 500::bigint,
              'at 64kB of work_mem, 200,000 rows in fewer than 500 batches');
RESET work_mem;
RESET track_functions;

-- EXPLAIN names the condition, and in VERBOSE how it is answered.
SELECT matches(rf_explained($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$),
               'Condition: grail\.reachable\(''rf''::text, rf_pairs\.a, rf_pairs\.b\).*Answered: by array', 'EXPLAIN VERBOSE names the condition and says the batches go by array');

-- A parallel plan: a filter in each process over its share of a parallel scan, under a Gather,
-- the same rows as row by row; in a worker without EXECUTE on the array form, row by row too; not
-- where the array form may not run in a worker.
SET LOCAL parallel_setup_cost = 0;
SET LOCAL parallel_tuple_cost = 0;
SET LOCAL min_parallel_table_scan_size = 0;
SET LOCAL max_parallel_workers_per_gather = 2;
CREATE FUNCTION rf_parallel(query text) RETURNS boolean LANGUAGE sql AS $$
	SELECT rf_explained(query) ~ 'Gather.*Grail Reachability Filter.*Parallel Seq Scan'
$$;
CREATE FUNCTION rf_same_parallel(query text, what text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('grail.reachable_batch', 'on', true);
	RETURN NEXT ok(rf_parallel(query), what || ': a filter under a Gather');
	RETURN NEXT is(rf_rows(query, true), rf_rows(query, false), what || ': the rows of row by row');
	PERFORM set_config('grail.reachable_batch', 'on', true);
END $$;
SELECT rf_same_parallel($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$, 'parallel count');
SELECT rf_same_parallel($$SELECT i, a, b, label FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i$$,
                        'parallel, every column in order');
SELECT rf_same_parallel($$SELECT i FROM rf_pairs WHERE i % 5 = 1 AND NOT grail.reachable('rf', a, b) ORDER BY i$$,
                        'parallel NOT reachable() with another condition');
SELECT rf_same_parallel($$SELECT i, at FROM rf_small_pairs WHERE grail.reachable('rf_text', at, bt) ORDER BY i$$,
                        'parallel, text keys');
SELECT rf_same_parallel($$SELECT p.i, l.name FROM rf_pairs p JOIN rf_labels l ON l.id = p.b
                          WHERE grail.reachable('rf', p.a, p.b) ORDER BY p.i$$, 'parallel, joined to another table');
SELECT rf_same_parallel($$SELECT i FROM rf_pairs WHERE grail.reachable('rf_live', a, b) ORDER BY i$$,
                        'parallel, a live graph with pending inserts and deletes');
SELECT rf_same_parallel($$SELECT i, a FROM rf_parts WHERE grail.reachable('rf', a, b) ORDER BY i$$,
                        'parallel, a partitioned table (Parallel Append)');
SELECT ok(rf_parallel($$SELECT count(*) FROM rf_text_keys WHERE grail.reachable('rf', a, b)$$),
          'parallel, text keys on the integer graph: a filter under a Gather');
SELECT is(rf_error($$SELECT count(*) FROM rf_text_keys WHERE grail.reachable('rf', a, b)$$, true),
          rf_error($$SELECT count(*) FROM rf_text_keys WHERE grail.reachable('rf', a, b)$$, false),
          'parallel, a key that is no literal of the graph''s kind: the per-row call''s error, hint included');
REVOKE EXECUTE ON FUNCTION grail.reachable(text, bigint[], bigint[]) FROM PUBLIC;
SET LOCAL ROLE rf_reader;
SELECT rf_same_parallel($$SELECT i FROM rf_pairs WHERE grail.reachable('rf', a, b) ORDER BY i$$,
                        'parallel, without EXECUTE on the array form');
RESET ROLE;
GRANT EXECUTE ON FUNCTION grail.reachable(text, bigint[], bigint[]) TO PUBLIC;
-- (Asked inside the savepoint, said after it: pgTAP counts its tests in a table that the rollback
-- would take the test's row from.)
SAVEPOINT array_form_unsafe;
ALTER FUNCTION grail.reachable(text, bigint[], bigint[]) PARALLEL UNSAFE;
SELECT NOT rf_parallel($$SELECT count(*) FROM rf_pairs WHERE grail.reachable('rf', a, b)$$) AS unsafe_not_parallel \gset
ROLLBACK TO SAVEPOINT array_form_unsafe;
SELECT ok(:'unsafe_not_parallel'::boolean, 'no filter under a Gather where the array form is not parallel safe');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

SELECT * FROM finish();
ROLLBACK;
