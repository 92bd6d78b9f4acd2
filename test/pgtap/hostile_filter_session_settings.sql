-- A filter means one thing wherever it is evaluated: a writer's trigger, a query's rebuild, a merge.
-- IMMUTABLE output functions read settings any session may change: under a writer's
-- extra_float_digits = 0, 0.1 + 0.2 printed as 0.3, so the writer's trigger left out a row that the
-- filter w::text <> '0.3' keeps in every build and merge (a live answer false, then true after a
-- merge, over the same rows); bytea_output = 'escape' likewise, and a DELETE under it left a
-- removed row's edge in the graph.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(9);

CREATE TABLE public.eval_edges (source bigint, target bigint, w float8, b bytea);
INSERT INTO public.eval_edges VALUES (1, 2, 0.5, '\x00');
SELECT grail.create_graph('public.eval_float', 'public.eval_edges', filter => 'w::text <> ''0.3''');
SELECT grail.create_graph('public.eval_bytea', 'public.eval_edges', filter => 'b::text = ''\x00''');

SET extra_float_digits = 0;
INSERT INTO public.eval_edges VALUES (2, 3, 0.1::float8 + 0.2::float8, '\x01');
SELECT is(grail.reachable('public.eval_float', 1, 3), true,
          'a row the filter keeps is logged whatever the writer''s extra_float_digits');
SELECT is((SELECT count(*) FROM grail.descendants('public.eval_float', 1)), 3::bigint,
          'and a query''s rebuild under that setting keeps it too');
SELECT is(current_setting('extra_float_digits'), '0', 'the writer''s setting is hers again');
RESET extra_float_digits;

SET bytea_output = 'escape';
INSERT INTO public.eval_edges VALUES (5, 6, 1, '\x00');
SELECT is(grail.reachable('public.eval_bytea', 5, 6), true, 'whatever the writer''s bytea_output');
DELETE FROM public.eval_edges WHERE source = 1;
SELECT is(grail.reachable('public.eval_bytea', 1, 2), false, 'a row deleted under it is gone from the graph');
SELECT is(current_setting('bytea_output'), 'escape', 'bytea_output is the writer''s again');
RESET bytea_output;

-- A merge (the same evaluation) changes no answer.
SELECT ok(grail.merge_graph('public.eval_float') IS NOT NULL AND grail.merge_graph('public.eval_bytea') IS NOT NULL,
          'both graphs merged');
SELECT is(grail.reachable('public.eval_float', 2, 3), true, 'the float graph answers as before the merge');
SELECT is(grail.reachable('public.eval_bytea', 1, 2), false, 'and the bytea graph');

SELECT * FROM finish();
ROLLBACK;
