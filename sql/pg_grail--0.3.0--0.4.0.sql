-- pg_grail 0.3.0 -> 0.4.0: the image cache reports server-wide counters (backends that map each
-- image, hits, loads) and which mode it is in and why; graphs over partitioned tables, whose
-- triggers follow partitions created, attached and detached.
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.4.0'" to load this file. \quit

DROP FUNCTION grail.cache_info();
DROP FUNCTION grail.cache_counters();

CREATE FUNCTION grail.cache_info()
RETURNS TABLE (build uuid, bytes bigint, last_used timestamptz, backends integer, hits bigint, loads bigint)
AS 'MODULE_PATHNAME', 'grail_cache_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION grail.cache_info() IS
'The index images of this database in the server''s shared image cache: the build (grail.graph.build_uuid), its bytes, when a backend last opened it; and, when pg_grail is preloaded, how many backends map it now and how many times one opened it from the cache (hits) or wrote it from the catalog (loads) since the server started.';
REVOKE ALL ON FUNCTION grail.cache_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_info() TO pg_monitor;

CREATE FUNCTION grail.cache_counters(OUT cache_limit bigint, OUT cached_bytes bigint, OUT cached_images bigint,
                                     OUT hits bigint, OUT loads bigint, OUT private_copies bigint,
                                     OUT mode text, OUT mode_reason text)
RETURNS record
AS 'MODULE_PATHNAME', 'grail_cache_counters'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION grail.cache_counters() IS
'The shared image cache: its limit (grail.shared_cache_size), the bytes and images it holds (all databases); this session''s images opened from it (hits), read from the catalog (loads), and kept private (cache off or too small); the mode (shared or private) and why.';
REVOKE ALL ON FUNCTION grail.cache_counters() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_counters() TO pg_monitor;


-- Puts a graph's triggers on the tables its build depends on, removing them first from the tables
-- of its last build, and records the tables (what grail._watched checks): on the edge table and
-- each descendant that holds rows, grail_stale_<id> (AFTER INSERT OR DELETE OR TRUNCATE, FOR EACH
-- STATEMENT) and grail_stale_<id>_update (AFTER UPDATE, FOR EACH ROW, WHEN an edge column's stored
-- value changes: UPDATE OF would look at the SET list only, and a BEFORE trigger can change an edge
-- column without it); on each ancestor and each partitioned table of the family, grail_stale_<id>
-- on every write FOR EACH STATEMENT (a write through a parent fires the parent's statement
-- triggers, not the child's; an UPDATE that moves a row to another partition fires no UPDATE
-- trigger of a partition; and a row trigger on a partitioned table would be cloned onto its
-- partitions). All ENABLE ALWAYS, so that they fire under session_replication_role = replica
-- (logical replication apply, restores) too.
CREATE OR REPLACE FUNCTION grail._watch(graph_id bigint)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	t pg_catalog.oid;
	statement_trigger pg_catalog.text := 'grail_stale_' OPERATOR(pg_catalog.||) graph_id;
	update_trigger pg_catalog.text := 'grail_stale_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_update';
	up pg_catalog.oid[];
	down pg_catalog.oid[];
	read_from pg_catalog.oid[];      -- the descendants that store rows: what a build reads
	writes_through pg_catalog.oid[]; -- the ancestors and partitioned tables: writes reach the rows through them
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail._ancestors(g.relid::pg_catalog.oid);
	down := grail._descendants(g.relid::pg_catalog.oid);
	read_from := ARRAY(SELECT d FROM pg_catalog.unnest(down) d JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) d
	                   WHERE c.relkind OPERATOR(pg_catalog.<>) 'p');
	writes_through := up OPERATOR(pg_catalog.||) ARRAY(SELECT d FROM pg_catalog.unnest(down) d
	                                                 WHERE d OPERATOR(pg_catalog.<>) ALL (read_from));
	-- Off the tables that left the family; replaced in place on the others (a dropped trigger would
	-- make the graph stale, see grail._on_drop).
	PERFORM grail._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	FOREACH t IN ARRAY read_from LOOP
		EXECUTE pg_catalog.format(
			'CREATE OR REPLACE TRIGGER %I AFTER INSERT OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT '
			'EXECUTE FUNCTION grail._mark_stale(%L); '
			'CREATE OR REPLACE TRIGGER %I AFTER UPDATE ON %s FOR EACH ROW '
			'WHEN (OLD.%I IS DISTINCT FROM NEW.%I OR OLD.%I IS DISTINCT FROM NEW.%I) EXECUTE FUNCTION grail._mark_stale(%L); '
			'ALTER TABLE %s ENABLE ALWAYS TRIGGER %I, ENABLE ALWAYS TRIGGER %I',
			statement_trigger, t::pg_catalog.regclass, graph_id,
			update_trigger, t::pg_catalog.regclass, g.source_column, g.source_column, g.target_column, g.target_column,
			graph_id, t::pg_catalog.regclass, statement_trigger, update_trigger);
	END LOOP;
	FOREACH t IN ARRAY writes_through LOOP
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_trigger WHERE tgrelid OPERATOR(pg_catalog.=) t
		           AND tgname OPERATOR(pg_catalog.=) update_trigger) THEN
			EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', update_trigger, t::pg_catalog.regclass);
		END IF;
		EXECUTE pg_catalog.format(
			'CREATE OR REPLACE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT '
			'EXECUTE FUNCTION grail._mark_stale(%L); ALTER TABLE %s ENABLE ALWAYS TRIGGER %I',
			statement_trigger, t::pg_catalog.regclass, graph_id, t::pg_catalog.regclass, statement_trigger);
	END LOOP;
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$$;

-- Whether a CREATE TABLE or ALTER TABLE changed a table's inheritance family: 'rows' when a table
-- joined or left one with its rows, 'empty' when a new table joined one (src/pg/ddl_commands.cpp).
CREATE FUNCTION grail._family_change(pg_ddl_command)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_family_change'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail._family_change(pg_ddl_command) FROM PUBLIC;

-- A table joined or left the family of a graph's edge table (a partition created, attached or
-- detached; a child that inherits or stops): the graph's triggers move to its new family at once,
-- so that no write to a new member goes unseen, and the graph is stale if rows came or went with
-- the change. A new, empty partition leaves the graph answering: the routine monthly partition of a
-- lineage table must not stop its queries.
CREATE FUNCTION grail._on_family_change()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	change pg_catalog.text;
	tables pg_catalog.oid[];
	g record;
BEGIN
	-- 'rows' sorts after 'empty': the stronger change wins.
	SELECT pg_catalog.max(grail._family_change(c.command)),
	       pg_catalog.array_agg(c.objid) FILTER (WHERE grail._family_change(c.command) IS NOT NULL)
	INTO change, tables
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass;
	IF change IS NULL THEN
		RETURN;
	END IF;
	FOR g IN
		SELECT id FROM grail.graph
		WHERE EXISTS (SELECT 1 FROM pg_catalog.unnest(tables) t
		              WHERE t OPERATOR(pg_catalog.=) ANY (watched_tables::pg_catalog.oid[])
		                 OR relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail._ancestors(t)))
		  AND NOT grail._watched(id, relid::pg_catalog.oid, watched_tables)
	LOOP
		PERFORM grail._watch(g.id);
		IF change OPERATOR(pg_catalog.=) 'rows' THEN
			UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) g.id;
		END IF;
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail._on_family_change() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_family_change ON ddl_command_end WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
	EXECUTE FUNCTION grail._on_family_change();

ALTER EVENT TRIGGER grail_on_family_change ENABLE ALWAYS;
