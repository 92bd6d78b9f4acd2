-- GRANTs that would let a role that is not a superuser write pg_grail's catalog. grail_on_grant
-- checked the tables' own privileges only, not their columns': GRANT UPDATE (relid) ON grail.graph
-- went through, and the grantee pointed any role's graph at another table (UPDATE grail.graph SET
-- relid = ..., no SELECT needed without a WHERE clause), and column INSERT on grail.pending_change
-- forges a live graph's changes. A column's privileges are checked as its table's are: SELECT may be
-- granted, nothing more.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(16);

CREATE ROLE heg_plain;

SELECT throws_ok($$GRANT UPDATE (relid, stale) ON grail.graph TO heg_plain$$, '42501', NULL,
                 'UPDATE of the catalog''s columns is refused');
SELECT throws_ok($$GRANT UPDATE (relid) ON grail.graph TO heg_plain$$, '42501',
                 'UPDATE (relid) on pg_grail''s table grail.graph cannot be granted to heg_plain, which is not a superuser',
                 'and the error names the column');
SELECT throws_ok($$GRANT INSERT (graph_id, change) ON grail.pending_change TO PUBLIC$$, '42501', NULL,
                 'INSERT into the change log''s columns, to PUBLIC too');
SELECT throws_ok($$GRANT REFERENCES (id) ON grail.graph TO heg_plain$$, '42501', NULL, 'REFERENCES of a column');
SELECT throws_ok($$GRANT ALL (name) ON grail.graphs TO heg_plain$$, '42501', NULL, 'ALL on a view''s column');
SELECT is((SELECT count(*) FROM pg_attribute a
           WHERE a.attrelid IN ('grail.graph'::regclass, 'grail.pending_change'::regclass, 'grail.graphs'::regclass)
             AND a.attacl IS NOT NULL),
          0::bigint, 'none of them was made');
SELECT is((SELECT has_column_privilege('heg_plain', 'grail.graph', 'relid', 'UPDATE')), false,
          'the role may not write the column');
SELECT lives_ok($$GRANT SELECT (name, relid) ON grail.graph TO heg_plain;
                  REVOKE SELECT (name, relid) ON grail.graph FROM heg_plain$$, 'SELECT of columns may still be granted');

-- A role that may write every table (pg_write_all_data, a membership no event trigger sees) could
-- set a graph's owner to a superuser: its filter, a function of the role's, then ran as that
-- superuser at the role's next write to its own edge table. Only pg_grail writes its catalog.
CREATE ROLE heg_writer;
GRANT pg_write_all_data TO heg_writer;
CREATE SCHEMA heg AUTHORIZATION heg_writer;
SET ROLE heg_writer;
CREATE FUNCTION heg.keep(bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 > 0';
CREATE TABLE heg.e (source bigint, target bigint);
INSERT INTO heg.e VALUES (1, 2);
SELECT lives_ok($$SELECT grail.create_graph('heg.g', 'heg.e', filter => 'heg.keep(source)')$$,
                'the role builds a live graph');
SELECT throws_ok($$UPDATE grail.graph SET owner = 'postgres'$$, '42501',
                 'only pg_grail writes its catalog table grail.graph, not role "heg_writer"',
                 'it cannot write grail.graph');
SELECT throws_ok($$DELETE FROM grail.index_chunk$$, '42501', NULL, 'nor grail.index_chunk');
SELECT throws_ok($$INSERT INTO grail.pending_change (graph_id, change, source, target) VALUES (1, 1, '{1}', '{2}')$$,
                 '42501', NULL, 'nor grail.pending_change');
SELECT lives_ok($$INSERT INTO heg.e VALUES (2, 3)$$, 'its writes to its edge table are logged');
SELECT lives_ok($$SELECT grail.merge_graph('heg.g')$$, 'and merged');
SELECT ok(grail.reachable('heg.g', 1::bigint, 3::bigint), 'and the graph answers');
RESET ROLE;
SELECT lives_ok($$UPDATE grail.graph SET stale = stale WHERE name = 'g'$$, 'a superuser may still write it');

SELECT * FROM finish();
ROLLBACK;
