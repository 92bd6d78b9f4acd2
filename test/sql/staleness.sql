-- A graph that is not live (live => false): any change to its edge table's rows makes queries on it
-- fail until a refresh.
CREATE TABLE live (source int, target int, note text);
INSERT INTO live VALUES (1, 2), (2, 3);
SELECT regexp_replace(grail.create_graph('live', 'live', live => false), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('live', 1, 3);

INSERT INTO live VALUES (3, 4);
SELECT grail.reachable('live', 1, 4);
SELECT stale FROM grail.graphs WHERE name = 'live';
SELECT regexp_replace(grail.refresh_graph('live'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('live', 1, 4);

UPDATE live SET target = 1 WHERE source = 3;
SELECT * FROM grail.scc_components('live');
SELECT regexp_replace(grail.refresh_graph('live'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT * FROM grail.scc_components('live');

DELETE FROM live WHERE source = 3;
SELECT * FROM grail.bfs('live', 1);
SELECT regexp_replace(grail.refresh_graph('live'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT * FROM grail.bfs('live', 1);

TRUNCATE live;
SELECT grail.scc_component('live', 1);
SELECT regexp_replace(grail.refresh_graph('live'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('live', 1, 2);

-- A change to another column, or one that is rolled back, leaves the graph fresh.
INSERT INTO live VALUES (1, 2, 'x');
SELECT regexp_replace(grail.refresh_graph('live'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
UPDATE live SET note = 'y';
SELECT grail.reachable('live', 1, 2);
BEGIN;
INSERT INTO live VALUES (2, 3);
ROLLBACK;
SELECT grail.reachable('live', 1, 2), stale FROM grail.graphs WHERE name = 'live';

-- A query after a change in the same transaction refuses the stale index too.
BEGIN;
INSERT INTO live VALUES (2, 3);
SELECT grail.reachable('live', 1, 3);
ROLLBACK;

-- Inside PL/pgSQL, where call sites live for the whole transaction.
DO $$
BEGIN
	PERFORM grail.reachable('live', 1, 2);
	INSERT INTO live VALUES (2, 3);
	PERFORM grail.reachable('live', 1, 3);
END
$$;

SELECT grail.drop_graph('live');
DROP TABLE live;
SELECT count(*) FROM grail.graphs;
