-- A live graph's overlay whose extension widens many labels: a new edge out of the end of a
-- 4,500-vertex chain makes every vertex of the chain reach more. The statement that takes the edge
-- in and the next ones (one with no new change) answer as the rows do; edges written and deleted
-- between, vertices the build lacks, unknown and extreme ids.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(10);

CREATE TABLE wd_e (source bigint, target bigint);
INSERT INTO wd_e SELECT i, i + 1 FROM generate_series(1, 4499) i;
CREATE INDEX ON wd_e (source);
SELECT grail.create_graph('wd_g', 'wd_e') IS NOT NULL AS made \gset

-- Pairs of sample ids where reachable() differs from a closure of the rows the statement sees.
CREATE FUNCTION pg_temp.wrong_pairs() RETURNS bigint LANGUAGE sql AS $$
	WITH RECURSIVE ids(v) AS (
		SELECT unnest(ARRAY[1, 17, 2500, 4096, 4499, 4500, 7000, 7001, 7002, 7003, 424242, -9223372036854775808,
		                    9223372036854775807]::bigint[])),
	r(a, b) AS (SELECT v, v FROM ids UNION SELECT r.a, e.target FROM r JOIN wd_e e ON e.source = r.b),
	reached AS (SELECT DISTINCT a, b FROM r WHERE b IN (SELECT v FROM ids))
	SELECT count(*) FROM ids x CROSS JOIN ids y LEFT JOIN reached ON reached.a = x.v AND reached.b = y.v
	WHERE grail.reachable('wd_g', x.v, y.v) IS DISTINCT FROM (reached.a IS NOT NULL)
$$;
SELECT is(pg_temp.wrong_pairs(), 0::bigint, 'built');

-- The overlay made (an edge between vertices the build lacks), then the chain's end joined to a new
-- vertex: each of the 4,500 records widens.
INSERT INTO wd_e VALUES (7001, 7002);
SELECT ok(NOT grail.reachable('wd_g', 1, 7002), 'an edge apart from the chain');
INSERT INTO wd_e VALUES (4500, 7000);
SELECT ok(grail.reachable('wd_g', 1, 7000), 'the chain''s start reaches the new vertex');
SELECT is(pg_temp.wrong_pairs(), 0::bigint, 'every pair after the widening');
SELECT ok(grail.reachable('wd_g', 2, 7000) AND NOT grail.reachable('wd_g', 7000, 4500), 'a statement with no new change');

-- More edges while the widening goes on: out of the chain's middle, into its start, a path through
-- the new vertices; then one of them deleted.
INSERT INTO wd_e VALUES (7000, 7001);
SELECT ok(grail.reachable('wd_g', 17, 7002), 'through the new vertices');
INSERT INTO wd_e VALUES (2500, 7003);
INSERT INTO wd_e VALUES (-9223372036854775808, 1), (7003, 9223372036854775807);
SELECT is(pg_temp.wrong_pairs(), 0::bigint, 'edges from and to the extreme ids');
DELETE FROM wd_e WHERE source = 7000 AND target = 7001;
SELECT ok(NOT grail.reachable('wd_g', 1, 7002), 'an inserted edge deleted again');
DELETE FROM wd_e WHERE source = 3000 AND target = 3001;
SELECT is(pg_temp.wrong_pairs(), 0::bigint, 'an edge of the build deleted: the chain cut');
SELECT ok(NOT grail.reachable('wd_g', 1, 7000) AND grail.reachable('wd_g', 3001, 7000), 'cut');

SELECT * FROM finish();
ROLLBACK;
