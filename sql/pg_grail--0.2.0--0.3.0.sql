-- pg_grail 0.2.0 -> 0.3.0: security and no silent wrong answer. Graphs live in schemas; catalog
-- SQL immune to the caller's search_path; the database owner may dump the catalog; graphs are
-- listed only to roles that may read their edge columns; edge columns recorded by name; new
-- staleness triggers and event triggers; build identities that are never reused.
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.3.0'" to load this file. \quit

-- Each graph goes into the schema of its edge table, under the name it had: an unqualified name
-- finds it while that schema is on the search_path. A graph whose table is gone cannot answer and
-- is dropped (DROP TABLE normally drops it at once).
ALTER TABLE grail.graph ADD COLUMN namespace regnamespace;
UPDATE grail.graph g SET namespace = c.relnamespace::pg_catalog.regnamespace
FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid;
DELETE FROM grail.graph WHERE namespace IS NULL;
ALTER TABLE grail.graph ALTER COLUMN namespace SET NOT NULL;
ALTER TABLE grail.graph DROP CONSTRAINT graph_name_key;
ALTER TABLE grail.graph ADD UNIQUE (namespace, name);
ALTER TABLE grail.graph ADD COLUMN build_uuid uuid;
UPDATE grail.graph SET build_uuid = pg_catalog.gen_random_uuid() WHERE build IS NOT NULL;
ALTER TABLE grail.graph ADD COLUMN watched_tables regclass[] NOT NULL DEFAULT '{}';
UPDATE grail.graph SET watched_tables = ARRAY[relid];

-- Edge columns by name instead of number.
ALTER TABLE grail.graph ADD COLUMN source_column name, ADD COLUMN target_column name;
UPDATE grail.graph g SET source_column = s.attname, target_column = t.attname
FROM pg_catalog.pg_attribute s, pg_catalog.pg_attribute t
WHERE s.attrelid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid AND s.attnum OPERATOR(pg_catalog.=) g.source_attnum
  AND t.attrelid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid AND t.attnum OPERATOR(pg_catalog.=) g.target_attnum;
DROP VIEW grail.graphs;
ALTER TABLE grail.graph ALTER COLUMN source_column SET NOT NULL, ALTER COLUMN target_column SET NOT NULL,
	DROP COLUMN source_attnum, DROP COLUMN target_attnum;

GRANT SELECT ON grail.graph, grail.index_chunk, grail.build_seq, grail.graph_id_seq TO pg_database_owner;

-- A role sees the graphs over the edge columns it may read (as a build or query needs them).
CREATE VIEW grail.graphs AS
SELECT n.nspname AS schema,
       g.name,
       g.relid::regclass AS relation,
       s.attname AS source_column,
       t.attname AS target_column,
       g.vertices,
       g.edges,
       g.components,
       g.components AS dag_vertices,
       g.dag_edges,
       g.labels,
       g.built_at,
       round((g.read_ms + g.graph_ms + g.scc_ms + g.label_ms + g.persist_ms)::numeric, 1) AS build_ms,
       round(g.read_ms::numeric, 1) AS read_ms,
       round((g.graph_ms + g.scc_ms)::numeric, 1) AS scc_ms,
       round(g.label_ms::numeric, 1) AS label_ms,
       round(g.persist_ms::numeric, 1) AS persist_ms,
       g.index_bytes,
       g.stale,
       g.owner
FROM grail.graph g
JOIN pg_catalog.pg_namespace n ON n.oid = g.namespace
JOIN pg_catalog.pg_class c ON c.oid = g.relid
JOIN pg_catalog.pg_attribute s ON s.attrelid = g.relid AND s.attname = g.source_column AND NOT s.attisdropped
JOIN pg_catalog.pg_attribute t ON t.attrelid = g.relid AND t.attname = g.target_column AND NOT t.attisdropped
WHERE pg_catalog.has_schema_privilege(c.relnamespace, 'USAGE')
  AND pg_catalog.has_column_privilege(c.oid, s.attnum, 'SELECT')
  AND pg_catalog.has_column_privilege(c.oid, t.attnum, 'SELECT')
  AND NOT pg_catalog.row_security_active(c.oid);

GRANT SELECT ON grail.graphs TO PUBLIC;
COMMENT ON VIEW grail.graphs IS 'pg_grail graphs over the edge columns the current role may read: schema, name, edge table, sizes, build times by phase, index size, staleness';

COMMENT ON FUNCTION grail.create_graph(text, regclass, name, name, int, boolean) IS
'Reads the edge table (two integer columns), builds the reachability index and stores it; returns a one-line summary. name is read like a table name (schema.name, or the current schema); it needs CREATE on that schema, and ownership of the edge table or its TRIGGER privilege with UPDATE, DELETE or TRUNCATE. Rows with a NULL endpoint are an error unless skip_nulls.';

DROP EVENT TRIGGER grail_drop_graphs_of_dropped_tables;
DROP FUNCTION grail._drop_graphs_of_dropped_tables();

-- Staleness: any change to the rows a graph was built from marks it stale, so that no query answers
-- from an index that no longer matches them: triggers (grail._watch) call _mark_stale; a query
-- checks that they are in place (grail._watched); event triggers catch what triggers cannot.
CREATE OR REPLACE FUNCTION grail._mark_stale()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) TG_ARGV[0]::pg_catalog.int8 AND NOT stale;
	RETURN NULL;
END
$$;

-- The tables a graph over edge_table depends on besides it: its inheritance (or partition)
-- ancestors, whose writes can reach its rows, and its descendants (the table itself first), whose
-- rows SELECT reads with its own. In C (src/pg/watch.cpp), as grail._watched reads them.
CREATE FUNCTION grail._ancestors(edge_table oid)
RETURNS oid[]
AS 'MODULE_PATHNAME', 'grail_ancestors'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail._ancestors(oid) FROM PUBLIC;

CREATE FUNCTION grail._descendants(edge_table oid)
RETURNS oid[]
AS 'MODULE_PATHNAME', 'grail_descendants'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail._descendants(oid) FROM PUBLIC;

-- Whether a graph's triggers are all in place as grail._watch made them, on the tables its build
-- recorded (grail.graph.watched_tables), which must still be the edge table's ancestors and
-- descendants; checked by what the triggers are (function, events, level, argument, no column
-- list, enabled always), not by their names alone: a table's owner can drop them and create
-- look-alikes (though not ones calling _mark_stale, which needs EXECUTE). In C
-- (src/pg/watch.cpp): every statement of a query checks it.
CREATE FUNCTION grail._watched(graph_id bigint, edge_table oid, watched_tables regclass[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_watched'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail._watched(bigint, oid, regclass[]) FROM PUBLIC;

-- Drops a graph's triggers from those of tables that still exist.
CREATE FUNCTION grail._drop_triggers(graph_id bigint, tables regclass[])
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	t pg_catalog.oid;
BEGIN
	FOR t IN SELECT r FROM pg_catalog.unnest(tables::pg_catalog.oid[]) r
	         WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r) LOOP
		EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s; DROP TRIGGER IF EXISTS %I ON %s',
		                          'grail_stale_' OPERATOR(pg_catalog.||) graph_id, t::pg_catalog.regclass,
		                          'grail_stale_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_update',
		                          t::pg_catalog.regclass);
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail._drop_triggers(bigint, regclass[]) FROM PUBLIC;

-- Puts a graph's triggers on the tables its build depends on, removing them first from the tables
-- of its last build, and records the tables (what grail._watched checks): on the edge table and
-- each descendant, grail_stale_<id> (AFTER INSERT OR DELETE OR TRUNCATE, FOR EACH STATEMENT) and
-- grail_stale_<id>_update (AFTER UPDATE, FOR EACH ROW, WHEN an edge column's stored value changes:
-- UPDATE OF would look at the SET list only, and a BEFORE trigger can change an edge column without
-- it); on each ancestor, grail_stale_<id> on every write FOR EACH STATEMENT (a write through a
-- parent fires the parent's statement triggers, not the child's). All ENABLE ALWAYS, so that they
-- fire under session_replication_role = replica (logical replication apply, restores) too.
CREATE FUNCTION grail._watch(graph_id bigint)
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
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail._ancestors(g.relid::pg_catalog.oid);
	down := grail._descendants(g.relid::pg_catalog.oid);
	-- Off the tables that left the family; replaced in place on the others (a dropped trigger would
	-- make the graph stale, see grail._on_drop).
	PERFORM grail._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	FOREACH t IN ARRAY down LOOP
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
	FOREACH t IN ARRAY up LOOP
		EXECUTE pg_catalog.format(
			'DROP TRIGGER IF EXISTS %I ON %s; '
			'CREATE OR REPLACE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT '
			'EXECUTE FUNCTION grail._mark_stale(%L); ALTER TABLE %s ENABLE ALWAYS TRIGGER %I',
			update_trigger, t::pg_catalog.regclass, statement_trigger, t::pg_catalog.regclass, graph_id,
			t::pg_catalog.regclass, statement_trigger);
	END LOOP;
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$$;
REVOKE ALL ON FUNCTION grail._watch(bigint) FROM PUBLIC;


-- Whether the table has a live column of that name.
CREATE FUNCTION grail._has_column(edge_table oid, column_name name)
RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
	SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
	               WHERE a.attrelid OPERATOR(pg_catalog.=) edge_table AND a.attname OPERATOR(pg_catalog.=) column_name
	                 AND NOT a.attisdropped)
$$;
REVOKE ALL ON FUNCTION grail._has_column(oid, name) FROM PUBLIC;

-- A graph goes with its edge table, its edge columns and its schema: DROP TABLE, DROP COLUMN ...
-- CASCADE and DROP SCHEMA drop the graphs (and the staleness triggers a graph keeps on a table that
-- stays). A dropped staleness trigger leaves its graph stale: writes can have come in meanwhile.
CREATE FUNCTION grail._on_drop()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	dropped record;
BEGIN
	FOR dropped IN
		DELETE FROM grail.graph g
		USING pg_catalog.pg_event_trigger_dropped_objects() o
		WHERE (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		       AND o.objid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid
		       AND (o.objsubid OPERATOR(pg_catalog.=) 0
		            OR NOT grail._has_column(g.relid::pg_catalog.oid, g.source_column)
		            OR NOT grail._has_column(g.relid::pg_catalog.oid, g.target_column)))
		   OR (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
		       AND o.objid OPERATOR(pg_catalog.=) g.namespace::pg_catalog.oid)
		RETURNING g.id, g.watched_tables
	LOOP
		PERFORM grail._drop_triggers(dropped.id, dropped.watched_tables);
	END LOOP;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		UPDATE grail.graph g SET stale = true
		WHERE NOT g.stale AND NOT grail._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	END IF;
END
$$;
REVOKE ALL ON FUNCTION grail._on_drop() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_drop ON sql_drop EXECUTE FUNCTION grail._on_drop();

-- Whether an ALTER TABLE set any trigger to a state other than ENABLE ALWAYS (src/pg/trigger_state.cpp).
CREATE FUNCTION grail._changes_trigger_state(pg_ddl_command)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_changes_trigger_state'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail._changes_trigger_state(pg_ddl_command) FROM PUBLIC;

-- ALTER TABLE ... RENAME COLUMN of an edge column: the graph follows (its column name no longer
-- exists; the renamed column's number comes with the command).
-- ALTER TABLE ... DISABLE TRIGGER (pg_dump --disable-triggers does it), ENABLE [REPLICA] TRIGGER:
-- from then on writes can go unseen, so the graph is stale even once the trigger is back. (Not
-- ENABLE ALWAYS: a restore creates a graph's triggers one by one and enables each always, with
-- the graph's rows and index already in step with the table's.)
CREATE FUNCTION grail._on_alter_table()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE grail.graph g SET source_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0 AND c.objid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid
	  AND NOT grail._has_column(g.relid::pg_catalog.oid, g.source_column);
	UPDATE grail.graph g SET target_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0 AND c.objid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid
	  AND NOT grail._has_column(g.relid::pg_catalog.oid, g.target_column);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail._changes_trigger_state(c.command)
	  AND NOT g.stale AND NOT grail._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
END
$$;
REVOKE ALL ON FUNCTION grail._on_alter_table() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_alter_table ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
	EXECUTE FUNCTION grail._on_alter_table();

-- Event triggers, like triggers, skip sessions with session_replication_role = replica unless
-- enabled always.
ALTER EVENT TRIGGER grail_on_drop ENABLE ALWAYS;
ALTER EVENT TRIGGER grail_on_alter_table ENABLE ALWAYS;

CREATE OR REPLACE FUNCTION grail.save_chordless_cycles(graph text, into_table text, min_length int DEFAULT 3,
                                            max_length int DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE
AS $$
DECLARE
	parts text[];
	target text;
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
	BEGIN
		EXECUTE pg_catalog.format('CREATE TABLE %s (id bigint NOT NULL, length int NOT NULL, vertices bigint[] NOT NULL)',
		                          target);
	EXCEPTION WHEN duplicate_table THEN
		RAISE EXCEPTION 'table % already exists', target
			USING ERRCODE = 'duplicate_table',
			      HINT = 'save_chordless_cycles() creates its table: drop the old one or choose another name.';
	END;
	EXECUTE pg_catalog.format('INSERT INTO %s (id, length, vertices) '
	                          'SELECT c.id, pg_catalog.cardinality(c.vertices), c.vertices '
	                          'FROM grail.chordless_cycles($1, $2, $3) WITH ORDINALITY AS c(vertices, id)', target)
		USING graph, min_length, max_length;
	GET DIAGNOSTICS saved = ROW_COUNT;
	RETURN saved;
END
$$;
COMMENT ON FUNCTION grail.save_chordless_cycles(text, text, int, int) IS
'Creates the table into_table (id bigint, length int, vertices bigint[]) and fills it with chordless_cycles(graph, min_length, max_length), id numbering the cycles from 1; returns the number of cycles. An existing table of that name is an error. into_table is read like an SQL name: unquoted parts fold to lower case, "schema.table" is qualified, an unqualified name is created in the current schema (the first of the search_path, as CREATE TABLE picks it).';


-- The shared cache of index images (src/pg/image_cache.hpp): what it holds, what it did for this session.
CREATE FUNCTION grail.cache_info()
RETURNS TABLE (build uuid, bytes bigint, last_used timestamptz)
AS 'MODULE_PATHNAME', 'grail_cache_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 10;
COMMENT ON FUNCTION grail.cache_info() IS
'The index images of this database in the server''s shared image cache: the build (grail.graph.build_uuid), its bytes, when a backend last opened it.';
REVOKE ALL ON FUNCTION grail.cache_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_info() TO pg_monitor;

CREATE FUNCTION grail.cache_counters(OUT cache_limit bigint, OUT cached_bytes bigint, OUT cached_images bigint,
                                     OUT hits bigint, OUT loads bigint, OUT private_copies bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'grail_cache_counters'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION grail.cache_counters() IS
'The shared image cache: its limit (grail.shared_cache_size), the bytes and images it holds (all databases); and this session''s images opened from it (hits), read from the catalog (loads), and kept private (cache off or too small).';
REVOKE ALL ON FUNCTION grail.cache_counters() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_counters() TO pg_monitor;

-- Each graph's staleness trigger becomes the triggers of this version (grail._watch), on its
-- edge table's inheritance family too. A graph over a table with inheritance children was built
-- from the table's own rows, and one over a child or partition missed writes through its parents:
-- both are stale. The others keep answering, and stay stale if they were.
UPDATE grail.graph SET stale = true
WHERE pg_catalog.cardinality(grail._ancestors(relid::pg_catalog.oid) OPERATOR(pg_catalog.||)
                             grail._descendants(relid::pg_catalog.oid)) OPERATOR(pg_catalog.>) 1;
SELECT grail._watch(id) FROM grail.graph;
