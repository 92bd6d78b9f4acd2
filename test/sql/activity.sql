-- grail.activity: each graph's pending changes, and the builds and merges in progress (none here:
-- progress is only seen from another session while one runs; test/t/011_merge_worker.pl).
CREATE TABLE activity_edges (source bigint, target bigint);
INSERT INTO activity_edges VALUES (1, 2), (2, 3);
SELECT regexp_replace(grail.create_graph('activity_graph', 'activity_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT schema, graph, relation, live, pending_changes, pid, command, phase, done, total, unit, started, elapsed
FROM grail.activity WHERE graph = 'activity_graph';
SELECT grail.alter_graph('activity_graph', true);
INSERT INTO activity_edges VALUES (3, 4), (4, 5);
DELETE FROM activity_edges WHERE source = 1;
SELECT graph, live, pending_changes, pid IS NULL AS no_build FROM grail.activity WHERE graph = 'activity_graph';
-- A transaction sees its own pending changes; a rolled-back one leaves none.
BEGIN;
INSERT INTO activity_edges VALUES (5, 6);
SELECT pending_changes FROM grail.activity WHERE graph = 'activity_graph';
ROLLBACK;
SELECT pending_changes FROM grail.activity WHERE graph = 'activity_graph';
SELECT regexp_replace(grail.merge_graph('activity_graph'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT graph, live, pending_changes FROM grail.activity WHERE graph = 'activity_graph';
SELECT grail.reachable('activity_graph', 2, 5), grail.reachable('activity_graph', 1, 2);
-- A role that may not read the edge columns sees neither the graph nor its activity.
CREATE ROLE activity_reader;
SET ROLE activity_reader;
SELECT count(*) FROM grail.activity WHERE graph = 'activity_graph';
RESET ROLE;
GRANT SELECT (source, target) ON activity_edges TO activity_reader;
SET ROLE activity_reader;
SELECT graph, pending_changes FROM grail.activity WHERE graph = 'activity_graph';
RESET ROLE;
REVOKE SELECT (source, target) ON activity_edges FROM activity_reader;
-- Members of pg_read_all_stats see every graph.
GRANT pg_read_all_stats TO activity_reader;
SET ROLE activity_reader;
SELECT graph, pending_changes FROM grail.activity WHERE graph = 'activity_graph';
RESET ROLE;
DROP ROLE activity_reader;
SELECT grail.drop_graph('activity_graph');
DROP TABLE activity_edges;
-- The background merge's settings: defaults and who may set them (postgresql.conf, reload).
SELECT name, boot_val, unit, context, min_val, max_val FROM pg_settings
WHERE name IN ('grail.merge_threshold', 'grail.merge_naptime', 'grail.max_merge_workers') ORDER BY name;
SET grail.merge_threshold = 5;
