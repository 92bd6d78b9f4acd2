-- Bad input: the SQLSTATE of every error, so that applications can handle them.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(19);

CREATE TABLE err_edges (source bigint, target bigint, name text);
INSERT INTO err_edges VALUES (1, 2, 'x');
SELECT grail.create_graph('err', 'err_edges', live => false);

SELECT throws_ok($$SELECT grail.reachable('missing', 1, 2)$$, '42704', NULL, 'unknown graph: undefined_object');
SELECT throws_ok($$SELECT grail.create_graph('err', 'err_edges')$$, '42710', NULL, 'name taken: duplicate_object');
SELECT throws_ok($$SELECT grail.create_graph('x', 'no_table')$$, '42P01', NULL, 'missing table: undefined_table');
SELECT throws_ok($$SELECT grail.create_graph('x', 'err_edges', 'nope')$$, '42703', NULL, 'missing column: undefined_column');
SELECT throws_ok($$SELECT grail.create_graph('x', 'err_edges', 'name')$$, '42804', NULL, 'text column: datatype_mismatch');
SELECT throws_ok($$SELECT grail.create_graph('x', 'err_edges', labels => 0)$$, '22023', NULL, 'labels 0: invalid_parameter_value');
SELECT throws_ok($$SELECT grail.create_graph('x', 'err_edges', labels => 17)$$, '22023', NULL, 'labels 17: invalid_parameter_value');
SELECT throws_ok($$SELECT grail.create_graph('', 'err_edges')$$, '22023', NULL, 'empty name: invalid_parameter_value');
SELECT throws_ok($$SELECT grail.create_graph('x', 'pg_class')$$, '42703', NULL, 'a catalog without the columns');
SELECT throws_ok($$SELECT grail.reachable('err', ARRAY[1]::bigint[], ARRAY[1, 2]::bigint[])$$, '2202E', NULL,
                 'arrays of unequal length: array_subscript_error');
SELECT throws_ok($$SELECT * FROM grail.bfs('err', 1, -1)$$, '22023', NULL, 'negative depth: invalid_parameter_value');
INSERT INTO err_edges VALUES (2, 3);
SELECT throws_ok($$SELECT grail.reachable('err', 1, 3)$$, '55000', NULL, 'stale graph: object_not_in_prerequisite_state');
INSERT INTO err_edges VALUES (NULL, 3);
SELECT throws_ok($$SELECT grail.refresh_graph('err')$$, '23502', NULL, 'NULL endpoint: not_null_violation');
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'err'), true, 'a failed refresh leaves the graph as it was');
DELETE FROM err_edges WHERE source IS NULL;
SELECT lives_ok($$SELECT grail.refresh_graph('err')$$, 'refresh once the table is clean');
SELECT is(grail.reachable('err', 1, 3), true, 'and the graph answers again');

-- A label count edited by hand into grail.graph: refresh and merge name the graph and the repair.
UPDATE grail.graph SET labels = 1000 WHERE name = 'err';
SELECT throws_ok($$SELECT grail.refresh_graph('err')$$, '22023',
                 'pg_grail graph "err" has 1000 GRAIL labels in grail.graph, not 1 to 16',
                 'a hand-edited label count: refresh names the graph');
UPDATE grail.graph SET labels = 0 WHERE name = 'err';
SELECT throws_ok($$SELECT grail.merge_graph('err')$$, '22023',
                 'pg_grail graph "err" has 0 GRAIL labels in grail.graph, not 1 to 16',
                 'and so does a merge');
UPDATE grail.graph SET labels = 2 WHERE name = 'err';
SELECT lives_ok($$SELECT grail.refresh_graph('err')$$, 'repaired, the graph refreshes');

SELECT * FROM finish();
ROLLBACK;
