-- A filter's functions are the graph owner's code, run in a restricted security context in the
-- session of whoever queries, writes or merges. A setting they change must not outlive the
-- evaluation: with set_config('search_path', 'public, pg_catalog', false) left in a superuser's
-- session, the superuser's next unqualified lower() ran the owner's public.lower(), which made the
-- owner a superuser. Each way the filter runs: a query's rebuild from the rows, a writer's trigger
-- (INSERT, UPDATE), a constant folded when the filter is planned, a refresh. Names are qualified:
-- without the fix the setup's own create_graph moves this session's search_path.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(12);

CREATE ROLE grail_settings_owner;
GRANT CREATE ON SCHEMA public TO grail_settings_owner;
SET ROLE grail_settings_owner;
-- The owner's code: moves the caller's search_path for the rest of its session (a plain set_config
-- is session-wide unless something undoes it), and records in which session it ran.
CREATE FUNCTION public.settings_plant() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'grail_planted, public, pg_catalog', false);
	PERFORM pg_catalog.set_config('work_mem', '1234kB', false);
END
$$;
CREATE FUNCTION public.settings_pass(bigint) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM public.settings_plant();
	RETURN true;
END
$$;
CREATE FUNCTION public.settings_const(int) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM public.settings_plant();
	RETURN $1;
END
$$;
CREATE TABLE settings_edges (source bigint, target bigint);
INSERT INTO public.settings_edges VALUES (1, 2), (2, 3);
GRANT SELECT, INSERT, UPDATE ON public.settings_edges TO PUBLIC;
SELECT grail.create_graph('public.settings_graph', 'public.settings_edges', filter => 'public.settings_pass(source)');
SELECT grail.create_graph('public.settings_folded', 'public.settings_edges', filter => 'source >= public.settings_const(0)');
RESET ROLE;

SET search_path = public, pg_catalog;
SET work_mem = '4MB';

-- A pending change: the next descendants() rebuilds from the rows, through the filter.
INSERT INTO public.settings_edges VALUES (3, 4);
SELECT is((SELECT count(*) FROM grail.descendants('public.settings_graph', 1)), 4::bigint,
          'a query rebuilds the filtered graph from its rows');
SELECT is(current_setting('search_path'), 'public, pg_catalog',
          'the filter''s search_path does not stay in the querying session');
SELECT is(current_setting('work_mem'), '4MB', 'nor does another setting it changed');

SET search_path = public, pg_catalog; SET work_mem = '4MB';  -- each step from the same settings
INSERT INTO public.settings_edges VALUES (4, 5);
SELECT is(current_setting('search_path'), 'public, pg_catalog',
          'a writer''s trigger evaluates the filter without leaving its settings (INSERT)');
SET search_path = public, pg_catalog; SET work_mem = '4MB';  -- each step from the same settings
UPDATE public.settings_edges SET target = 6 WHERE source = 4;
SELECT is(current_setting('search_path'), 'public, pg_catalog', 'nor after an UPDATE');
SELECT is(current_setting('work_mem'), '4MB', 'work_mem as the writer set it');

SET search_path = public, pg_catalog; SET work_mem = '4MB';  -- each step from the same settings
-- The folded filter's constant is computed when the filter is planned (every writer's statement).
INSERT INTO public.settings_edges VALUES (6, 7);
SELECT is(current_setting('search_path'), 'public, pg_catalog',
          'a constant folded from the owner''s immutable function leaves no setting either');
SET search_path = public, pg_catalog; SET work_mem = '4MB';  -- each step from the same settings
SELECT is((SELECT count(*) FROM grail.descendants('public.settings_folded', 1)), 6::bigint,
          'the folded filter''s graph answers');
SELECT is(current_setting('search_path'), 'public, pg_catalog', 'and its rebuild leaves none');

SET search_path = public, pg_catalog; SET work_mem = '4MB';  -- each step from the same settings
SET ROLE grail_settings_owner;
SELECT ok(grail.refresh_graph('public.settings_graph') IS NOT NULL, 'the owner refreshes the graph');
SELECT is(current_setting('work_mem'), '4MB', 'a refresh leaves no setting of the filter''s');
RESET ROLE;
SET search_path = public, pg_catalog; SET work_mem = '4MB';  -- each step from the same settings
-- Inside a transaction whose settings the filter's settings are stacked over (SET LOCAL).
SET LOCAL work_mem = '5MB';
INSERT INTO public.settings_edges VALUES (7, 8);
SELECT is(current_setting('work_mem') || ' ' || current_setting('search_path'), '5MB public, pg_catalog',
          'over a SET LOCAL, the transaction''s own settings stay and the filter''s go');

SELECT * FROM finish();
ROLLBACK;
