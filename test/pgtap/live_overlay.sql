-- The incremental overlay of live graphs: statements that each see a few more changes than the
-- last extend the overlay this backend keeps (reading only the log rows written since), and every
-- other case reads the log whole: a savepoint rolled back (a row seen before is gone), a cursor that
-- still holds the last overlay for its own snapshot, deleted edges, a new cycle, a NULL endpoint, a
-- TRUNCATE, a merge. After each step, every pair of vertices (and one id no row names) answers as a
-- closure of the rows the statement sees; integer keys with extreme ids, text keys and uuid keys.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(42);

-- Pairs of the table's vertices (and `unknown`) where reachable() differs from the rows' closure.
CREATE FUNCTION pg_temp.wrong_pairs(g text, tbl text, unknown text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$
		WITH RECURSIVE v(v) AS (SELECT source FROM %1$s WHERE source IS NOT NULL UNION SELECT target FROM %1$s
		                        WHERE target IS NOT NULL UNION SELECT %3$L),
		r(a, b) AS (SELECT v, v FROM v UNION SELECT r.a, e.target FROM r JOIN %1$s e ON e.source = r.b)
		SELECT count(*) FROM v x, v y
		WHERE grail.reachable(%2$L, x.v, y.v) IS DISTINCT FROM EXISTS (SELECT 1 FROM r WHERE r.a = x.v AND r.b = y.v)
	$q$, tbl, g, unknown) INTO n;
	RETURN n;
END $$;

CREATE TABLE ov_e (source bigint, target bigint);
INSERT INTO ov_e VALUES (1, 2), (2, 3), (3, 4), (5, 6), (6, 7), (1, 2), (8, 8),
	(-9223372036854775808, 9223372036854775807);
SELECT grail.create_graph('ov_g', 'ov_e') IS NOT NULL AS made \gset
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'built');

-- Single-row writes, one statement each: edges in and out of the build, new ids, extreme ids,
-- duplicates, self-loops, edges the build has.
INSERT INTO ov_e VALUES (4, 5);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'an edge joins two chains');
INSERT INTO ov_e VALUES (7, 100);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'an edge to a new id');
INSERT INTO ov_e VALUES (100, 101), (101, 102);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'edges between new ids');
INSERT INTO ov_e VALUES (9223372036854775807, 1);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'an edge from the largest id');
INSERT INTO ov_e VALUES (102, 102), (1, 2), (4, 5);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'a self-loop and duplicates');
INSERT INTO ov_e VALUES (-5, -9223372036854775808);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '424242'), 0::bigint, 'an edge into the smallest id');
SELECT ok(grail.reachable('ov_g', -5, 102), 'the longest path, through every write');
SELECT ok(NOT grail.reachable('ov_g', 102, -5), 'not back');

-- A savepoint rolled back: the rows it wrote, seen by the last statement, are gone.
SAVEPOINT s;
INSERT INTO ov_e VALUES (102, 200);
SELECT ok(grail.reachable('ov_g', 1, 200), 'within the savepoint');
ROLLBACK TO SAVEPOINT s;
SELECT ok(NOT grail.reachable('ov_g', 1, 200), 'the savepoint rolled back');
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'after the rollback');
INSERT INTO ov_e VALUES (102, 201);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'a write after the rollback');

-- A cursor that answered a row before a write holds the overlay of its snapshot: the statement
-- after the write must not extend that one in place, and the cursor's later rows answer for its
-- own snapshot (8 reaches nothing there), the statement's for its own.
DECLARE ov_c CURSOR FOR SELECT b, grail.reachable('ov_g', 8, b) AS r FROM generate_series(1, 7) b;
MOVE 1 FROM ov_c;
INSERT INTO ov_e VALUES (8, 1);
SELECT ok(grail.reachable('ov_g', 8, 4), 'the statement after the write sees it');
SELECT results_eq('ov_c'::refcursor, $$VALUES (2, false), (3, false), (4, false), (5, false), (6, false), (7, false)$$,
	'the cursor answers for its snapshot');
CLOSE ov_c;
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'after the cursor');

-- Deletions, a cycle, a NULL endpoint, a TRUNCATE, a merge: the log read whole, answers exact.
DELETE FROM ov_e WHERE source = 2 AND target = 3;
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'an edge deleted');
INSERT INTO ov_e VALUES (2, 3);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'the deleted edge written again');
INSERT INTO ov_e VALUES (3, 9);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'and extended again');
INSERT INTO ov_e VALUES (102, 4);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'a cycle between components');
INSERT INTO ov_e VALUES (9, NULL);
SELECT throws_like($$SELECT grail.reachable('ov_g', 1, 2)$$, '%NULL endpoint%', 'a NULL endpoint: refused, as a rebuild');
DELETE FROM ov_e WHERE target IS NULL OR (source = 102 AND target = 4);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'both deleted again');
SELECT grail.merge_graph('ov_g') IS NOT NULL AS merged \gset
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'merged');
INSERT INTO ov_e VALUES (9, 10);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'a write after the merge');
INSERT INTO ov_e VALUES (10, 11);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'and another');
TRUNCATE ov_e;
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'truncated');
INSERT INTO ov_e VALUES (1, 2);
SELECT is(pg_temp.wrong_pairs('ov_g', 'ov_e', '200'), 0::bigint, 'a write after the TRUNCATE');

-- Text keys: new keys, the empty string.
CREATE TABLE ov_t (source text, target text);
INSERT INTO ov_t VALUES ('a', 'b'), ('b', 'c'), ('x', 'y');
SELECT grail.create_graph('ov_tg', 'ov_t') IS NOT NULL AS made \gset
INSERT INTO ov_t VALUES ('c', 'x');
SELECT is(pg_temp.wrong_pairs('ov_tg', 'ov_t', 'nope'), 0::bigint, 'text: an edge between old keys');
INSERT INTO ov_t VALUES ('y', 'new');
SELECT is(pg_temp.wrong_pairs('ov_tg', 'ov_t', 'nope'), 0::bigint, 'text: a new key');
INSERT INTO ov_t VALUES ('new', '');
SELECT is(pg_temp.wrong_pairs('ov_tg', 'ov_t', 'nope'), 0::bigint, 'text: the empty key');
SELECT ok(grail.reachable('ov_tg', 'a', ''), 'text: through every write');

-- uuid keys.
CREATE TABLE ov_u (source uuid, target uuid);
INSERT INTO ov_u VALUES ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'),
	('ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000001');
SELECT grail.create_graph('ov_ug', 'ov_u') IS NOT NULL AS made \gset
INSERT INTO ov_u VALUES ('00000000-0000-0000-0000-000000000002', '00000000-0000-0000-0000-000000000003');
SELECT is(pg_temp.wrong_pairs('ov_ug', 'ov_u', '12345678-1234-1234-1234-123456789abc'), 0::bigint, 'uuid: a new key');
INSERT INTO ov_u VALUES ('00000000-0000-0000-0000-000000000003', '00000000-0000-0000-0000-000000000004');
SELECT is(pg_temp.wrong_pairs('ov_ug', 'ov_u', '12345678-1234-1234-1234-123456789abc'), 0::bigint, 'uuid: another');
SELECT ok(grail.reachable('ov_ug', 'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid, '00000000-0000-0000-0000-000000000004'::uuid),
	'uuid: through every write');

-- The empty graph, then writes; unknown keys and NULL arguments.
CREATE TABLE ov_empty (source bigint, target bigint);
SELECT grail.create_graph('ov_eg', 'ov_empty') IS NOT NULL AS made \gset
SELECT ok(NOT grail.reachable('ov_eg', 1, 2), 'empty');
INSERT INTO ov_empty VALUES (1, 2);
SELECT ok(grail.reachable('ov_eg', 1, 2), 'empty, then one write');
INSERT INTO ov_empty VALUES (2, 3);
SELECT ok(grail.reachable('ov_eg', 1, 3), 'and a second');
SELECT ok(NOT grail.reachable('ov_eg', 3, 1), 'not back');
SELECT is(grail.reachable('ov_eg', NULL::bigint, 3), NULL, 'a NULL source');
SELECT is(grail.reachable('ov_eg', 1, NULL::bigint), NULL, 'a NULL target');
SELECT is(grail.reachable(NULL, 1::bigint, 3::bigint), NULL, 'a NULL graph');
SELECT ok(NOT grail.reachable('ov_eg', 1, 424242), 'an unknown id');

SELECT * FROM finish();
ROLLBACK;
