-- What happens to a graph when its table changes shape: renames follow (the graph keeps the
-- table's OID and the columns' numbers), DROP TABLE drops the graph; odd names are quoted.
CREATE SCHEMA "Odd Schema";
CREATE TABLE "Odd Schema"."Edge ""Table""" ("from id" int8, "To" int4);
INSERT INTO "Odd Schema"."Edge ""Table""" VALUES (1, 2), (2, 3);
SELECT regexp_replace(grail.create_graph('"odd ''name''; DROP TABLE x; --"', '"Odd Schema"."Edge ""Table"""', 'from id', 'To'),
                      'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT name, relation, source_column, target_column FROM grail.graphs;
SELECT grail.reachable('"odd ''name''; DROP TABLE x; --"', 1, 3);

-- Renames follow, and the triggers still log the renamed columns' changes (the graph is live).
ALTER TABLE "Odd Schema"."Edge ""Table""" RENAME COLUMN "from id" TO src;
ALTER TABLE "Odd Schema"."Edge ""Table""" RENAME TO renamed;
ALTER TABLE "Odd Schema".renamed SET SCHEMA public;
SELECT name, relation, source_column, target_column FROM grail.graphs;
SELECT grail.reachable('"odd ''name''; DROP TABLE x; --"', 1, 3);
UPDATE renamed SET src = 3 WHERE src = 2;
SELECT grail.reachable('"odd ''name''; DROP TABLE x; --"', 1, 3);
SELECT regexp_replace(grail.refresh_graph('"odd ''name''; DROP TABLE x; --"'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');

-- The triggers do not depend on the edge columns, but a change of an edge column's type rewrites
-- the rows without firing them: the graph is stale.
ALTER TABLE renamed ALTER COLUMN "To" TYPE bigint USING "To" + 1;
SELECT stale FROM grail.graphs WHERE relation = 'renamed'::regclass;

-- DROP TABLE takes the graph with it.
DROP TABLE renamed;
SELECT count(*) FROM grail.graphs;
SELECT count(*) FROM grail.graph;
SELECT grail.reachable('"odd ''name''; DROP TABLE x; --"', 1, 2);
DROP SCHEMA "Odd Schema";

-- A disabled or dropped trigger cannot let a change go unseen: the graph refuses to answer until a
-- refresh, which re-creates the triggers; then a write is logged and answered (the graph is live).
CREATE TABLE watched (source int, target int);
INSERT INTO watched VALUES (1, 2), (2, 3);
SELECT regexp_replace(grail.create_graph('watched', 'watched'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
ALTER TABLE watched DISABLE TRIGGER USER;
INSERT INTO watched VALUES (3, 4);
SELECT grail.reachable('watched', 1, 4);
SELECT regexp_replace(grail.refresh_graph('watched'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('watched', 1, 4);
SELECT tgenabled FROM pg_trigger WHERE tgrelid = 'watched'::regclass ORDER BY tgname;
DO $$
BEGIN
	EXECUTE (SELECT format('DROP TRIGGER %I ON watched', tgname) FROM pg_trigger
	         WHERE tgrelid = 'watched'::regclass AND tgname LIKE '%\_insert');
END
$$;
SELECT grail.reachable('watched', 1, 4);
SELECT regexp_replace(grail.refresh_graph('watched'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
INSERT INTO watched VALUES (4, 5);
SELECT grail.reachable('watched', 1, 5);
DROP TABLE watched;

-- A damaged index chunk is refused by the checksum when a backend loads it (the first chunk: the
-- others may hold fewer than 2,000 bytes, where the overlay would lengthen it instead).
CREATE TABLE damaged (source int, target int);
INSERT INTO damaged SELECT i, i + 1 FROM generate_series(1, 1000) i;
SELECT regexp_replace(grail.create_graph('damaged', 'damaged'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
UPDATE grail.index_chunk SET data = overlay(data PLACING '\xff'::bytea FROM 2000 FOR 1)
WHERE graph_id = (SELECT id FROM grail.graph WHERE name = 'damaged') AND seq = 0;
\c
SELECT grail.reachable('damaged', 1, 1000);
SELECT regexp_replace(grail.refresh_graph('damaged'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('damaged', 1, 1000);
SELECT grail.drop_graph('damaged');
DROP TABLE damaged;
