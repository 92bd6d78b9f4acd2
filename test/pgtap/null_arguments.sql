-- NULL arguments: every function of the extension, with every pattern of NULL arguments, gives NULL
-- (no rows for a set-returning function) or a clear error, and never crashes the server. Only the
-- functions listed in nullable_function take NULLs (CALLED ON NULL INPUT); all others are STRICT.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(12);

CREATE TABLE null_edges (source bigint, target bigint);
INSERT INTO null_edges VALUES (1, 2), (2, 1), (2, 3), (3, 4), (4, 2), (5, 6);
SELECT grail.create_graph('null_graph', 'null_edges');

-- The functions that take NULLs and the positions (from 0) of the arguments that may be NULL; a
-- NULL in any other argument gives NULL or no rows (GRAIL_FUNCTION_NULLABLE in src/pg/boundary/guard.hpp).
-- save_chordless_cycles() raises an error for a NULL graph, into_table or min_length instead.
CREATE TEMP TABLE nullable_function (fn regprocedure PRIMARY KEY, nullable int[] NOT NULL);
INSERT INTO nullable_function VALUES
	('grail.bfs(text, bigint, int)', '{2}'),
	('grail.bfs(text, text, int)', '{2}'),
	('grail.bfs(text, uuid, int)', '{2}'),
	('grail.bfs(text, bigint, int, text)', '{2}'),
	('grail.bfs(text, text, int, text)', '{2}'),
	('grail.bfs(text, uuid, int, text)', '{2}'),
	('grail.descendants(text, bigint, int)', '{2}'),
	('grail.descendants(text, text, int)', '{2}'),
	('grail.descendants(text, uuid, int)', '{2}'),
	('grail.ancestors(text, bigint, int)', '{2}'),
	('grail.ancestors(text, text, int)', '{2}'),
	('grail.ancestors(text, uuid, int)', '{2}'),
	('grail.bfs(text, anyelement, int)', '{2}'),
	('grail.bfs(text, integer, int)', '{2}'),
	('grail.bfs(text, smallint, int)', '{2}'),
	('grail.bfs(text, anyelement, int, text)', '{2}'),
	('grail.bfs(text, integer, int, text)', '{2}'),
	('grail.bfs(text, smallint, int, text)', '{2}'),
	('grail.descendants(text, anyelement, int)', '{2}'),
	('grail.descendants(text, integer, int)', '{2}'),
	('grail.descendants(text, smallint, int)', '{2}'),
	('grail.ancestors(text, anyelement, int)', '{2}'),
	('grail.ancestors(text, integer, int)', '{2}'),
	('grail.ancestors(text, smallint, int)', '{2}'),
	('grail.scc_components(text, anyelement)', '{1}'),
	('grail.chordless_cycles(text, int, int)', '{2}'),
	('grail.chordless_cycles(text, anyelement, int, int)', '{1,3}'),
	('grail.chordless_cycle_counts(text, int)', '{1}'),
	('grail.save_chordless_cycles(text, text, int, int)', '{3}'),
	('grail.create_graph(text, regclass, name, name, int, boolean, boolean, text)', '{7}');

SELECT is(ARRAY(SELECT p.oid::regprocedure::text FROM pg_proc p
                WHERE p.pronamespace = 'grail'::regnamespace AND p.pronargs > 0 AND NOT p.proisstrict
                ORDER BY 1),
          ARRAY(SELECT fn::text FROM nullable_function ORDER BY 1),
          'every function with arguments is STRICT but those that must take NULLs');

-- Each call with at least one NULL argument, the others a value of their type, in a subtransaction
-- rolled back after the call (a call may create or drop things); outcome: 'null' (NULL or no rows),
-- 'answer' (a non-NULL value or a row) or the error.
CREATE TEMP TABLE null_call (fn regprocedure, call text, required_null boolean, outcome text);
DO $$
DECLARE
	f record;
	args text[];
	required_null boolean;
	skip boolean;
	answers bigint;
	outcome text;
BEGIN
	FOR f IN SELECT p.oid, p.proname, p.pronargs, p.proargtypes::oid[] AS types, p.proisstrict, n.nullable
	         FROM pg_proc p LEFT JOIN nullable_function n ON n.fn = p.oid
	         WHERE p.pronamespace = 'grail'::regnamespace AND p.pronargs > 0
	           AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
	         ORDER BY p.oid::regprocedure::text LOOP
		FOR mask IN 1 .. (1 << f.pronargs) - 1 LOOP
			args := '{}';
			required_null := false;
			skip := false;
			FOR i IN 0 .. f.pronargs - 1 LOOP
				IF mask & (1 << i) <> 0 THEN
					-- anyelement: a key_type is a typed NULL; bigint is one of the accepted types.
					args := args || format('NULL::%s', CASE WHEN f.types[i] IN ('anyelement'::regtype, 'anycompatiblenonarray'::regtype)
					                                        THEN 'bigint'
					                                        WHEN f.types[i] = 'anycompatiblearray'::regtype THEN 'bigint[]'
					                                        ELSE format_type(f.types[i], NULL) END);
					IF f.proisstrict OR i <> ALL (f.nullable) THEN
						required_null := true;
					END IF;
				ELSE
					args := args || CASE f.types[i]
						WHEN 'text'::regtype THEN '''null_graph''::text'
						WHEN 'bigint'::regtype THEN '1::bigint'
						WHEN 'integer'::regtype THEN '3'
						WHEN 'boolean'::regtype THEN 'true'
						WHEN 'name'::regtype THEN '''source''::name'
						WHEN 'oid'::regtype THEN '''null_edges''::regclass::oid'
						WHEN 'regclass'::regtype THEN '''null_edges''::regclass'
						WHEN 'regclass[]'::regtype THEN 'ARRAY[''null_edges''::regclass]'
						WHEN 'uuid'::regtype THEN '''00000000-0000-0000-0000-000000000001''::uuid'
						WHEN 'bigint[]'::regtype THEN '''{1,2}''::bigint[]'
						WHEN 'text[]'::regtype THEN '''{a,b}''::text[]'
						WHEN 'uuid[]'::regtype THEN 'ARRAY[''00000000-0000-0000-0000-000000000001''::uuid]'
						WHEN 'anyelement'::regtype THEN '0::bigint'
						WHEN 'anycompatiblenonarray'::regtype THEN '1::bigint'
						WHEN 'anycompatiblearray'::regtype THEN '''{1,2}''::bigint[]'
						WHEN 'smallint'::regtype THEN '1::smallint'
						WHEN 'integer[]'::regtype THEN '''{1,2}''::integer[]'
						WHEN 'smallint[]'::regtype THEN '''{1,2}''::smallint[]'
						END;
					-- A value the test cannot make (pg_ddl_command): only its NULL is tried.
					IF args[i + 1] IS NULL THEN
						skip := true;
					END IF;
				END IF;
			END LOOP;
			CONTINUE WHEN skip;
			BEGIN
				EXECUTE format('SELECT count(*) FILTER (WHERE NOT (r IS NULL)) FROM (SELECT grail.%I(%s) AS r) s',
				               f.proname, array_to_string(args, ', '))
					INTO answers;
				outcome := CASE WHEN answers = 0 THEN 'null' ELSE 'answer' END;
				RAISE EXCEPTION USING ERRCODE = 'GT000';  -- undo what the call did
			EXCEPTION WHEN OTHERS THEN
				IF SQLSTATE <> 'GT000' THEN
					outcome := 'error: ' || SQLERRM;
				END IF;
			END;
			INSERT INTO null_call VALUES (f.oid, format('grail.%I(%s)', f.proname, array_to_string(args, ', ')),
			                              required_null, outcome);
		END LOOP;
	END LOOP;
END
$$;

SELECT is((SELECT count(DISTINCT fn) FROM null_call),
          (SELECT count(*) FROM pg_proc WHERE pronamespace = 'grail'::regnamespace AND pronargs > 0
                                          AND prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)),
          'every function with arguments was called');
SELECT is(ARRAY(SELECT call FROM null_call WHERE required_null AND outcome = 'answer' ORDER BY call), '{}',
          'a NULL where a value is required gives NULL or no rows');
SELECT cmp_ok((SELECT count(*) FROM null_call WHERE NOT required_null AND outcome = 'answer'), '>', 0::bigint,
          'calls with only optional arguments NULL answer');

-- scc_components(graph, key_type) takes a NULL key_type; a NULL graph is no rows, whatever the key type.
SELECT is((SELECT count(*) FROM grail.scc_components(NULL, NULL::text)), 0::bigint, 'scc_components(NULL, NULL::text)');
SELECT is((SELECT count(*) FROM grail.scc_components(NULL, NULL::bigint)), 0::bigint, 'scc_components(NULL, NULL::bigint)');
SELECT is((SELECT count(*) FROM grail.scc_components(NULL::text, NULL::uuid)), 0::bigint,
          'scc_components(NULL::text, NULL::uuid)');
SELECT is((SELECT count(*) FROM grail.scc_components(NULL::text, NULL::varchar)), 0::bigint,
          'scc_components(NULL::text, NULL::varchar)');
SELECT is((SELECT count(*) FROM (SELECT grail.scc_components(NULL, NULL::text)) s), 0::bigint,
          'scc_components(NULL, NULL::text) in the select list');
SELECT is((SELECT count(*) FROM grail.scc_components('null_graph', NULL::bigint)), 6::bigint,
          'a NULL key_type of the graph''s key type answers');
SELECT is((SELECT count(*) FROM grail.bfs(NULL, 1::bigint)), 0::bigint, 'bfs(NULL, 1)');
SELECT is((SELECT count(*) FROM grail.chordless_cycles('null_graph', NULL::bigint, NULL)), 0::bigint,
          'chordless_cycles(graph, key_type, NULL min_length)');

SELECT * FROM finish();
ROLLBACK;
