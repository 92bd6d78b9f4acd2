-- The per-row reachable() answers each row from what its call site (fn_extra) keeps (open_site in
-- src/pg/service/open_graph.cpp): only while the site's graph was opened for this very snapshot,
-- role, settings and name. What could make that answer wrong, each at one call site: a name that
-- changes between rows (a column, a plpgsql variable whose new value may take the old one's
-- address, a constant name), a graph dropped and made again inside one statement, in a
-- subtransaction that is rolled back and between statements, its schema renamed, the role changed
-- between rows of one statement, a REVOKE in the same transaction, a live graph's writes between a
-- cursor's fetches and between statements, a graph keyed by oids (whose bigint keys are checked at
-- every call) and one keyed by text made again under the same name.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(29);
SET client_min_messages = warning;

CREATE SCHEMA rcs;
CREATE TABLE rcs.forward (source bigint, target bigint);
INSERT INTO rcs.forward VALUES (1, 2), (2, 3);
CREATE TABLE rcs.backward (source bigint, target bigint);
INSERT INTO rcs.backward VALUES (3, 2), (2, 1);
SELECT grail.create_graph('rcs.g1', 'rcs.forward');
SELECT grail.create_graph('rcs.g2', 'rcs.backward');

-- Call sites that plpgsql keeps for the whole transaction: one with the graph's name as a constant
-- of the call, one with it as a parameter.
CREATE FUNCTION rcs.reach_g1(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql
	AS $$ BEGIN RETURN grail.reachable('rcs.g1', a, b); END $$;
CREATE FUNCTION rcs.reach(g text, a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql
	AS $$ BEGIN RETURN grail.reachable(g, a, b); END $$;

-- The name from a column, the graphs alternating row by row; and a constant name over many rows.
SELECT is((SELECT array_agg(grail.reachable(CASE WHEN i % 2 = 0 THEN 'rcs.g1' ELSE 'rcs.g2' END, 1, 3) ORDER BY i)
           FROM generate_series(1, 6) i),
          ARRAY[false, true, false, true, false, true], 'a name that alternates between rows');
SELECT is((SELECT array_agg(grail.reachable(g, a, b) ORDER BY i)
           FROM (VALUES (1, 'rcs.g1', 1, 3), (2, 'rcs.g2', 1, 3), (3, 'rcs.g2', 3, 1), (4, 'rcs.g1', 3, 1)) v(i, g, a, b)),
          ARRAY[true, false, true, false], 'names and keys from the rows');
SELECT is((SELECT count(*) FROM generate_series(1, 5000) i WHERE grail.reachable('rcs.g1', 1 + i % 3, 3)),
          5000::bigint, 'a constant name over many rows');
SELECT is((SELECT count(*) FROM generate_series(1, 5000) i WHERE grail.reachable('rcs.g1', 3, 1 + i % 3)),
          1667::bigint, 'and its negative pairs');
SELECT is((SELECT count(*) FROM generate_series(1, 300) i WHERE grail.reachable('rcs.g1', (i % 3 + 1)::int, 3)),
          300::bigint, 'the integer form at one site');
SELECT is((SELECT count(*) FROM generate_series(1, 300) i WHERE grail.reachable('rcs.g2', (i % 3 + 1)::smallint, 1::smallint)),
          300::bigint, 'the smallint form at one site');

-- A plpgsql variable that takes the other name at every turn. A new value is made before the old
-- one is freed; with a value of the same size between them, each name takes the address of the
-- name before it: the name's address alone would not tell them apart.
CREATE FUNCTION rcs.alternate(n int) RETURNS boolean[] LANGUAGE plpgsql AS $$
DECLARE
	g text;
	answers boolean[] := '{}';
BEGIN
	FOR i IN 1..n LOOP
		g := 'rcs.gx';
		g := 'rcs.g' || (1 + i % 2)::text;
		answers := answers || grail.reachable(g, 1, 3);
	END LOOP;
	RETURN answers;
END $$;
SELECT is(rcs.alternate(6), ARRAY[false, true, false, true, false, true], 'a plpgsql variable that alternates');

-- Between statements of the transaction, at the same sites: made again over other edges.
SELECT is(ARRAY[rcs.reach_g1(1, 3), rcs.reach('rcs.g1', 1, 3)], ARRAY[true, true], 'before it is made again');
SELECT grail.drop_graph('rcs.g1');
SELECT grail.create_graph('rcs.g1', 'rcs.backward');
SELECT is(ARRAY[rcs.reach_g1(1, 3), rcs.reach('rcs.g1', 1, 3), rcs.reach_g1(3, 1)], ARRAY[false, false, true],
          'the sites answer for the graph made again');

-- Inside one statement: the volatile function's calls see the statement's own drop and create.
CREATE FUNCTION rcs.remake(edges text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM grail.drop_graph('rcs.g1');
	PERFORM grail.create_graph('rcs.g1', edges);
	RETURN true;
END $$;
SELECT is((SELECT ARRAY[rcs.reach_g1(3, 1), rcs.remake('rcs.forward'), rcs.reach_g1(3, 1), rcs.reach_g1(1, 3)]),
          ARRAY[true, true, false, true], 'made again between two calls of one statement');

-- In a subtransaction that is rolled back: the graph of before answers again.
CREATE FUNCTION rcs.in_block() RETURNS boolean[] LANGUAGE plpgsql AS $$
DECLARE
	answers boolean[] := '{}';
BEGIN
	answers := answers || rcs.reach_g1(1, 3);
	BEGIN
		PERFORM rcs.remake('rcs.backward');
		answers := answers || rcs.reach_g1(1, 3);
		RAISE EXCEPTION 'undo';
	EXCEPTION WHEN raise_exception THEN
		NULL;
	END;
	RETURN answers || rcs.reach_g1(1, 3);
END $$;
SELECT is(rcs.in_block(), ARRAY[true, false, true], 'made again in a subtransaction rolled back');
SAVEPOINT before_remake;
SELECT rcs.remake('rcs.backward');
SELECT is(rcs.reach_g1(1, 3), false, 'made again after a savepoint');
ROLLBACK TO before_remake;
SELECT is(rcs.reach_g1(1, 3), true, 'the graph of before once the savepoint is rolled back');

-- The schema renamed: the name no longer finds the graph; back again, it does.
ALTER SCHEMA rcs RENAME TO rcs_renamed;
SELECT throws_ok($$SELECT rcs_renamed.reach_g1(1, 3)$$, '42704', NULL, 'the site after its graph''s schema was renamed');
ALTER SCHEMA rcs_renamed RENAME TO rcs;
SELECT is(rcs.reach_g1(1, 3), true, 'and after it was renamed back');

-- The role changed between rows of one statement: a role that cannot read the edge table is
-- refused at its first row; one that can is answered.
CREATE ROLE rcs_reader;
CREATE ROLE rcs_nobody;
GRANT USAGE ON SCHEMA rcs TO rcs_reader, rcs_nobody;
GRANT SELECT ON rcs.forward TO rcs_reader;
SELECT throws_ok($$SELECT grail.reachable('rcs.g1', 1, 3), set_config('role', 'rcs_nobody', true)
                   FROM generate_series(1, 3)$$,
                 '42501', NULL, 'a role without SELECT on the edges, set between rows');
SELECT is((SELECT array_agg(r ORDER BY i) FROM (
              SELECT i, grail.reachable('rcs.g1', 1, 3) AS r, set_config('role', 'rcs_reader', true)
              FROM generate_series(1, 3) i) s),
          ARRAY[true, true, true], 'a role with SELECT on the edges, set between rows');
RESET ROLE;

-- A REVOKE in the same transaction, at the same site, for the same role.
SET ROLE rcs_reader;
SELECT is(rcs.reach_g1(1, 3), true, 'the reader queries the graph');
RESET ROLE;
REVOKE SELECT ON rcs.forward FROM rcs_reader;
SET ROLE rcs_reader;
SELECT throws_ok($$SELECT rcs.reach_g1(1, 3)$$, '42501', NULL, 'and is refused at the same site after a REVOKE');
RESET ROLE;

-- A live graph: a cursor answers for its own snapshot across the writes between its fetches, and
-- the next statement for its snapshot.
CREATE TABLE rcs.live_edges (source bigint, target bigint);
INSERT INTO rcs.live_edges VALUES (1, 2);
SELECT grail.create_graph('rcs.live', 'rcs.live_edges');
CREATE FUNCTION rcs.fetch_answers(cursor_name text, n int) RETURNS boolean[] LANGUAGE plpgsql AS $$
DECLARE
	c refcursor := cursor_name;
	answer boolean;
	answers boolean[] := '{}';
BEGIN
	FOR i IN 1..n LOOP
		FETCH c INTO answer;
		answers := answers || answer;
	END LOOP;
	RETURN answers;
END $$;
DECLARE before_insert CURSOR FOR SELECT grail.reachable('rcs.live', 1, 3) FROM generate_series(1, 4);
SELECT is(rcs.fetch_answers('before_insert', 2), ARRAY[false, false], 'a cursor before the insert');
INSERT INTO rcs.live_edges VALUES (2, 3);
SELECT is(rcs.fetch_answers('before_insert', 2) || grail.reachable('rcs.live', 1, 3), ARRAY[false, false, true],
          'the cursor''s last rows after the insert, and the next statement''s answer');
DECLARE after_insert CURSOR FOR SELECT grail.reachable('rcs.live', 1, 3) FROM generate_series(1, 4);
SELECT is(rcs.fetch_answers('after_insert', 2), ARRAY[true, true], 'a cursor after the insert');
DELETE FROM rcs.live_edges WHERE source = 2;
SELECT is(rcs.fetch_answers('after_insert', 2) || grail.reachable('rcs.live', 1, 3), ARRAY[true, true, false],
          'its last rows after a delete, and the next statement''s answer');

-- A graph keyed by oids: its bigint keys are checked at every row, not only the first.
CREATE TABLE rcs.oid_edges (source oid, target oid);
INSERT INTO rcs.oid_edges VALUES (1, 2);
SELECT grail.create_graph('rcs.oids', 'rcs.oid_edges');
SELECT throws_ok($$SELECT grail.reachable('rcs.oids', x, 2::bigint) FROM unnest(ARRAY[1, 1, -1]::bigint[]) x$$,
                 '22003', NULL, 'a bigint that is no oid, on a later row');
-- Its own keys at one site of the polymorphic form, over many rows; and an oid the cast of a
-- negative integer gives (4294967295), which is no vertex here.
SELECT is((SELECT count(*) FROM generate_series(1, 3000) i WHERE grail.reachable('rcs.oids', (i % 3)::oid, 2::oid)),
          2000::bigint, 'oid keys over many rows');
SELECT is((SELECT count(*) FROM generate_series(1, 30) i WHERE grail.reachable('rcs.oids', (-1)::int::oid, 2::oid)),
          0::bigint, 'an oid that is no vertex');
-- The same site across the graph made again keyed by bigint: refused at its first row.
CREATE FUNCTION rcs.reach_oids(a oid, b oid) RETURNS boolean LANGUAGE plpgsql
	AS $$ BEGIN RETURN grail.reachable('rcs.oids', a, b); END $$;
SELECT is(rcs.reach_oids(1, 2), true, 'the oid site answers');
SELECT grail.drop_graph('rcs.oids');
SELECT grail.create_graph('rcs.oids', 'rcs.forward');
SELECT throws_ok($$SELECT rcs.reach_oids(1, 2)$$, '42804', NULL, 'and refuses the graph made again with bigint keys');

-- Made again with text keys under the same name: the integer site refuses it.
CREATE TABLE rcs.text_edges (source text, target text);
INSERT INTO rcs.text_edges VALUES ('1', '3');
SELECT grail.drop_graph('rcs.g1');
SELECT grail.create_graph('rcs.g1', 'rcs.text_edges');
SELECT throws_ok($$SELECT rcs.reach_g1(1, 3)$$, '42804', NULL, 'the site refuses the graph made again with text keys');

SELECT * FROM finish();
ROLLBACK;
