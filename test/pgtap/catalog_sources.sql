-- Graphs over system catalogs: pg_auth_members (member -> roleid, keyed as regrole) and pg_inherits
-- (inhrelid -> inhparent, keyed as regclass). A catalog takes no triggers, so such a graph is read
-- in each statement's snapshot: after every GRANT and REVOKE of a role membership (nested groups,
-- ADMIN OPTION, a savepoint rolled back, a role dropped) every function answers for the rows the
-- statement sees, against the oracle of test/pgtap/live_oracle.psql over the catalog's rows. A role
-- that may not read the catalog learns nothing through the graph; alter_graph() says why it does
-- not apply; the README's example.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(155);
\ir live_oracle.psql
\ir path_oracle.psql
SET client_min_messages = warning;
SELECT setseed(0.0815);

DO $$
BEGIN
	FOR i IN 1..8 LOOP
		EXECUTE format('CREATE ROLE cs_r%s NOLOGIN', i);
	END LOOP;
END $$;
CREATE ROLE cs_alice;
CREATE ROLE cs_bob;
CREATE ROLE cs_staff;
CREATE ROLE cs_admins;
GRANT cs_staff TO cs_alice;
GRANT cs_admins TO cs_staff WITH ADMIN OPTION;

SELECT ok(grail.create_graph('roles', 'pg_catalog.pg_auth_members', 'member', 'roleid') LIKE 'graph "roles": %',
          'a graph over pg_auth_members, with live left at its default');
SELECT is((SELECT count(*) FROM pg_locks WHERE relation = 'pg_catalog.pg_auth_members'::regclass AND pid = pg_backend_pid()
                                           AND mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')), 0::bigint,
          'the build holds no lock on the catalog that would block a GRANT');
SELECT is((SELECT live FROM grail.graphs WHERE name = 'roles'), false, 'it logs nothing: grail.graphs shows it not live');
SELECT is(grail_internal._key_type('roles')::text, 'regrole', 'its keys are regrole: member and roleid hold the oids of roles');

-- The README's example: one call each.
SELECT is(grail.reachable('roles', 'cs_alice', 'cs_admins'), true, 'is cs_alice a member of cs_admins, directly or through groups');
SELECT is(grail.reachable('roles', 'cs_bob', 'cs_admins'), false, 'cs_bob is not');
SELECT is((SELECT array_agg(vertex ORDER BY vertex) FROM grail.ancestors('roles', 'cs_admins') WHERE depth > 0),
          ARRAY['cs_alice', 'cs_staff'], 'every member of cs_admins');
SELECT is((SELECT array_agg(vertex::text ORDER BY vertex::text) FROM grail.descendants('roles', 'cs_alice'::regrole) WHERE depth > 0),
          ARRAY['cs_admins', 'cs_staff'], 'every group cs_alice is in, as regrole');
SELECT is(grail.reachable('roles', 'cs_alice', 'cs_admins'), pg_has_role('cs_alice', 'cs_admins', 'MEMBER'),
          'reachable() agrees with pg_has_role(MEMBER)');

-- Answers follow GRANT and REVOKE at once, in the same transaction.
GRANT cs_staff TO cs_bob;
SELECT is(grail.reachable('roles', 'cs_bob', 'cs_admins'), true, 'after GRANT cs_staff TO cs_bob');
REVOKE cs_admins FROM cs_staff;
SELECT is(grail.reachable('roles', 'cs_alice', 'cs_admins'), false, 'after REVOKE cs_admins FROM cs_staff');
SAVEPOINT s1;
GRANT cs_admins TO cs_bob;
SELECT is(grail.reachable('roles', 'cs_bob', 'cs_admins'), true, 'a GRANT inside a savepoint');
ROLLBACK TO SAVEPOINT s1;
SELECT is(grail.reachable('roles', 'cs_bob', 'cs_admins'), false, 'rolled back: no longer');
-- One statement answers for one snapshot: a GRANT made by a function between two calls of one
-- statement is not seen by the later call, as a join of pg_auth_members in it would not see it.
CREATE FUNCTION pg_temp.cs_grant() RETURNS boolean LANGUAGE plpgsql AS $f$
BEGIN
	GRANT cs_admins TO cs_r8;
	RETURN true;
END $f$;
SELECT is((SELECT array_agg(r ORDER BY o) FROM (SELECT 1 AS o, grail.reachable('roles', 'cs_r8', 'cs_admins') AS r
                                                  UNION ALL SELECT 2, pg_temp.cs_grant()
                                                  UNION ALL SELECT 3, grail.reachable('roles', 'cs_r8', 'cs_admins')) x),
          ARRAY[false, true, false], 'a GRANT during the statement is not seen by its later call');
SELECT is(grail.reachable('roles', 'cs_r8', 'cs_admins'), true, 'the next statement sees it');
REVOKE cs_admins FROM cs_r8;

-- The oracle over the catalog's rows (a view names them source and target), after random GRANTs
-- and REVOKEs among the test's roles: 12 assertions a round (the change-log check does not apply).
CREATE TEMP VIEW cs_members AS SELECT member::regrole AS source, roleid::regrole AS target FROM pg_catalog.pg_auth_members;
SELECT is(mismatches, 0::bigint, 'pg_auth_members as created: ' || fn)
FROM pg_temp.live_verify('roles', 'cs_members', 'regrole', 'cs_r7') WHERE fn <> 'pending log + last build = rows';
CREATE FUNCTION pg_temp.cs_round(i int) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
	a text := format('cs_r%s', 1 + floor(random() * 6)::int);
	b text := format('cs_r%s', 1 + floor(random() * 6)::int);
	what text;
	r record;
BEGIN
	IF a = b OR random() < 0.3 THEN
		what := format('REVOKE %s FROM %s', b, a);
		EXECUTE what;
	ELSIF pg_has_role(b, a, 'MEMBER') THEN
		-- b is a member of a already: a GRANT would make a cycle, which PostgreSQL refuses.
		what := format('REVOKE %s FROM %s', a, b);
		EXECUTE what;
	ELSE
		what := format('GRANT %s TO %s%s', b, a, CASE WHEN random() < 0.5 THEN ' WITH ADMIN OPTION' ELSE '' END);
		EXECUTE what;
	END IF;
	FOR r IN SELECT * FROM pg_temp.live_verify('roles', 'cs_members', 'regrole', 'cs_r7', i % 3 = 0)
	         WHERE fn <> 'pending log + last build = rows' LOOP
		RETURN NEXT is(r.mismatches, 0::bigint, format('round %s (%s): %s', i, what, r.fn));
	END LOOP;
END $f$;
SELECT pg_temp.cs_round(i) FROM generate_series(1, 8) i;
SELECT is(mismatches, 0::bigint, 'pg_auth_members after the rounds: ' || fn) FROM pg_temp.path_verify('roles', 'cs_members', 'regrole');

-- A role dropped between calls leaves the catalog, and so the graph.
GRANT cs_r7 TO cs_r8;
SELECT is(grail.reachable('roles', 'cs_r8', 'cs_r7'), true, 'cs_r8 is a member of cs_r7');
DROP ROLE cs_r8;
SELECT is((SELECT count(*) FROM grail.ancestors('roles', 'cs_r7'::regrole) WHERE depth > 0), 0::bigint,
          'after DROP ROLE cs_r8, cs_r7 has no members');
SELECT throws_ok($$SELECT grail.reachable('roles', 'cs_r8', 'cs_r7')$$, '42704', NULL, 'and cs_r8 is no key');

-- A catalog graph is neither live nor static.
SELECT throws_ok($$SELECT grail.alter_graph('roles', true)$$, '0A000',
                 'pg_grail graph "roles" is over the system catalog "pg_auth_members", which takes no triggers: it is neither live nor static',
                 'alter_graph(live => true) says why not');
SELECT throws_ok($$SELECT grail.alter_graph('roles', false)$$, '0A000', NULL, 'alter_graph(live => false) too');
SELECT ok(grail.refresh_graph('roles') LIKE 'graph "roles": %', 'refresh_graph() works (it changes no answer)');
SELECT ok(grail.merge_graph('roles') LIKE 'graph "roles": %', 'merge_graph() works');
SELECT is((SELECT count(*) FROM pg_locks WHERE relation = 'pg_catalog.pg_auth_members'::regclass AND pid = pg_backend_pid()
                                           AND mode IN ('ShareLock', 'ShareRowExclusiveLock', 'ExclusiveLock', 'AccessExclusiveLock')), 0::bigint, 'and takes no lock on it that would block a GRANT');
SELECT is((SELECT count(*) FROM pg_trigger WHERE tgrelid = 'pg_catalog.pg_auth_members'::regclass), 0::bigint, 'nor puts a trigger on it');
SELECT ok(grail.create_graph('roles_static', 'pg_catalog.pg_auth_members', 'member', 'roleid', live => false) LIKE 'graph %',
          'live => false is taken too');
GRANT cs_admins TO cs_r1;
SELECT is(grail.reachable('roles_static', 'cs_r1', 'cs_admins'), true, 'and answers for the rows its statement sees as well');
SELECT is(grail.reachable('roles', ARRAY['cs_r1'::regrole, 'cs_bob'], ARRAY['cs_admins'::regrole, 'cs_admins']), ARRAY[true, false],
          'the array form');
SELECT is(grail.path('roles', 'cs_r1', 'cs_admins'), ARRAY['cs_r1', 'cs_admins'], 'path() between names');
SELECT lives_ok($$SELECT grail.drop_graph('roles_static')$$, 'drop_graph() of a catalog graph');

-- Privileges: reading the catalog is what a graph over it needs, to build and to query.
CREATE ROLE cs_user;
CREATE SCHEMA cs_owned AUTHORIZATION cs_user;
GRANT USAGE ON SCHEMA grail TO cs_user;
SET LOCAL ROLE cs_user;
SELECT ok(grail.create_graph('cs_owned.roles', 'pg_catalog.pg_auth_members', 'member', 'roleid') LIKE 'graph %',
          'a role with no rights on the catalog but SELECT builds a graph over it');
SELECT is(grail.reachable('cs_owned.roles', 'cs_alice', 'cs_staff'), true, 'and queries it');
RESET ROLE;
REVOKE SELECT ON pg_catalog.pg_auth_members FROM PUBLIC;
SET LOCAL ROLE cs_user;
SELECT throws_ok($$SELECT grail.reachable('cs_owned.roles', 'cs_alice', 'cs_staff')$$, '42501', NULL,
                 'once it may not read pg_auth_members, its graph answers nothing');
SELECT throws_ok($$SELECT * FROM grail.ancestors('cs_owned.roles', 'cs_staff'::regrole)$$, '42501', NULL, 'no rows either');
SELECT throws_ok($$SELECT grail.create_graph('cs_owned.roles2', 'pg_catalog.pg_auth_members', 'member', 'roleid')$$, '42501', NULL,
                 'nor may it build one');
RESET ROLE;
GRANT SELECT ON pg_catalog.pg_auth_members TO PUBLIC;
SELECT throws_ok($$SELECT grail.create_graph('authid', 'pg_catalog.pg_authid', 'oid', 'oid')$$, '22023', NULL,
                 'two columns that are one are refused, as for any table');

-- pg_inherits: a table's parents, as regclass.
CREATE TABLE cs_root (a int);
CREATE TABLE cs_mid () INHERITS (cs_root);
CREATE TABLE cs_leaf () INHERITS (cs_mid);
SELECT ok(grail.create_graph('family', 'pg_catalog.pg_inherits', 'inhrelid', 'inhparent') LIKE 'graph %', 'a graph over pg_inherits');
SELECT is(grail_internal._key_type('family')::text, 'regclass', 'keyed as regclass');
SELECT is((SELECT array_agg(vertex ORDER BY depth) FROM grail.descendants('family', 'cs_leaf')), ARRAY['cs_leaf', 'cs_mid', 'cs_root'],
          'the ancestors of a table, by name');
CREATE TABLE cs_leaf2 () INHERITS (cs_root);
CREATE TEMP VIEW cs_inherits AS SELECT inhrelid::regclass AS source, inhparent::regclass AS target FROM pg_catalog.pg_inherits;
SELECT is(mismatches, 0::bigint, 'pg_inherits: ' || fn) FROM pg_temp.path_verify('family', 'cs_inherits', 'regclass');
SELECT is((SELECT array_agg(vertex::text ORDER BY vertex::text) FROM grail.ancestors('family', 'cs_root'::regclass) WHERE depth > 0),
          ARRAY['cs_leaf', 'cs_leaf2', 'cs_mid'], 'a new child is seen at once');

SELECT * FROM finish();
ROLLBACK;
