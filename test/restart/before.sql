-- Run before a server restart (not in a transaction): a graph and the answers it must give.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS pg_grail;
DROP TABLE IF EXISTS restart_edges, restart_expected;
CREATE TABLE restart_edges AS
SELECT (i * 37) % 500 AS source, (i * 91 + 7) % 500 AS target FROM generate_series(1, 1200) i;
SELECT grail.create_graph('restart', 'restart_edges') IS NOT NULL AS created;
CREATE TABLE restart_expected AS
SELECT s, t, grail.reachable('restart', s, t) AS reachable
FROM generate_series(0, 499, 7) s, generate_series(0, 499, 11) t;
