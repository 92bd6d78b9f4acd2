-- Graphs over plain views: read in each statement's snapshot as the querying role, through the
-- view's query (its joins, its WHERE clause, security_barrier, security_invoker, row-level security of
-- the tables under it), nothing stored. Every function against the oracles of live_oracle.psql and
-- path_oracle.psql over the view's rows as the same role: random graphs with cycles, self-loops,
-- duplicate edges and extreme ids through a join of two tables, with bigint, text and uuid keys,
-- after writes in the same transaction; two roles through one graph name; a role without rights;
-- a leaky function over a security_barrier view; a partitioned table under the view; DDL on the
-- view; one read per statement.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(255);
\ir live_oracle.psql
\ir path_oracle.psql
SET client_min_messages = warning;
SELECT setseed(0.3030);

-- The oracles' tables, dropped as the superuser before another role makes its own.
CREATE FUNCTION pg_temp.vg_clean() RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	DROP TABLE IF EXISTS lo_e, lo_v, lo_q, lo_r, lo_c, lo_s, lo_dd, lo_d, lo_b, lo_adj, lo_cyc, lo_saved, po_e, po_v, po_d;
END $f$;

-- Vertices (each with a text and a uuid key) and links; the views join them. A link whose kind is
-- 'hidden' is no edge of the views.
CREATE TABLE vg_node (id bigint PRIMARY KEY, name text NOT NULL, uid uuid NOT NULL);
CREATE TABLE vg_link (src bigint, dst bigint, kind text);
CREATE VIEW vg_int AS
	SELECT a.id AS source, b.id AS target FROM vg_link l JOIN vg_node a ON a.id = l.src JOIN vg_node b ON b.id = l.dst
	WHERE l.kind <> 'hidden';
CREATE VIEW vg_text AS
	SELECT a.name AS source, b.name AS target FROM vg_link l JOIN vg_node a ON a.id = l.src JOIN vg_node b ON b.id = l.dst
	WHERE l.kind <> 'hidden';
CREATE VIEW vg_uuid AS
	SELECT a.uid AS source, b.uid AS target FROM vg_link l JOIN vg_node a ON a.id = l.src JOIN vg_node b ON b.id = l.dst
	WHERE l.kind <> 'hidden';

-- The empty graph first.
SELECT ok(grail.create_graph('vg_i', 'vg_int') LIKE
          'graph "vg_i": over view "vg_int", read as the querying role in every statement, nothing stored (as role "%" now: 0 vertices, 0 edges)',
          'a graph over an empty view');
SELECT ok(grail.create_graph('vg_t', 'vg_text', live => true) LIKE 'graph "vg_t": over view "vg_text"%', 'text keys (live => true ignored)');
SELECT ok(grail.create_graph('vg_u', 'vg_uuid') LIKE 'graph "vg_u": over view "vg_uuid"%', 'uuid keys');
SELECT is((SELECT array_agg((live, stale, vertices, edges, index_bytes)::text ORDER BY name) FROM grail.graphs WHERE name LIKE 'vg\_%'),
          ARRAY['(f,f,,,)', '(f,f,,,)', '(f,f,,,)'], 'none is live, stale or stored');
SELECT is((SELECT count(*) FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id WHERE g.name LIKE 'vg\_%'), 0::bigint,
          'no image chunk');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid IN ('vg_node'::regclass, 'vg_link'::regclass)), 0::bigint,
          'no trigger on the tables under the views');
SELECT is(grail.reachable('vg_i', 1, 2), false, 'empty: 1 does not reach 2');
SELECT is(grail.reachable('vg_i', 1, 1), true, 'a key reaches itself');
SELECT is((SELECT array_agg((vertex, depth, parent)::text) FROM grail.bfs('vg_i', 1)), ARRAY['(1,0,)'], 'empty: bfs() of an unknown key: the key alone');
SELECT is(mismatches, 0::bigint, 'empty, bigint: ' || fn)
FROM pg_temp.live_verify('vg_i', 'vg_int', 'bigint', '77') WHERE fn NOT LIKE 'pending log + last build = rows%';

-- Random graphs, written in this transaction between statements: every function answers for the
-- rows the statement sees.
CREATE FUNCTION pg_temp.vg_fill(vertices int, links int) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	DELETE FROM vg_link;
	DELETE FROM vg_node;
	INSERT INTO vg_node
	SELECT CASE i WHEN 1 THEN -9223372036854775808 WHEN 2 THEN 9223372036854775807 ELSE i * 7 - 40 END,
	       CASE WHEN i % 3 = 0 THEN 'n' || i ELSE 'é ' || i END, md5(i::text || random()::text)::uuid
	FROM generate_series(1, vertices) i;
	INSERT INTO vg_link
	SELECT a.id, b.id, CASE WHEN random() < 0.15 THEN 'hidden' ELSE 'shown' END
	FROM generate_series(1, links) k,
	     LATERAL (SELECT id FROM vg_node ORDER BY random() + k * 0 LIMIT 1) a,
	     LATERAL (SELECT id FROM vg_node ORDER BY random() + k * 0 LIMIT 1) b;
	-- A self-loop, a duplicate edge and a cycle through both extreme ids.
	INSERT INTO vg_link SELECT id, id, 'shown' FROM vg_node ORDER BY id LIMIT 1 OFFSET 3;
	INSERT INTO vg_link SELECT src, dst, kind FROM vg_link WHERE kind = 'shown' LIMIT 2;
	INSERT INTO vg_link VALUES (-9223372036854775808, 9223372036854775807, 'shown'),
	                           (9223372036854775807, -9223372036854775808, 'shown');
END $f$;

SELECT pg_temp.vg_fill(12, 20);
SELECT is(mismatches, 0::bigint, 'round 1, bigint: ' || fn)
FROM pg_temp.live_verify('vg_i', 'vg_int', 'bigint', '77') WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'round 1, text: ' || fn)
FROM pg_temp.live_verify('vg_t', 'vg_text', 'text', 'nobody') WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'round 1, uuid: ' || fn)
FROM pg_temp.live_verify('vg_u', 'vg_uuid', 'uuid', '00000000-0000-0000-0000-000000000000') WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'round 1, bigint: ' || fn) FROM pg_temp.path_verify('vg_i', 'vg_int', 'bigint');
SELECT is(mismatches, 0::bigint, 'round 1, text: ' || fn) FROM pg_temp.path_verify('vg_t', 'vg_text', 'text');

SELECT pg_temp.vg_fill(16, 30);
SELECT is(mismatches, 0::bigint, 'round 2, bigint: ' || fn)
FROM pg_temp.live_verify('vg_i', 'vg_int', 'bigint', '77') WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'round 2, text: ' || fn)
FROM pg_temp.live_verify('vg_t', 'vg_text', 'text', 'nobody', false) WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'round 2, bigint: ' || fn) FROM pg_temp.path_verify('vg_i', 'vg_int', 'bigint');
SELECT is(mismatches, 0::bigint, 'round 2, uuid: ' || fn) FROM pg_temp.path_verify('vg_u', 'vg_uuid', 'uuid');

-- Writes that change the graph's components: an UPDATE that hides links, and a DELETE of a vertex
-- (its links leave the join).
UPDATE vg_link SET kind = 'hidden' WHERE random() < 0.3;
DELETE FROM vg_node WHERE id = (SELECT src FROM vg_link WHERE kind = 'shown' AND src <> dst LIMIT 1);
SELECT is(mismatches, 0::bigint, 'round 3, bigint: ' || fn)
FROM pg_temp.live_verify('vg_i', 'vg_int', 'bigint', '77', false) WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'round 3, bigint: ' || fn) FROM pg_temp.path_verify('vg_i', 'vg_int', 'bigint');
SAVEPOINT s1;
DELETE FROM vg_link;
SELECT is((SELECT count(*) FROM grail.scc_components('vg_i')), 0::bigint, 'every link deleted in a savepoint: no vertex');
ROLLBACK TO SAVEPOINT s1;
SELECT is((SELECT count(*) FROM grail.scc_components('vg_i')), (SELECT count(*) FROM (SELECT source FROM vg_int UNION SELECT target FROM vg_int) x),
          'rolled back: the vertices again');

-- One read per statement, whatever call site asks, and none kept for the next statement: a write
-- made by a function between two calls of one statement is not seen by the later call (as a join
-- of the view in the statement would not see it); the next statement sees it.
DELETE FROM vg_link;
INSERT INTO vg_node VALUES (-9223372036854775808, 'min', gen_random_uuid()), (9223372036854775807, 'max', gen_random_uuid())
ON CONFLICT DO NOTHING;
INSERT INTO vg_link VALUES (-9223372036854775808, 9223372036854775807, 'shown');
CREATE FUNCTION pg_temp.vg_write() RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	INSERT INTO vg_link VALUES (9223372036854775807, -9223372036854775808, 'shown');
	RETURN true;
END $f$;
SELECT is((SELECT array_agg(r ORDER BY o) FROM (SELECT 1 AS o, grail.reachable('vg_i', 9223372036854775807, -9223372036854775808) AS r
                                                UNION ALL SELECT 2, pg_temp.vg_write()
                                                UNION ALL SELECT 3, grail.reachable('vg_i', 9223372036854775807, -9223372036854775808)) x),
          ARRAY[false, true, false], 'a write during the statement is not seen by its later call');
SELECT is(grail.reachable('vg_i', 9223372036854775807, -9223372036854775808), true, 'the next statement sees it');
-- A view that counts its reads: one per statement for three call sites and explain_graph's two opens.
CREATE SEQUENCE vg_reads;
CREATE VIEW vg_counted AS SELECT source, target FROM vg_int WHERE nextval('vg_reads') > 0;
SELECT lives_ok($$SELECT grail.create_graph('vg_c', 'vg_counted')$$, 'a graph over a view that counts its reads');
SELECT setval('vg_reads', 1, false);
SELECT is(ARRAY[grail.reachable('vg_c', -9223372036854775808, 9223372036854775807),
                 grail.reachable('vg_c', 9223372036854775807, -9223372036854775808),
                 (SELECT count(*) = 2 FROM grail.bfs('vg_c', -9223372036854775808))], ARRAY[true, true, true],
          'three call sites in one statement');
SELECT is(currval('vg_reads'), 2::bigint, 'read the view once (2 rows)');
SELECT is((SELECT count(*) FROM grail.explain_graph('vg_c')), 7::bigint, 'explain_graph');
SELECT is(currval('vg_reads'), 4::bigint, 'reads it once more, once');
SELECT is((SELECT array_agg(DISTINCT answers_from) FROM grail.explain_graph('vg_c')), ARRAY['view read as the querying role'],
          'explain_graph: every function answers from the view read as the querying role');
SELECT is((SELECT array_agg(DISTINCT (build IS NULL, build_uuid IS NULL, built_at IS NULL, image, image_format IS NULL, pending_changes IS NULL)::text)
           FROM grail.explain_graph('vg_c')), ARRAY['(t,t,t,"memory of this backend",t,t)'],
          'no build, no image: the memory of this backend');
-- plpgsql keeps a call site across the statements of a function: each statement reads again.
CREATE FUNCTION pg_temp.vg_loop() RETURNS boolean[] LANGUAGE plpgsql AS $f$
DECLARE
	answers boolean[] := '{}';
BEGIN
	FOR i IN 1..2 LOOP
		answers := answers || grail.reachable('vg_i', 5, 6);
		INSERT INTO vg_link VALUES (5, 6, 'shown');
		INSERT INTO vg_node VALUES (5, 'five', gen_random_uuid()), (6, 'six', gen_random_uuid()) ON CONFLICT DO NOTHING;
	END LOOP;
	RETURN answers;
END $f$;
SELECT is(pg_temp.vg_loop(), ARRAY[false, true], 'a function''s later statement sees its own earlier write');

-- NULLs: in every argument, and NULL endpoints in the view's rows.
SELECT is(grail.reachable(NULL, 5, 6), NULL, 'NULL graph name');
SELECT is(grail.reachable('vg_i', NULL::bigint, 6), NULL, 'NULL source');
SELECT is(grail.path('vg_i', 5, NULL::bigint), NULL, 'NULL target of path()');
SELECT is((SELECT count(*) FROM grail.bfs('vg_i', NULL::bigint)), 0::bigint, 'bfs() from NULL: no rows');
SELECT is((SELECT count(*) FROM grail.descendants('vg_i', 5, NULL)), 2::bigint, 'descendants() without a depth limit');
SELECT throws_ok($$SELECT * FROM grail.descendants('vg_i', 5, -1)$$, '22023', NULL, 'a negative depth is refused');
SELECT is((SELECT count(*) FROM grail.descendants('vg_i', 5, 2147483647)), 2::bigint, 'the largest depth');
SELECT throws_ok($$SELECT grail.reachable('vg_i', 'a'::text, 'b'::text)$$, '42804', NULL, 'text keys for a bigint view: refused');
INSERT INTO vg_node VALUES (100, 'hundred', gen_random_uuid());
CREATE VIEW vg_nulls AS SELECT source, target FROM vg_int UNION ALL SELECT 100, NULL::bigint;
SELECT throws_ok($$SELECT grail.create_graph('vg_n', 'vg_nulls')$$, '23502', NULL, 'NULL endpoints refused at create');
SELECT lives_ok($$SELECT grail.create_graph('vg_n', 'vg_nulls', skip_nulls => true)$$, 'and skipped with skip_nulls');
SELECT is(grail.reachable('vg_n', 5, 6), true, 'skip_nulls: the other rows answer');
SELECT is(grail.scc_component('vg_n', 100), 100::bigint, 'and the NULL row adds no vertex');
CREATE OR REPLACE VIEW vg_nulls AS SELECT source, target FROM vg_int UNION ALL SELECT NULL::bigint, 100;
SELECT is(grail.scc_component('vg_n', 100), 100::bigint, 'CREATE OR REPLACE VIEW: the graph reads the new query');
SELECT lives_ok($$SELECT grail.drop_graph('vg_n')$$, 'drop_graph');

-- Keys of other types: int4 and regrole columns of a view.
CREATE VIEW vg_int4 AS SELECT source::int AS source, target::int AS target FROM vg_int WHERE source BETWEEN -1000 AND 1000 AND target BETWEEN -1000 AND 1000;
SELECT lives_ok($$SELECT grail.create_graph('vg_i4', 'vg_int4')$$, 'int4 keys');
SELECT is(grail.reachable('vg_i4', 5, 6), true, 'int4: 5 reaches 6');
SELECT is(mismatches, 0::bigint, 'int4: ' || fn) FROM pg_temp.path_verify('vg_i4', 'vg_int4', 'bigint');
CREATE ROLE vg_g1;
CREATE ROLE vg_g2;
CREATE ROLE vg_m;
GRANT vg_g2 TO vg_g1;
GRANT vg_g1 TO vg_m;
CREATE VIEW vg_roles AS SELECT member::regrole AS source, roleid::regrole AS target FROM pg_catalog.pg_auth_members;
SELECT lives_ok($$SELECT grail.create_graph('vg_r', 'vg_roles')$$, 'regrole keys through a view of pg_auth_members');
SELECT is(grail_internal._key_type('vg_r')::text, 'regrole', 'keyed as regrole');
SELECT is(grail.reachable('vg_r', 'vg_m'::regrole, 'vg_g2'::regrole), true, 'vg_m is a member of vg_g2 through vg_g1');
REVOKE vg_g2 FROM vg_g1;
SELECT is(grail.reachable('vg_r', 'vg_m'::regrole, 'vg_g2'::regrole), false, 'after REVOKE: no longer');
SELECT is(mismatches, 0::bigint, 'regrole: ' || fn) FROM pg_temp.path_verify('vg_r', 'vg_roles', 'regrole');

-- A view over a partitioned table.
CREATE TABLE vg_part (source bigint, target bigint, day int) PARTITION BY RANGE (day);
CREATE TABLE vg_part_1 PARTITION OF vg_part FOR VALUES FROM (0) TO (10);
CREATE TABLE vg_part_2 PARTITION OF vg_part FOR VALUES FROM (10) TO (20);
INSERT INTO vg_part SELECT (random() * 10)::int, (random() * 10)::int, (random() * 19)::int FROM generate_series(1, 25);
CREATE VIEW vg_partview AS SELECT source, target FROM vg_part WHERE day < 15;
SELECT lives_ok($$SELECT grail.create_graph('vg_p', 'vg_partview')$$, 'a view over a partitioned table');
SELECT is(mismatches, 0::bigint, 'partitioned: ' || fn)
FROM pg_temp.live_verify('vg_p', 'vg_partview', 'bigint', '77', false) WHERE fn NOT LIKE 'pending log + last build = rows%';
INSERT INTO vg_part VALUES (3, 50, 12), (50, 3, 1);
CREATE TABLE vg_part_3 PARTITION OF vg_part FOR VALUES FROM (20) TO (30);
INSERT INTO vg_part VALUES (50, 60, 25);
SELECT is((grail.reachable('vg_p', 3, 50), grail.reachable('vg_p', 50, 60)), (true, false),
          'rows written into two partitions and a new partition that the view filters out');
SELECT is(mismatches, 0::bigint, 'partitioned after writes: ' || fn) FROM pg_temp.path_verify('vg_p', 'vg_partview', 'bigint');

-- Security. A security_invoker view over a table with row-level security: each role reads the
-- rows its policy gives it, through one graph name, in one session.
CREATE ROLE vg_alice;
CREATE ROLE vg_bob;
CREATE ROLE vg_carol;
GRANT USAGE ON SCHEMA grail TO vg_alice, vg_bob, vg_carol;
GRANT CREATE ON SCHEMA public TO vg_alice, vg_bob;
CREATE TABLE vg_owned (source int, target int, owner name);
INSERT INTO vg_owned VALUES (1, 2, 'vg_alice'), (2, 3, 'vg_bob'), (3, 4, 'vg_alice'), (4, 1, 'vg_bob'), (2, 4, 'vg_alice');
INSERT INTO vg_owned SELECT 10 + (random() * 8)::int, 10 + (random() * 8)::int, CASE WHEN random() < 0.5 THEN 'vg_alice' ELSE 'vg_bob' END
FROM generate_series(1, 20);
ALTER TABLE vg_owned ENABLE ROW LEVEL SECURITY;
CREATE POLICY vg_own ON vg_owned USING (owner = current_user);
GRANT SELECT ON vg_owned TO vg_alice, vg_bob;
CREATE VIEW vg_inv WITH (security_invoker = true) AS SELECT source, target FROM vg_owned;
GRANT SELECT ON vg_inv TO vg_alice, vg_bob;
-- The definer's view (the default): the view's owner reads the table, whose policies do not apply
-- to it (the superuser).
CREATE VIEW vg_def AS SELECT source, target FROM vg_owned;
GRANT SELECT ON vg_def TO vg_alice;
SELECT lives_ok($$SELECT grail.create_graph('vg_rls', 'vg_inv')$$, 'a graph over a security_invoker view');
SELECT lives_ok($$SELECT grail.create_graph('vg_def', 'vg_def')$$, 'and over a security definer view');
SELECT is(grail.reachable('vg_rls', 1, 3), true, 'the superuser: every row (1 -> 2 -> 3)');
SELECT pg_temp.vg_clean();
SET ROLE vg_alice;
SELECT is(grail.reachable('vg_rls', 1, 3), false, 'vg_alice: 1 does not reach 3 through her rows');
SELECT is(mismatches, 0::bigint, 'vg_alice through vg_inv: ' || fn)
FROM pg_temp.live_verify('vg_rls', 'vg_inv', 'bigint', '77', false) WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'vg_alice through vg_inv: ' || fn) FROM pg_temp.path_verify('vg_rls', 'vg_inv', 'bigint');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('vg_rls', 2)), ARRAY[2, 4]::bigint[],
          'vg_alice: 2 -> 4, not 2 -> 3 (vg_bob''s row)');
SELECT is((SELECT count(*) FROM grail.bfs('vg_def', 1)) > 0, true, 'vg_alice through the definer view');
SELECT is(grail.reachable('vg_def', 2, 3), true, 'reads every row, as the view''s owner does');
RESET ROLE;
SELECT pg_temp.vg_clean();
SET ROLE vg_bob;
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.descendants('vg_rls', 2)), ARRAY[2, 3]::bigint[],
          'vg_bob, same session, same graph name: 2 -> 3 only');
SELECT is(mismatches, 0::bigint, 'vg_bob through vg_inv: ' || fn)
FROM pg_temp.live_verify('vg_rls', 'vg_inv', 'bigint', '77', false) WHERE fn NOT LIKE 'pending log + last build = rows%';
SELECT is(mismatches, 0::bigint, 'vg_bob through vg_inv: ' || fn) FROM pg_temp.path_verify('vg_rls', 'vg_inv', 'bigint');
SELECT throws_ok($$SELECT grail.reachable('vg_def', 1, 2)$$, '42501', NULL, 'vg_bob without SELECT on the definer view: 42501');
RESET ROLE;
SELECT pg_temp.vg_clean();
SET ROLE vg_carol;
SELECT throws_ok($$SELECT grail.reachable('vg_rls', 1, 2)$$, '42501', NULL, 'vg_carol without SELECT on the view: 42501');
SELECT throws_ok($$SELECT * FROM grail.bfs('vg_rls', 1)$$, '42501', NULL, 'bfs() too');
SELECT throws_ok($$SELECT * FROM grail.explain_graph('vg_rls')$$, '42501', NULL, 'explain_graph() too');
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'vg_rls'), 0::bigint, 'grail.graphs does not list it to her');
RESET ROLE;
-- Column privileges: SELECT on the edge columns of the view is enough; the view's other columns
-- are not read.
CREATE VIEW vg_cols AS SELECT source, target, owner FROM vg_owned;
GRANT SELECT (source, target) ON vg_cols TO vg_carol;
SELECT lives_ok($$SELECT grail.create_graph('vg_cols', 'vg_cols')$$, 'a view with a third column');
SET ROLE vg_carol;
SELECT is(grail.reachable('vg_cols', 2, 3), true, 'vg_carol with SELECT on the edge columns only');
RESET ROLE;
-- A security invoker view over a table the caller may not read: the usual error.
CREATE VIEW vg_inv2 WITH (security_invoker = true) AS SELECT source, target FROM vg_owned;
GRANT SELECT ON vg_inv2 TO vg_carol;
SELECT lives_ok($$SELECT grail.create_graph('vg_inv2', 'vg_inv2')$$, 'another invoker view');
SET ROLE vg_carol;
SELECT throws_ok($$SELECT grail.reachable('vg_inv2', 1, 2)$$, '42501', 'permission denied for table vg_owned',
                 'SELECT on the invoker view but not on its table: permission denied for the table');
RESET ROLE;

-- A security_barrier view with a leaky function: the caller's function sees only the view's
-- rows, never the hidden ones (the graph takes no filter, so no predicate reaches under the view).
CREATE TABLE vg_secret (source int, target int, secret boolean);
INSERT INTO vg_secret VALUES (1, 2, false), (2, 3, false), (3, 666, true), (666, 1, true), (2, 777, true);
CREATE VIEW vg_barrier WITH (security_barrier = true) AS SELECT source, target FROM vg_secret WHERE NOT secret;
GRANT SELECT ON vg_barrier TO vg_alice;
SELECT lives_ok($$SELECT grail.create_graph('vg_sb', 'vg_barrier')$$, 'a graph over a security_barrier view');
SET ROLE vg_alice;
CREATE TABLE vg_leaked (v bigint);
CREATE FUNCTION vg_leak(v bigint) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $f$
BEGIN
	INSERT INTO vg_leaked VALUES (v);
	RETURN true;
END $f$;
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.bfs('vg_sb', 1) WHERE vg_leak(vertex) AND vg_leak(coalesce(parent, vertex)) AND depth > 0),
          ARRAY[2, 3]::bigint[], 'bfs from 1 through the barrier: 2, 3');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.scc_components('vg_sb') WHERE vg_leak(vertex) AND vg_leak(component)),
          ARRAY[1, 2, 3]::bigint[], 'scc_components: the visible vertices only');
SELECT is((SELECT count(*) FROM vg_leaked WHERE v IN (666, 777)), 0::bigint, 'the leaky function saw no hidden vertex');
SELECT is(grail.reachable('vg_sb', 3, 1), false, 'and no path through hidden rows (3 -> 666 -> 1)');
SELECT throws_ok($$SELECT grail.create_graph('vg_sb2', 'vg_barrier', filter => 'vg_leak(source)')$$, '0A000', NULL,
                 'no filter under the view');
RESET ROLE;

-- DDL on the view: the graph follows renames and CREATE OR REPLACE VIEW; a type change is refused
-- by PostgreSQL; dropping the view drops its graphs.
SELECT is(grail.reachable('vg_sb', 1, 3), true, 'before the renames');
ALTER VIEW vg_barrier RENAME TO vg_barrier2;
ALTER VIEW vg_barrier2 RENAME COLUMN source TO src;
ALTER TABLE vg_barrier2 RENAME COLUMN target TO dst;
SELECT is((SELECT concat_ws(',', relation, source_column, target_column) FROM grail.graphs WHERE name = 'vg_sb'),
          'vg_barrier2,src,dst', 'grail.graphs follows ALTER VIEW RENAME, RENAME COLUMN, ALTER TABLE RENAME COLUMN');
SELECT is(grail.reachable('vg_sb', 1, 3), true, 'the graph reads the renamed view');
SELECT throws_ok($$CREATE OR REPLACE VIEW vg_barrier2 WITH (security_barrier = true) AS SELECT src::text AS src, dst FROM (SELECT source AS src, target AS dst, secret FROM vg_secret) x WHERE NOT secret$$,
                 '42P16', NULL, 'a column''s type cannot change under CREATE OR REPLACE VIEW');
CREATE OR REPLACE VIEW vg_barrier2 WITH (security_barrier = true) AS SELECT source AS src, target AS dst FROM vg_secret;
SELECT is(grail.reachable('vg_sb', 3, 1), true, 'CREATE OR REPLACE VIEW with another WHERE: the graph follows');
CREATE SCHEMA vg_s;
ALTER VIEW vg_barrier2 SET SCHEMA vg_s;
SELECT is(grail.reachable('vg_sb', 3, 1), true, 'ALTER VIEW SET SCHEMA: the graph follows');
SELECT throws_ok($$SELECT grail.alter_graph('vg_sb', true)$$, '0A000',
                 'pg_grail graph "vg_sb" is over the view "vg_barrier2": it is neither live nor static', 'alter_graph() says why not');
SELECT ok(grail.refresh_graph('vg_sb') LIKE 'graph "vg_sb": over view "vg_barrier2", read as the querying role%', 'refresh_graph() says how it answers');
SELECT ok(grail.merge_graph('vg_sb') LIKE 'graph "vg_sb": over view "vg_barrier2", %', 'merge_graph() too');
SELECT is((SELECT build FROM grail.graph WHERE name = 'vg_sb'), NULL, 'and neither stores a build');
DROP VIEW vg_s.vg_barrier2;
SELECT is((SELECT count(*) FROM grail.graph WHERE name = 'vg_sb'), 0::bigint, 'DROP VIEW drops its graph');
SELECT throws_ok($$SELECT grail.reachable('vg_sb', 1, 3)$$, '42704', NULL, 'which no longer answers');
DROP VIEW vg_counted;
SELECT is((SELECT count(*) FROM grail.graph WHERE name = 'vg_c'), 0::bigint, 'another one');
-- A temporary view ends with its session, without an event that would drop the graph.
CREATE TEMP VIEW vg_temp AS SELECT source, target FROM vg_int;
SELECT throws_ok($$SELECT grail.create_graph('vg_tmp', 'vg_temp')$$, '0A000', NULL, 'a temporary view is refused');
-- A view whose columns are not key types.
CREATE VIEW vg_float AS SELECT source::float8 AS source, target::float8 AS target FROM vg_int;
SELECT throws_ok($$SELECT grail.create_graph('vg_fl', 'vg_float')$$, '42804', NULL, 'float columns are refused');
-- The owner of a view's graph needs no rights beyond reading the view: no trigger, no lock.
SET ROLE vg_alice;
SELECT lives_ok($$SELECT grail.create_graph('vg_alices', 'vg_def')$$, 'vg_alice creates a graph over a view she may read');
SELECT is(grail.reachable('vg_alices', 2, 3), true, 'and queries it');
RESET ROLE;
SET ROLE vg_bob;
SELECT throws_ok($$SELECT grail.reachable('vg_alices', 2, 3)$$, '42501', NULL, 'vg_bob may not read the view: 42501');
RESET ROLE;

-- A plain SQL function in the view runs once per statement's read, as the querying role.
CREATE FUNCTION vg_whoami() RETURNS name LANGUAGE sql STABLE AS 'SELECT current_user';
CREATE VIEW vg_mine AS SELECT source, target FROM vg_owned WHERE owner = vg_whoami();
GRANT SELECT ON vg_mine TO vg_alice, vg_bob;
SELECT lives_ok($$SELECT grail.create_graph('vg_mine', 'vg_mine')$$, 'a view naming current_user');
SET ROLE vg_alice;
SELECT is(grail.reachable('vg_mine', 2, 3), false, 'vg_alice''s rows: no 2 -> 3');
RESET ROLE;
SET ROLE vg_bob;
SELECT is(grail.reachable('vg_mine', 2, 3), true, 'vg_bob''s rows: 2 -> 3');
RESET ROLE;

-- A view whose query asks its own graph: an error, not a crash.
CREATE TABLE vg_rec (source bigint, target bigint);
INSERT INTO vg_rec VALUES (1, 2), (2, 3);
CREATE VIEW vg_recv AS SELECT source, target FROM vg_rec;
SELECT lives_ok($$SELECT grail.create_graph('vg_rec', 'vg_recv')$$, 'a graph over a plain view');
CREATE OR REPLACE VIEW vg_recv AS SELECT source, target FROM vg_rec WHERE grail.reachable('vg_rec', source, target);
SELECT throws_ok($$SELECT grail.reachable('vg_rec', 1, 3)$$, '54001', NULL, 'a view that reads its own graph: stack depth exceeded');

-- A graph over a system catalog stores no build either: every statement reads the catalog.
SELECT ok(grail.create_graph('vg_members', 'pg_catalog.pg_auth_members', 'member', 'roleid') LIKE
          'graph "vg_members": over system catalog "pg_auth_members", read as the querying role in every statement, nothing stored%',
          'a catalog graph says so');
SELECT is((SELECT (build IS NULL, vertices IS NULL) FROM grail.graph WHERE name = 'vg_members'), (true, true), 'and stores no build');
SELECT is((SELECT count(*) FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id WHERE g.name = 'vg_members'), 0::bigint,
          'no image chunk');
GRANT vg_g2 TO vg_m;
SELECT is(grail.reachable('vg_members', 'vg_m'::regrole, 'vg_g2'::regrole), true, 'it answers from the catalog''s rows');
SELECT ok(grail.refresh_graph('vg_members') LIKE 'graph "vg_members": over system catalog %', 'refresh_graph() says how it answers');
SELECT is((SELECT array_agg(DISTINCT answers_from) FROM grail.explain_graph('vg_members')), ARRAY['rows read'], 'explain_graph: rows read');

SELECT * FROM finish();
ROLLBACK;
