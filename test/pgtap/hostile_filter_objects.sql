-- A filter that no longer reads back made every role's DDL fail: the event triggers that keep a
-- filter's objects in place (grail_on_alter_object, grail_on_drop) parse every graph's filter at the
-- end of each command they see and refuse the command if one fails, whichever command broke it. A
-- plain role broke its own filter with a command they did not see (CREATE PROCEDURE of an overload
-- that makes the filter's call ambiguous; ALTER ROUTINE ... VOLATILE or RENAME, which they did not
-- watch either), and from then on every DROP TABLE (a table's row type is a dropped object), CREATE
-- FUNCTION, ALTER SCHEMA or ALTER EXTENSION in the database failed, a superuser's too. Now those
-- commands are seen and refused, and a filter broken unseen (event triggers disabled meanwhile)
-- makes its graph stale when the next command starts, with a WARNING, instead of failing it.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(11);

CREATE ROLE hfo_plain;
CREATE SCHEMA hfo AUTHORIZATION hfo_plain;
SET ROLE hfo_plain;
CREATE FUNCTION hfo.keep(bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 > 0';
CREATE TABLE hfo.e (source bigint, target bigint);
INSERT INTO hfo.e VALUES (1, 2), (2, 3), (-1, 3);
SELECT grail.create_graph('hfo.g', 'hfo.e', filter => 'hfo.keep(source)');

SELECT throws_ok($$CREATE PROCEDURE hfo.keep(bigint, integer DEFAULT 0) LANGUAGE sql AS 'SELECT 1'$$, '2BP01',
                 'cannot change an object that the filter of pg_grail graph "hfo.g" uses, as that would leave the filter invalid',
                 'an overload that makes the filter''s call ambiguous is refused, as a procedure too');
SELECT throws_ok($$ALTER ROUTINE hfo.keep(bigint) VOLATILE$$, '2BP01', NULL,
                 'ALTER ROUTINE cannot make the filter''s function volatile');
SELECT throws_ok($$ALTER ROUTINE hfo.keep(bigint) RENAME TO kept$$, '2BP01', NULL, 'nor rename it');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'g'), false, 'the graph is not stale');
SELECT ok(grail.reachable('hfo.g', 1::bigint, 3::bigint), 'and answers');

-- Broken unseen: the event triggers disabled meanwhile.
RESET ROLE;
ALTER EVENT TRIGGER grail_on_alter_object DISABLE;
SET ROLE hfo_plain;
CREATE PROCEDURE hfo.keep(bigint, integer DEFAULT 0) LANGUAGE sql AS 'SELECT 1';
RESET ROLE;
ALTER EVENT TRIGGER grail_on_alter_object ENABLE ALWAYS;
CREATE TABLE hfo_unrelated (a int);
SELECT lives_ok($$DROP TABLE hfo_unrelated$$, 'another role''s DROP TABLE goes on');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'g'), true, 'and the graph whose filter no longer reads back is stale');
SELECT lives_ok($$CREATE FUNCTION hfo_unrelated() RETURNS int LANGUAGE sql AS 'SELECT 1'$$, 'CREATE FUNCTION goes on');
SELECT lives_ok($$ALTER SCHEMA hfo OWNER TO hfo_plain$$, 'and ALTER SCHEMA');
SET ROLE hfo_plain;
SELECT lives_ok($$INSERT INTO hfo.e VALUES (3, 4)$$, 'the edge table stays writable');
SELECT throws_ok($$SELECT grail.refresh_graph('hfo.g')$$, '42725', NULL, 'a refresh says why the filter does not read back');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
