-- pg_grail 0.3.0 -> 0.4.0: the image cache reports server-wide counters (backends that map each
-- image, hits, loads) and which mode it is in and why; graphs over partitioned tables, whose
-- triggers follow partitions created, attached and detached; text and uuid vertex keys.
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

-- Text (text, varchar) and uuid keys: the same functions, taking and returning keys of the graph's
-- type. A graph keyed by one kind refuses keys of another. Functions whose arguments cannot say the
-- key type take key_type, a NULL of it: grail.scc_components('deps', NULL::text).
CREATE FUNCTION grail.reachable(graph text, source text, target text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.reachable(text, text, text) IS
'reachable() over a graph with text keys; a key that is not in the graph reaches only itself.';

CREATE FUNCTION grail.reachable(graph text, source uuid, target uuid)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.reachable(text, uuid, uuid) IS
'reachable() over a graph with uuid keys; a key that is not in the graph reaches only itself.';

CREATE FUNCTION grail.reachable(graph text, sources text[], targets text[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.reachable(text, text[], text[]) IS
'reachable() for each pair (sources[i], targets[i]) of text keys; a NULL element gives NULL.';

CREATE FUNCTION grail.reachable(graph text, sources uuid[], targets uuid[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.reachable(text, uuid[], uuid[]) IS
'reachable() for each pair (sources[i], targets[i]) of uuid keys; a NULL element gives NULL.';

CREATE FUNCTION grail.scc_components(graph text, key_type anyelement)
RETURNS TABLE (vertex anyelement, component anyelement)
AS 'MODULE_PATHNAME', 'grail_scc_components_keyed'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.scc_components(text, anyelement) IS
'scc_components() with keys of the type of key_type (NULL::bigint, NULL::text, NULL::varchar or NULL::uuid, as the graph''s keys): each component is identified by its smallest key (byte order, as COLLATE "C", for text; uuid order for uuid); ordered by key.';

CREATE FUNCTION grail.scc_component(graph text, vertex text)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_scc_component_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.scc_component(text, text) IS
'The strongly connected component of one text key: its smallest key in byte order (COLLATE "C"); a key that is not in the graph is its own component.';

CREATE FUNCTION grail.scc_component(graph text, vertex uuid)
RETURNS uuid
AS 'MODULE_PATHNAME', 'grail_scc_component_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.scc_component(text, uuid) IS
'The strongly connected component of one uuid key: its smallest key; a key that is not in the graph is its own component.';

CREATE FUNCTION grail.bfs(graph text, source text, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex text, depth int, parent text)
AS 'MODULE_PATHNAME', 'grail_bfs_text'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.bfs(text, text, int) IS
'bfs() from a text key: each reached key, its depth and its parent (the smallest key in byte order one level up with an edge to it).';

CREATE FUNCTION grail.bfs(graph text, source uuid, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex uuid, depth int, parent uuid)
AS 'MODULE_PATHNAME', 'grail_bfs_uuid'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.bfs(text, uuid, int) IS
'bfs() from a uuid key: each reached key, its depth and its parent (the smallest key one level up with an edge to it).';

-- The type of a graph's keys (bigint, text or uuid), for SQL that must name it.
CREATE FUNCTION grail._key_type(graph text)
RETURNS regtype
AS 'MODULE_PATHNAME', 'grail_key_type'
LANGUAGE C STABLE STRICT;

CREATE FUNCTION grail.chordless_cycles(graph text, key_type anyelement, min_length int DEFAULT 3,
                                       max_length int DEFAULT NULL)
RETURNS SETOF anyarray
AS 'MODULE_PATHNAME', 'grail_chordless_cycles_keyed'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.chordless_cycles(text, anyelement, int, int) IS
'chordless_cycles() with keys of the type of key_type (NULL::bigint, NULL::text, NULL::varchar or NULL::uuid, as the graph''s keys): each cycle from its smallest key (byte order for text) towards its smaller neighbour.';

CREATE OR REPLACE FUNCTION grail.save_chordless_cycles(graph text, into_table text, min_length int DEFAULT 3,
                                            max_length int DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
AS $$
DECLARE
	parts text[];
	target text;
	key_type pg_catalog.text; -- the graph's key type, schema-qualified: pg_catalog.int8, .text or .uuid
	saved bigint;
BEGIN
	IF graph IS NULL OR into_table IS NULL OR min_length IS NULL THEN
		RAISE EXCEPTION 'graph, into_table and min_length must not be NULL' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	-- The name as the SQL parser reads it (quotes, case folding, schema), then quoted part by part.
	parts := pg_catalog.parse_ident(into_table);
	IF pg_catalog.cardinality(parts) > 2 THEN
		RAISE EXCEPTION 'into_table must name a table, optionally schema-qualified, not "%"', into_table
			USING ERRCODE = 'invalid_name';
	END IF;
	-- Qualified once, so that CREATE TABLE and INSERT mean the same table (an unqualified name
	-- would create in the first schema of the search_path but insert into a temporary table of
	-- that name first).
	IF pg_catalog.cardinality(parts) OPERATOR(pg_catalog.=) 1 THEN
		IF pg_catalog.current_schema() IS NULL THEN
			RAISE EXCEPTION 'no schema has been selected to create table % in', pg_catalog.quote_ident(parts[1])
				USING ERRCODE = 'invalid_schema_name', HINT = 'Qualify into_table with a schema.';
		END IF;
		parts := ARRAY[pg_catalog.current_schema()::pg_catalog.text] OPERATOR(pg_catalog.||) parts;
	END IF;
	target := pg_catalog.quote_ident(parts[1]) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(parts[2]);
	SELECT pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(t.typname)
	INTO key_type
	FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) t.typnamespace
	WHERE t.oid OPERATOR(pg_catalog.=) grail._key_type(graph);
	BEGIN
		EXECUTE pg_catalog.format('CREATE TABLE %s (id bigint NOT NULL, length int NOT NULL, vertices %s[] NOT NULL)',
		                          target, key_type);
	EXCEPTION WHEN duplicate_table THEN
		RAISE EXCEPTION 'table % already exists', target
			USING ERRCODE = 'duplicate_table',
			      HINT = 'save_chordless_cycles() creates its table: drop the old one or choose another name.';
	END;
	EXECUTE pg_catalog.format('INSERT INTO %s (id, length, vertices) '
	                          'SELECT c.id, pg_catalog.cardinality(c.vertices), c.vertices '
	                          'FROM grail.chordless_cycles($1, NULL::%s, $2, $3) WITH ORDINALITY AS c(vertices, id)',
	                          target, key_type)
		USING graph, min_length, max_length;
	GET DIAGNOSTICS saved = ROW_COUNT;
	RETURN saved;
END
$$;
