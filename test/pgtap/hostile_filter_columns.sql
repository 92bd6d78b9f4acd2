-- A filtered graph's sizes count the rows its filter passes, so grail.graphs and grail.activity show
-- it only to roles that may read the filter's columns too, as querying it needs: a role with SELECT
-- on the edge columns alone must not learn how many rows pass "salary > 150000".
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(14);

CREATE ROLE grail_filter_spy;
CREATE ROLE grail_filter_reader;
CREATE TABLE filter_pay (source bigint, target bigint, salary int);
INSERT INTO filter_pay SELECT i, i + 1, (i * 7919) % 200000 FROM generate_series(1, 1000) i;
SELECT grail.create_graph('filter_rich', 'filter_pay', filter => 'salary > 150000');
SELECT grail.create_graph('filter_all', 'filter_pay');
INSERT INTO filter_pay VALUES (0, 1, 199999);  -- a pending change that passes the filter
GRANT SELECT (source, target) ON filter_pay TO grail_filter_spy, grail_filter_reader;
GRANT SELECT (salary) ON filter_pay TO grail_filter_reader;

SET ROLE grail_filter_spy;
SELECT throws_ok($$SELECT grail.reachable('filter_rich', 1, 2)$$, '42501', NULL,
                 'the spy may not query the filtered graph');
SELECT is(ARRAY(SELECT name FROM grail.graphs WHERE name LIKE 'filter%' ORDER BY name), '{filter_all}',
          'grail.graphs does not show the spy the filtered graph (its edges count the rows the filter passes)');
SELECT is((SELECT count(*) FROM grail.graphs WHERE filter IS NOT NULL), 0::bigint,
          'nor its filter''s text');
SELECT is(ARRAY(SELECT graph FROM grail.activity WHERE graph LIKE 'filter%' ORDER BY graph), '{filter_all}',
          'grail.activity does not show it either (its pending changes)');
RESET ROLE;

SET ROLE grail_filter_reader;
SELECT is(ARRAY(SELECT name FROM grail.graphs WHERE name LIKE 'filter%' ORDER BY name),
          '{filter_all,filter_rich}', 'a role that may read the filter''s columns sees both graphs');
SELECT is((SELECT pending_changes FROM grail.graphs WHERE name = 'filter_rich'), 1::bigint,
          'with the filtered graph''s pending changes');
SELECT is(ARRAY(SELECT graph FROM grail.activity WHERE graph LIKE 'filter%' ORDER BY graph),
          '{filter_all,filter_rich}', 'in grail.activity too');
RESET ROLE;

-- The progress side of grail.activity: an open chordless_cycles() search over the filtered graph
-- (its total is the filtered graph's vertices).
CREATE TABLE filter_grid (source bigint, target bigint, salary int);
INSERT INTO filter_grid SELECT r * 10 + c, r * 10 + c + 1, 200000 FROM generate_series(0, 7) r, generate_series(0, 8) c;
INSERT INTO filter_grid SELECT r * 10 + c, (r + 1) * 10 + c, 200000 FROM generate_series(0, 6) r, generate_series(0, 9) c;
SELECT grail.create_graph('pay_grid_graph', 'filter_grid', filter => 'salary > 150000');
GRANT SELECT (source, target) ON filter_grid TO grail_filter_spy, grail_filter_reader;
GRANT SELECT (salary) ON filter_grid TO grail_filter_reader;
DECLARE filter_search CURSOR FOR SELECT grail.chordless_cycles('pay_grid_graph');
FETCH 1 FROM filter_search;
SET ROLE grail_filter_spy;
SELECT is((SELECT count(*) FROM grail.activity WHERE graph = 'pay_grid_graph'), 0::bigint,
          'grail.activity does not show the spy an open search of the filtered graph');
RESET ROLE;
-- (Progress is shown with pg_grail preloaded; the setting is read before SET ROLE, which may not.)
SELECT current_setting('shared_preload_libraries') ~ '\mpg_grail\M' AS preloaded \gset
SET ROLE grail_filter_reader;
SELECT CASE WHEN :'preloaded'::boolean THEN
	is((SELECT total FROM grail.activity WHERE graph = 'pay_grid_graph' AND command = 'chordless_cycles'),
	   80::bigint, 'the reader sees it, with the filtered graph''s vertices as its total')
ELSE skip('grail.activity shows progress only with pg_grail in shared_preload_libraries', 1) END;
RESET ROLE;
CLOSE filter_search;

-- A renamed filter column is still checked (grail.graph.filter_columns follows the rename).
ALTER TABLE filter_pay RENAME COLUMN salary TO pay;
SET ROLE grail_filter_spy;
SELECT is(ARRAY(SELECT name FROM grail.graphs WHERE name LIKE 'filter%' ORDER BY name), '{filter_all}',
          'after a rename of the filter column the spy still does not see the filtered graph');
RESET ROLE;
SET ROLE grail_filter_reader;
SELECT is(ARRAY(SELECT name FROM grail.graphs WHERE name LIKE 'filter%' ORDER BY name),
          '{filter_all,filter_rich}', 'and the reader still does');
RESET ROLE;

-- A dropped filter column leaves the graph stale; the view still lists it to those who may read the
-- edge columns (nothing is left to count by), and does not fail on the missing column.
ALTER TABLE filter_pay DROP COLUMN pay;
SET ROLE grail_filter_spy;
SELECT lives_ok($$SELECT count(*) FROM grail.graphs$$, 'grail.graphs reads with a filter column gone');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'filter_rich'), true,
          'and shows the graph whose filter column was dropped as stale');
SELECT lives_ok($$SELECT count(*) FROM grail.activity$$, 'so does grail.activity');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
