-- A filter's functions run as the graph's owner in the session of whoever writes or queries. They
-- must not run under that caller's search_path: a writer with INSERT on a superuser's filtered
-- table put a schema holding her own lower() before pg_catalog, and the owner's filter function
-- (SELECT lower(k) = 'prod', unqualified as most SQL functions are) ran her lower() as the
-- superuser, which made her one. Each way the filter runs as another role: a writer's trigger
-- (INSERT, UPDATE, DELETE), a query's rebuild from the rows, a constant folded when the filter is
-- planned (a SQL function inlined there parses its body then).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(11);

CREATE ROLE grail_path_owner;
CREATE ROLE grail_path_writer;
CREATE SCHEMA grail_path_owned AUTHORIZATION grail_path_owner;
CREATE SCHEMA grail_path_shadow AUTHORIZATION grail_path_writer;
-- Who ran a shadow, as whom: the writer's shadows record themselves here.
CREATE TABLE public.grail_path_runs (ran_as name);
GRANT SELECT, INSERT ON public.grail_path_runs TO PUBLIC;

SET ROLE grail_path_owner;
CREATE FUNCTION grail_path_owned.is_prod(k text) RETURNS boolean IMMUTABLE LANGUAGE sql
    AS $$ SELECT lower(k) = 'prod' $$;
CREATE FUNCTION grail_path_owned.floor_id() RETURNS bigint IMMUTABLE LANGUAGE sql AS $$ SELECT abs(-1)::bigint $$;
-- A function that sets its own search_path keeps it: its unqualified helper is found.
CREATE FUNCTION grail_path_owned.helper(k text) RETURNS boolean IMMUTABLE LANGUAGE sql AS $$ SELECT k <> 'none' $$;
CREATE FUNCTION grail_path_owned.with_path(k text) RETURNS boolean IMMUTABLE LANGUAGE sql
    SET search_path = grail_path_owned, pg_catalog AS $$ SELECT helper(k) $$;
CREATE TABLE grail_path_owned.e (source bigint, target bigint, kind text);
INSERT INTO grail_path_owned.e VALUES (1, 2, 'prod'), (2, 3, 'PROD'), (3, 4, 'dev');
GRANT USAGE ON SCHEMA grail_path_owned TO grail_path_writer;
GRANT SELECT, INSERT, UPDATE, DELETE ON grail_path_owned.e TO grail_path_writer;
SELECT grail.create_graph('grail_path_owned.g', 'grail_path_owned.e', filter => 'grail_path_owned.is_prod(kind)');
SELECT grail.create_graph('grail_path_owned.folded', 'grail_path_owned.e',
                          filter => 'source >= grail_path_owned.floor_id()');
SELECT grail.create_graph('grail_path_owned.own_path', 'grail_path_owned.e',
                          filter => 'grail_path_owned.with_path(kind)');
RESET ROLE;

SET ROLE grail_path_writer;
CREATE FUNCTION grail_path_shadow.lower(text) RETURNS text VOLATILE LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.grail_path_runs VALUES (current_user);
	RETURN pg_catalog.upper($1);
END
$$;
CREATE FUNCTION grail_path_shadow.abs(integer) RETURNS integer VOLATILE LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.grail_path_runs VALUES (current_user);
	RETURN 100;
END
$$;
-- Usable by the owner, as whom the filter runs (a schema without USAGE is skipped).
GRANT USAGE ON SCHEMA grail_path_shadow TO PUBLIC;
SET search_path = grail_path_shadow, pg_catalog, public;  -- public: pgTAP's functions

INSERT INTO grail_path_owned.e VALUES (4, 5, 'prod');
SELECT is((SELECT count(*) FROM public.grail_path_runs), 0::bigint,
          'a writer''s INSERT runs none of the writer''s functions through the owner''s filter');
UPDATE grail_path_owned.e SET kind = 'Prod' WHERE source = 3;
DELETE FROM grail_path_owned.e WHERE source = 2;
SELECT is((SELECT count(*) FROM public.grail_path_runs), 0::bigint, 'nor an UPDATE or a DELETE');
SELECT is(current_setting('search_path'), 'grail_path_shadow, pg_catalog, public', 'the writer''s search_path is hers again');

-- The filter read pg_catalog's lower(): 'PROD' and 'Prod' are prod, 'dev' is not.
SELECT is(grail.reachable('grail_path_owned.g', 3, 5), true, 'the filter passed the row moved into it');
SELECT is((SELECT count(*) FROM grail.descendants('grail_path_owned.g', 1)), 2::bigint,
          'a query''s rebuild reads the rows through pg_catalog''s lower()');
SELECT is((SELECT count(*) FROM public.grail_path_runs), 0::bigint, 'and runs no shadow either');
SELECT is((SELECT count(*) FROM grail.descendants('grail_path_owned.folded', 1)), 2::bigint,
          'the folded filter''s constant is pg_catalog''s abs(-1)');
SELECT is((SELECT count(*) FROM public.grail_path_runs), 0::bigint,
          'the constant folded when the filter is planned runs no shadow');
SELECT is((SELECT count(*) FROM grail.descendants('grail_path_owned.own_path', 3)), 3::bigint,
          'a filter function with its own SET search_path finds its helper');
RESET ROLE;
RESET search_path;

-- A filter function that names its helper unqualified (found before through each writer's
-- search_path) is refused, and the error says where the filter runs and what to do.
CREATE FUNCTION pg_temp.error_context(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	context text;
BEGIN
	EXECUTE statement;
	RETURN NULL;
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS context = PG_EXCEPTION_CONTEXT;
	RETURN context;
END
$$;
SET ROLE grail_path_owner;
CREATE FUNCTION grail_path_owned.via_helper(k text) RETURNS boolean IMMUTABLE LANGUAGE plpgsql
    AS $$ BEGIN RETURN helper(k); END $$;
SELECT matches(pg_temp.error_context($$SELECT grail.create_graph('grail_path_owned.helped', 'grail_path_owned.e',
                                      filter => 'grail_path_owned.via_helper(kind)')$$),
               'filter as the graph''s owner, with search_path pg_catalog, pg_temp',
               'an unqualified helper fails with a context that names the filter''s search_path');
RESET ROLE;
SELECT is((SELECT rolsuper FROM pg_roles WHERE rolname = 'grail_path_writer'), false, 'the writer gained nothing');

SELECT * FROM finish();
ROLLBACK;
