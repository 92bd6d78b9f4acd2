-- Edge tables as users have them: a graph over a partitioned table reads every
-- partition, as SELECT does, and sees every write that changes its rows (into a partition or
-- through the parent, TRUNCATE of one partition, partitions created, attached and detached); a
-- query's privileges are those of a SELECT on the parent. Temporary and unlogged tables are
-- refused, before and after a build. Answers are compared with a recursive query over the rows.
-- The graphs pg and pg_c are not live (live => false), so that a write makes them refuse until a
-- refresh; live_partitions.sql has the same writes answered by live graphs.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(37);

-- Pairs (a, b) of the table's vertices where reachable() disagrees with a recursive query over
-- the rows this snapshot sees; null when the graph refuses (stale).
CREATE FUNCTION pg_temp.mismatches(graph text, edges regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$
		WITH RECURSIVE v(id) AS (SELECT source FROM %1$s WHERE source IS NOT NULL
		                         UNION SELECT target FROM %1$s WHERE target IS NOT NULL),
		r(a, b) AS (SELECT id, id FROM v UNION SELECT r.a, e.target FROM r JOIN %1$s e ON e.source = r.b)
		SELECT count(*) FROM v x, v y
		WHERE grail.reachable(%2$L, x.id, y.id) IS DISTINCT FROM EXISTS (SELECT 1 FROM r WHERE r.a = x.id AND r.b = y.id)
		$q$, edges, graph) INTO n;
	RETURN n;
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	RETURN NULL;
END $$;

-- Random edges in 1..n, with a few self-loops, duplicates, extreme ids and nulls.
CREATE FUNCTION pg_temp.random_edges(n int, m int) RETURNS TABLE (source bigint, target bigint, tenant int)
LANGUAGE sql AS $$
	SELECT (1 + random() * (n - 1))::bigint, (1 + random() * (n - 1))::bigint, 1 + (i % 3)
	FROM generate_series(1, m) i
	UNION ALL VALUES (5, 5, 1), (7, 8, 2), (7, 8, 2), (-9223372036854775808, 1, 3), (2, 9223372036854775807, 3),
	                 (9223372036854775807, -9223372036854775808, 1), (NULL, 3, 2)
$$;

SELECT setseed(0.16);
-- Tenants 1 and 2 in list partitions; tenant 3 in a partition itself partitioned by source.
CREATE TABLE pe (source bigint, target bigint, tenant int) PARTITION BY LIST (tenant);
CREATE TABLE pe_a PARTITION OF pe FOR VALUES IN (1);
CREATE TABLE pe_b PARTITION OF pe FOR VALUES IN (2);
CREATE TABLE pe_c PARTITION OF pe FOR VALUES IN (3) PARTITION BY RANGE (source);
CREATE TABLE pe_c_low PARTITION OF pe_c FOR VALUES FROM (MINVALUE) TO (10);
CREATE TABLE pe_c_high PARTITION OF pe_c FOR VALUES FROM (10) TO (MAXVALUE);
INSERT INTO pe SELECT * FROM pg_temp.random_edges(24, 40);

SELECT lives_ok($$SELECT grail.create_graph('pg', 'pe', skip_nulls => true, live => false)$$, 'a graph over a partitioned table');
SELECT is((SELECT count(*) FROM pe_a) > 0 AND (SELECT count(*) FROM pe_b) > 0 AND (SELECT count(*) FROM pe_c_low) > 0
          AND (SELECT count(*) FROM pe_c_high) > 0, true, 'rows spread over every partition');
SELECT is((SELECT input_rows FROM grail.graph WHERE name = 'pg'), (SELECT count(*) FROM pe), 'the build read every partition''s rows');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'every pair answers what the rows say');
SELECT lives_ok($$SELECT grail.create_graph('pg_c', 'pe_c', skip_nulls => true, live => false)$$, 'a graph over a sub-partitioned partition');
SELECT is(pg_temp.mismatches('pg_c', 'pe_c'), 0::bigint, 'which reads its own partitions');
SELECT is((SELECT count(DISTINCT component) FROM grail.scc_components('pg')),
          (SELECT count(DISTINCT c) FROM (SELECT min(y.id) c FROM
             (SELECT source id FROM pe WHERE source IS NOT NULL UNION SELECT target FROM pe WHERE target IS NOT NULL) x,
             (SELECT source id FROM pe WHERE source IS NOT NULL UNION SELECT target FROM pe WHERE target IS NOT NULL) y
           WHERE grail.reachable('pg', x.id, y.id) AND grail.reachable('pg', y.id, x.id) GROUP BY x.id) s),
          'scc_components over the partitions: one component per mutual-reachability class');

-- Writes into a partition, through the parent, moving rows between partitions, TRUNCATE of one.
INSERT INTO pe_a VALUES (1, 2, 1);
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'a write straight into a partition: the graph refuses');
SELECT grail.refresh_graph('pg');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'refreshed, it answers what the rows say');
INSERT INTO pe VALUES (3, 4, 2);
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'a write through the parent: the graph refuses');
SELECT grail.refresh_graph('pg');
UPDATE pe SET source = source + 20 WHERE tenant = 3 AND source BETWEEN 1 AND 9;
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'an UPDATE that moves rows to another sub-partition: the graph refuses');
SELECT grail.refresh_graph('pg');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'refreshed after the move');
UPDATE pe_b SET tenant = 2;
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'an UPDATE of a partition that changes no edge: still answering');
TRUNCATE pe_b;
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'TRUNCATE of one partition: the graph refuses');
SELECT grail.refresh_graph('pg');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'refreshed without that partition''s rows');
DELETE FROM pe_c_high WHERE source > 20;
SELECT is(pg_temp.mismatches('pg_c', 'pe_c'), NULL, 'a DELETE in a sub-partition: the graph over its parent refuses');

-- Partitions created, attached and detached after the build.
SELECT grail.refresh_graph('pg');
CREATE TABLE pe_d PARTITION OF pe FOR VALUES IN (4);
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'a new, empty partition: the graph keeps answering');
SELECT is((SELECT 'pe_d'::regclass = ANY (watched_tables) FROM grail.graph WHERE name = 'pg'), true, 'and watches it');
INSERT INTO pe_d VALUES (1, 24, 4);
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'a write into the new partition: the graph refuses');
SELECT grail.refresh_graph('pg');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'refreshed with the new partition''s rows');
CREATE TABLE pe_e (source bigint, target bigint, tenant int);
INSERT INTO pe_e VALUES (24, 25, 5), (25, 1, 5);
ALTER TABLE pe ATTACH PARTITION pe_e FOR VALUES IN (5);
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'a table attached with rows: the graph refuses');
SELECT grail.refresh_graph('pg');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'refreshed with the attached rows');
INSERT INTO pe_e VALUES (26, 27, 5);
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'and watches the attached partition');
SELECT grail.refresh_graph('pg');
ALTER TABLE pe DETACH PARTITION pe_e;
SELECT is(pg_temp.mismatches('pg', 'pe'), NULL, 'a partition detached: the graph refuses');
SELECT grail.refresh_graph('pg');
SELECT is(pg_temp.mismatches('pg', 'pe'), 0::bigint, 'refreshed without it');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pe_e'::regclass AND tgname LIKE 'grail_stale_%'), 0::bigint,
          'the detached table keeps none of the graph''s triggers');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pe'::regclass AND tgname LIKE 'grail_stale_%'
           AND tgtype::int & 1 = 1), 0::bigint, 'no row trigger on a partitioned table (it would be cloned onto its partitions)');

-- Privileges: those of a SELECT on the parent.
CREATE ROLE part_reader;
GRANT USAGE ON SCHEMA grail TO part_reader;
GRANT SELECT ON pe TO part_reader;
SET ROLE part_reader;
SELECT is(grail.reachable('pg', 1, 1), true, 'a role that may SELECT from the parent only queries the graph');
RESET ROLE;
REVOKE SELECT ON pe FROM part_reader;
GRANT SELECT ON pe_a, pe_b, pe_c, pe_d TO part_reader;
SET ROLE part_reader;
SELECT throws_ok($$SELECT grail.reachable('pg', 1, 1)$$, '42501', NULL, 'one that may read the partitions but not the parent cannot');
RESET ROLE;

-- Temporary and unlogged tables.
CREATE TEMP TABLE te (source bigint, target bigint);
SELECT throws_ok($$SELECT grail.create_graph('tg', 'te')$$, '0A000',
                 'the edge table "te" is temporary, so a pg_grail graph cannot be built over it',
                 'a temporary edge table is refused');
CREATE TABLE pt (source bigint, target bigint);
INSERT INTO pt VALUES (1, 2);
SELECT grail.create_graph('ptg', 'pt');
CREATE TEMP TABLE pt_kid () INHERITS (pt);
SELECT throws_ok($$SELECT grail.reachable('ptg', 1, 2)$$, '55000', NULL, 'a temporary child created after the build: the graph refuses');
SELECT throws_ok($$SELECT grail.refresh_graph('ptg')$$, '0A000',
                 'a table of the edge table''s inheritance family "pt_kid" is temporary, so a pg_grail graph cannot be built over it',
                 'and cannot be refreshed while it has one');
DROP TABLE pt_kid;
SELECT lives_ok($$SELECT grail.refresh_graph('ptg')$$, 'the temporary child gone, it refreshes');
CREATE UNLOGGED TABLE ue (source bigint, target bigint);
SELECT throws_ok($$SELECT grail.create_graph('ug', 'ue')$$, '0A000',
                 'the edge table "ue" is unlogged, so a pg_grail graph cannot be built over it',
                 'an unlogged edge table is refused');
ALTER TABLE pt SET UNLOGGED;
SELECT throws_ok($$SELECT grail.reachable('ptg', 1, 2)$$, '55000', NULL, 'an edge table made unlogged after the build: the graph refuses');
ALTER TABLE pt SET LOGGED;
SELECT throws_ok($$SELECT grail.reachable('ptg', 1, 2)$$, '55000', NULL,
                 'logged again, it still refuses (a crash meanwhile would have emptied the table unseen)');
SELECT grail.refresh_graph('ptg');
SELECT is(grail.reachable('ptg', 1, 2), true, 'refreshed, it answers');

SELECT * FROM finish();
ROLLBACK;
