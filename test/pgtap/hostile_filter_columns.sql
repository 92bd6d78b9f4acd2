-- A filtered graph's sizes count the rows its filter passes, so grail.graphs and grail.activity show
-- it only to roles that may read the filter's columns too, as querying it needs: a role with SELECT
-- on the edge columns alone must not learn how many rows pass "salary > 150000".
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(12);

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
