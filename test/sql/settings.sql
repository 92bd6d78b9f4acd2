-- grail.stale_policy and grail.build_memory_limit.
CREATE TABLE settings_edges (source int, target int);
INSERT INTO settings_edges SELECT i, i + 1 FROM generate_series(1, 10) i;
SELECT regexp_replace(grail.create_graph('settings', 'settings_edges', live => false), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
INSERT INTO settings_edges VALUES (11, 1);

-- error (the default) refuses a stale graph; warn answers from the last build and says so.
SHOW grail.stale_policy;
SELECT grail.reachable('settings', 11, 1);
SET grail.stale_policy = warn;
SELECT grail.reachable('settings', 11, 1), grail.reachable('settings', 1, 11);
RESET grail.stale_policy;

-- A build estimated to need more memory than the limit fails before it allocates, with the
-- estimate and the setting to raise; the previous build stays.
SHOW grail.build_memory_limit;
-- The host's build (rows read for a GPU count less: test/pgtap/device_build.sql).
SET grail.device = cpu;
SET grail.build_memory_limit = '1MB';
INSERT INTO settings_edges SELECT i, i + 1 FROM generate_series(100, 20100) i;
SELECT grail.refresh_graph('settings');
DELETE FROM settings_edges WHERE source >= 100;
-- Few rows, many vertices: the estimate after mapping the ids is over the limit.
INSERT INTO settings_edges SELECT 2 * i, 2 * i + 1 FROM generate_series(100, 8000) i;
SELECT grail.refresh_graph('settings');
RESET grail.build_memory_limit;
RESET grail.device;
SELECT regexp_replace(grail.refresh_graph('settings'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SET grail.build_memory_limit = 0;
SELECT regexp_replace(grail.refresh_graph('settings'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
RESET grail.build_memory_limit;
-- Only a superuser may change it.
CREATE ROLE grail_settings_tester;
SET ROLE grail_settings_tester;
SET grail.build_memory_limit = '100GB';
RESET ROLE;
DROP ROLE grail_settings_tester;
SELECT grail.drop_graph('settings');
DROP TABLE settings_edges;
