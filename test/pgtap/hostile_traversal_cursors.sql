-- A cursor declared without SCROLL over bfs(), descendants() or ancestors() moves backward as it
-- does over a FunctionScan (grail.traversal_scan = off), whose tuplestore reads backward: the same
-- rows at every move (backward past the first row and forward past the last included), for keys
-- of each kind, rows a condition filters, a source that is not in the graph, a NULL source and a
-- projection. Before the scan read backward, PostgreSQL made such a cursor NO SCROLL: "cursor can
-- only scan forward" at the first backward move, where the FunctionScan answered.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(13);
SET client_min_messages = warning;
\ir traversal_scan_checks.psql

CREATE TABLE hc_int (source bigint, target bigint);
INSERT INTO hc_int SELECT g, g * 3 % 40 + 1 FROM generate_series(1, 40) g;
INSERT INTO hc_int SELECT g, g + 1 FROM generate_series(1, 39) g;
INSERT INTO hc_int VALUES (7, 7), (7, 8), (-9223372036854775808, 1), (50, 51);
CREATE TABLE hc_text (source text, target text);
INSERT INTO hc_text SELECT 'k' || source, 'k' || target FROM hc_int;
CREATE TABLE hc_uuid (source uuid, target uuid);
INSERT INTO hc_uuid SELECT md5(source::text)::uuid, md5(target::text)::uuid FROM hc_int;
SELECT ok(grail.create_graph('hc_int', 'hc_int', 'source', 'target') IS NOT NULL
          AND grail.create_graph('hc_text', 'hc_text', 'source', 'target') IS NOT NULL
          AND grail.create_graph('hc_uuid', 'hc_uuid', 'source', 'target') IS NOT NULL, 'three graphs');

-- The rows (as text, '-' where none) that a walk of moves meets over cursor `name`: into the rows,
-- back past the first, forward again, to the end and past it, back, to the first, then every row
-- forward and every row backward.
CREATE FUNCTION pg_temp.walk(name text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE cur refcursor := name; rec record; met text[] := '{}';
BEGIN
	MOVE FORWARD 3 FROM cur;
	FETCH BACKWARD FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH PRIOR FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH PRIOR FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH NEXT FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH RELATIVE 2 FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH ABSOLUTE 5 FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH LAST FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH NEXT FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH NEXT FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH PRIOR FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH RELATIVE -2 FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH ABSOLUTE -1 FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	FETCH FIRST FROM cur INTO rec; met := met || CASE WHEN FOUND THEN rec::text ELSE '-' END;
	LOOP
		FETCH NEXT FROM cur INTO rec;
		EXIT WHEN NOT FOUND;
		met := met || rec::text;
	END LOOP;
	LOOP
		FETCH PRIOR FROM cur INTO rec;
		EXIT WHEN NOT FOUND;
		met := met || rec::text;
	END LOOP;
	RETURN met;
END $$;

-- The walk over a cursor declared without SCROLL or NO SCROLL, its plan made with the scan on
-- (scan) or off: the error's message where a move fails.
CREATE FUNCTION pg_temp.walked(query text, scan boolean) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE met text[];
BEGIN
	PERFORM set_config('grail.traversal_scan', scan::text, true);
	EXECUTE 'DECLARE hc_cursor CURSOR FOR ' || query;
	PERFORM set_config('grail.traversal_scan', 'on', true);
	BEGIN
		met := pg_temp.walk('hc_cursor');
	EXCEPTION WHEN OTHERS THEN
		met := ARRAY[SQLERRM];
	END;
	EXECUTE 'CLOSE hc_cursor';
	RETURN met;
END $$;

CREATE FUNCTION pg_temp.same_walk(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE scanned text[]; through_function_scan text[];
BEGIN
	IF NOT pg_temp.scanned(query) THEN
		RETURN 'not run as the scan';
	END IF;
	scanned := pg_temp.walked(query, true);
	through_function_scan := pg_temp.walked(query, false);
	IF cardinality(through_function_scan) < 20 THEN
		RETURN 'the FunctionScan walk met too few rows: ' || through_function_scan::text;
	END IF;
	RETURN CASE WHEN scanned IS NOT DISTINCT FROM through_function_scan THEN 'same'
	            ELSE left(scanned::text, 300) || ' <> ' || left(through_function_scan::text, 300) END;
END $$;

SELECT is(pg_temp.same_walk($$SELECT * FROM grail.bfs('hc_int', 1)$$), 'same', 'bigint keys, bfs()');
SELECT is(pg_temp.same_walk($$SELECT * FROM grail.descendants('hc_text', 'k1')$$), 'same', 'text keys, descendants()');
SELECT is(pg_temp.same_walk($$SELECT * FROM grail.ancestors('hc_uuid', md5('1')::uuid)$$), 'same',
          'uuid keys, ancestors()');
SELECT is(pg_temp.same_walk($$SELECT * FROM grail.bfs('hc_uuid', md5('1'), NULL, 'both')$$), 'same',
          'uuid keys answered as text, both directions');
SELECT is(pg_temp.same_walk($$SELECT * FROM grail.bfs('hc_int', 1) WHERE depth % 2 = 0 OR vertex < 10$$), 'same',
          'rows a condition filters, read backward');
SELECT is(pg_temp.same_walk($$SELECT vertex || '/' || depth, parent FROM grail.bfs('hc_text', 'k1')$$), 'same',
          'a projection over the scan');

-- Fewer rows than the walk's moves: the cursor starts and ends on the same row.
SELECT is(pg_temp.walked($$SELECT * FROM grail.bfs('hc_int', 12345)$$, true),
          pg_temp.walked($$SELECT * FROM grail.bfs('hc_int', 12345)$$, false), 'a source that is not in the graph');
SELECT is(pg_temp.walked($$SELECT * FROM grail.descendants('hc_text', NULL::text)$$, true),
          pg_temp.walked($$SELECT * FROM grail.descendants('hc_text', NULL::text)$$, false), 'a NULL source');
SELECT is(pg_temp.walked($$SELECT * FROM grail.bfs('hc_int', 50)$$, true),
          pg_temp.walked($$SELECT * FROM grail.bfs('hc_int', 50)$$, false), 'two rows');

-- NO SCROLL still refuses, as over a FunctionScan.
DECLARE hc_no_scroll NO SCROLL CURSOR FOR SELECT * FROM grail.bfs('hc_int', 1);
MOVE 2 IN hc_no_scroll;
SELECT throws_ok('FETCH BACKWARD 1 FROM hc_no_scroll', '55000', 'cursor can only scan forward',
                 'a NO SCROLL cursor refuses to move backward');

-- An oid graph's keys answered as text are names read from the catalogs: those at the call, as a
-- FunctionScan's tuplestore holds them, so that a rename between two fetches changes no row.
CREATE TABLE hc_reg (s regclass, t regclass);
CREATE TABLE hc_zz1 ();
CREATE TABLE hc_zz2 ();
INSERT INTO hc_reg VALUES ('hc_zz1', 'hc_zz2'), ('hc_zz2', 'pg_class');
SELECT ok(grail.create_graph('hc_reg', 'hc_reg', 's', 't') IS NOT NULL, 'a regclass graph');
DECLARE hc_names CURSOR FOR SELECT vertex, depth, parent FROM grail.bfs('hc_reg', 'hc_zz1'::text);
MOVE 1 IN hc_names;
ALTER TABLE hc_zz2 RENAME TO hc_zz3;
SELECT results_eq('FETCH ALL FROM hc_names', $$VALUES ('hc_zz2'::text, 1, 'hc_zz1'::text), ('pg_class', 2, 'hc_zz2')$$,
                  'names read at the call, not at each fetch');

SELECT * FROM finish();
ROLLBACK;
