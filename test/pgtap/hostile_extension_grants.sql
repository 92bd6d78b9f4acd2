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
SELECT plan(8);

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

SELECT * FROM finish();
ROLLBACK;
