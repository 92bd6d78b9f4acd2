-- bfs(): (vertex, depth, parent) ordered by depth then vertex; parent = smallest vertex one
-- level up with an edge to the child.
CREATE TABLE diamond (source int, target int);
INSERT INTO diamond VALUES (1, 3), (1, 2), (2, 4), (3, 4), (4, 5), (5, 1), (4, 4), (9, 1);
SELECT regexp_replace(grail.create_graph('diamond', 'diamond'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT * FROM grail.bfs('diamond', 1);
SELECT * FROM grail.bfs('diamond', 1, 1);
SELECT * FROM grail.bfs('diamond', 1, 0);
SELECT * FROM grail.bfs('diamond', 9);
SELECT * FROM grail.bfs('diamond', 5, max_depth => 2);
-- A vertex without out-edges (7 of create_graph.sql's graph 'g'), an id that is not in the graph,
-- NULLs.
CREATE TABLE edges (source bigint, target bigint);
INSERT INTO edges VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (5, 5), (4, 5), (6, 7),
	(-9223372036854775808, 9223372036854775807), (5, 1);
SELECT regexp_replace(grail.create_graph('g', 'edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT * FROM grail.bfs('g', 7);
SELECT * FROM grail.bfs('diamond', 100);
SELECT count(*) FROM grail.bfs('diamond', NULL);
SELECT count(*) FROM grail.bfs(NULL, 1);
SELECT grail.drop_graph('diamond');
DROP TABLE diamond;
SELECT grail.drop_graph('g');
DROP TABLE edges;
