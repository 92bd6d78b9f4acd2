-- A query whose only relation is the Grail Traversal Scan outputs the columns it names, groups and
-- sorts by them: the rows, columns included, are FunctionScan's (grail.traversal_scan = off). When
-- the scan returned every column of the function wherever the query's target held columns alone
-- (302ba07, until 3d8a6f3), `SELECT vertex, depth` returned parent too (RETURN QUERY into two
-- columns failed), and the GROUP BY / ORDER BY of such a query fell on the column at the same
-- position of the function's (`GROUP BY depth` grouped by vertex). Inside a join the scan may
-- return every column: those queries are checked here too.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(6);
SET client_min_messages = warning;
\ir traversal_scan_checks.psql

CREATE TABLE ht_int (source bigint, target bigint);
INSERT INTO ht_int SELECT g, g * 3 % 40 + 1 FROM generate_series(1, 40) g;
INSERT INTO ht_int SELECT g, g + 1 FROM generate_series(1, 39) g;
INSERT INTO ht_int VALUES (7, 7), (50, 51);
CREATE TABLE ht_text (source text, target text);
INSERT INTO ht_text SELECT 'k' || source, 'k' || target FROM ht_int;
SELECT ok(grail.create_graph('ht_int', 'ht_int', 'source', 'target') IS NOT NULL
          AND grail.create_graph('ht_text', 'ht_text', 'source', 'target') IS NOT NULL, 'two graphs');
CREATE TABLE ht_n AS SELECT g AS n FROM generate_series(0, 6) g;

SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT vertex, depth FROM grail.bfs('ht_text', 'k1')$$,
	$$SELECT depth, vertex FROM grail.bfs('ht_int', 1)$$,
	$$SELECT parent FROM grail.bfs('ht_int', 1)$$,
	$$SELECT depth FROM grail.descendants('ht_text', 'k3')$$,
	$$SELECT vertex, depth, parent FROM grail.bfs('ht_int', 1, 3, 'both')$$
]), '{}', 'the columns named, and only those');
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT depth, count(*) FROM grail.bfs('ht_int', 1) GROUP BY depth ORDER BY depth$$,
	$$SELECT depth, count(*), count(vertex) FROM grail.bfs('ht_text', 'k1') GROUP BY depth ORDER BY depth$$,
	$$SELECT parent, count(*) FROM grail.bfs('ht_text', 'k1') GROUP BY parent ORDER BY parent$$,
	$$SELECT DISTINCT depth FROM grail.descendants('ht_int', 2) ORDER BY depth$$,
	$$SELECT depth, vertex FROM grail.ancestors('ht_text', 'k9') ORDER BY depth DESC, vertex$$,
	$$SELECT depth FROM grail.bfs('ht_int', 1) ORDER BY depth DESC$$,
	$$SELECT depth, row_number() OVER (PARTITION BY depth ORDER BY vertex) FROM grail.bfs('ht_int', 1) ORDER BY 1, 2$$
]), '{}', 'GROUP BY, DISTINCT, ORDER BY and PARTITION BY on the columns named');
SELECT is(pg_temp.disagreeing(ARRAY[
	$$SELECT n.n, b.depth FROM ht_n n, grail.bfs('ht_int', 1) b WHERE b.depth = n.n ORDER BY 1, 2$$,
	$$SELECT b.depth, count(*) FROM ht_n n JOIN grail.bfs('ht_text', 'k1') b ON b.depth = n.n GROUP BY b.depth ORDER BY 1$$,
	$$SELECT n.n FROM ht_n n WHERE n.n IN (SELECT depth FROM grail.bfs('ht_int', 1)) ORDER BY 1$$
]), '{}', 'inside a join');

CREATE FUNCTION pg_temp.two_columns(source text) RETURNS TABLE (v text, d int) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT vertex, depth FROM grail.bfs('ht_text', source);
END $$;
SELECT is((SELECT count(*) FROM pg_temp.two_columns('k1')), (SELECT count(*) FROM grail.bfs('ht_text', 'k1')),
          'RETURN QUERY of two of the columns');
CREATE FUNCTION pg_temp.depths(source bigint) RETURNS SETOF int LANGUAGE sql VOLATILE AS $$
	SELECT depth FROM grail.bfs('ht_int', source) ORDER BY depth DESC
$$;
SELECT is(ARRAY(SELECT pg_temp.depths(1)), ARRAY(SELECT depth FROM grail.bfs('ht_int', 1) ORDER BY depth DESC),
          'a SQL function returning one of the columns');

SELECT * FROM finish();
ROLLBACK;
