-- A filter that names a temporary function, operator, type or collation is refused (42P17). The
-- deparser stores such an object as pg_temp.name, which reads back in the creator's session (so
-- the read-back check passed) but names the temporary schema of whichever session reads the filter
-- again: after the creator's session every write to the table failed, and a writer who made her
-- own pg_temp function of that name had it called by her INSERT's trigger, as the graph's owner. A
-- stored filter that names pg_temp (one made before the refusal) fails each write with the same
-- error and never calls the writer's function.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(8);

CREATE ROLE grail_tmp_owner;
CREATE ROLE grail_tmp_writer;
GRANT CREATE ON SCHEMA public TO grail_tmp_owner;

SET ROLE grail_tmp_owner;
CREATE TABLE public.grail_tmp_e (source bigint, target bigint);
INSERT INTO public.grail_tmp_e VALUES (1, 2), (2, 3);
GRANT INSERT ON public.grail_tmp_e TO grail_tmp_writer;
CREATE FUNCTION public.grail_tmp_keep(bigint) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT $1 <> 2';
CREATE FUNCTION public.grail_tmp_eq(bigint, bigint) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT $1 = $2';
CREATE FUNCTION pg_temp.owner_keep(bigint) RETURNS boolean IMMUTABLE LANGUAGE sql AS 'SELECT $1 <> 2';
CREATE TYPE pg_temp.pair AS (a bigint);
CREATE OPERATOR pg_temp.=== (FUNCTION = public.grail_tmp_eq, LEFTARG = bigint, RIGHTARG = bigint);
CREATE COLLATION pg_temp.bytes FROM "C";

SELECT throws_ok($$SELECT grail.create_graph('grail_tmp_f', 'public.grail_tmp_e', filter => 'pg_temp.owner_keep(source)')$$,
                 '42P17', NULL, 'a temporary function in a filter is refused');
SELECT throws_ok($$SELECT grail.create_graph('grail_tmp_t', 'public.grail_tmp_e',
                                             filter => '(row(source)::pg_temp.pair).a > 0')$$,
                 '42P17', NULL, 'a temporary type in a filter is refused');
SELECT throws_ok($$SELECT grail.create_graph('grail_tmp_o', 'public.grail_tmp_e',
                                             filter => 'NOT source OPERATOR(pg_temp.===) target')$$,
                 '42P17', NULL, 'a temporary operator in a filter is refused');
SELECT throws_ok($$SELECT grail.create_graph('grail_tmp_c', 'public.grail_tmp_e',
                                             filter => '(source::text COLLATE pg_temp.bytes) < ''9''')$$,
                 '42P17', NULL, 'a temporary collation in a filter is refused');
SELECT is((SELECT count(*) FROM grail.graphs WHERE name LIKE 'grail_tmp_%'), 0::bigint, 'none of them made a graph');
SELECT lives_ok($$SELECT grail.create_graph('grail_tmp_g', 'public.grail_tmp_e', filter => 'public.grail_tmp_keep(source)')$$,
                'the same filter over a function of a schema is taken');
RESET ROLE;

-- The writer's own pg_temp.keep, then a graph whose stored filter names pg_temp, as create_graph
-- stored one before it refused them.
SET ROLE grail_tmp_writer;
CREATE FUNCTION pg_temp.keep(bigint) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	RAISE EXCEPTION 'the writer''s function ran as %', current_user;
END $$;
RESET ROLE;
UPDATE grail.graph SET filter = 'pg_temp.keep(source)' WHERE name = 'grail_tmp_g';
SET ROLE grail_tmp_writer;
SELECT throws_ok($$INSERT INTO public.grail_tmp_e VALUES (3, 4)$$, '42P17', NULL,
                 'a write under a stored filter that names pg_temp fails, and never calls the writer''s function');
RESET ROLE;
SELECT is((SELECT count(*) FROM public.grail_tmp_e), 2::bigint, 'the write made no row');

SELECT * FROM finish();
ROLLBACK;
