-- Graphs keyed by oid, regrole and regclass columns: every function against the oracle of
-- test/pgtap/live_oracle.psql (recursive CTEs over the rows the snapshot sees), with keys of the
-- graph's own type (the polymorphic overloads) and as bigints; live graphs under random writes and
-- merges, the extreme oids 0 and 4294967295; text keys read as the type reads them (role and table
-- names); NULLs, unknown keys, keys of another type, a role dropped between calls; the integer and
-- smallint overloads beside the polymorphic ones still answer in bigint; a build from elsewhere (a
-- restore) refuses to answer.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(293);
\ir live_oracle.psql
\ir path_oracle.psql
SET client_min_messages = warning;
SELECT setseed(0.4711);

-- The change log holds an oid key as its number, which a reg* type writes as a name: the log check
-- of the oracle compares numbers here (every graph of this file is keyed by an oid type).
CREATE OR REPLACE FUNCTION pg_temp.live_base(g text, e regclass) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	DELETE FROM pg_temp.lo_base b WHERE b.g = live_base.g;
	EXECUTE format('INSERT INTO pg_temp.lo_base SELECT %L, source::oid::text, target::oid::text FROM %s', g, e);
END $f$;
CREATE OR REPLACE FUNCTION pg_temp.live_lognet(g text, e regclass) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$WITH cur AS (SELECT source::oid::text AS s, target::oid::text AS t, count(*) AS n FROM %s GROUP BY 1, 2),
	                  logged AS (SELECT s, t, sum(n) AS n FROM
	                               (SELECT b.s, b.t, 1 AS n FROM pg_temp.lo_base b WHERE b.g = %L
	                                UNION ALL SELECT u.s::text, u.t::text, p.change
	                                FROM grail.pending_change p, ROWS FROM (unnest(p.source), unnest(p.target)) u(s, t)
	                                WHERE p.graph_id = %s) x GROUP BY s, t)
	                  SELECT count(*) FROM logged FULL JOIN cur USING (s, t)
	                  WHERE coalesce(logged.n, 0) <> coalesce(cur.n, 0)$q$, e, g, pg_temp.live_gid(g)) INTO n;
	RETURN n;
END $f$;

-- oid keys, with the extremes, self-loops and duplicate edges.
CREATE TABLE ok_pool (k oid);
INSERT INTO ok_pool VALUES (0), (1), (2), (3), (10), (77), (2147483647), (2147483648), (4294967294), (4294967295);
CREATE TABLE ok (source oid, target oid);
INSERT INTO ok SELECT (SELECT k FROM ok_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM ok_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 16) i;
INSERT INTO ok VALUES (0, 4294967295), (4294967295, 0), (0, 0), (2147483647, 2147483648), (2147483648, 2147483648),
                      (2147483648, 2147483648), (4294967294, 10);
SELECT grail.create_graph('okg', 'ok');
SELECT pg_temp.live_base('okg', 'ok');
-- 13, then the bigint overloads on the same graph against the oid ones (3).
SELECT is(mismatches, 0::bigint, 'oid graph, oid keys: ' || fn) FROM pg_temp.live_verify('okg', 'ok', 'oid', '4000000000');
SELECT is((SELECT count(*) FROM lo_q x, lo_q y
           WHERE grail.reachable('okg', x.v::bigint, y.v::bigint) IS DISTINCT FROM grail.reachable('okg', x.v, y.v)), 0::bigint,
          'oid graph: reachable() of bigint keys agrees with oid keys on every pair');
SELECT is((SELECT count(*) FROM (SELECT x.v, b.vertex::bigint, b.depth, b.parent::bigint FROM lo_q x, grail.bfs('okg', x.v) b
                                 EXCEPT ALL SELECT x.v, b.* FROM lo_q x, grail.bfs('okg', x.v::bigint) b) d), 0::bigint,
          'oid graph: bfs() of bigint keys agrees with oid keys');
SELECT is((SELECT array_agg(ARRAY[vertex::bigint, component::bigint]) FROM grail.scc_components('okg', NULL::oid)),
          (SELECT array_agg(ARRAY[vertex, component]) FROM grail.scc_components('okg')), 'oid graph: scc_components() as bigints');
-- 6 rounds, a merge every 3: 6 * 13 + 2 * 2 = 82.
SELECT * FROM pg_temp.live_rounds('okg', 'ok', 'oid', '4000000000', 'ok_pool', ARRAY['ok']::regclass[],
                                  ARRAY['insert', 'dup', 'delete', 'update', 'swap', 'truncate', 'join_scc', 'split_scc', 'cte',
                                        'merge'], 6, 3);
SELECT is(mismatches, 0::bigint, 'oid graph after the rounds: ' || fn) FROM pg_temp.path_verify('okg', 'ok', 'oid');
INSERT INTO ok VALUES (4294967295, 4294967294), (4294967294, 0), (3, 3);
SELECT is(mismatches, 0::bigint, 'oid graph with pending changes: ' || fn) FROM pg_temp.path_verify('okg', 'ok', 'oid');
SELECT is(pg_typeof(vertex)::text, 'oid', 'bfs() from an oid key answers oid vertices') FROM grail.bfs('okg', 0::oid) LIMIT 1;
SELECT is(grail.reachable('okg', 4000000000::oid, 4000000000::oid), true, 'an oid the graph lacks reaches itself');
SELECT is(grail.reachable('okg', 4000000000::oid, 0::oid), false, 'and nothing else');
SELECT is(grail.scc_component('okg', 4000000000::oid), 4000000000::oid, 'an oid the graph lacks is its own component');
SELECT is((SELECT array_agg(vertex) FROM grail.descendants('okg', 4000000000::oid)), ARRAY[4000000000::oid],
          'descendants of an absent oid: itself');
SELECT is(grail.path('okg', 4000000000::oid, 0::oid), NULL, 'no path from an absent oid');
SELECT is(grail.reachable('okg', '4294967295', '4294967295'), true, 'a text key on an oid graph is read as an oid');
SELECT throws_ok($$SELECT grail.reachable('okg', 'x', '0')$$, '22P02', 'pg_grail graph "okg" has oid keys, and "x" is no oid',
                 'a text key that is no oid is an error');
SELECT throws_ok($$SELECT grail.reachable('okg', '4294967296', '0')$$, '22P02', NULL, 'nor an oid out of range');
SELECT is(grail_internal._key_type('okg')::text, 'oid', '_key_type() of an oid graph');

-- regrole keys: a table of role memberships of its own (live), with roles made for the test.
DO $$
BEGIN
	FOR i IN 1..10 LOOP
		EXECUTE format('CREATE ROLE ok_r%s NOLOGIN', i);
	END LOOP;
END $$;
CREATE TABLE rk_pool (k regrole);
INSERT INTO rk_pool SELECT format('ok_r%s', i)::regrole FROM generate_series(1, 10) i;
CREATE TABLE rk (source regrole, target regrole);
INSERT INTO rk SELECT (SELECT k FROM rk_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM rk_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 14) i;
INSERT INTO rk VALUES ('ok_r1', 'ok_r2'), ('ok_r2', 'ok_r3'), ('ok_r3', 'ok_r1'), ('ok_r4', 'ok_r4'), ('ok_r4', 'ok_r4');
SELECT grail.create_graph('rkg', 'rk');
SELECT pg_temp.live_base('rkg', 'rk');
SELECT is(mismatches, 0::bigint, 'regrole graph, regrole keys: ' || fn)
FROM pg_temp.live_verify('rkg', 'rk', 'regrole', (SELECT oid::text FROM pg_roles WHERE rolname = current_user));
-- 4 rounds, a merge every 2: 4 * 13 + 2 * 2 = 56.
SELECT * FROM pg_temp.live_rounds('rkg', 'rk', 'regrole', (SELECT oid::text FROM pg_roles WHERE rolname = current_user), 'rk_pool',
                                  ARRAY['rk']::regclass[], ARRAY['insert', 'delete', 'update', 'swap', 'join_scc', 'cte'], 4, 2);
SELECT is(mismatches, 0::bigint, 'regrole graph after the rounds: ' || fn) FROM pg_temp.path_verify('rkg', 'rk', 'regrole');
-- Text keys: names in, names out, the same answers as the typed calls.
TRUNCATE rk;
INSERT INTO rk VALUES ('ok_r1', 'ok_r2'), ('ok_r2', 'ok_r3'), ('ok_r3', 'ok_r1'), ('ok_r3', 'ok_r5'), ('ok_r6', 'ok_r5');
SELECT is((SELECT array_agg(b::text ORDER BY b::text) FROM grail.bfs('rkg', 'ok_r1') b),
          (SELECT array_agg(b::text ORDER BY b::text) FROM grail.bfs('rkg', 'ok_r1'::regrole) b),
          'bfs() from a role name answers the names of the typed call');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.ancestors('rkg', 'ok_r5')),
          ARRAY['ok_r1', 'ok_r2', 'ok_r3', 'ok_r5', 'ok_r6'], 'ancestors() of a role name, as names');
SELECT is(pg_typeof(vertex)::text, 'regrole', 'ancestors() of a regrole key answers regrole vertices')
FROM grail.ancestors('rkg', 'ok_r5'::regrole) LIMIT 1;
SELECT is(grail.reachable('rkg', 'ok_r1', 'ok_r5'), true, 'reachable() between role names');
SELECT is(grail.reachable('rkg', 'ok_r5', 'ok_r1'), false, 'reachable() between role names, no path');
SELECT is(grail.reachable('rkg', 'ok_r1'::regrole, 'ok_r5'), true, 'a regrole key and a name (read as regrole)');
SELECT is(grail.reachable('rkg', ('ok_r1'::regrole)::oid, ('ok_r5'::regrole)::oid), true, 'oid keys on a regrole graph');
SELECT is(grail.reachable('rkg', ARRAY['ok_r1'::regrole, 'ok_r5', NULL], ARRAY['ok_r5'::regrole, 'ok_r1', 'ok_r1']),
          ARRAY[true, false, NULL], 'reachable() of regrole arrays, a NULL element gives NULL');
SELECT is(grail.reachable('rkg', ARRAY['ok_r1', 'ok_r5'], ARRAY['ok_r5', 'ok_r1']), ARRAY[true, false],
          'reachable() of text arrays of role names');
SELECT is(grail.path('rkg', 'ok_r2'::regrole, 'ok_r5'::regrole), ARRAY['ok_r2', 'ok_r3', 'ok_r5']::regrole[], 'path() in regrole');
SELECT is(grail.path('rkg', 'ok_r2', 'ok_r5'), ARRAY['ok_r2', 'ok_r3', 'ok_r5'], 'path() between names, as names');
SELECT is(grail.find_cycle('rkg', 'ok_r1'::regrole), ARRAY['ok_r1', 'ok_r2', 'ok_r3', 'ok_r1']::regrole[], 'find_cycle() in regrole');
SELECT is(grail.scc_component('rkg', 'ok_r2'::regrole), (SELECT min(k::oid)::regrole FROM rk_pool WHERE k::text IN ('ok_r1', 'ok_r2', 'ok_r3')),
          'scc_component() in regrole: the smallest oid');
SELECT is(grail.scc_component('rkg', 'ok_r2'), (SELECT min(k::oid)::regrole::text FROM rk_pool WHERE k::text IN ('ok_r1', 'ok_r2', 'ok_r3')),
          'scc_component() of a name, as a name');
SELECT is((SELECT count(*) FROM grail.scc_components('rkg', NULL::regrole) WHERE component = grail.scc_component('rkg', 'ok_r1'::regrole)),
          3::bigint, 'scc_components(NULL::regrole)');
SELECT is((SELECT array_agg(vertex ORDER BY depth, vertex) FROM grail.bfs('rkg', 'ok_r5', NULL, 'in')),
          (SELECT array_agg(vertex::text ORDER BY depth, vertex) FROM grail.bfs('rkg', 'ok_r5'::regrole, NULL, 'in')),
          'bfs() against edges: names and regrole agree');
SELECT is(grail_internal._key_type('rkg')::text, 'regrole', '_key_type() of a regrole graph');
SELECT is(grail.reachable('rkg', (SELECT oid::text FROM pg_roles WHERE rolname = 'ok_r1'), 'ok_r5'), true,
          'a number in a text key on a regrole graph is an oid');
SELECT throws_ok($$SELECT grail.reachable('rkg', 'no such role', 'ok_r1')$$, '42704',
                 'pg_grail graph "rkg" has regrole keys, and "no such role" names no role', 'a text key that names no role');
SELECT throws_ok($$SELECT * FROM grail.bfs('rkg', 'a"b')$$, '42704', NULL, 'a text key that is no valid name');
SELECT throws_ok($$SELECT grail.reachable('rkg', 'pg_class'::regclass, 'pg_type'::regclass)$$, '42804',
                 'pg_grail graph "rkg" has regrole keys, not regclass keys', 'regclass keys on a regrole graph are refused');
SELECT throws_ok($$SELECT * FROM grail.scc_components('rkg', NULL::regclass)$$, '42804', NULL, 'and a regclass key_type');
SELECT throws_ok($$SELECT grail.reachable('rkg', 'x'::uuid, 'x'::uuid)$$, '22P02', NULL, 'a bad uuid literal is the caller''s error');
SELECT throws_ok($$SELECT grail.reachable('rkg', gen_random_uuid(), gen_random_uuid())$$, '42804', NULL, 'uuid keys on a regrole graph');
SELECT throws_ok($$SELECT grail.reachable('rkg', 1.5, 2.5)$$, '42804', NULL, 'numeric keys are refused');
SELECT is(grail.reachable('okg', 'ok_r1'::regrole, 'ok_r1'::regrole), true, 'regrole keys on an oid graph are oids');
-- NULLs in every argument.
SELECT is(grail.reachable('rkg', NULL::regrole, 'ok_r1'::regrole), NULL, 'a NULL source gives NULL');
SELECT is(grail.reachable(NULL, 'ok_r1'::regrole, 'ok_r1'::regrole), NULL, 'a NULL graph gives NULL');
SELECT is(grail.path('rkg', 'ok_r1'::regrole, NULL), NULL, 'path() with a NULL key');
SELECT is(grail.scc_component('rkg', NULL::regrole), NULL, 'scc_component() of NULL');
SELECT is(grail.find_cycle('rkg', NULL::regrole), NULL, 'find_cycle() of NULL');
SELECT is((SELECT count(*) FROM grail.bfs('rkg', NULL::regrole)), 0::bigint, 'bfs() from NULL: no rows');
SELECT is((SELECT count(*) FROM grail.bfs(NULL, 'ok_r1'::regrole)), 0::bigint, 'bfs() of a NULL graph: no rows');
SELECT is((SELECT count(*) FROM grail.bfs('rkg', 'ok_r1'::regrole, NULL, NULL)), 0::bigint, 'bfs() in a NULL direction: no rows');
SELECT is((SELECT count(*) FROM grail.descendants('rkg', 'ok_r1'::regrole, NULL)), 4::bigint, 'a NULL max_depth: no limit');
SELECT is((SELECT count(*) FROM grail.descendants('rkg', 'ok_r1'::regrole, 2147483647)), 4::bigint, 'the largest max_depth');
SELECT throws_ok($$SELECT * FROM grail.ancestors('rkg', 'ok_r1'::regrole, -1)$$, '22023', NULL, 'a negative max_depth');
SELECT is(grail.reachable('rkg', ARRAY[]::regrole[], ARRAY[]::regrole[]), '{}'::boolean[], 'empty arrays');
-- A role dropped between calls: the table keeps its oid (a regrole column holds a number), so does
-- the graph; its name is gone.
DELETE FROM rk WHERE source = 'ok_r6'::regrole OR target = 'ok_r6'::regrole;
INSERT INTO rk VALUES ('ok_r9', 'ok_r5');
SELECT grail.merge_graph('rkg');
CREATE TEMP TABLE ok_gone AS SELECT 'ok_r9'::regrole::oid AS gone;
DROP ROLE ok_r9;
SELECT is((SELECT array_agg(vertex::oid ORDER BY vertex::oid) FROM grail.ancestors('rkg', 'ok_r5'::regrole) WHERE depth = 1),
          (SELECT array_agg(source::oid ORDER BY source::oid) FROM rk WHERE target = 'ok_r5'::regrole),
          'a dropped role''s oid stays a vertex, as in the table');
SELECT ok((SELECT bool_or(vertex = (SELECT gone::text FROM ok_gone)) FROM grail.ancestors('rkg', 'ok_r5')),
          'and is written as its number, as regrole writes it');
SELECT throws_ok($$SELECT grail.reachable('rkg', 'ok_r9', 'ok_r5')$$, '42704', NULL, 'its name is no longer a key');
SELECT is(grail.reachable('rkg', (SELECT gone::text FROM ok_gone), 'ok_r5'), true, 'its number still is');

-- regclass keys, a graph that is not live; the names written as regclass writes them.
CREATE TABLE rc (source regclass, target regclass);
INSERT INTO rc VALUES ('pg_class', 'pg_namespace'), ('pg_namespace', 'pg_type'), ('pg_type', 'pg_class'), ('pg_proc', 'pg_type'),
                      ('rc', 'pg_proc');
SELECT grail.create_graph('rcg', 'rc', live => false);
SELECT is(mismatches, 0::bigint, 'regclass graph: ' || fn) FROM pg_temp.live_verify('rcg', 'rc', 'regclass', 'pg_attribute', false)
WHERE fn <> 'pending log + last build = rows';
SELECT is(mismatches, 0::bigint, 'regclass graph: ' || fn) FROM pg_temp.path_verify('rcg', 'rc', 'regclass');
SELECT is((SELECT array_agg(vertex ORDER BY depth, vertex) FROM grail.descendants('rcg', 'rc')),
          ARRAY['rc', 'pg_proc', 'pg_type', 'pg_class', 'pg_namespace'], 'descendants() of a table name, as names');
SELECT is(grail.reachable('rcg', 'public.rc', 'pg_catalog.pg_class'), true, 'qualified names are read as regclass reads them');
SELECT throws_ok($$SELECT grail.reachable('rcg', 'no_such_table', 'rc')$$, '42704', NULL, 'a name of no relation');
SELECT throws_ok($$SELECT grail.reachable('rcg', 'a.b.c.d', 'rc')$$, '42704', NULL, 'an improper name');
SELECT is(grail.reachable('rcg', 'rc'::regclass, 'pg_class'::regclass), true, 'regclass keys');
INSERT INTO rc VALUES ('pg_class', 'rc');
SELECT throws_ok($$SELECT grail.reachable('rcg', 'rc'::regclass, 'pg_class'::regclass)$$, '55000', NULL,
                 'a written static regclass graph is stale, as any other');
SELECT grail.refresh_graph('rcg');

-- Edge columns: one oid type for both.
CREATE TABLE mixed1 (source oid, target regrole);
CREATE TABLE mixed2 (source bigint, target oid);
CREATE TABLE mixed3 (source regclass, target regrole);
SELECT throws_ok($$SELECT grail.create_graph('m1', 'mixed1')$$, '42804', NULL, 'oid and regrole columns are refused');
SELECT throws_ok($$SELECT grail.create_graph('m2', 'mixed2')$$, '42804', NULL, 'bigint and oid columns are refused');
SELECT throws_ok($$SELECT grail.create_graph('m3', 'mixed3')$$, '42804', NULL, 'regclass and regrole columns are refused');
CREATE TABLE rn (source regnamespace, target regnamespace);
INSERT INTO rn VALUES ('pg_catalog', 'public'), ('public', 'pg_toast');
SELECT grail.create_graph('rng', 'rn');
SELECT is((SELECT array_agg(vertex) FROM grail.descendants('rng', 'pg_catalog')), ARRAY['pg_catalog', 'public', 'pg_toast'],
          'regnamespace keys, as names');

-- Integer and smallint calls on a bigint graph still answer in bigint (the overloads beside the
-- polymorphic ones), with the extreme ids.
CREATE TABLE bk (source bigint, target bigint);
INSERT INTO bk VALUES (-9223372036854775808, 9223372036854775807), (9223372036854775807, 1), (1, 2), (2, -2147483648), (-2147483648, 1);
SELECT grail.create_graph('bkg', 'bk');
SELECT is(pg_typeof(vertex)::text, 'bigint', 'bfs() from an integer key answers bigint') FROM grail.bfs('bkg', 1) LIMIT 1;
SELECT is(pg_typeof(vertex)::text, 'bigint', 'bfs() from a smallint key answers bigint') FROM grail.bfs('bkg', 1::int2) LIMIT 1;
SELECT is(pg_typeof(vertex)::text, 'bigint', 'descendants() of an integer key') FROM grail.descendants('bkg', 1) LIMIT 1;
SELECT is(pg_typeof(grail.path('bkg', 1, 2))::text, 'bigint[]', 'path() of integer keys answers bigint[]');
SELECT is(pg_typeof(grail.scc_component('bkg', 1))::text, 'bigint', 'scc_component() of an integer key answers bigint');
SELECT is(grail.reachable('bkg', -2147483648, 2), true, 'the smallest integer key (negative ids read as such)');
SELECT is(grail.reachable('bkg', (-32768)::int2, 2::int2), false, 'smallint keys');
SELECT is(grail.reachable('bkg', 1, 9223372036854775807), false, 'integer and bigint keys in one call');
SELECT is(grail.reachable('bkg', -9223372036854775808, 1), true, 'the extreme bigint ids');
SELECT is(grail.reachable('bkg', ARRAY[1, 2], ARRAY[-2147483648, 9223372036854775807]), ARRAY[true, false], 'integer and bigint arrays');
SELECT is(grail.reachable('bkg', ARRAY[1, 2]::int2[], ARRAY[2, 1]::int2[]), ARRAY[true, true], 'smallint arrays');
SELECT is(grail.find_cycle('bkg', 1), ARRAY[1, 2, -2147483648, 1]::bigint[], 'find_cycle() of an integer key');
SELECT is((SELECT array_agg(vertex ORDER BY depth, vertex) FROM grail.bfs('bkg', -2147483648, 1, 'in')), ARRAY[-2147483648, 2]::bigint[],
          'bfs() in a direction from an integer key');
SELECT is(grail.reachable('bkg', '1', 2), true, 'an untyped literal and an integer');
SELECT throws_ok($$SELECT grail.reachable('bkg', 1::oid, 2::oid)$$, '42804', 'pg_grail graph "bkg" has bigint keys, not oid keys',
                 'oid keys on a bigint graph are refused (an id may be no oid)');
SELECT throws_ok($$SELECT * FROM grail.bfs('bkg', 1::oid)$$, '42804', NULL, 'and bfs() from one');
SELECT throws_ok($$SELECT * FROM grail.scc_components('bkg', NULL::oid)$$, '42804', NULL, 'and a key_type of oid');
SELECT throws_ok($$SELECT grail.reachable('bkg', 1.5, 2)$$, '42804', NULL, 'numeric keys');
SELECT is((SELECT count(*) FROM (SELECT k FROM ok_pool WHERE k < 2147483648 OFFSET 0) x, ok_pool y
           WHERE grail.reachable('okg', x.k::bigint::int4, y.k::bigint) IS DISTINCT FROM grail.reachable('okg', x.k, y.k)),
          0::bigint, 'integer keys on an oid graph are its numbers');

-- A build made elsewhere (what a restore brings: the images of the old oids) never answers; a
-- rebuild does.
UPDATE grail.graph SET built_in = 'elsewhere' WHERE name = 'rkg';
SELECT throws_ok($$SELECT grail.reachable('rkg', 'ok_r1', 'ok_r5')$$, '55000',
                 'pg_grail graph "rkg" is keyed by regrole, and its build was made before a restore or in another database: the oids it holds may name other objects here',
                 'a regrole graph whose build was made elsewhere refuses to answer');
SELECT throws_ok($$SELECT * FROM grail.bfs('rkg', 'ok_r1'::regrole)$$, '55000', NULL, 'every function');
SET LOCAL grail.stale_policy = warn;
SELECT throws_ok($$SELECT * FROM grail.bfs('rkg', 'ok_r1'::regrole)$$, '55000', NULL, 'whatever grail.stale_policy says');
RESET grail.stale_policy;
SELECT grail.merge_graph('rkg');
SELECT is(grail.reachable('rkg', 'ok_r1', 'ok_r5'), true, 'a rebuild answers again');
UPDATE grail.graph SET built_in = 'elsewhere' WHERE name = 'bkg';
SELECT is(grail.reachable('bkg', 1, 2), true, 'a graph of integer keys holds no oids: it answers');

-- Privileges: a role that cannot read the edge table learns nothing of it through the graph.
CREATE ROLE ok_reader;
GRANT USAGE ON SCHEMA grail TO ok_reader;
SET LOCAL ROLE ok_reader;
SELECT throws_ok($$SELECT grail.reachable('rkg', 'ok_r1', 'ok_r5')$$, '42501', NULL, 'no SELECT on the table: no answer');
SELECT throws_ok($$SELECT * FROM grail.ancestors('rkg', 'ok_r5'::regrole)$$, '42501', NULL, 'nor rows');
RESET ROLE;

-- A negative smallint or integer key on a graph of oid keys is the oid PostgreSQL's cast makes of
-- it ((-1)::integer::oid is 4294967295), which the graph holds; a bigint has no such cast (an error).
CREATE TABLE top_oids (source oid, target oid);
INSERT INTO top_oids VALUES (4294967295, 1), (1, 2), (2, 4294967294);
SELECT grail.create_graph('top_oids', 'top_oids');
SELECT is(grail.reachable('top_oids', -1, 2), true, 'reachable: an integer -1 is oid 4294967295');
SELECT is(grail.reachable('top_oids', (-1)::smallint, (-2)::smallint), true, 'so is a smallint -1, and -2 is 4294967294');
SELECT throws_ok($$SELECT grail.reachable('top_oids', -1::bigint, 2)$$, '22003', NULL,
                 'a bigint -1 is no oid: refused, as (-1)::bigint::oid is');
SELECT is(grail.reachable('top_oids', ARRAY[-1, NULL, 1, -2], ARRAY[2, 2, -2, -1]), ARRAY[true, NULL, true, false],
          'arrays of integers: the same reading, NULLs kept');
SELECT is((SELECT array_agg(vertex::text ORDER BY depth) FROM grail.descendants('top_oids', -1)),
          ARRAY['4294967295', '1', '2', '4294967294'], 'descendants');
SELECT is((SELECT array_agg(vertex::text ORDER BY depth) FROM grail.ancestors('top_oids', -2)),
          ARRAY['4294967294', '2', '1', '4294967295'], 'ancestors');
SELECT is((SELECT count(*) FROM grail.bfs('top_oids', -1)), 4::bigint, 'bfs');
SELECT is(grail.path('top_oids', -1, -2)::text, '{4294967295,1,2,4294967294}', 'path');
SELECT is(grail.scc_component('top_oids', -1)::text, '4294967295', 'scc_component');
SELECT is(grail.find_cycle('top_oids', -1), NULL, 'find_cycle');

SELECT * FROM finish();
ROLLBACK;
