-- A hostile review of what landed together: filters x reg* constants, filters x catalog sources,
-- explain_graph() on catalog graphs, under REVOKE, for a role with nothing, after a drop.
--
-- A filter is stored as text and read again at every build, write and query. A reg* constant in it
-- ('carol'::regrole) is written out as the object's name, looked up again at each read: a rename of
-- the role made the filter mean another role (the build kept the old one, the log and the next
-- merge took the new one: reachable() changed with no change of the rows), and a drop made every
-- query and every INSERT into the edge table fail with "role does not exist". Such a constant is
-- refused now, with the way out (compare the oid as a number), which survives both.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(36);
SET client_min_messages = error;

CREATE ROLE w3_carol;
CREATE ROLE w3_dave;
CREATE ROLE w3_nobody;
CREATE TABLE w3_re (a int, b int, r regrole, c regclass, p regproc);
INSERT INTO w3_re VALUES (1, 2, 'w3_carol', 'w3_re', 'int4pl'), (2, 3, 'w3_dave', 'pg_class', 'int4mi'),
                         (3, 4, '-', '-', '-');

-- Reg* constants naming objects are refused, whichever way they are written.
SELECT throws_ok($$SELECT grail.create_graph('w3_f1', 'w3_re', 'a', 'b', filter => 'r <> ''w3_carol''::regrole')$$,
                 '42P17', NULL, 'a regrole constant in a filter is refused');
SELECT throws_ok($$SELECT grail.create_graph('w3_f2', 'w3_re', 'a', 'b', filter => 'a::oid <> ''public''::regnamespace::oid')$$,
                 '42P17', NULL, 'a regnamespace constant, even cast to oid, is refused');
SELECT throws_ok($$SELECT grail.create_graph('w3_f3', 'w3_re', 'a', 'b', filter => 'c = ''w3_re''::regclass')$$,
                 '42P17', NULL, 'a regclass constant is refused');
SELECT throws_ok($$SELECT grail.create_graph('w3_f4', 'w3_re', 'a', 'b', filter => 'p = ''int4pl''::regproc')$$,
                 '42P17', NULL, 'a regproc constant is refused');
SELECT throws_ok($$SELECT grail.create_graph('w3_f5', 'w3_re', 'a', 'b', filter => 'r = ANY (''{w3_carol,w3_dave}''::regrole[])')$$,
                 '42P17', NULL, 'an array of regrole constants is refused');
SELECT throws_ok($$SELECT grail.create_graph('w3_f6', 'pg_auth_members', 'member', 'roleid', filter => 'roleid <> ''pg_monitor''::regrole')$$,
                 '42P17', NULL, 'a regrole constant in a filter over pg_auth_members is refused');
SELECT throws_like($$SELECT grail.create_graph('w3_f7', 'w3_re', 'a', 'b', filter => 'r <> ''w3_carol''::regrole')$$,
                   '%cannot name an object by a regrole constant%', 'the refusal says why');
SELECT is((SELECT count(*) FROM grail.graphs WHERE name LIKE 'w3_f%'), 0::bigint, 'no graph was made by a refused filter');

-- The way out: the oid as a number, and the reg* constant that names nothing ('-').
DO $$
BEGIN
	PERFORM grail.create_graph('w3_oid', 'w3_re', 'a', 'b',
	                           filter => format('r::oid <> %s', 'w3_carol'::regrole::oid));
END
$$;
SELECT ok(grail.create_graph('w3_none', 'w3_re', 'a', 'b', filter => 'r <> ''-''::regrole') LIKE 'graph "w3_none"%',
          'a reg* constant naming no object (''-'') is accepted');
SELECT is(ARRAY[grail.reachable('w3_oid', 1, 2), grail.reachable('w3_oid', 2, 3)], ARRAY[false, true],
          'the oid filter leaves out the row of w3_carol');
SELECT is(ARRAY[grail.reachable('w3_none', 2, 3), grail.reachable('w3_none', 3, 4)], ARRAY[true, false],
          'the ''-'' filter leaves out the row of no role');
-- A rename of the role and a new role of the old name change nothing.
ALTER ROLE w3_carol RENAME TO w3_carol_old;
CREATE ROLE w3_carol;
INSERT INTO w3_re VALUES (5, 6, 'w3_carol_old', '-', '-'), (6, 7, 'w3_carol', '-', '-');
SELECT is(ARRAY[grail.reachable('w3_oid', 1, 2), grail.reachable('w3_oid', 5, 6), grail.reachable('w3_oid', 6, 7)],
          ARRAY[false, false, true], 'after a rename: the renamed role''s rows still out, the new role''s in');
SELECT ok(grail.merge_graph('w3_oid') LIKE 'graph "w3_oid"%', 'merged');
SELECT is(ARRAY[grail.reachable('w3_oid', 1, 2), grail.reachable('w3_oid', 5, 6), grail.reachable('w3_oid', 6, 7)],
          ARRAY[false, false, true], 'after the merge: the same answers');
-- A drop of the role leaves writes and queries working.
DELETE FROM w3_re WHERE r::oid = 'w3_carol_old'::regrole::oid;
DROP ROLE w3_carol_old;
SELECT lives_ok($$INSERT INTO w3_re VALUES (7, 8, 'w3_dave', '-', '-')$$, 'a write after the role''s drop');
SELECT is(grail.reachable('w3_oid', 6, 8), true, 'and a query');

-- A filter over a catalog source: who is a member of whom with ADMIN OPTION, against pg_auth_members.
CREATE ROLE w3_g1;
CREATE ROLE w3_g2;
GRANT w3_g1 TO w3_g2 WITH ADMIN OPTION;
GRANT w3_g2 TO w3_dave;
SELECT ok(grail.create_graph('w3_admin', 'pg_auth_members', 'member', 'roleid', filter => 'admin_option') LIKE 'graph%',
          'a filtered graph over pg_auth_members');
SELECT is(ARRAY[grail.reachable('w3_admin', 'w3_g2'::regrole, 'w3_g1'::regrole),
                grail.reachable('w3_admin', 'w3_dave'::regrole, 'w3_g2'::regrole)],
          ARRAY[true, false], 'only the grant with ADMIN OPTION is an edge');
GRANT w3_g2 TO w3_dave WITH ADMIN OPTION;
SELECT is(grail.reachable('w3_admin', 'w3_dave'::regrole, 'w3_g1'::regrole), true,
          'a grant with ADMIN OPTION in this transaction is seen by the next statement');

-- explain_graph() on the catalog graph: as its owner, for a role with nothing after a REVOKE, NULL,
-- and after a drop.
SELECT is((SELECT array_agg(DISTINCT answers_from) FROM grail.explain_graph('w3_admin')), ARRAY['rows read'],
          'a catalog graph is read in every statement''s snapshot');
SET LOCAL ROLE w3_nobody;
SELECT is((SELECT count(*) FROM grail.explain_graph('w3_admin')), 7::bigint,
          'a role with nothing may explain a graph over a catalog that PUBLIC may read');
RESET ROLE;
REVOKE SELECT ON pg_auth_members FROM PUBLIC;
SET LOCAL ROLE w3_nobody;
SELECT throws_ok($$SELECT * FROM grail.explain_graph('w3_admin')$$, '42501', NULL,
                 'after REVOKE, explain_graph() refuses as the functions do');
RESET ROLE;
GRANT SELECT ON pg_auth_members TO PUBLIC;
SELECT is((SELECT count(*) FROM grail.explain_graph(NULL)), 0::bigint, 'explain_graph(NULL) gives no row');
SELECT grail.drop_graph('w3_admin');
SELECT throws_ok($$SELECT * FROM grail.explain_graph('w3_admin')$$, '42704', NULL, 'a dropped graph');

-- A filter's constants are stored as every session reads them back. A date written under
-- DateStyle = 'SQL, DMY' was stored as '04/03/2020'::date, which a writer, a merge or a query under
-- the default MDY read as April 3 (and '15/03/2020' not at all: every INSERT into the table failed).
CREATE TABLE w3_dated (a int, b int, d date);
INSERT INTO w3_dated VALUES (1, 2, '2020-03-03'), (2, 3, '2020-03-10'), (3, 4, '2020-04-01');
SET datestyle = 'SQL, DMY';
SELECT ok(grail.create_graph('w3_date', 'w3_dated', 'a', 'b', filter => 'd < ''2020-03-04''::date') LIKE 'graph%',
          'a filter with a date made under DateStyle SQL, DMY');
SELECT ok(grail.create_graph('w3_date2', 'w3_dated', 'a', 'b', filter => 'd < ''2020-03-15''::date') LIKE 'graph%',
          'and one whose day is past 12');
RESET datestyle;
SELECT is((SELECT filter FROM grail.graphs WHERE name = 'w3_date'), $$(d < '2020-03-04'::date)$$,
          'the date is stored in ISO order');
INSERT INTO w3_dated VALUES (4, 5, '2020-03-05'), (5, 6, '2020-03-14');
SELECT is(ARRAY[grail.reachable('w3_date', 1, 2), grail.reachable('w3_date', 2, 3), grail.reachable('w3_date', 3, 4),
                grail.reachable('w3_date', 4, 5)],
          ARRAY[true, false, false, false], 'under DateStyle ISO, MDY the filter keeps only the days before March 4');
SELECT is(ARRAY[grail.reachable('w3_date2', 1, 2), grail.reachable('w3_date2', 2, 3), grail.reachable('w3_date2', 5, 6),
                grail.reachable('w3_date2', 3, 4)],
          ARRAY[true, true, true, false], 'and the other graph those before March 15, its rows written under MDY');

-- And its string literals as standard_conforming_strings = on reads them, whatever the session's
-- setting: under off, 'a\b' is another string, and a writer's trigger logged the wrong edges.
CREATE TABLE w3_bs (a int, b int, t text);
INSERT INTO w3_bs VALUES (1, 2, E'a\\b'), (2, 3, 'ab');
SELECT ok(grail.create_graph('w3_bs', 'w3_bs', 'a', 'b', filter => $$t <> 'a\b'$$) LIKE 'graph%',
          'a filter with a backslash in a string literal');
SET standard_conforming_strings = off;
INSERT INTO w3_bs VALUES (3, 4, E'a\\b'), (4, 5, 'ab');
RESET standard_conforming_strings;
SELECT is(ARRAY[grail.reachable('w3_bs', 1, 2), grail.reachable('w3_bs', 2, 3), grail.reachable('w3_bs', 3, 4),
                grail.reachable('w3_bs', 4, 5)],
          ARRAY[false, true, false, true], 'rows written under standard_conforming_strings = off are filtered alike');

-- NULL in an array literal reads as a null whatever array_nulls says: under off, a writer's trigger
-- read '{1,NULL}'::integer[] as the integer "NULL" and every INSERT into the table failed.
CREATE TABLE w3_arr (a int, b int, w int);
INSERT INTO w3_arr VALUES (1, 2, 1), (2, 3, 2);
SELECT ok(grail.create_graph('w3_arr', 'w3_arr', 'a', 'b', filter => $$w = ANY ('{1,NULL}'::int[])$$) LIKE 'graph%',
          'a filter with NULL in an array literal');
SET array_nulls = off;
SELECT lives_ok($$INSERT INTO w3_arr VALUES (3, 4, 1), (4, 5, 2)$$, 'a write under array_nulls = off');
RESET array_nulls;
SELECT is(ARRAY[grail.reachable('w3_arr', 1, 2), grail.reachable('w3_arr', 2, 3), grail.reachable('w3_arr', 3, 4),
                grail.reachable('w3_arr', 4, 5)],
          ARRAY[true, false, true, false], 'and its rows filtered as the others');

-- The filter's functions run as the graph's owner; a role that may read the edge columns needs no
-- USAGE on their schema to query the graph (it was refused with "permission denied for schema",
-- the stored filter being parsed again as the caller).
CREATE SCHEMA w3_fn;
CREATE FUNCTION w3_fn.keep(int) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT $1 > 0';
CREATE TABLE w3_kept (a int, b int, w int);
INSERT INTO w3_kept VALUES (1, 2, 1), (2, 3, 0);
SELECT ok(grail.create_graph('w3_kept', 'w3_kept', 'a', 'b', filter => 'w3_fn.keep(w)') LIKE 'graph%',
          'a filter with a function of another schema');
GRANT SELECT ON w3_kept TO w3_nobody;
SET LOCAL ROLE w3_nobody;
SELECT is(ARRAY[grail.reachable('w3_kept', 1, 2), grail.reachable('w3_kept', 2, 3)], ARRAY[true, false],
          'a reader without USAGE on that schema queries the graph');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
