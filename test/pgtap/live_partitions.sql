-- Live graphs over partitioned and inheritance tables, and writes that reach the edge
-- table in other ways (foreign-key cascades, BEFORE triggers that change or drop rows, replica
-- mode). Writes into each partition directly and through the parent, rows moved between
-- partitions, TRUNCATE of one partition and of the parent, partitions created, attached and
-- detached. What the live mode does, as documented: every write to the edge table or a table of
-- its family below it is logged and answered exactly; a partition created later is watched at once
-- and leaves the graph answering; a table attached or detached makes the graph stale (it refuses,
-- with grail.stale_policy = error) until merge_graph (or refresh_graph) rebuilds it; so does a
-- write through an ancestor of the edge table (a graph over one partition, written through its
-- parent). Every check is test/pgtap/live_oracle.psql's (every function against recursive CTEs,
-- a fresh build and the change log).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(298);
\ir live_oracle.psql
SET client_min_messages = warning;

-- 'exact', or the functions that disagree with the oracle, or the error a query raised.
CREATE FUNCTION pg_temp.st(g text, e regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	b text;
BEGIN
	SELECT coalesce(string_agg(fn || ': ' || mismatches, ', ') FILTER (WHERE mismatches <> 0), 'exact') INTO b
	FROM pg_temp.live_verify(g, e, 'bigint', '424242');
	RETURN b;
END $$;
-- 'stale' when the graph refuses as stale (55000), else pg_temp.st().
CREATE FUNCTION pg_temp.state(g text, e regclass) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM grail.reachable(g, 424242, 424242);
	RETURN pg_temp.st(g, e);
EXCEPTION WHEN object_not_in_prerequisite_state THEN
	RETURN 'stale';
END $$;
CREATE FUNCTION pg_temp.pending(g text) RETURNS bigint LANGUAGE sql AS $$
	SELECT coalesce(sum(coalesce(cardinality(source), cardinality(source_key), 1)), 0)::bigint FROM grail.pending_change WHERE graph_id = pg_temp.live_gid(g)
$$;

SELECT setseed(0.2718);
CREATE TABLE lp_pool (k bigint);
INSERT INTO lp_pool VALUES (-9223372036854775808), (9223372036854775807), (-3), (0), (1), (2), (3), (4), (5), (9), (10), (11), (20), (1000);
-- Tenants 1 and 2 in list partitions; tenant 3 in a partition itself partitioned by source. A row
-- written through the parent goes to a random tenant; one written into a partition takes its own.
CREATE TABLE lp (source bigint, target bigint, tenant int DEFAULT 1 + floor(random() * 3)::int) PARTITION BY LIST (tenant);
CREATE TABLE lp_a PARTITION OF lp FOR VALUES IN (1);
CREATE TABLE lp_b PARTITION OF lp FOR VALUES IN (2);
CREATE TABLE lp_c PARTITION OF lp FOR VALUES IN (3) PARTITION BY RANGE (source);
CREATE TABLE lp_c_low PARTITION OF lp_c FOR VALUES FROM (MINVALUE) TO (10);
CREATE TABLE lp_c_high PARTITION OF lp_c FOR VALUES FROM (10) TO (MAXVALUE);
ALTER TABLE lp_a ALTER tenant SET DEFAULT 1;
ALTER TABLE lp_b ALTER tenant SET DEFAULT 2;
ALTER TABLE lp_c ALTER tenant SET DEFAULT 3;
ALTER TABLE lp_c_low ALTER tenant SET DEFAULT 3;
ALTER TABLE lp_c_high ALTER tenant SET DEFAULT 3;
INSERT INTO lp (source, target)
SELECT (SELECT k FROM lp_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM lp_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 30) i;
INSERT INTO lp (source, target, tenant) VALUES (1, 2, 1), (2, 3, 2), (3, 1, 3), (3, 1, 3), (10, 10, 3), (11, 20, 3), (20, 11, 1);
SELECT is((SELECT count(*) FROM lp_a) > 0 AND (SELECT count(*) FROM lp_b) > 0 AND (SELECT count(*) FROM lp_c_low) > 0
          AND (SELECT count(*) FROM lp_c_high) > 0, true, 'rows in every partition');
SELECT grail.create_graph('lpg', 'lp');
SELECT grail.alter_graph('lpg', true);
SELECT pg_temp.live_base('lpg', 'lp');

-- Random rounds: through the parent, into the partitions and the sub-partitioned one (12 rounds,
-- a merge every 4: 12 * 13 + 3 * 2 = 162), then into the leaves of the sub-partitioned one, with
-- writes that keep rows within the leaf's bounds (6 rounds, a merge every 3: 6 * 13 + 2 * 2 = 82).
SELECT * FROM pg_temp.live_rounds('lpg', 'lp', 'bigint', '424242', 'lp_pool', ARRAY['lp', 'lp_a', 'lp_b', 'lp_c']::regclass[],
                                  ARRAY['insert', 'insert_select', 'dup', 'delete', 'update', 'noop_update', 'swap', 'truncate',
                                        'join_scc', 'split_scc', 'cte', 'merge'], 12, 4);
SELECT * FROM pg_temp.live_rounds('lpg', 'lp', 'bigint', '424242', 'lp_pool', ARRAY['lp_c_low', 'lp_c_high']::regclass[],
                                  ARRAY['delete', 'update', 'noop_update'], 6, 3, 13);
SELECT is((SELECT count(*) FROM pg_temp.lo_events WHERE op = 'noop_update' AND pending_delta <> 0), 0::bigint,
          'an UPDATE that changes no edge logs nothing, in any partition');

-- Explicit writes.
TRUNCATE lp_b;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'TRUNCATE of one partition');
INSERT INTO lp_b (source, target) VALUES (4, 5), (5, 4);
SELECT pg_temp.pending('lpg') AS p1 \gset
UPDATE lp SET tenant = CASE tenant WHEN 1 THEN 2 ELSE 1 END WHERE tenant IN (1, 2);
SELECT is(pg_temp.pending('lpg'), :p1::bigint, 'rows moved between partitions through the parent, edges unchanged: nothing logged');
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'and the answers are exact');
UPDATE lp SET source = source + 100 WHERE tenant = 3 AND source BETWEEN -5 AND 9;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'an UPDATE that changes edges and moves rows to another sub-partition');
UPDATE lp_c SET target = source WHERE source >= 100;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'an UPDATE through the sub-partitioned partition');
TRUNCATE lp;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'TRUNCATE of the parent');
SELECT is(pg_temp.pending('lpg') > :p1::bigint, true, 'which logged the rows it removed');
INSERT INTO lp (source, target)
SELECT (SELECT k FROM lp_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM lp_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 25) i;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'refilled through the parent');

-- Partitions created, attached, detached.
CREATE TABLE lp_d PARTITION OF lp FOR VALUES IN (4);
SELECT is((SELECT stale FROM grail.graph WHERE name = 'lpg'), false, 'a partition created later: the graph is not stale');
INSERT INTO lp_d (source, target, tenant) VALUES (1000, -3, 4), (-3, 1000, 4);
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'and writes into it are answered');
CREATE TABLE lp_e (source bigint, target bigint, tenant int);
INSERT INTO lp_e VALUES (1000, 9223372036854775807, 5), (9223372036854775807, 1, 5);
ALTER TABLE lp ATTACH PARTITION lp_e FOR VALUES IN (5);
SELECT throws_ok($$SELECT grail.reachable('lpg', 1, 2)$$, '55000', NULL, 'a table attached with rows: the graph refuses (stale)');
SELECT lives_ok($$SELECT grail.merge_graph('lpg')$$, 'merge_graph rebuilds it');
SELECT pg_temp.live_base('lpg', 'lp');
SELECT is((SELECT (stale, live, pending_changes)::text FROM grail.graphs WHERE name = 'lpg'), '(f,t,0)', 'live again, nothing pending');
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'with the attached rows');
INSERT INTO lp_e (source, target, tenant) VALUES (1, 1000, 5);
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'and writes into the attached partition are answered');
CREATE TABLE lp_f (source bigint, target bigint, tenant int);
ALTER TABLE lp ATTACH PARTITION lp_f FOR VALUES IN (6);
SELECT throws_ok($$SELECT grail.reachable('lpg', 1, 2)$$, '55000', NULL, 'an empty table attached: the graph refuses too (as documented)');
SELECT grail.merge_graph('lpg');
SELECT pg_temp.live_base('lpg', 'lp');
ALTER TABLE lp DETACH PARTITION lp_e;
SELECT throws_ok($$SELECT grail.reachable('lpg', 1, 2)$$, '55000', NULL, 'a partition detached: the graph refuses');
SET grail.stale_policy = warn;
SET client_min_messages = error;
SELECT lives_ok($$SELECT grail.reachable('lpg', 1, 2)$$, 'with stale_policy = warn it answers from the last build (not exact, documented)');
RESET grail.stale_policy;
SET client_min_messages = warning;
SELECT grail.merge_graph('lpg');
SELECT pg_temp.live_base('lpg', 'lp');
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'merged, without the detached rows');
INSERT INTO lp_e VALUES (2, 1000, 5);
DELETE FROM lp_e WHERE source = 1;
SELECT is(pg_temp.pending('lpg'), 0::bigint, 'writes into the detached table are not logged');
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'nor answered');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'lp_e'::regclass AND tgname LIKE 'grail_%'), 0::bigint,
          'the detached table keeps none of the graph''s triggers');

-- DDL that adds or removes rows without a write: a partition dropped with its rows, a table
-- attached to or detached from the sub-partitioned partition. Each makes the graph stale; rolled
-- back, it answers again.
SAVEPOINT ddl;
DROP TABLE lp_b;
SELECT is(pg_temp.state('lpg', 'lp'), 'stale', 'a partition dropped with its rows: the graph refuses');
ROLLBACK TO ddl;
SELECT is(pg_temp.state('lpg', 'lp'), 'exact', 'rolled back, it answers');
ALTER TABLE lp_c DETACH PARTITION lp_c_high;
SELECT is(pg_temp.state('lpg', 'lp'), 'stale', 'a leaf detached from the sub-partitioned partition: the graph refuses');
ROLLBACK TO ddl;
CREATE TABLE lp_c_mid (source bigint, target bigint, tenant int);
INSERT INTO lp_c_mid VALUES (5, 1000, 3);
ALTER TABLE lp_c DETACH PARTITION lp_c_low;
DELETE FROM lp_c_low WHERE source >= 5;
ALTER TABLE lp_c ATTACH PARTITION lp_c_low FOR VALUES FROM (MINVALUE) TO (5);
ALTER TABLE lp_c ATTACH PARTITION lp_c_mid FOR VALUES FROM (5) TO (10);
SELECT is(pg_temp.state('lpg', 'lp'), 'stale', 'a table with rows attached to the sub-partitioned partition: the graph refuses');
SELECT grail.merge_graph('lpg');
SELECT pg_temp.live_base('lpg', 'lp');
SELECT is(pg_temp.state('lpg', 'lp'), 'exact', 'merged, it answers with them');
RELEASE ddl;
-- A partition whose columns are in another order, with a dropped column: the transition tables
-- of a write through the parent are in the parent's layout, those of a write into it in its own.
CREATE TABLE lp_g (junk int, tenant int, target bigint, source bigint);
ALTER TABLE lp_g DROP COLUMN junk;
ALTER TABLE lp ATTACH PARTITION lp_g FOR VALUES IN (7);
SELECT grail.merge_graph('lpg');
SELECT pg_temp.live_base('lpg', 'lp');
INSERT INTO lp (source, target, tenant) VALUES (5, 6, 7), (6, 1, 7);
INSERT INTO lp_g (source, target, tenant) VALUES (6, 7, 7);
UPDATE lp_g SET target = 8 WHERE (source, target) = (6, 7);
UPDATE lp SET tenant = 7 WHERE source = 1;
UPDATE lp SET tenant = 1, target = 9 WHERE source = 5 AND tenant = 7;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'writes through the parent and into a partition of another column order');
SELECT is(pg_temp.live_lognet('lpg', 'lp'), 0::bigint, 'logged as the edges they are');

-- Replica mode (logical replication apply): the triggers fire always.
SET session_replication_role = replica;
INSERT INTO lp (source, target) VALUES (9, 10), (10, 9);
DELETE FROM lp_a WHERE source = 1000;
RESET session_replication_role;
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'writes with session_replication_role = replica');

-- A graph over one partition: writes into it are answered; a write through its parent makes it stale.
SELECT grail.create_graph('lpa', 'lp_a');
SELECT grail.alter_graph('lpa', true);
SELECT pg_temp.live_base('lpa', 'lp_a');
INSERT INTO lp_a (source, target) VALUES (3, 4), (4, 3);
UPDATE lp_a SET target = 2 WHERE source = 4;
SELECT is(pg_temp.st('lpa', 'lp_a'), 'exact', 'a graph over a partition: writes straight into it');
INSERT INTO lp (source, target, tenant) VALUES (2, 3, 1);
SELECT throws_ok($$SELECT grail.reachable('lpa', 1, 2)$$, '55000', NULL, 'a write through its parent: the graph refuses (as documented)');
SELECT grail.merge_graph('lpa');
SELECT pg_temp.live_base('lpa', 'lp_a');
SELECT is(pg_temp.st('lpa', 'lp_a'), 'exact', 'merged, it answers');
SELECT is(pg_temp.st('lpg', 'lp'), 'exact', 'and the graph over the parent answered the same write');

-- Inheritance: rows of children are the edge table's rows (as SELECT reads them).
CREATE TABLE li (source bigint, target bigint);
CREATE TABLE li_kid (note text) INHERITS (li);
INSERT INTO li VALUES (1, 2), (2, 3);
INSERT INTO li_kid VALUES (3, 1, 'x'), (3, 4, 'y');
SELECT grail.create_graph('lig', 'li');
SELECT grail.alter_graph('lig', true);
SELECT pg_temp.live_base('lig', 'li');
INSERT INTO li_kid VALUES (4, 5, 'z'), (5, 3, 'z');
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'inheritance: an INSERT into the child');
DELETE FROM li WHERE source = 3 AND target = 1;
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'a DELETE through the parent that removes a child''s row');
UPDATE li SET target = target + 1 WHERE source >= 4;
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'an UPDATE through the parent that changes children''s rows');
UPDATE ONLY li SET source = 7 WHERE source = 1;
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'UPDATE ONLY the parent');
TRUNCATE li_kid;
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'TRUNCATE of the child');
INSERT INTO li_kid VALUES (2, 7, 'w');
TRUNCATE li;
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'TRUNCATE of the parent (and its child)');
CREATE TABLE li_kid2 () INHERITS (li);
SELECT is(pg_temp.state('lig', 'li'), 'exact', 'a new, empty child: the graph answers');
INSERT INTO li_kid2 VALUES (8, 9);
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'and writes into it are logged');
CREATE TABLE li_kid3 (extra text, target bigint, source bigint);
INSERT INTO li_kid3 VALUES ('x', 1, 9);
ALTER TABLE li_kid3 INHERIT li;
SELECT is(pg_temp.state('lig', 'li'), 'stale', 'a table with rows that starts inheriting: the graph refuses');
SELECT grail.merge_graph('lig');
SELECT pg_temp.live_base('lig', 'li');
INSERT INTO li_kid3 (source, target) VALUES (1, 8);
SELECT is(pg_temp.st('lig', 'li'), 'exact', 'merged, it answers, and writes into the new child are logged');
SAVEPOINT ddl2;
ALTER TABLE li_kid3 NO INHERIT li;
SELECT is(pg_temp.state('lig', 'li'), 'stale', 'a child that stops inheriting: the graph refuses');
ROLLBACK TO ddl2;
DROP TABLE li_kid2;
SELECT is(pg_temp.state('lig', 'li'), 'stale', 'a child dropped with its rows: the graph refuses');
ROLLBACK TO ddl2;
SELECT is(pg_temp.state('lig', 'li'), 'exact', 'rolled back, it answers');

-- Foreign-key cascades and BEFORE triggers.
CREATE TABLE lk_v (id bigint PRIMARY KEY);
INSERT INTO lk_v SELECT g FROM generate_series(1, 8) g;
CREATE TABLE lk (source bigint REFERENCES lk_v ON DELETE CASCADE ON UPDATE CASCADE,
                 target bigint REFERENCES lk_v ON DELETE CASCADE ON UPDATE CASCADE);
INSERT INTO lk VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 3), (6, 7), (7, 8), (8, 6);
SELECT grail.create_graph('lkg', 'lk');
SELECT grail.alter_graph('lkg', true);
SELECT pg_temp.live_base('lkg', 'lk');
DELETE FROM lk_v WHERE id = 3;
SELECT is(pg_temp.st('lkg', 'lk'), 'exact', 'ON DELETE CASCADE removes edges: answered');
UPDATE lk_v SET id = id + 100 WHERE id IN (4, 7);
SELECT is(pg_temp.st('lkg', 'lk'), 'exact', 'ON UPDATE CASCADE renames vertices: answered');
CREATE FUNCTION pg_temp.lk_shift() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.source = NEW.target THEN
		RETURN NULL;            -- self-loops are dropped
	END IF;
	NEW.target := NEW.target + 0 * NEW.source + CASE WHEN NEW.target = 1 THEN 1 ELSE 0 END;  -- 1 becomes 2
	RETURN NEW;
END $$;
CREATE TRIGGER lk_shift BEFORE INSERT OR UPDATE ON lk FOR EACH ROW EXECUTE FUNCTION pg_temp.lk_shift();
INSERT INTO lk VALUES (2, 1), (5, 5), (6, 1);
SELECT is(pg_temp.st('lkg', 'lk'), 'exact', 'a BEFORE trigger that changes and drops inserted rows');
UPDATE lk SET target = 1 WHERE source = 8;
SELECT is(pg_temp.st('lkg', 'lk'), 'exact', 'and updated ones');
TRUNCATE lk_v CASCADE;
SELECT is(pg_temp.st('lkg', 'lk'), 'exact', 'TRUNCATE ... CASCADE of the referenced table empties the edge table: answered');

SELECT * FROM finish();
ROLLBACK;
