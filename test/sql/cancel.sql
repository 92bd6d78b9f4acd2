-- Long operations stop promptly on statement_timeout (or a cancel) and leave the previous state.
CREATE TABLE cancel_edges (source bigint, target bigint);
INSERT INTO cancel_edges SELECT i, i + 1 FROM generate_series(1, 10) i;
SELECT regexp_replace(grail.create_graph('cancel', 'cancel_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
-- Three million random edges: a build of seconds on any machine.
SELECT setseed(0.1) \gset
-- Terse: where the timeout lands (reading, building, storing) decides the error's CONTEXT line.
\set VERBOSITY terse
BEGIN;
INSERT INTO cancel_edges SELECT (random() * 1e6)::bigint, (random() * 1e6)::bigint FROM generate_series(1, 3000000);
-- The graph is live: a query reads the three million pending edges (this transaction's, so no
-- background merge takes them meanwhile) and builds from the rows. It stops promptly, and when let
-- run it answers in seconds (a per-batch reallocation of the pending rows once made it minutes).
SELECT clock_timestamp() AS started \gset
SAVEPOINT before_timeout;
SET LOCAL statement_timeout = '300ms';
SELECT grail.reachable('cancel', 1, 5);
ROLLBACK TO SAVEPOINT before_timeout;
SELECT clock_timestamp() - :'started' < interval '1.3 s' AS stopped_promptly;
SET LOCAL statement_timeout = '60s';
SELECT grail.reachable('cancel', 1, 5);
COMMIT;

SELECT clock_timestamp() AS started \gset
SET statement_timeout = '300ms';
SELECT grail.refresh_graph('cancel');
RESET statement_timeout;
SELECT clock_timestamp() - :'started' < interval '1.3 s' AS stopped_promptly;
SELECT stale FROM grail.graphs WHERE name = 'cancel';

-- 700 ms: past reading the table, inside the engine's build (C++ unwinds, then the error). On the
-- CPU: a GPU builds these rows in less. Six million edges, a table of their own (no graph logs
-- them): three million built in 0.7-0.9 s on a quiet 2-core machine, too close to the timeout.
CREATE TABLE cancel_edges2 AS
	SELECT (random() * 2e6)::bigint AS source, (random() * 2e6)::bigint AS target FROM generate_series(1, 6000000);
SET grail.device = cpu;
SELECT clock_timestamp() AS started \gset
SET statement_timeout = '700ms';
SELECT grail.create_graph('cancel2', 'cancel_edges2');
RESET statement_timeout;
SELECT clock_timestamp() - :'started' < interval '1.3 s' AS stopped_promptly;
SELECT count(*) FROM grail.graphs WHERE name = 'cancel2';
RESET grail.device;

\set VERBOSITY default
SELECT grail.drop_graph('cancel');
DROP TABLE cancel_edges, cancel_edges2;
