-- ALTER EXTENSION UPDATE from every released version gives what a fresh install gives, and the
-- graphs built before the update keep answering from their indexes.
CREATE TABLE upgrade_objects AS
SELECT pg_describe_object(classid, objid, objsubid) AS object
FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_grail');
CREATE TABLE upgrade_functions AS
SELECT p.oid::regprocedure::text AS function, pg_get_functiondef(p.oid) AS definition,
       obj_description(p.oid, 'pg_proc') AS comment
FROM pg_proc p WHERE p.pronamespace = 'grail'::regnamespace;

DROP EXTENSION pg_grail;
CREATE EXTENSION pg_grail VERSION '0.1.0';
CREATE TABLE upgrade_edges (source int, target int);
INSERT INTO upgrade_edges VALUES (1, 2), (2, 3), (3, 1), (3, 4);
SELECT regexp_replace(grail.create_graph('upgrade', 'upgrade_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
ALTER EXTENSION pg_grail UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'pg_grail';

-- The same objects, definitions and comments as a fresh install.
SELECT object AS missing_after_update FROM upgrade_objects
EXCEPT SELECT pg_describe_object(classid, objid, objsubid) FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_grail');
SELECT pg_describe_object(classid, objid, objsubid) AS extra_after_update FROM pg_depend
WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_grail')
EXCEPT SELECT object FROM upgrade_objects;
SELECT f.function AS differs_after_update FROM upgrade_functions f
JOIN pg_proc p ON p.oid::regprocedure::text = f.function
WHERE pg_get_functiondef(p.oid) IS DISTINCT FROM f.definition
   OR obj_description(p.oid, 'pg_proc') IS DISTINCT FROM f.comment;

-- The index built by 0.1.0 is reused: same format.
SELECT grail.reachable('upgrade', 1, 4), grail.reachable('upgrade', 4, 1);
SELECT c FROM grail.chordless_cycles('upgrade') c;

-- An index in a format this version cannot read is refused with a request to refresh.
UPDATE grail.index_chunk SET data = overlay(data PLACING '\x63000000'::bytea FROM 9 FOR 4)
WHERE graph_id = (SELECT id FROM grail.graph WHERE name = 'upgrade');
\c
SELECT grail.reachable('upgrade', 1, 4);
SELECT regexp_replace(grail.refresh_graph('upgrade'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('upgrade', 1, 4);

SELECT grail.drop_graph('upgrade');
DROP TABLE upgrade_edges, upgrade_objects, upgrade_functions;
