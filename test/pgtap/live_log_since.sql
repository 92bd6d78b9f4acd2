-- A live graph's reader reads only the log rows written since its last statement, however long
-- another transaction stays open (a background merge holds one for its whole build): each
-- statement reads the rows of the transactions its last snapshot counted as in progress and of
-- those that began after it, never the rows it had read before. reachable() agrees with a
-- recursive closure of the rows after each step: a writer whose transaction began before another's
-- and commits after it, deletions, this session's own writes and a savepoint rolled back, an
-- imported older snapshot; and the index entries of grail.pending_change that a statement reads
-- (pg_stat_get_xact_tuples_returned) stay few while hundreds of rows were written since the open
-- transaction began. The other sessions are dblink connections (schema live_log_since, dropped at
-- the end); without dblink the file skips.
SET client_min_messages = warning;
\set ON_ERROR_STOP 0
SELECT NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_grail') AS ll_made_grail,
       NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pgtap') AS ll_made_pgtap,
       NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'dblink') AS ll_made_dblink,
       EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'dblink') AS ll_have_dblink \gset
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
\if :ll_have_dblink
CREATE EXTENSION IF NOT EXISTS dblink;
CREATE FUNCTION pg_temp.connect(name text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM dblink_connect(name, format('dbname=%s host=%s port=%s user=%s application_name=live_log_since_%s',
	                                    quote_literal(current_database()),
	                                    coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'),
	                                    current_setting('port'), quote_literal(current_user), name));
	RETURN true;
EXCEPTION WHEN OTHERS THEN
	RETURN false;
END $$;
SELECT pg_temp.connect('hold') AND pg_temp.connect('w1') AND pg_temp.connect('w2') AND pg_temp.connect('x')
       AS ll_connected \gset
\else
\set ll_connected f
\endif

\if :ll_connected
SELECT plan(20);

DROP SCHEMA IF EXISTS live_log_since CASCADE;
CREATE SCHEMA live_log_since;
CREATE TABLE live_log_since.e (source bigint, target bigint);
INSERT INTO live_log_since.e SELECT i, i + 1 FROM generate_series(1, 40) i WHERE i % 10 <> 0;
INSERT INTO live_log_since.e VALUES (5, 3), (3, 5), (25, 25);
SELECT grail.create_graph('live_log_since.g', 'live_log_since.e') IS NOT NULL AS made \gset
SELECT grail.alter_graph('live_log_since.g', true) IS NULL AS altered \gset

-- Pairs whose reachable() differs from a closure of the rows this snapshot sees, over the
-- vertices 1..60 (some of them in no row).
CREATE FUNCTION pg_temp.wrong() RETURNS bigint LANGUAGE sql AS $$
	WITH RECURSIVE r(a, b) AS (SELECT v, v FROM generate_series(1::bigint, 60) v
	                           UNION SELECT r.a, e.target FROM r JOIN live_log_since.e e ON e.source = r.b)
	SELECT count(*) FROM generate_series(1::bigint, 60) x(v), generate_series(1::bigint, 60) y(v)
	WHERE grail.reachable('live_log_since.g', x.v, y.v) IS DISTINCT FROM EXISTS (SELECT 1 FROM r WHERE r.a = x.v AND r.b = y.v)
$$;
-- Single-row INSERTs by session conn, each its own transaction.
CREATE FUNCTION pg_temp.insert_rows(conn text, n int, first bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 0 .. n - 1 LOOP
		PERFORM dblink_exec(conn, format('INSERT INTO live_log_since.e VALUES (%s, %s)', 100 + first + i, 101 + first + i));
	END LOOP;
END $$;
-- The index entries of grail.pending_change that one reachable() reads (this transaction's
-- counters, which are not reported while it is open).
CREATE FUNCTION pg_temp.entries_read(a bigint, b bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	before bigint := pg_stat_get_xact_tuples_returned('grail.pending_change_graph'::regclass);
BEGIN
	PERFORM grail.reachable('live_log_since.g', a, b);
	RETURN pg_stat_get_xact_tuples_returned('grail.pending_change_graph'::regclass) - before;
END $$;

SELECT is(pg_temp.wrong(), 0::bigint, 'live, nothing pending: reachable() agrees with the closure');

-- An open transaction with an id, older than every write below (as a background merge is).
SELECT dblink_exec('hold', 'BEGIN');
SELECT 1 FROM dblink('hold', 'SELECT pg_current_xact_id()::text') AS t(x text);

-- w1's transaction begins (an id) before w2's, which commits first.
SELECT dblink_exec('w1', 'BEGIN');
SELECT dblink_exec('w1', 'INSERT INTO live_log_since.e VALUES (10, 11)');
SELECT dblink_exec('w2', 'INSERT INTO live_log_since.e VALUES (20, 21)');
SELECT is(pg_temp.wrong(), 0::bigint, 'w2''s committed row is seen, w1''s open one is not');
SELECT is(ARRAY[grail.reachable('live_log_since.g', 11, 30), grail.reachable('live_log_since.g', 1, 11)],
          ARRAY[true, false], '20 -> 21 joins 11..30; 10 -> 11 is not there yet');
SELECT dblink_exec('w1', 'COMMIT');
SELECT is(grail.reachable('live_log_since.g', 1, 30), true,
          'w1 commits after w2 (its id is older): its row is read, 1 reaches 30');
SELECT is(pg_temp.wrong(), 0::bigint, 'and reachable() agrees with the closure');

-- Hundreds of rows written since the open transaction began: a statement reads the new ones only.
SELECT pg_temp.insert_rows('w2', 300, 0);
SELECT is(pg_temp.wrong(), 0::bigint, '300 single-row writes since: reachable() agrees with the closure');
SELECT dblink_exec('w2', 'INSERT INTO live_log_since.e VALUES (400, 401)');
BEGIN;
SELECT cmp_ok(pg_temp.entries_read(400, 401), '<=', 4::bigint,
              'one more row: the next statement reads a few index entries of the log, not the 300 before it');
SELECT is(grail.reachable('live_log_since.g', 400, 401), true, 'and sees the new row');
COMMIT;
SELECT is(grail.reachable('live_log_since.g', 100, 400), true, 'the 300 rows chain 100 .. 400');

-- Deletions by another session, while the transaction stays open.
SELECT dblink_exec('w2', 'DELETE FROM live_log_since.e WHERE (source, target) IN ((20, 21), (250, 251))');
SELECT is(ARRAY[grail.reachable('live_log_since.g', 11, 30), grail.reachable('live_log_since.g', 100, 400)],
          ARRAY[false, false], 'rows deleted by another session are gone');
SELECT is(pg_temp.wrong(), 0::bigint, 'and reachable() agrees with the closure');

-- This session's own writes, a savepoint rolled back, then another session's commit.
BEGIN;
INSERT INTO live_log_since.e VALUES (30, 31);
SELECT is(grail.reachable('live_log_since.g', 21, 40), true, 'this session sees its own row 30 -> 31');
SAVEPOINT s;
INSERT INTO live_log_since.e VALUES (40, 41);
SELECT is(grail.reachable('live_log_since.g', 21, 41), true, 'and one written after a savepoint');
ROLLBACK TO SAVEPOINT s;
SELECT is(grail.reachable('live_log_since.g', 21, 41), false, 'rolled back to the savepoint, 40 -> 41 is gone');
SELECT dblink_exec('w2', 'INSERT INTO live_log_since.e VALUES (41, 42)');
SELECT is(pg_temp.wrong(), 0::bigint, 'another session''s commit meanwhile is seen, and reachable() agrees');
COMMIT;
SELECT is(pg_temp.wrong(), 0::bigint, 'committed: reachable() agrees with the closure');

-- An older snapshot, imported after a newer statement: it must not see what came after it.
SELECT dblink_exec('x', 'BEGIN ISOLATION LEVEL REPEATABLE READ');
SELECT x AS old_snapshot FROM dblink('x', 'SELECT pg_export_snapshot()') AS t(x text) \gset
SELECT dblink_exec('w2', 'INSERT INTO live_log_since.e VALUES (50, 52)');
SELECT is(grail.reachable('live_log_since.g', 50, 52), true, 'a new row is seen');
-- (Asserted after the transaction: pgTAP's own bookkeeping cannot write in that snapshot.)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SET TRANSACTION SNAPSHOT :'old_snapshot';
SELECT grail.reachable('live_log_since.g', 50, 52) AS old_reach, pg_temp.wrong() AS old_wrong \gset
COMMIT;
SELECT is(:'old_reach'::boolean, false, 'not in the imported older snapshot');
SELECT is(:'old_wrong'::bigint, 0::bigint, 'where reachable() agrees with the closure of its rows');
SELECT dblink_exec('x', 'COMMIT');

SELECT dblink_exec('hold', 'COMMIT');
SELECT pg_temp.insert_rows('w2', 5, 500);
SELECT is(pg_temp.wrong(), 0::bigint, 'the open transaction ended, more writes: reachable() agrees with the closure');

SELECT * FROM finish();
SELECT dblink_disconnect('hold'), dblink_disconnect('w1'), dblink_disconnect('w2'), dblink_disconnect('x');
DROP SCHEMA live_log_since CASCADE;
\else
BEGIN;
SELECT plan(1);
SELECT skip('dblink is not available or cannot connect to this server: the other sessions of this test need it', 1);
SELECT * FROM finish();
ROLLBACK;
\endif

\if :ll_made_dblink
DROP EXTENSION IF EXISTS dblink;
\endif
\if :ll_made_grail
DROP EXTENSION pg_grail;
\endif
\if :ll_made_pgtap
DROP EXTENSION pgtap;
\endif
