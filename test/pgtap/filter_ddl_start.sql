-- grail_on_ddl_start reads every graph's filter back (about 30 us a graph) at the start of the
-- commands that a filter check at a command's end can refuse, and of no other: there, a filter
-- broken unseen (event triggers disabled meanwhile) makes its graph stale, so that the check at the
-- command's end does not take the command for the one that broke it. One command of each tag in its
-- list: without the check at its start it is refused (so it is a command the checks at the end can
-- refuse), with it it goes on and the graph is stale. A command outside the list (CREATE TEMP TABLE,
-- DROP TRIGGER) reads no filter at its start.
BEGIN;
-- Before any call to count: whether a call is counted is decided when its expression is set up.
SET track_functions = 'all';
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = error;
SELECT plan(244);

CREATE SCHEMA fds;
CREATE FUNCTION fds.keep(bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 > 0';
CREATE TABLE fds.e (source bigint, target bigint);
INSERT INTO fds.e VALUES (1, 2), (2, 3), (-1, 3);
SELECT grail.create_graph('fds.g', 'fds.e', filter => 'fds.keep(source)');
-- Broken unseen: an overload that makes the filter's call ambiguous, with the check at the end of
-- CREATE PROCEDURE disabled.
ALTER EVENT TRIGGER grail_on_alter_object DISABLE;
CREATE PROCEDURE fds.keep(bigint, integer DEFAULT 0) LANGUAGE sql AS 'SELECT 1';
ALTER EVENT TRIGGER grail_on_alter_object ENABLE ALWAYS;

-- The tag of each command that starts, to check that each case's command is of its tag.
CREATE TABLE fds.started (tag text);
CREATE FUNCTION fds.record_start() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO fds.started VALUES (tg_tag);
END
$$;
CREATE EVENT TRIGGER fds_record_start ON ddl_command_start EXECUTE FUNCTION fds.record_start();

CREATE ROLE fds_grantee;
CREATE ROLE fds_owner;
CREATE FOREIGN DATA WRAPPER fds_wrapper;
CREATE SERVER fds_server FOREIGN DATA WRAPPER fds_wrapper;

CREATE TABLE fds.cases (n serial, tag text, setup text, command text);
INSERT INTO fds.cases (tag, setup, command) VALUES
	('ALTER AGGREGATE', 'CREATE AGGREGATE fds.agg1 (int) (SFUNC = int4pl, STYPE = int)', 'ALTER AGGREGATE fds.agg1 (int) RENAME TO agg1b'),
	('ALTER COLLATION', 'CREATE COLLATION fds.coll1 FROM "C"', 'ALTER COLLATION fds.coll1 RENAME TO coll1b'),
	-- An entry of pg_default_acl back to the default is dropped.
	('ALTER DEFAULT PRIVILEGES', 'ALTER DEFAULT PRIVILEGES IN SCHEMA fds GRANT SELECT ON TABLES TO fds_grantee',
	 'ALTER DEFAULT PRIVILEGES IN SCHEMA fds REVOKE SELECT ON TABLES FROM fds_grantee'),
	('ALTER DOMAIN', 'CREATE DOMAIN fds.dom1 AS int CONSTRAINT positive CHECK (VALUE > 0)', 'ALTER DOMAIN fds.dom1 DROP CONSTRAINT positive'),
	('ALTER EXTENSION', 'CREATE SCHEMA fds_member', 'ALTER EXTENSION pgtap ADD SCHEMA fds_member'),
	('ALTER FOREIGN TABLE', 'CREATE FOREIGN TABLE fds.ft1 (a int, b int) SERVER fds_server', 'ALTER FOREIGN TABLE fds.ft1 DROP COLUMN b'),
	('ALTER FUNCTION', 'CREATE FUNCTION fds.f1() RETURNS int LANGUAGE sql AS ''SELECT 1''', 'ALTER FUNCTION fds.f1() COST 5'),
	('ALTER MATERIALIZED VIEW', 'CREATE MATERIALIZED VIEW fds.mv1 AS SELECT 1 AS a', 'ALTER MATERIALIZED VIEW fds.mv1 ALTER COLUMN a SET STATISTICS 10'),
	('ALTER OPERATOR', 'CREATE OPERATOR fds.=== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq)',
	 'ALTER OPERATOR fds.=== (int, int) SET (RESTRICT = eqsel)'),
	('ALTER OPERATOR FAMILY', 'CREATE OPERATOR FAMILY fds.fam1 USING btree; ALTER OPERATOR FAMILY fds.fam1 USING btree ADD OPERATOR 1 < (int4, int8)',
	 'ALTER OPERATOR FAMILY fds.fam1 USING btree DROP OPERATOR 1 (int4, int8)'),
	('ALTER PROCEDURE', 'CREATE PROCEDURE fds.p1() LANGUAGE sql AS ''SELECT 1''', 'ALTER PROCEDURE fds.p1() RENAME TO p1b'),
	('ALTER PUBLICATION', 'CREATE TABLE fds.pub1 (a int); CREATE PUBLICATION fds_pub1 FOR TABLE fds.pub1', 'ALTER PUBLICATION fds_pub1 DROP TABLE fds.pub1'),
	('ALTER ROUTINE', 'CREATE FUNCTION fds.f2() RETURNS int LANGUAGE sql AS ''SELECT 1''', 'ALTER ROUTINE fds.f2() COST 5'),
	('ALTER SCHEMA', 'CREATE SCHEMA fds_renamed', 'ALTER SCHEMA fds_renamed RENAME TO fds_renamed_b'),
	('ALTER TABLE', 'CREATE TABLE fds.t1 (a int, b int)', 'ALTER TABLE fds.t1 DROP COLUMN b'),
	('ALTER TYPE', 'CREATE TYPE fds.row1 AS (x int, y int)', 'ALTER TYPE fds.row1 DROP ATTRIBUTE y'),
	('ALTER VIEW', 'CREATE VIEW fds.v1 AS SELECT 1 AS a; ALTER VIEW fds.v1 ALTER COLUMN a SET DEFAULT 2',
	 'ALTER VIEW fds.v1 ALTER COLUMN a DROP DEFAULT'),
	('CREATE AGGREGATE', NULL, 'CREATE AGGREGATE fds.agg2 (int) (SFUNC = int4pl, STYPE = int)'),
	('CREATE CAST', 'CREATE TYPE fds.enum1 AS ENUM (''a'')', 'CREATE CAST (fds.enum1 AS int4) WITH INOUT'),
	('CREATE FUNCTION', NULL, 'CREATE FUNCTION fds.f3() RETURNS int LANGUAGE sql AS ''SELECT 1'''),
	('CREATE OPERATOR', NULL, 'CREATE OPERATOR fds.==== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq)'),
	('CREATE PROCEDURE', NULL, 'CREATE PROCEDURE fds.p2() LANGUAGE sql AS ''SELECT 1'''),
	('DROP ACCESS METHOD', 'CREATE ACCESS METHOD fds_am TYPE TABLE HANDLER heap_tableam_handler', 'DROP ACCESS METHOD fds_am'),
	('DROP AGGREGATE', 'CREATE AGGREGATE fds.agg3 (int) (SFUNC = int4pl, STYPE = int)', 'DROP AGGREGATE fds.agg3 (int)'),
	('DROP CAST', 'CREATE TYPE fds.enum2 AS ENUM (''a''); CREATE CAST (fds.enum2 AS int4) WITH INOUT', 'DROP CAST (fds.enum2 AS int4)'),
	('DROP COLLATION', 'CREATE COLLATION fds.coll2 FROM "C"', 'DROP COLLATION fds.coll2'),
	('DROP CONVERSION', 'CREATE CONVERSION fds.conv1 FOR ''UTF8'' TO ''LATIN1'' FROM utf8_to_iso8859_1', 'DROP CONVERSION fds.conv1'),
	('DROP DOMAIN', 'CREATE DOMAIN fds.dom2 AS int', 'DROP DOMAIN fds.dom2'),
	('DROP EXTENSION', 'CREATE EXTENSION tcn SCHEMA fds', 'DROP EXTENSION tcn'),
	('DROP FOREIGN DATA WRAPPER', 'CREATE FOREIGN DATA WRAPPER fds_wrapper2', 'DROP FOREIGN DATA WRAPPER fds_wrapper2'),
	('DROP FOREIGN TABLE', 'CREATE FOREIGN TABLE fds.ft2 (a int) SERVER fds_server', 'DROP FOREIGN TABLE fds.ft2'),
	('DROP FUNCTION', 'CREATE FUNCTION fds.f4() RETURNS int LANGUAGE sql AS ''SELECT 1''', 'DROP FUNCTION fds.f4()'),
	-- Alone an index's DROP drops a relation, which is not refused; with CASCADE the foreign key
	-- that uses it too.
	('DROP INDEX', 'CREATE TABLE fds.pk (id int); CREATE UNIQUE INDEX fds_pk_id ON fds.pk (id); '
	               'CREATE TABLE fds.fk (id int REFERENCES fds.pk (id))', 'DROP INDEX fds.fds_pk_id CASCADE'),
	('DROP LANGUAGE', 'CREATE LANGUAGE fds_language HANDLER plpgsql_call_handler', 'DROP LANGUAGE fds_language'),
	('DROP MATERIALIZED VIEW', 'CREATE MATERIALIZED VIEW fds.mv2 AS SELECT 1 AS a', 'DROP MATERIALIZED VIEW fds.mv2'),
	('DROP OPERATOR', 'CREATE OPERATOR fds.===== (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq)', 'DROP OPERATOR fds.===== (int, int)'),
	('DROP OPERATOR CLASS', 'CREATE OPERATOR CLASS fds.class1 FOR TYPE int4 USING hash AS OPERATOR 1 =, FUNCTION 1 hashint4(int4)',
	 'DROP OPERATOR CLASS fds.class1 USING hash'),
	('DROP OPERATOR FAMILY', 'CREATE OPERATOR FAMILY fds.fam2 USING btree', 'DROP OPERATOR FAMILY fds.fam2 USING btree'),
	('DROP OWNED', 'CREATE SCHEMA fds_owned AUTHORIZATION fds_owner', 'DROP OWNED BY fds_owner'),
	('DROP POLICY', 'CREATE TABLE fds.pol1 (a int); CREATE POLICY fds_policy ON fds.pol1 USING (true)', 'DROP POLICY fds_policy ON fds.pol1'),
	('DROP PROCEDURE', 'CREATE PROCEDURE fds.p3() LANGUAGE sql AS ''SELECT 1''', 'DROP PROCEDURE fds.p3()'),
	('DROP PUBLICATION', 'CREATE PUBLICATION fds_pub2', 'DROP PUBLICATION fds_pub2'),
	('DROP ROUTINE', 'CREATE FUNCTION fds.f5() RETURNS int LANGUAGE sql AS ''SELECT 1''', 'DROP ROUTINE fds.f5()'),
	('DROP RULE', 'CREATE TABLE fds.rule1 (a int); CREATE RULE fds_rule AS ON INSERT TO fds.rule1 DO INSTEAD NOTHING',
	 'DROP RULE fds_rule ON fds.rule1'),
	('DROP SCHEMA', 'CREATE SCHEMA fds_dropped', 'DROP SCHEMA fds_dropped'),
	-- Alone a sequence's DROP drops a relation; with CASCADE the defaults that call it too.
	('DROP SEQUENCE', 'CREATE SEQUENCE fds.seq1; CREATE TABLE fds.seq1_user (a bigint DEFAULT nextval(''fds.seq1''))',
	 'DROP SEQUENCE fds.seq1 CASCADE'),
	('DROP SERVER', 'CREATE SERVER fds_server2 FOREIGN DATA WRAPPER fds_wrapper', 'DROP SERVER fds_server2'),
	('DROP STATISTICS', 'CREATE TABLE fds.stat1 (a int, b int); CREATE STATISTICS fds.stat1_ab ON a, b FROM fds.stat1',
	 'DROP STATISTICS fds.stat1_ab'),
	('DROP SUBSCRIPTION', 'CREATE SUBSCRIPTION fds_sub CONNECTION ''dbname=fds_nowhere'' PUBLICATION fds_nowhere '
	                      'WITH (connect = false, slot_name = NONE)', 'DROP SUBSCRIPTION fds_sub'),
	('DROP TABLE', 'CREATE TABLE fds.t2 (a int)', 'DROP TABLE fds.t2'),
	('DROP TEXT SEARCH CONFIGURATION', 'CREATE TEXT SEARCH CONFIGURATION fds.tsc (PARSER = default)', 'DROP TEXT SEARCH CONFIGURATION fds.tsc'),
	('DROP TEXT SEARCH DICTIONARY', 'CREATE TEXT SEARCH DICTIONARY fds.tsd (TEMPLATE = simple)', 'DROP TEXT SEARCH DICTIONARY fds.tsd'),
	('DROP TEXT SEARCH PARSER', 'CREATE TEXT SEARCH PARSER fds.tsp (START = prsd_start, GETTOKEN = prsd_nexttoken, END = prsd_end, '
	                            'LEXTYPES = prsd_lextype)', 'DROP TEXT SEARCH PARSER fds.tsp'),
	('DROP TEXT SEARCH TEMPLATE', 'CREATE TEXT SEARCH TEMPLATE fds.tst (LEXIZE = dsimple_lexize)', 'DROP TEXT SEARCH TEMPLATE fds.tst'),
	('DROP TRANSFORM', 'CREATE TYPE fds.enum3 AS ENUM (''a''); '
	                   'CREATE TRANSFORM FOR fds.enum3 LANGUAGE plpgsql (FROM SQL WITH FUNCTION brin_minmax_opcinfo(internal))',
	 'DROP TRANSFORM FOR fds.enum3 LANGUAGE plpgsql'),
	('DROP TYPE', 'CREATE TYPE fds.enum4 AS ENUM (''a'')', 'DROP TYPE fds.enum4'),
	('DROP USER MAPPING', 'CREATE USER MAPPING FOR fds_owner SERVER fds_server', 'DROP USER MAPPING FOR fds_owner SERVER fds_server'),
	('DROP VIEW', 'CREATE VIEW fds.v2 AS SELECT 1 AS a', 'DROP VIEW fds.v2');

SELECT is(ARRAY(SELECT tag FROM fds.cases ORDER BY tag),
          ARRAY(SELECT t FROM pg_event_trigger e, unnest(e.evttags) t WHERE e.evtname = 'grail_on_ddl_start' ORDER BY t),
          'a case for each tag of grail_on_ddl_start');
SELECT ok((SELECT evttags FROM pg_event_trigger WHERE evtname = 'grail_on_alter_object')
          <@ (SELECT evttags FROM pg_event_trigger WHERE evtname = 'grail_on_ddl_start'),
          'grail_on_ddl_start starts every command that grail_on_alter_object checks at its end');
SELECT ok((SELECT evttags FROM pg_event_trigger WHERE evtname = 'grail_on_alter_table')
          <@ (SELECT evttags FROM pg_event_trigger WHERE evtname = 'grail_on_ddl_start'),
          'and every command that grail_on_alter_table checks');

CREATE FUNCTION fds.run_cases() RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	c record;
BEGIN
	FOR c IN SELECT * FROM fds.cases ORDER BY n LOOP
		IF c.setup IS NOT NULL THEN
			EXECUTE c.setup;
		END IF;
		UPDATE grail.graph SET stale = false WHERE name = 'g';
		ALTER EVENT TRIGGER grail_on_ddl_start DISABLE;
		RETURN NEXT throws_ok(c.command, '2BP01', NULL,
		                      c.tag || ': without the check at its start, the check at its end refuses it');
		ALTER EVENT TRIGGER grail_on_ddl_start ENABLE ALWAYS;
		DELETE FROM fds.started;
		RETURN NEXT lives_ok(c.command, c.tag || ': with it, it goes on');
		RETURN NEXT is((SELECT stale FROM grail.graph WHERE name = 'g'), true,
		               c.tag || ': and the graph whose filter broke unseen is stale');
		RETURN NEXT is(ARRAY(SELECT tag FROM fds.started), ARRAY[c.tag], c.tag || ': the command is of that tag');
	END LOOP;
END
$$;
SELECT * FROM fds.run_cases();

-- Outside the list: no filter is read at their start, and the graph whose filter broke unseen
-- stays as it was.
UPDATE grail.graph SET stale = false WHERE name = 'g';
SELECT pg_stat_get_xact_function_calls('grail_internal._on_ddl_start()'::regprocedure) AS start_calls,
       pg_stat_get_xact_function_calls('grail_internal._filter_reads_back(oid, text)'::regprocedure) AS read_calls \gset
SELECT lives_ok($$CREATE TEMP TABLE fds_temporary (a int)$$, 'CREATE TEMP TABLE goes on');
SELECT is(pg_stat_get_xact_function_calls('grail_internal._on_ddl_start()'::regprocedure), :start_calls::bigint,
          'without the check at its start');
SELECT is(pg_stat_get_xact_function_calls('grail_internal._filter_reads_back(oid, text)'::regprocedure), :read_calls::bigint,
          'reading no filter');
SELECT is((SELECT stale FROM grail.graph WHERE name = 'g'), false, 'so the graph is not made stale');
-- A trigger's DROP drops triggers alone, which the check at its end does not refuse.
CREATE FUNCTION fds.nothing() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END';
CREATE TRIGGER fds_nothing AFTER INSERT ON fds.t1 EXECUTE FUNCTION fds.nothing();
UPDATE grail.graph SET stale = false WHERE name = 'g';
SELECT lives_ok($$DROP TRIGGER fds_nothing ON fds.t1$$, 'DROP TRIGGER goes on');
SELECT is((SELECT stale FROM grail.graph WHERE name = 'g'), false, 'with no check at its start');
-- The temporary table's DROP is in the list: the filters are read at its start and its end.
SELECT pg_stat_get_xact_function_calls('grail_internal._on_ddl_start()'::regprocedure) AS start_calls \gset
SELECT lives_ok($$DROP TABLE fds_temporary$$, 'DROP TABLE goes on');
SELECT is(pg_stat_get_xact_function_calls('grail_internal._on_ddl_start()'::regprocedure), :start_calls::bigint + 1,
          'with the check at its start');
SELECT is((SELECT stale FROM grail.graph WHERE name = 'g'), true, 'which makes the graph stale');

SELECT * FROM finish();
ROLLBACK;
