-- ALTER EXTENSION UPDATE from every released version gives what a fresh install gives, and the
-- graphs built before the update keep answering from their indexes.
CREATE TABLE upgrade_objects AS
SELECT pg_describe_object(classid, objid, objsubid) AS object
FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
  AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'pg_grail');
CREATE TABLE upgrade_functions AS
SELECT p.oid::regprocedure::text AS function, pg_get_functiondef(p.oid) AS definition,
       obj_description(p.oid, 'pg_proc') AS comment, p.procost, p.prorows, p.prosupport::regproc::text AS support
FROM pg_proc p WHERE p.pronamespace IN ('grail'::regnamespace, 'grail_internal'::regnamespace);
CREATE TABLE upgrade_event_triggers AS
SELECT evtname, evtevent, evtenabled, evttags::text AS tags, evtfoid::regprocedure::text AS function
FROM pg_event_trigger WHERE evtname LIKE 'grail\_%';
CREATE TABLE upgrade_relations AS
SELECT c.relname, c.relreplident, c.reloptions, pg_get_viewdef(c.oid) AS view_definition
FROM pg_class c WHERE c.relnamespace = 'grail'::regnamespace;

-- Indexes as 0.1.0 and 0.2.0 stored them (the format has not changed since): built here and kept
-- aside, since this library cannot run on an older catalog.
CREATE SCHEMA upgrade_other;
CREATE TABLE upgrade_edges (source int, target int);
INSERT INTO upgrade_edges VALUES (1, 2), (2, 3), (3, 1), (3, 4);
CREATE TABLE upgrade_other.edges (source int, target int);
INSERT INTO upgrade_other.edges VALUES (7, 8);
SELECT regexp_replace(grail.create_graph('upgrade', 'upgrade_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT regexp_replace(grail.create_graph('upgrade_other."Old Name"', 'upgrade_other.edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
CREATE TABLE upgrade_builds AS
SELECT g.name, g.relid, g.labels, g.skip_nulls, g.input_rows, g.null_rows, g.vertices, g.edges,
       g.components, g.dag_edges, g.index_bytes, c.seq, c.data
FROM grail.graph g JOIN grail.index_chunk c ON c.graph_id = g.id;
SELECT grail.drop_graph('upgrade'), grail.drop_graph('upgrade_other."Old Name"');

DROP EXTENSION pg_grail;
CREATE EXTENSION pg_grail VERSION '0.1.0';
-- What 0.1.0's create_graph left: graph rows (names were then global text), chunks, triggers.
INSERT INTO grail.graph (name, relid, source_attnum, target_attnum, owner, labels, skip_nulls, build, built_at,
                         input_rows, null_rows, vertices, edges, components, dag_edges, index_bytes)
SELECT DISTINCT b.name, b.relid, 1, 2, current_user::regrole, b.labels, b.skip_nulls,
       nextval('grail.build_seq'), now(), b.input_rows, b.null_rows, b.vertices, b.edges, b.components,
       b.dag_edges, b.index_bytes
FROM upgrade_builds b;
INSERT INTO grail.index_chunk SELECT g.id, b.seq, b.data FROM upgrade_builds b JOIN grail.graph g USING (name);
DO $$
DECLARE g record;
BEGIN
	FOR g IN SELECT id, relid FROM grail.graph LOOP
		EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF source, target ON %s '
		               'FOR EACH STATEMENT EXECUTE FUNCTION grail._mark_stale(%L)', 'grail_stale_' || g.id, g.relid, g.id);
	END LOOP;
END $$;
-- This library refuses the old catalog with a request to update, rather than misread it.
SELECT grail.reachable('upgrade', 1, 4);
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
   OR obj_description(p.oid, 'pg_proc') IS DISTINCT FROM f.comment
   OR (p.procost, p.prorows, p.prosupport::regproc::text) IS DISTINCT FROM (f.procost, f.prorows, f.support);
SELECT evtname AS event_trigger_differs_after_update FROM (
	(SELECT * FROM upgrade_event_triggers
	 EXCEPT SELECT evtname, evtevent, evtenabled, evttags::text, evtfoid::regprocedure::text
	 FROM pg_event_trigger WHERE evtname LIKE 'grail\_%')
	UNION
	(SELECT evtname, evtevent, evtenabled, evttags::text, evtfoid::regprocedure::text
	 FROM pg_event_trigger WHERE evtname LIKE 'grail\_%'
	 EXCEPT SELECT * FROM upgrade_event_triggers)) d;
-- The internal functions moved out of grail (the two trigger functions that users' triggers name
-- excepted), with their privileges: after the update as after a fresh install.
SELECT p.oid::regprocedure AS internal_in_grail FROM pg_proc p
WHERE p.pronamespace = 'grail'::regnamespace AND p.proname LIKE '\_%'
ORDER BY 1::text;
SELECT count(*) AS internal_functions,
       count(*) FILTER (WHERE has_function_privilege('public', p.oid, 'EXECUTE')) AS public_may_run
FROM pg_proc p WHERE p.pronamespace = 'grail_internal'::regnamespace;
SELECT n.nspname, e.extname FROM pg_namespace n
JOIN pg_depend d ON d.classid = 'pg_namespace'::regclass AND d.objid = n.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid WHERE n.nspname = 'grail_internal';
-- Tables and views with the same replica identity, options (security_barrier) and definitions.
SELECT DISTINCT relname AS relation_differs_after_update FROM (
	(TABLE upgrade_relations
	 EXCEPT SELECT c.relname, c.relreplident, c.reloptions, pg_get_viewdef(c.oid)
	        FROM pg_class c WHERE c.relnamespace = 'grail'::regnamespace)
	UNION ALL
	(SELECT c.relname, c.relreplident, c.reloptions, pg_get_viewdef(c.oid)
	 FROM pg_class c WHERE c.relnamespace = 'grail'::regnamespace
	 EXCEPT TABLE upgrade_relations)) d;

-- Each graph went into the schema of its edge table, under its old name; the indexes are reused.
SELECT schema, name, relation FROM grail.graphs ORDER BY name;
SELECT grail.reachable('upgrade', 1, 4), grail.reachable('upgrade', 4, 1);
SELECT c FROM grail.chordless_cycles('upgrade') c;
SELECT grail.reachable('upgrade_other."Old Name"', 7, 8);
SET search_path = upgrade_other, public;
SELECT grail.reachable('"Old Name"', 7, 8);
RESET search_path;
-- Their staleness triggers still watch the tables.
INSERT INTO upgrade_other.edges VALUES (8, 9);
SELECT grail.reachable('upgrade_other."Old Name"', 7, 9);
SELECT grail.drop_graph('upgrade_other."Old Name"');

-- An index in a format this version cannot read is refused with a request to refresh (a build
-- of its own: the image cache holds the one before).
UPDATE grail.index_chunk SET data = overlay(data PLACING '\x63000000'::bytea FROM 9 FOR 4)
WHERE graph_id = (SELECT id FROM grail.graph WHERE name = 'upgrade');
UPDATE grail.graph SET build_uuid = gen_random_uuid() WHERE name = 'upgrade';
\c
SELECT grail.reachable('upgrade', 1, 4);
SELECT regexp_replace(grail.refresh_graph('upgrade'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT grail.reachable('upgrade', 1, 4);

SELECT grail.drop_graph('upgrade');
DROP TABLE upgrade_edges, upgrade_objects, upgrade_functions, upgrade_event_triggers, upgrade_relations, upgrade_builds;
DROP SCHEMA upgrade_other CASCADE;
