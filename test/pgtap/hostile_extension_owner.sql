-- A superuser's ALTER ... OWNER TO of pg_grail's objects to a plain role gave that role code run
-- as superuser: the owner of an event trigger's function moved it into a schema of its own
-- (ALTER FUNCTION ... SET SCHEMA), replaced its body there (CREATE OR REPLACE, SECURITY INVOKER),
-- and the next DROP a superuser ran made it superuser; the owner of a catalog table could put a
-- trigger on it (run under the extension owner's rights), the owner of a view or a schema replace
-- what callers run. The event trigger grail_on_owner_change refuses to leave any of pg_grail's
-- objects to a role that is not a superuser; a superuser may still take them.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(21);

CREATE ROLE heo_plain;
CREATE ROLE heo_super SUPERUSER;
CREATE SCHEMA heo_own AUTHORIZATION heo_plain;
CREATE ROLE heo_own_owner;
CREATE TABLE heo_owned (a int);
ALTER TABLE heo_owned OWNER TO heo_own_owner;

SELECT throws_ok($$ALTER FUNCTION grail_internal._on_drop() OWNER TO heo_plain$$, '42501',
                 'pg_grail''s function grail_internal._on_drop() cannot be owned by role "heo_plain", which is not a superuser',
                 'an event trigger''s function to a plain role');
SELECT throws_ok($$ALTER ROUTINE grail.reachable(text, bigint, bigint) OWNER TO heo_plain$$, '42501', NULL,
                 'a user function, through ALTER ROUTINE');
SELECT throws_ok($$ALTER FUNCTION grail._mark_stale() OWNER TO heo_plain$$, '42501', NULL,
                 'the SECURITY DEFINER trigger function');
SELECT throws_ok($$ALTER TABLE grail.graph OWNER TO heo_plain$$, '42501', NULL, 'the catalog table');
SELECT throws_ok($$ALTER TABLE grail.pending_change OWNER TO heo_plain$$, '42501', NULL, 'the change log');
SELECT throws_ok($$ALTER VIEW grail.graphs OWNER TO heo_plain$$, '42501', NULL, 'a view');
SELECT throws_ok($$ALTER TABLE grail.activity OWNER TO heo_plain$$, '42501', NULL, 'a view through ALTER TABLE');
SELECT throws_ok($$ALTER SEQUENCE grail.build_seq OWNER TO heo_plain$$, '42501', NULL, 'a sequence');
SELECT throws_ok($$ALTER SCHEMA grail_internal OWNER TO heo_plain$$, '42501', NULL, 'the internal schema');
SELECT throws_ok($$ALTER SCHEMA grail OWNER TO heo_plain$$, '42501', NULL, 'the extension''s schema');
SELECT is((SELECT count(*) FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pg_grail'
           WHERE d.deptype = 'e' AND d.classid = 'pg_proc'::regclass
             AND NOT (SELECT r.rolsuper FROM pg_proc p JOIN pg_roles r ON r.oid = p.proowner WHERE p.oid = d.objid)),
          0::bigint, 'every function is still a superuser''s');

-- A superuser may take them, and give them back.
SELECT lives_ok($$ALTER FUNCTION grail_internal._on_drop() OWNER TO heo_super$$, 'a superuser may own them');
SELECT lives_ok($$ALTER FUNCTION grail_internal._on_drop() OWNER TO CURRENT_USER$$, 'and give them back');
-- REASSIGN OWNED fires no event trigger: a superuser that took one of pg_grail's objects (or
-- installed it) and is then reassigned to a plain role, as before a DROP ROLE, handed the objects
-- (and the extension itself) over unseen. The library's hook refuses it before it runs.
CREATE ROLE heo_admin SUPERUSER;
CREATE ROLE heo_other_super SUPERUSER;
ALTER FUNCTION grail_internal._on_drop() OWNER TO heo_admin;
ALTER VIEW grail.graphs OWNER TO heo_admin;
SELECT throws_ok($$REASSIGN OWNED BY heo_admin TO heo_plain$$, '42501',
                 'REASSIGN OWNED would leave pg_grail''s function grail_internal._on_drop() to role "heo_plain", which is not a superuser',
                 'REASSIGN OWNED of a superuser that owns pg_grail''s objects to a plain role is refused');
SELECT is((SELECT pg_catalog.array_agg(o::text ORDER BY o::text)
           FROM (SELECT proowner::regrole FROM pg_proc WHERE oid = 'grail_internal._on_drop()'::regprocedure
                 UNION ALL SELECT relowner::regrole FROM pg_class WHERE oid = 'grail.graphs'::regclass) x(o)),
          ARRAY['heo_admin', 'heo_admin'], 'and leaves them where they were');
SELECT throws_ok($$REASSIGN OWNED BY heo_plain, heo_admin TO heo_plain$$, '42501', NULL,
                 'also with other roles beside it');
SET ROLE heo_plain;
SELECT throws_ok($$REASSIGN OWNED BY heo_admin TO heo_plain$$, '42501', 'permission denied to reassign objects',
                 'a role without the rights of the roles named gets PostgreSQL''s own refusal');
RESET ROLE;
SELECT lives_ok($$REASSIGN OWNED BY heo_admin TO heo_other_super$$, 'to a superuser it goes on');
SELECT lives_ok($$REASSIGN OWNED BY heo_other_super TO CURRENT_USER; REASSIGN OWNED BY heo_own_owner TO heo_plain$$,
                 'as does REASSIGN OWNED of roles that own none of them');

-- Other ALTERs of pg_grail's objects and owner changes of other objects go on.
SELECT lives_ok($$ALTER FUNCTION grail.reachable(text, bigint, bigint) SET work_mem = '8MB';
                  ALTER FUNCTION grail.reachable(text, bigint, bigint) RESET work_mem$$, 'other ALTERs of its objects');
CREATE TABLE heo_table (a int);
SELECT lives_ok($$ALTER TABLE heo_table OWNER TO heo_plain$$, 'owner changes of other objects');

SELECT * FROM finish();
ROLLBACK;
