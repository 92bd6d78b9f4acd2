-- Every bad input gets a clear error and changes nothing. The graph 'g' of create_graph.sql.
CREATE TABLE edges (source bigint, target bigint);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 5), (4, 5), (6, 7),
	(-9223372036854775808, 9223372036854775807), (5, 1);
SELECT regexp_replace(grail.create_graph('g', 'edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
CREATE TABLE bad_edges (source bigint, target bigint, label text, weight float8);
INSERT INTO bad_edges VALUES (1, 2, 'a', 1.0);

-- Unknown graph, for every function.
SELECT grail.reachable('nope', 1, 2);
SELECT grail.reachable('nope', ARRAY[1]::bigint[], ARRAY[2]::bigint[]);
SELECT * FROM grail.scc_components('nope');
SELECT grail.scc_component('nope', 1);
SELECT * FROM grail.bfs('nope', 1);
SELECT grail.refresh_graph('nope');
SELECT grail.drop_graph('nope');

-- A name already taken.
SELECT grail.create_graph('g', 'bad_edges');

-- Missing relation, missing columns, non-integer columns, system columns, empty name.
SELECT grail.create_graph('x', 'no_such_table');
SELECT grail.create_graph('x', 'bad_edges', 'src');
SELECT grail.create_graph('x', 'bad_edges', 'source', 'dst');
SELECT grail.create_graph('x', 'bad_edges', 'label', 'target');
SELECT grail.create_graph('x', 'bad_edges', 'source', 'weight');
SELECT grail.create_graph('x', 'bad_edges', 'ctid', 'target');
SELECT grail.create_graph('', 'bad_edges');

-- Not a table.
CREATE SEQUENCE bad_sequence;
SELECT grail.create_graph('x', 'bad_sequence');
DROP SEQUENCE bad_sequence;
-- A view takes no filter: its WHERE clause is its filter.
CREATE VIEW bad_view AS SELECT * FROM bad_edges;
SELECT grail.create_graph('x', 'bad_view', filter => 'true');
DROP VIEW bad_view;

-- Labels out of range.
SELECT grail.create_graph('x', 'bad_edges', labels => 0);
SELECT grail.create_graph('x', 'bad_edges', labels => 17);

-- NULL endpoints: an error naming the column and the count, unless skip_nulls.
INSERT INTO bad_edges VALUES (NULL, 2), (3, NULL), (NULL, 4), (NULL, NULL);
SELECT grail.create_graph('x', 'bad_edges');
SELECT regexp_replace(grail.create_graph('x', 'bad_edges', skip_nulls => true), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.drop_graph('x');

-- Nothing of the failed calls remains.
SELECT name FROM grail.graphs ORDER BY name;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'bad_edges'::regclass;

-- Batch arrays of unequal length or more than one dimension; negative BFS depth.
SELECT grail.reachable('g', ARRAY[1, 2]::bigint[], ARRAY[1]::bigint[]);
SELECT grail.reachable('g', ARRAY[[1, 2]]::bigint[], ARRAY[[1, 2]]::bigint[]);
SELECT * FROM grail.bfs('g', 1, -1);

-- The catalog is not writable directly.
CREATE ROLE grail_tester;
SET ROLE grail_tester;
SELECT count(*) FROM grail.graphs;
SELECT * FROM grail.index_chunk;
DELETE FROM grail.graph;
-- No SELECT on the edge table: no answers from its graph either.
SELECT grail.reachable('g', 1, 2);
SELECT grail.drop_graph('g');
RESET ROLE;
DROP ROLE grail_tester;
DROP TABLE bad_edges;
SELECT grail.drop_graph('g');
DROP TABLE edges;
