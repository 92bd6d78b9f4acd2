-- ALTER TABLE ... OWNER TO hands the table's graphs of its old owner to the new owner. A graph in a
-- schema where the new owner has no CREATE was handed over all the same, and then neither the new
-- owner (the graph's name is looked up in that schema: permission denied for schema) nor the old
-- one could refresh, merge or drop it; only a superuser could. As PostgreSQL refuses a new owner
-- without CREATE on the table's own schema unless a superuser runs it, the owner change is refused
-- then (42501), and goes through once the new owner has CREATE there, or when a superuser runs it.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(9);

CREATE ROLE grail_own_old;
CREATE ROLE grail_own_new;
-- The old owner may act as the new one (what ALTER ... OWNER TO needs of a non-superuser).
GRANT grail_own_new TO grail_own_old;
GRANT CREATE ON SCHEMA public TO grail_own_old, grail_own_new;
CREATE SCHEMA grail_own_graphs AUTHORIZATION grail_own_old;

SET ROLE grail_own_old;
CREATE TABLE public.grail_own_e (source bigint, target bigint);
INSERT INTO public.grail_own_e VALUES (1, 2), (2, 3);
SELECT lives_ok($$SELECT grail.create_graph('grail_own_graphs.g', 'public.grail_own_e')$$, 'a graph in the old owner''s schema');
SELECT lives_ok($$SELECT grail.create_graph('public.grail_own_p', 'public.grail_own_e')$$, 'a graph in public');
SELECT throws_ok($$ALTER TABLE public.grail_own_e OWNER TO grail_own_new$$, '42501', NULL,
                 'the owner change is refused: the new owner has no CREATE on a graph''s schema');
SELECT is((SELECT pg_catalog.array_agg(owner::text ORDER BY name) FROM grail.graphs WHERE name IN ('g', 'grail_own_p')),
          ARRAY['grail_own_old', 'grail_own_old'], 'both graphs stay the old owner''s');
SELECT is((SELECT relowner::regrole::text FROM pg_class WHERE oid = 'public.grail_own_e'::regclass), 'grail_own_old',
          'and so does the table');
GRANT CREATE, USAGE ON SCHEMA grail_own_graphs TO grail_own_new;
SELECT lives_ok($$ALTER TABLE public.grail_own_e OWNER TO grail_own_new$$, 'with CREATE there it goes through');
SELECT is((SELECT pg_catalog.array_agg(owner::text ORDER BY name) FROM grail.graphs WHERE name IN ('g', 'grail_own_p')),
          ARRAY['grail_own_new', 'grail_own_new'], 'both graphs are the new owner''s');
SET ROLE grail_own_new;
SELECT lives_ok($$SELECT grail.refresh_graph('grail_own_graphs.g')$$, 'the new owner refreshes the graph');
RESET ROLE;
-- A superuser hands over whatever the schema's privileges, as PostgreSQL does for the table.
REVOKE CREATE, USAGE ON SCHEMA grail_own_graphs FROM grail_own_new;
ALTER TABLE public.grail_own_e OWNER TO grail_own_old;
SELECT is((SELECT owner::text FROM grail.graph WHERE name = 'g'), 'grail_own_old', 'a superuser''s owner change hands over');

SELECT * FROM finish();
ROLLBACK;
