-- Filters: create_graph(..., filter => ...) builds the graph over the rows the filter passes.
-- Every function is checked against test/pgtap/live_oracle.psql's oracle over a view of the rows
-- the filter passes (a WHERE clause with the same expression: a NULL result leaves the row out, as
-- WHERE does), after random writes with merges: rows inserted with and without the filter's value,
-- UPDATEs that move rows into and out of the filter (with and without changing their edge),
-- deletes, TRUNCATE, savepoints rolled back; several graphs over one table with different
-- filters; text and uuid keys; a partitioned table whose partitions number their columns their
-- own way; graphs that are not live. Then the filter's checks (a partial index's: no volatile or
-- stable functions, subqueries, aggregates, window or set-returning functions, system columns or
-- whole-row references; one expression), NULL arguments, the stored form in grail.graphs, DDL on
-- the filter's columns (rename followed, type change and drop make the graph stale, a function it
-- uses cannot be dropped), privileges on the filter's columns.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(720);
\ir live_oracle.psql
SET client_min_messages = warning;
SELECT setseed(0.2718);

CREATE TABLE fl_pool (k bigint);
INSERT INTO fl_pool VALUES (-9223372036854775808), (9223372036854775807), (9223372036854775806), (0), (-1), (1), (2), (3),
       (5), (8), (13), (-42);
-- kind: 'prod' half the time, else 'dev' or NULL (the filter's NULL leaves the row out).
CREATE FUNCTION pg_temp.fl_kind() RETURNS text LANGUAGE sql VOLATILE AS $$
	SELECT (ARRAY['prod', 'prod', 'dev', NULL])[1 + floor(random() * 4)::int]
$$;
CREATE TABLE fl_e (source bigint, target bigint, kind text DEFAULT pg_temp.fl_kind(), weight int DEFAULT floor(random() * 10));
INSERT INTO fl_e (source, target)
SELECT (SELECT k FROM fl_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM fl_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 30) i;
INSERT INTO fl_e VALUES (1, 2, 'prod'), (2, 3, 'prod'), (3, 1, 'prod'), (5, 5, 'prod'), (5, 5, 'prod'), (0, -1, 'dev'),
       (-1, 0, NULL), (8, 13, 'prod'), (8, 13, 'dev');
-- The oracles' edge sets: the rows each filter passes.
CREATE VIEW fl_prod AS SELECT source, target FROM fl_e WHERE kind = 'prod';
CREATE VIEW fl_heavy AS SELECT source, target FROM fl_e WHERE weight >= 5 AND source <> target;

SELECT grail.create_graph('fl_g', 'fl_e', filter => 'kind = ''prod''');
SELECT pg_temp.live_base('fl_g', 'fl_prod');
-- A second graph over the same table with another filter, of two columns and an operator.
SELECT grail.create_graph('fl_h', 'fl_e', filter => 'weight >= 5 AND source <> target');
SELECT pg_temp.live_base('fl_h', 'fl_heavy');
SELECT is((SELECT array_agg(filter ORDER BY name) FROM grail.graphs WHERE name IN ('fl_g', 'fl_h')),
          ARRAY['(kind = ''prod''::text)', '((weight >= 5) AND (source <> target))'],
          'grail.graphs shows each filter as PostgreSQL deparses it');
SELECT is((SELECT array_agg(filter_columns::text ORDER BY name) FROM grail.graph WHERE name IN ('fl_g', 'fl_h')),
          ARRAY['{kind}', '{source,target,weight}'], 'the catalog keeps the columns each filter reads');
SELECT is((SELECT input_rows FROM grail.graph WHERE name = 'fl_g'), (SELECT count(*) FROM fl_prod),
          'the build read only the rows the filter passes');
SELECT is((SELECT m.mismatches FROM pg_temp.live_verify('fl_h', 'fl_heavy', 'bigint', '123456789') m
           WHERE m.fn = 'reachable(g, a, b) on every pair'), 0::bigint, 'the second graph answers for its own filter');

-- 24 random rounds on the table, a merge every 6: 24 * 13 + 4 * 2 = 320 assertions. Inserted rows
-- get a random kind, so about half of them are edges.
SELECT * FROM pg_temp.live_rounds('fl_g', 'fl_prod', 'bigint', '123456789', 'fl_pool', ARRAY['fl_e']::regclass[],
                                  ARRAY['insert', 'insert_select', 'dup', 'delete', 'update', 'noop_update', 'swap',
                                        'truncate', 'join_scc', 'split_scc', 'cte', 'merge'], 24, 6);

-- Rounds of writes across the filter: kind changed (rows move in and out with their edge as it
-- is), kind and target changed in one UPDATE, kind set NULL, rows outside the filter deleted or
-- updated (nothing to log), a savepoint rolled back. 12 rounds * 13 + 3 merges * 2 = 162.
CREATE FUNCTION pg_temp.fl_cross_rounds(n int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	op text;
	r record;
	before text;
	pending_before bigint;
BEGIN
	FOR i IN 1..n LOOP
		op := (ARRAY['flip', 'flip_move', 'to_null', 'outside', 'rollback', 'flip'])[1 + (i % 6)];
		IF op = 'flip' THEN
			UPDATE fl_e SET kind = CASE WHEN kind = 'prod' THEN 'dev' ELSE 'prod' END WHERE random() < 0.3;
		ELSIF op = 'flip_move' THEN
			UPDATE fl_e SET kind = CASE WHEN kind IS DISTINCT FROM 'prod' THEN 'prod' ELSE 'dev' END,
			                target = (SELECT k FROM fl_pool ORDER BY random() + length(fl_e.target::text) * 0 LIMIT 1)
			WHERE random() < 0.3;
		ELSIF op = 'to_null' THEN
			UPDATE fl_e SET kind = NULL WHERE kind = 'prod' AND random() < 0.3;
		ELSIF op = 'outside' THEN
			SELECT coalesce(sum(coalesce(cardinality(source), 1)), 0) INTO pending_before
			FROM grail.pending_change WHERE graph_id = pg_temp.live_gid('fl_g');
			UPDATE fl_e SET source = target, target = source WHERE kind IS DISTINCT FROM 'prod';
			DELETE FROM fl_e WHERE kind = 'dev' AND random() < 0.3;
			INSERT INTO fl_e VALUES (1, 8, 'dev'), (8, 1, NULL);
			RETURN NEXT is((SELECT coalesce(sum(coalesce(cardinality(source), 1)), 0) FROM grail.pending_change
			                WHERE graph_id = pg_temp.live_gid('fl_g')), pending_before,
			               format('round %s: writes to rows outside the filter log nothing', i));
		ELSIF op = 'rollback' THEN
			BEGIN
				UPDATE fl_e SET kind = 'prod';
				DELETE FROM fl_e WHERE random() < 0.5;
				RAISE EXCEPTION 'roll back';
			EXCEPTION WHEN raise_exception THEN
				NULL;
			END;
		END IF;
		FOR r IN SELECT * FROM pg_temp.live_verify('fl_g', 'fl_prod', 'bigint', '123456789') LOOP
			RETURN NEXT is(r.mismatches, 0::bigint, format('fl_g crossing round %s (%s): %s', i, op, r.fn));
		END LOOP;
		IF i % 4 = 0 THEN
			before := pg_temp.live_answers('fl_g', 'fl_prod', 'bigint');
			PERFORM grail.merge_graph('fl_g');
			PERFORM pg_temp.live_base('fl_g', 'fl_prod');
			RETURN NEXT is(pg_temp.live_answers('fl_g', 'fl_prod', 'bigint'), before,
			               format('crossing round %s: merge_graph changes no answer', i));
			RETURN NEXT is((SELECT pending_changes FROM grail.graphs WHERE name = 'fl_g'), 0::bigint,
			               format('crossing round %s: nothing pending after the merge', i));
		END IF;
	END LOOP;
END $f$;
-- The 'outside' rounds (i = 3, 9) add one assertion each: 164.
SELECT * FROM pg_temp.fl_cross_rounds(12);

-- The second graph followed every write with its own filter: 13.
SELECT is(m.mismatches, 0::bigint, 'fl_h after all the writes: ' || m.fn)
FROM pg_temp.live_verify('fl_h', 'fl_heavy', 'bigint', '123456789') m;

-- A row trigger's path (logical replication's apply) is in live_log's tests; here a statement
-- that moves one row in and one out in one UPDATE, and a TRUNCATE inside a savepoint.
TRUNCATE fl_e;
INSERT INTO fl_e VALUES (1, 2, 'prod', 1), (2, 3, 'dev', 1), (3, 4, 'prod', 1);
SELECT ok(NOT grail.reachable('fl_g', 1, 4), 'before: 2 -> 3 is no edge');
UPDATE fl_e SET kind = CASE kind WHEN 'prod' THEN 'dev' ELSE 'prod' END WHERE source IN (2, 3);
SELECT is(ARRAY[grail.reachable('fl_g', 1, 3), grail.reachable('fl_g', 2, 3), grail.reachable('fl_g', 3, 4)],
          ARRAY[true, true, false], 'one UPDATE moved 2 -> 3 into the filter and 3 -> 4 out of it');
SAVEPOINT s;
TRUNCATE fl_e;
SELECT ok(NOT grail.reachable('fl_g', 1, 2), 'after TRUNCATE no edge');
ROLLBACK TO SAVEPOINT s;
SELECT ok(grail.reachable('fl_g', 1, 3), 'TRUNCATE rolled back: the edges are back');
SELECT is(pg_temp.live_lognet('fl_g', 'fl_prod'), 0::bigint, 'the change log nets to the filtered rows');

-- A filter that passes nothing: the empty graph (13).
CREATE TABLE fl_none (source bigint, target bigint, kind text);
INSERT INTO fl_none VALUES (1, 2, 'dev'), (2, 1, NULL);
CREATE VIEW fl_none_v AS SELECT source, target FROM fl_none WHERE kind = 'prod';
SELECT grail.create_graph('fl_none_g', 'fl_none', filter => 'kind = ''prod''');
SELECT pg_temp.live_base('fl_none_g', 'fl_none_v');
SELECT is((SELECT (vertices, edges)::text FROM grail.graphs WHERE name = 'fl_none_g'), '(0,0)',
          'a filter that passes no row: a graph of no vertices');
INSERT INTO fl_none VALUES (3, 4, 'prod'), (4, 3, 'prod');
SELECT is(m.mismatches, 0::bigint, 'rows inserted into the empty filtered graph: ' || m.fn)
FROM pg_temp.live_verify('fl_none_g', 'fl_none_v', 'bigint', '123456789') m;

-- NULL endpoints: a row with a NULL endpoint that the filter leaves out is no error; one it passes
-- is, unless skip_nulls.
CREATE TABLE fl_nulls (source bigint, target bigint, ok boolean);
INSERT INTO fl_nulls VALUES (1, 2, true), (2, NULL, false), (NULL, 3, NULL);
SELECT lives_ok($$SELECT grail.create_graph('fl_nulls_g', 'fl_nulls', filter => 'ok')$$,
                'NULL endpoints in rows the filter leaves out are not the build''s');
SELECT is((SELECT (edges, vertices)::text FROM grail.graphs WHERE name = 'fl_nulls_g'), '(1,2)', 'one edge');
INSERT INTO fl_nulls VALUES (NULL, 4, true);
SELECT throws_ok($$SELECT grail.refresh_graph('fl_nulls_g')$$, '23502', NULL,
                 'a NULL endpoint in a row the filter passes is the usual error');
SELECT is(grail.create_graph('fl_nulls_s', 'fl_nulls', skip_nulls => true, filter => 'ok') LIKE '%1 edges%', true,
          'skip_nulls => true skips it');

-- Text and uuid keys, with a filter on a boolean column (6 rounds * 13 + 1 merge * 2 = 80).
CREATE TABLE fl_tpool (k text);
INSERT INTO fl_tpool VALUES (''), ('a'), ('A'), ('b'), ('é'), ('pkg-1'), ('pkg-10'), ('it''s'), ('日本');
CREATE TABLE fl_t (source text, target text, current boolean DEFAULT random() < 0.6);
INSERT INTO fl_t (source, target)
SELECT (SELECT k FROM fl_tpool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM fl_tpool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 20) i;
CREATE VIEW fl_t_v AS SELECT source, target FROM fl_t WHERE current;
SELECT grail.create_graph('fl_tg', 'fl_t', filter => 'current');
SELECT pg_temp.live_base('fl_tg', 'fl_t_v');
SELECT * FROM pg_temp.live_rounds('fl_tg', 'fl_t_v', 'text', 'absent key', 'fl_tpool', ARRAY['fl_t']::regclass[],
                                  ARRAY['insert', 'dup', 'delete', 'update', 'swap', 'truncate', 'cte'], 6, 6);
CREATE TABLE fl_u (source uuid, target uuid, valid_to date);
INSERT INTO fl_u VALUES ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002', NULL),
                        ('00000000-0000-0000-0000-000000000002', '00000000-0000-0000-0000-000000000003', '2020-01-01'),
                        ('00000000-0000-0000-0000-000000000002', '00000000-0000-0000-0000-000000000004', NULL);
SELECT grail.create_graph('fl_ug', 'fl_u', filter => 'valid_to IS NULL');
SELECT is(ARRAY[grail.reachable('fl_ug', '00000000-0000-0000-0000-000000000001'::uuid, '00000000-0000-0000-0000-000000000004'::uuid),
                grail.reachable('fl_ug', '00000000-0000-0000-0000-000000000001'::uuid, '00000000-0000-0000-0000-000000000003'::uuid)],
          ARRAY[true, false], 'uuid keys: only current edges (valid_to IS NULL)');
UPDATE fl_u SET valid_to = NULL WHERE valid_to IS NOT NULL;
SELECT ok(grail.reachable('fl_ug', '00000000-0000-0000-0000-000000000001'::uuid, '00000000-0000-0000-0000-000000000003'::uuid),
          'an edge made current by an UPDATE is an edge');

-- A partitioned table whose partitions number their columns their own way (a dropped column, a
-- different order): the filter is read against each partition's columns. 4 rounds * 13 = 52.
CREATE TABLE fl_p (source bigint, target bigint, kind text DEFAULT pg_temp.fl_kind()) PARTITION BY RANGE (source);
CREATE TABLE fl_p1 (kind text DEFAULT pg_temp.fl_kind(), x int, target bigint, source bigint);
ALTER TABLE fl_p1 DROP COLUMN x;
ALTER TABLE fl_p ATTACH PARTITION fl_p1 FOR VALUES FROM (MINVALUE) TO (4);
CREATE TABLE fl_p2 PARTITION OF fl_p FOR VALUES FROM (4) TO (MAXVALUE);
INSERT INTO fl_p (source, target) SELECT (SELECT k FROM fl_pool ORDER BY random() + i * 0 LIMIT 1),
                                         (SELECT k FROM fl_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 30) i;
CREATE VIEW fl_p_v AS SELECT source, target FROM fl_p WHERE kind = 'prod';
SELECT grail.create_graph('fl_pg', 'fl_p', filter => 'kind = ''prod''');
SELECT pg_temp.live_base('fl_pg', 'fl_p_v');
SELECT * FROM pg_temp.live_rounds('fl_pg', 'fl_p_v', 'bigint', '123456789', 'fl_pool', ARRAY['fl_p']::regclass[],
                                  ARRAY['insert', 'delete', 'update', 'swap', 'cte'], 4, 0);

-- A graph that is not live: a write to its table makes it stale; the refresh reads the filter.
CREATE TABLE fl_s (source bigint, target bigint, kind text);
INSERT INTO fl_s VALUES (1, 2, 'prod'), (2, 3, 'dev');
SELECT grail.create_graph('fl_sg', 'fl_s', live => false, filter => 'kind = ''prod''');
UPDATE fl_s SET kind = 'prod';
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fl_sg'), true, 'not live: an UPDATE into the filter makes it stale');
SELECT grail.refresh_graph('fl_sg');
SELECT ok(grail.reachable('fl_sg', 1, 3), 'and the refresh reads the rows the filter passes now');

-- The filter's checks.
CREATE TABLE fl_c (source bigint, target bigint, kind text, n numeric, at timestamptz);
INSERT INTO fl_c VALUES (1, 2, 'prod', 1, now());
CREATE FUNCTION pg_temp.fl_stable(text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT true $$;
CREATE FUNCTION public.fl_immutable(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT $1 = 'prod' $$;
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'random() < 0.5')$$, '42P17',
                 'functions in a pg_grail filter must be marked IMMUTABLE', 'a volatile function is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'at < now()')$$, '42P17',
                 'functions in a pg_grail filter must be marked IMMUTABLE', 'a stable function (now()) is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'pg_temp.fl_stable(kind)')$$, '42P17',
                 'functions in a pg_grail filter must be marked IMMUTABLE', 'a stable user function is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'kind IN (SELECT ''prod'')')$$, '0A000', NULL,
                 'a subquery is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'EXISTS (SELECT FROM fl_s)')$$, '0A000', NULL,
                 'EXISTS is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'count(*) > 0')$$, '42803', NULL,
                 'an aggregate is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'row_number() OVER () > 0')$$, '42P20', NULL,
                 'a window function is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'generate_series(1, 2) > 0')$$, '0A000', NULL,
                 'a set-returning function is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'ctid = ''(0,1)''')$$, '42P17',
                 'a pg_grail filter may use only the edge table''s own columns, not a system column',
                 'a system column is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'fl_c IS NOT NULL')$$, '42P17',
                 'a pg_grail filter may use only the edge table''s own columns, not a whole-row reference',
                 'a whole-row reference is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'fl_s.kind = ''prod''')$$, '42P01', NULL,
                 'a column of another table is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'nope = 1')$$, '42703', NULL,
                 'an unknown column is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'kind')$$, '42804', NULL,
                 'an expression that is not boolean is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'kind = $1')$$, '42P02', NULL,
                 'a parameter is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'true; DROP TABLE fl_c')$$, '22023',
                 'a pg_grail filter must be one boolean expression, not "true; DROP TABLE fl_c"',
                 'a second statement is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'true) OR (true')$$, '42601', NULL,
                 'unbalanced parentheses are a syntax error');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'true ORDER BY 1')$$, '22023', NULL,
                 'a clause after the expression is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => 'true UNION SELECT WHERE false')$$, '22023', NULL,
                 'a UNION is refused');
SELECT throws_ok($$SELECT grail.create_graph('fl_bad', 'fl_c', filter => '  ')$$, '22023',
                 'a pg_grail filter must not be empty', 'an empty filter is refused');
SELECT is((SELECT count(*) FROM grail.graph WHERE name = 'fl_bad'), 0::bigint, 'no refused graph was made');
SELECT lives_ok($$SELECT grail.create_graph('fl_imm', 'fl_c', filter => 'fl_immutable(kind) AND n::int = 1')$$,
                'an immutable user function and casts are accepted');
SELECT is((SELECT filter FROM grail.graphs WHERE name = 'fl_imm'), '(public.fl_immutable(kind) AND ((n)::integer = 1))',
          'stored with the function''s schema, so that it reads the same whatever the search_path');
SET search_path = pg_catalog;
INSERT INTO public.fl_c VALUES (2, 3, 'prod', 1, now());
CREATE TEMP TABLE fl_answer AS SELECT grail.reachable('public.fl_imm', 1, 3) AS r;
RESET search_path;
SELECT ok((SELECT r FROM fl_answer), 'a write under another search_path is read with the stored filter');
SELECT is(grail.create_graph('fl_null', 'fl_c', filter => NULL) LIKE '%2 edges%', true, 'filter => NULL: every row');
SELECT is((SELECT filter FROM grail.graphs WHERE name = 'fl_null'), NULL, 'and grail.graphs shows no filter');

-- NULL in each other argument gives NULL (as before the filter, when the function was STRICT).
SELECT is(grail.create_graph(NULL, 'fl_c', filter => 'true'), NULL, 'NULL name: NULL');
SELECT is(grail.create_graph('fl_x', NULL, filter => 'true'), NULL, 'NULL table: NULL');
SELECT is(grail.create_graph('fl_x', 'fl_c', NULL, filter => 'true'), NULL, 'NULL source column: NULL');
SELECT is(grail.create_graph('fl_x', 'fl_c', 'source', NULL, filter => 'true'), NULL, 'NULL target column: NULL');
SELECT is(grail.create_graph('fl_x', 'fl_c', labels => NULL, filter => 'true'), NULL, 'NULL labels: NULL');
SELECT is(grail.create_graph('fl_x', 'fl_c', skip_nulls => NULL, filter => 'true'), NULL, 'NULL skip_nulls: NULL');
SELECT is(grail.create_graph('fl_x', 'fl_c', live => NULL, filter => 'true'), NULL, 'NULL live: NULL');
SELECT is((SELECT count(*) FROM grail.graph WHERE name = 'fl_x'), 0::bigint, 'and no graph');

-- DDL on the filter's columns.
CREATE TABLE fl_d (source bigint, target bigint, kind text, w int);
INSERT INTO fl_d VALUES (1, 2, 'prod', 1), (2, 3, 'dev', 2), (3, 4, 'prod', 3);
SELECT grail.create_graph('fl_dg', 'fl_d', filter => 'kind = ''prod'' AND w > 0');
ALTER TABLE fl_d RENAME COLUMN kind TO k;
SELECT is((SELECT (filter, stale)::text FROM grail.graphs WHERE name = 'fl_dg'), '("((k = ''prod''::text) AND (w > 0))",f)',
          'a renamed column: the filter follows, the graph answers');
SELECT is((SELECT filter_columns::text FROM grail.graph WHERE name = 'fl_dg'), '{k,w}', 'and its columns');
INSERT INTO fl_d VALUES (4, 5, 'prod', 1), (5, 6, 'dev', 1);
SELECT is(ARRAY[grail.reachable('fl_dg', 3, 5), grail.reachable('fl_dg', 4, 6)], ARRAY[true, false],
          'writes after the rename are logged through the renamed column');
-- Two columns swapped by three renames.
ALTER TABLE fl_d RENAME COLUMN k TO tmp;
ALTER TABLE fl_d RENAME COLUMN w TO k;
ALTER TABLE fl_d RENAME COLUMN tmp TO w;
SELECT is((SELECT filter FROM grail.graphs WHERE name = 'fl_dg'), '((w = ''prod''::text) AND (k > 0))',
          'two columns swapped by renames: each followed');
SELECT is(grail.merge_graph('fl_dg') LIKE '%3 edges%', true, 'and a merge reads the same rows');
ALTER TABLE fl_d ALTER COLUMN k TYPE bigint;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fl_dg'), true, 'a filter column''s type changed: stale');
SELECT lives_ok($$SELECT grail.refresh_graph('fl_dg')$$, 'a refresh reads it with the new type');
ALTER TABLE fl_d ALTER COLUMN k TYPE text;
SELECT throws_ok($$SELECT grail.refresh_graph('fl_dg')$$, '42883', NULL,
                 'a type the filter no longer fits: the refresh says why');
SELECT lives_ok($$INSERT INTO fl_d VALUES (6, 7, 'prod', '1')$$, 'the table stays writable meanwhile');
SELECT lives_ok($$CREATE FUNCTION pg_temp.fl_unrelated() RETURNS int LANGUAGE sql AS 'SELECT 1'$$,
                'and other functions can be created (a stale graph''s filter is not checked)');
ALTER TABLE fl_d ALTER COLUMN k TYPE int USING k::int;
SELECT grail.refresh_graph('fl_dg');
ALTER TABLE fl_d DROP COLUMN w;
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'fl_dg'), true, 'a filter column dropped: stale');
SELECT lives_ok($$INSERT INTO fl_d VALUES (7, 8, 1)$$, 'the table stays writable');
SELECT throws_ok($$SELECT grail.refresh_graph('fl_dg')$$, '42703',
                 'the filter of pg_grail graph "fl_dg" uses column "w", which table "fl_d" no longer has',
                 'the refresh names the dropped column');
SELECT throws_ok($$DROP FUNCTION public.fl_immutable(text)$$, '2BP01',
                 'cannot drop an object that the filter of pg_grail graph "public.fl_imm" uses',
                 'a function the filter uses cannot be dropped');
SELECT ok(grail.reachable('fl_imm', 1, 2), 'and the graph still answers');
SELECT throws_ok($$ALTER FUNCTION public.fl_immutable(text) RENAME TO fl_renamed$$, '2BP01',
                 'cannot change an object that the filter of pg_grail graph "public.fl_imm" uses, as that would leave the filter invalid',
                 'nor renamed');
SELECT throws_ok($$ALTER FUNCTION public.fl_immutable(text) VOLATILE$$, '2BP01', NULL, 'nor made volatile');
SELECT throws_ok($f$CREATE OR REPLACE FUNCTION public.fl_immutable(text) RETURNS boolean LANGUAGE sql STABLE
                   AS $b$ SELECT $1 = 'prod' $b$$f$, '2BP01', NULL, 'nor replaced by a stable one');
SELECT lives_ok($f$CREATE OR REPLACE FUNCTION public.fl_immutable(text) RETURNS boolean LANGUAGE sql IMMUTABLE
                  AS $b$ SELECT $1 = 'prod' $b$$f$, 'an immutable replacement is accepted');
CREATE SCHEMA fl_elsewhere;
SELECT throws_ok($$ALTER FUNCTION public.fl_immutable(text) SET SCHEMA fl_elsewhere$$, '2BP01', NULL,
                 'nor moved to another schema');
SELECT lives_ok($$INSERT INTO fl_c VALUES (3, 4, 'prod', 1, now())$$, 'and the table stays writable');
SELECT ok(grail.reachable('fl_imm', 1, 4), 'its writes logged through the filter');

-- The filter's functions run as the graph's owner, whoever writes or asks: a superuser's write
-- and merge run the owner's filter with the owner's rights, not their own.
CREATE ROLE fl_owner;
GRANT CREATE ON SCHEMA public TO fl_owner;
CREATE TABLE fl_o (source bigint, target bigint);
ALTER TABLE fl_o OWNER TO fl_owner;
CREATE FUNCTION public.fl_as_owner(bigint) RETURNS boolean LANGUAGE plpgsql IMMUTABLE
AS $$ BEGIN RETURN current_user = 'fl_owner'; END $$;
SET ROLE fl_owner;
SELECT grail.create_graph('public.fl_og', 'fl_o', filter => 'public.fl_as_owner(source)');
RESET ROLE;
INSERT INTO fl_o VALUES (1, 2);
SELECT ok(grail.reachable('public.fl_og', 1, 2), 'a superuser''s write is filtered as the graph''s owner');
SELECT grail.merge_graph('public.fl_og');
SELECT ok(grail.reachable('public.fl_og', 1, 2), 'and so is a merge a superuser runs');

-- Privileges: the filter's columns must be readable, at creation and at every query.
CREATE ROLE fl_reader;
CREATE TABLE fl_r (source bigint, target bigint, secret text);
INSERT INTO fl_r VALUES (1, 2, 'a'), (2, 3, 'b');
ALTER TABLE fl_r OWNER TO fl_reader;
GRANT CREATE ON SCHEMA public TO fl_reader;
SET ROLE fl_reader;
SELECT grail.create_graph('public.fl_rg', 'fl_r', filter => 'secret = ''a''');
RESET ROLE;
ALTER TABLE fl_r OWNER TO CURRENT_USER;
GRANT SELECT (source, target) ON fl_r TO fl_reader;
SET ROLE fl_reader;
SELECT throws_ok($$SELECT grail.reachable('fl_rg', 1, 2)$$, '42501',
                 'permission denied for column "secret" of table "fl_r"',
                 'a role that cannot read a filter column cannot query the graph');
RESET ROLE;
GRANT SELECT (secret) ON fl_r TO fl_reader;
SET ROLE fl_reader;
SELECT is(ARRAY[grail.reachable('fl_rg', 1, 2), grail.reachable('fl_rg', 1, 3)], ARRAY[true, false],
          'with SELECT on it, it can');
RESET ROLE;
REVOKE SELECT (secret) ON fl_r FROM fl_reader;
GRANT TRIGGER, UPDATE ON fl_r TO fl_reader;
SET ROLE fl_reader;
SELECT throws_ok($$SELECT grail.create_graph('public.fl_rg2', 'fl_r', filter => 'secret = ''b''')$$, '42501',
                 'permission denied for column "secret" of table "fl_r"',
                 'nor create a graph with a filter over a column it cannot read');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
