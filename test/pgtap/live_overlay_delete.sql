-- Deletions in the incremental overlay of live graphs: a statement that sees rows deleted since the
-- last one (rows of the build, rows inserted since, one of two duplicate rows, a self-loop) extends
-- the overlay the backend keeps instead of making it again, where the deletion splits no strongly
-- connected component; a split, an edge of the build written again, a TRUNCATE and a savepoint
-- rolled back make it again. After each step, every pair of vertices (and one id no row names)
-- answers as a closure of the rows the statement sees; integer keys with extreme ids, text keys
-- and uuid keys; and seeded random streams of single-row inserts and deletes, cycles included.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(38);

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

-- A stream of `steps` single-row writes to tbl (bigint keys 0..n-1): inserts in id order (mostly),
-- edges that may close a cycle, deletes of any row, deletes of the row written last, rows of
-- the build written again after their delete; every pair checked after each. Returns the steps
-- with a wrong pair.
CREATE FUNCTION pg_temp.random_stream(g text, tbl text, n int, steps int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	wrong int := 0;
	r float8;
	a int;
BEGIN
	FOR i IN 1..steps LOOP
		r := random();
		a := (random() * (n - 2))::int;
		IF r < 0.25 THEN
			EXECUTE format('DELETE FROM %s WHERE ctid = (SELECT ctid FROM %s ORDER BY random() LIMIT 1)', tbl, tbl);
		ELSIF r < 0.35 THEN
			-- the row written last (rows are appended): mostly one the stream inserted
			EXECUTE format('DELETE FROM %s WHERE ctid = (SELECT ctid FROM %s ORDER BY ctid DESC LIMIT 1)', tbl, tbl);
		ELSIF r < 0.45 THEN
			EXECUTE format('INSERT INTO %s VALUES (%s, %s)', tbl, (random() * n)::int, (random() * n)::int);
		ELSE
			EXECUTE format('INSERT INTO %s VALUES (%s, %s)', tbl, a, a + 1 + (random() * (n - a - 2))::int);
		END IF;
		IF pg_temp.wrong_pairs(g, tbl, '424242') <> 0 THEN
			wrong := wrong + 1;
			RAISE WARNING 'step % of %: wrong pairs', i, g;
		END IF;
	END LOOP;
	RETURN wrong;
END $$;

CREATE TABLE od_e (source bigint, target bigint);
INSERT INTO od_e VALUES (1, 2), (2, 3), (3, 4), (5, 6), (6, 7), (1, 2), (8, 8), (4, 9), (9, 10),
	(-9223372036854775808, 9223372036854775807), (9223372036854775807, 1),
	-- a cycle 20 -> 21 -> 22 -> 20 with a chord 20 -> 22, into 1
	(20, 21), (21, 22), (22, 20), (20, 22), (22, 1);
SELECT grail.create_graph('od_g', 'od_e') IS NOT NULL AS made \gset
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'built');
INSERT INTO od_e VALUES (7, 100);
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'an edge to a new id (the overlay kept)');

DELETE FROM od_e WHERE source = 2 AND target = 3;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'an edge of the build deleted');
SELECT ok(NOT grail.reachable('od_g', 1, 4), 'its path is gone');
SELECT ok(grail.reachable('od_g', 3, 10), 'below it still reaches');
DELETE FROM od_e WHERE ctid = (SELECT ctid FROM od_e WHERE source = 1 AND target = 2 LIMIT 1);
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'one of two duplicate rows deleted');
DELETE FROM od_e WHERE source = 7 AND target = 100;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'an inserted edge deleted again');
SELECT ok(NOT grail.reachable('od_g', 5, 100), 'its path is gone');
INSERT INTO od_e VALUES (7, 100);
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'and inserted once more');
DELETE FROM od_e WHERE source = 8;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'a self-loop deleted');
DELETE FROM od_e WHERE source = -9223372036854775808;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'the edge from the smallest id deleted');
SELECT ok(NOT grail.reachable('od_g', -9223372036854775808, 9223372036854775807), 'the extreme ids apart');
SELECT ok(grail.reachable('od_g', 9223372036854775807, 2), 'the largest still reaches');
DELETE FROM od_e WHERE source = 20 AND target = 22;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'a chord of a cycle deleted (no split)');
SELECT ok(grail.reachable('od_g', 22, 21), 'the cycle holds');
DELETE FROM od_e WHERE source = 21 AND target = 22;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'the cycle split');
SELECT ok(NOT grail.reachable('od_g', 21, 22), 'split');
INSERT INTO od_e VALUES (2, 3);
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'an edge of the build written again');
SELECT ok(grail.reachable('od_g', 2, 10), 'its path is back');

-- A delete in a savepoint rolled back.
SAVEPOINT s;
DELETE FROM od_e WHERE source = 3 AND target = 4;
SELECT ok(NOT grail.reachable('od_g', 2, 10), 'within the savepoint');
ROLLBACK TO SAVEPOINT s;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'the delete rolled back');
DELETE FROM od_e WHERE source = 9 AND target = 10;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'a delete after the rollback');

SELECT is(grail.reachable('od_g', NULL::bigint, 3), NULL, 'a NULL source');
SELECT is(grail.reachable('od_g', 1, NULL::bigint), NULL, 'a NULL target');
SELECT is(grail.reachable(NULL, 1::bigint, 3::bigint), NULL, 'a NULL graph');

SELECT grail.merge_graph('od_g') IS NOT NULL AS merged \gset
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'merged');
DELETE FROM od_e WHERE source = 3 AND target = 4;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'a delete after the merge');
TRUNCATE od_e;
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'truncated');
INSERT INTO od_e VALUES (1, 2);
SELECT is(pg_temp.wrong_pairs('od_g', 'od_e', '424242'), 0::bigint, 'a write after the TRUNCATE');

-- Text keys: a deleted edge of the build, a deleted new key's edge, the empty string.
CREATE TABLE od_t (source text, target text);
INSERT INTO od_t VALUES ('a', 'b'), ('b', 'c'), ('c', ''), ('x', 'y');
SELECT grail.create_graph('od_tg', 'od_t') IS NOT NULL AS made \gset
INSERT INTO od_t VALUES ('y', 'new');
SELECT is(pg_temp.wrong_pairs('od_tg', 'od_t', 'nope'), 0::bigint, 'text: a new key');
DELETE FROM od_t WHERE source = 'b';
SELECT is(pg_temp.wrong_pairs('od_tg', 'od_t', 'nope'), 0::bigint, 'text: an edge of the build deleted');
DELETE FROM od_t WHERE target = 'new';
SELECT is(pg_temp.wrong_pairs('od_tg', 'od_t', 'nope'), 0::bigint, 'text: the new key''s edge deleted');

-- uuid keys.
CREATE TABLE od_u (source uuid, target uuid);
INSERT INTO od_u VALUES ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002'),
	('ffffffff-ffff-ffff-ffff-ffffffffffff', '00000000-0000-0000-0000-000000000001');
SELECT grail.create_graph('od_ug', 'od_u') IS NOT NULL AS made \gset
INSERT INTO od_u VALUES ('00000000-0000-0000-0000-000000000002', '00000000-0000-0000-0000-000000000003');
SELECT is(pg_temp.wrong_pairs('od_ug', 'od_u', '12345678-1234-1234-1234-123456789abc'), 0::bigint, 'uuid: a new key');
DELETE FROM od_u WHERE source = 'ffffffff-ffff-ffff-ffff-ffffffffffff';
SELECT is(pg_temp.wrong_pairs('od_ug', 'od_u', '12345678-1234-1234-1234-123456789abc'), 0::bigint,
	'uuid: an edge of the build deleted');

-- The empty graph: an edge inserted, then deleted.
CREATE TABLE od_empty (source bigint, target bigint);
SELECT grail.create_graph('od_eg', 'od_empty') IS NOT NULL AS made \gset
INSERT INTO od_empty VALUES (1, 2), (2, 3);
SELECT ok(grail.reachable('od_eg', 1, 3), 'empty, then writes');
DELETE FROM od_empty WHERE source = 2;
SELECT ok(NOT grail.reachable('od_eg', 1, 3), 'and one deleted again');

-- Seeded random streams over random graphs: a DAG, and a graph with cycles.
SELECT setseed(0.28);
CREATE TABLE od_r (source bigint, target bigint);
INSERT INTO od_r SELECT a, a + 1 + (random() * (30 - a - 2))::int FROM (SELECT (random() * 28)::int AS a
	FROM generate_series(1, 50)) x;
SELECT grail.create_graph('od_rg', 'od_r') IS NOT NULL AS made \gset
SELECT is(pg_temp.random_stream('od_rg', 'od_r', 30, 120), 0, 'a DAG under 120 random single-row writes');
CREATE TABLE od_c (source bigint, target bigint);
INSERT INTO od_c SELECT (random() * 20)::int, (random() * 20)::int FROM generate_series(1, 35);
SELECT grail.create_graph('od_cg', 'od_c') IS NOT NULL AS made \gset
SELECT is(pg_temp.random_stream('od_cg', 'od_c', 20, 120), 0, 'a graph with cycles under 120 random single-row writes');

SELECT * FROM finish();
ROLLBACK;
