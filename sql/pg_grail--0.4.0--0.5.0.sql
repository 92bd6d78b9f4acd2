-- pg_grail 0.4.0 -> 0.5.0: live graphs (grail.alter_graph(name, live => true)): writes to the edge
-- table are logged to grail.pending_change and queries answer for the rows their snapshot sees;
-- grail.merge_graph() folds the changes into a new build without blocking writers, and so does a
-- background worker once a graph's changes pass grail.merge_threshold; grail.activity shows builds and
-- merges in progress and each graph's pending changes. Every graph's
-- triggers are replaced by the new kind (grail._log_changes), which also marks a graph that is not
-- live stale only when an UPDATE changes an edge.
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.5.0'" to load this file. \quit

ALTER TABLE grail.graph ADD COLUMN live boolean NOT NULL DEFAULT false;
-- The changes to a live graph's edge table that its build did not read, written by
-- grail._log_changes in the writer's transaction, so a query sees exactly the changes its snapshot
-- sees; a build deletes the rows its own snapshot sees, which are the changes it read. A row holds
-- up to 8192 edges of one statement (element i of the source and target arrays is one edge, a NULL
-- element a NULL endpoint) whose count of rows changed by `change`: +1 for each edge row written,
-- -1 for each removed, +n or -n for an edge whose count an UPDATE changed. A row whose arrays are
-- NULL (change 0) is a TRUNCATE's marker. One row per batch rather than per edge: a bulk write
-- logs a few wide rows and index entries. Keys: source/target for integer keys,
-- source_key/target_key (text, uuid as text) otherwise. The arrays are stored uncompressed
-- (EXTERNAL): compressing them costs the writer more than it saves.
-- No foreign key: a bulk write would check one per row; drops delete a graph's rows themselves.
CREATE TABLE grail.pending_change (
	graph_id   bigint NOT NULL,
	change     int NOT NULL,
	source     bigint[],
	target     bigint[],
	source_key text[],
	target_key text[]
);
ALTER TABLE grail.pending_change ALTER COLUMN source SET STORAGE EXTERNAL, ALTER COLUMN target SET STORAGE EXTERNAL,
	ALTER COLUMN source_key SET STORAGE EXTERNAL, ALTER COLUMN target_key SET STORAGE EXTERNAL;
CREATE INDEX pending_change_graph ON grail.pending_change (graph_id);
SELECT pg_catalog.pg_extension_config_dump('grail.pending_change', '');
REVOKE ALL ON grail.pending_change FROM PUBLIC;
GRANT SELECT ON grail.pending_change TO pg_database_owner;

CREATE OR REPLACE VIEW grail.graphs AS
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
       g.owner,
       g.live,
       (SELECT COALESCE(pg_catalog.sum(COALESCE(pg_catalog.cardinality(p.source), pg_catalog.cardinality(p.source_key), 1)), 0)
        FROM grail.pending_change p WHERE p.graph_id OPERATOR(pg_catalog.=) g.id) AS pending_changes
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
COMMENT ON VIEW grail.graphs IS 'pg_grail graphs over the edge columns the current role may read: schema, name, edge table, sizes, build times by phase, index size, staleness, whether the graph is live and its edge changes not yet merged (edges of grail.pending_change)';

-- Builds and merges in progress (src/pg/activity.cpp: shared memory, with pg_grail preloaded) and
-- each graph's pending changes. _activity() shows a role only the builds over edge columns it may
-- read, as grail.graphs does, or all of them to members of pg_read_all_stats.
CREATE FUNCTION grail._activity(OUT pid integer, OUT graph_id bigint, OUT schema text, OUT graph text,
                                OUT relation regclass, OUT command text, OUT phase text, OUT done bigint,
                                OUT total bigint, OUT unit text, OUT started timestamptz,
                                OUT phase_started timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'grail_activity'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION grail._activity() IS
'The builds and merges in progress in this database that the current role may see (grail.activity); none without pg_grail in shared_preload_libraries.';

CREATE VIEW grail.activity AS
SELECT COALESCE(g.schema, p.schema) AS schema,
       COALESCE(g.name, p.graph) AS graph,
       COALESCE(g.relation, p.relation) AS relation,
       g.live,
       g.pending_changes,
       p.pid,
       p.command,
       p.phase,
       p.done,
       p.total,
       p.unit,
       p.started,
       pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) p.started AS elapsed,
       pg_catalog.clock_timestamp() OPERATOR(pg_catalog.-) p.phase_started AS phase_elapsed
FROM (SELECT g.id,
             n.nspname::pg_catalog.text AS schema,
             g.name,
             g.relid::pg_catalog.regclass AS relation,
             g.live,
             (SELECT COALESCE(pg_catalog.sum(COALESCE(pg_catalog.cardinality(pc.source),
                                                      pg_catalog.cardinality(pc.source_key), 1)), 0)
              FROM grail.pending_change pc WHERE pc.graph_id OPERATOR(pg_catalog.=) g.id) AS pending_changes
      FROM grail.graph g
      JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) g.namespace
      JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) g.relid
      JOIN pg_catalog.pg_attribute s ON s.attrelid OPERATOR(pg_catalog.=) g.relid
                                    AND s.attname OPERATOR(pg_catalog.=) g.source_column AND NOT s.attisdropped
      JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) g.relid
                                    AND t.attname OPERATOR(pg_catalog.=) g.target_column AND NOT t.attisdropped
      WHERE pg_catalog.pg_has_role('pg_read_all_stats', 'USAGE')
         OR (pg_catalog.has_schema_privilege(c.relnamespace, 'USAGE')
             AND pg_catalog.has_column_privilege(c.oid, s.attnum, 'SELECT')
             AND pg_catalog.has_column_privilege(c.oid, t.attnum, 'SELECT')
             AND NOT pg_catalog.row_security_active(c.oid))) g
FULL JOIN grail._activity() p ON p.graph_id OPERATOR(pg_catalog.=) g.id;

GRANT SELECT ON grail.activity TO PUBLIC;
COMMENT ON VIEW grail.activity IS 'pg_grail graphs (those grail.graphs lists, or all for members of pg_read_all_stats) with their pending changes, and the builds and merges in progress in this database (create_graph, refresh_graph, merge_graph, background merges): phase, rows, vertices or bytes done of total where known, start and elapsed time; the progress columns are NULL without pg_grail in shared_preload_libraries';

CREATE FUNCTION grail.alter_graph(name text, live boolean)
RETURNS void
AS 'MODULE_PATHNAME', 'grail_alter_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION grail.alter_graph(text, boolean) IS
'live => true: writes to the edge table no longer make the graph stale; each query answers for the rows its snapshot sees (the last build and the changes since, read from the table while changes are pending), and grail.merge_graph() folds the changes into a new build. live => false: writes make the graph stale again (and pending changes do now). Needs ownership of the graph; waits for writers of the edge table.';

CREATE FUNCTION grail.merge_graph(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_merge_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION grail.merge_graph(text) IS
'Folds the pending changes of a live graph into a new build, reading the edge table in one snapshot without blocking its writers (changes committed meanwhile stay pending); returns a one-line summary. For a graph that is not live, the same as refresh_graph().';

-- The triggers of a live graph's edge table and its descendants (grail._watch) log each statement's
-- changes to grail.pending_change (a live graph), or mark the graph stale (another), in C
-- (src/pg/change_log.cpp): an UPDATE that changes no edge does neither.
CREATE FUNCTION grail._log_changes()
RETURNS trigger
AS 'MODULE_PATHNAME', 'grail_log_changes'
LANGUAGE C;
REVOKE ALL ON FUNCTION grail._log_changes() FROM PUBLIC;

DROP FUNCTION grail._drop_triggers(bigint, regclass[]);

-- The names of a graph's triggers (grail._watch), and of those 0.4.0 put where they are now.
CREATE FUNCTION grail._trigger_names(graph_id bigint)
RETURNS text[]
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp
AS $$
	SELECT ARRAY['grail_stale_' OPERATOR(pg_catalog.||) graph_id,
	             'grail_stale_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_update',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_insert',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_delete',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_update',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_truncate',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_apply']
$$;
REVOKE ALL ON FUNCTION grail._trigger_names(bigint) FROM PUBLIC;

-- Drops a graph's triggers from those of tables that still exist; keep: the names to leave.
CREATE FUNCTION grail._drop_triggers(graph_id bigint, tables regclass[], keep text[] DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	t pg_catalog.oid;
	trigger_name pg_catalog.name;
BEGIN
	FOR t IN SELECT r FROM pg_catalog.unnest(tables::pg_catalog.oid[]) r
	         WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r) LOOP
		FOR trigger_name IN SELECT tg.tgname FROM pg_catalog.pg_trigger tg
		                    WHERE tg.tgrelid OPERATOR(pg_catalog.=) t
		                      AND tg.tgname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (grail._trigger_names(graph_id))
		                      AND tg.tgname::pg_catalog.text OPERATOR(pg_catalog.<>) ALL (keep) LOOP
			EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', trigger_name, t::pg_catalog.regclass);
		END LOOP;
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail._drop_triggers(bigint, regclass[], text[]) FROM PUBLIC;

-- Puts a graph's triggers on the tables its build depends on, removing them first from the tables
-- of its last build, and records the tables (what grail._watched checks): on the edge table and
-- each descendant, grail_log_<id>_insert, _delete and _update (AFTER, FOR EACH STATEMENT, with the
-- statement's transition tables) and, on those that hold rows, grail_log_<id>_truncate (BEFORE
-- TRUNCATE, FOR EACH STATEMENT) and grail_log_<id>_apply (AFTER each row, ENABLE REPLICA: logical
-- replication's apply fires row triggers only; the function ignores other writes, which the
-- statement triggers log), all calling grail._log_changes; a statement fires the triggers of
-- the table it names, whose transition tables hold the rows of its descendants too (a write to a
-- partitioned table, an UPDATE that moves a row to another partition). On each ancestor,
-- grail_stale_<id> on every write FOR EACH STATEMENT, marking the graph stale: a write through a
-- parent reaches rows of tables outside the family too, which its transition tables do not tell
-- apart. All but the apply trigger ENABLE ALWAYS, so that they fire under session_replication_role =
-- replica (restores) too. New triggers are made before old ones go: a graph missing one would be marked stale
-- (grail._on_drop).
CREATE OR REPLACE FUNCTION grail._watch(graph_id bigint)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	t pg_catalog.oid;
	names pg_catalog.text[] := grail._trigger_names(graph_id);
	up pg_catalog.oid[];
	down pg_catalog.oid[];
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail._ancestors(g.relid::pg_catalog.oid);
	down := grail._descendants(g.relid::pg_catalog.oid);
	FOREACH t IN ARRAY down LOOP
		EXECUTE pg_catalog.format(
			'CREATE OR REPLACE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS grail_new '
			'FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L); '
			'CREATE OR REPLACE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS grail_old '
			'FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L); '
			'CREATE OR REPLACE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS grail_old NEW TABLE AS grail_new '
			'FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L); '
			'ALTER TABLE %s ENABLE ALWAYS TRIGGER %I, ENABLE ALWAYS TRIGGER %I, ENABLE ALWAYS TRIGGER %I',
			names[3], t::pg_catalog.regclass, graph_id, names[4], t::pg_catalog.regclass, graph_id,
			names[5], t::pg_catalog.regclass, graph_id, t::pg_catalog.regclass, names[3], names[4], names[5]);
		IF (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) t) OPERATOR(pg_catalog.<>) 'p' THEN
			EXECUTE pg_catalog.format(
				'CREATE OR REPLACE TRIGGER %I BEFORE TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes(%L); '
				'ALTER TABLE %s ENABLE ALWAYS TRIGGER %I; '
				'CREATE OR REPLACE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION grail._log_changes(%L); '
				'ALTER TABLE %s ENABLE REPLICA TRIGGER %I',
				names[6], t::pg_catalog.regclass, graph_id, t::pg_catalog.regclass, names[6],
				names[7], t::pg_catalog.regclass, graph_id, t::pg_catalog.regclass, names[7]);
		END IF;
	END LOOP;
	FOREACH t IN ARRAY up LOOP
		EXECUTE pg_catalog.format(
			'CREATE OR REPLACE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT '
			'EXECUTE FUNCTION grail._mark_stale(%L); ALTER TABLE %s ENABLE ALWAYS TRIGGER %I',
			names[1], t::pg_catalog.regclass, graph_id, t::pg_catalog.regclass, names[1]);
	END LOOP;
	-- Then the triggers of another kind (0.4.0's; a table's place in the family changed) go.
	FOREACH t IN ARRAY down LOOP
		PERFORM grail._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[3:7]);
	END LOOP;
	FOREACH t IN ARRAY up LOOP
		PERFORM grail._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[1:1]);
	END LOOP;
	-- Off the tables that left the family.
	PERFORM grail._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$$;
REVOKE ALL ON FUNCTION grail._watch(bigint) FROM PUBLIC;

CREATE OR REPLACE FUNCTION grail._on_drop()
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
		DELETE FROM grail.pending_change WHERE graph_id OPERATOR(pg_catalog.=) dropped.id;
	END LOOP;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		UPDATE grail.graph g SET stale = true
		WHERE NOT g.stale AND NOT grail._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	END IF;
END
$$;
REVOKE ALL ON FUNCTION grail._on_drop() FROM PUBLIC;

-- Whether an ALTER TABLE changed the type of a column of that name (src/pg/ddl_commands.cpp).
CREATE FUNCTION grail._alters_column_type(pg_ddl_command, source_column name, target_column name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_alters_column_type'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail._alters_column_type(pg_ddl_command, name, name) FROM PUBLIC;

CREATE OR REPLACE FUNCTION grail._on_alter_table()
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
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail._alters_column_type(c.command, g.source_column, g.target_column) AND NOT g.stale;
END
$$;
REVOKE ALL ON FUNCTION grail._on_alter_table() FROM PUBLIC;

-- Every graph's triggers of the new kind, made before the old ones go (grail._watch). grail_on_drop
-- is off meanwhile: it would find the graphs not yet re-watched without their new triggers.
ALTER EVENT TRIGGER grail_on_drop DISABLE;
SELECT grail._watch(g.id) FROM grail.graph g;
ALTER EVENT TRIGGER grail_on_drop ENABLE ALWAYS;
