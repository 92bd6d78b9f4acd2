-- scc_components() and scc_component(): component id = smallest vertex id in the component. The
-- graph 'g' of create_graph.sql: 1 -> 2 -> 3 -> 1, 3 -> 4 -> 5 -> 1, 5 -> 5, 6 -> 7, min -> max.
CREATE TABLE edges (source bigint, target bigint);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 5), (4, 5), (6, 7),
	(-9223372036854775808, 9223372036854775807), (5, 1);
SELECT regexp_replace(grail.create_graph('g', 'edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT * FROM grail.scc_components('g');
SELECT grail.scc_component('g', 4), grail.scc_component('g', 7), grail.scc_component('g', 42);
SELECT grail.scc_component('g', NULL) IS NULL;

-- Two cycles joined one way stay two components.
CREATE TABLE two_cycles (source int, target int);
INSERT INTO two_cycles VALUES (10, 11), (11, 10), (11, 20), (20, 21), (21, 22), (22, 20), (30, 30);
SELECT regexp_replace(grail.create_graph('two', 'two_cycles'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT component, array_agg(vertex ORDER BY vertex) FROM grail.scc_components('two') GROUP BY component ORDER BY component;
SELECT grail.drop_graph('two');
DROP TABLE two_cycles;
SELECT grail.drop_graph('g');
DROP TABLE edges;
