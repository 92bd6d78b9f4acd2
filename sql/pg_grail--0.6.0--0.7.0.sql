-- pg_grail 0.6.0 -> 0.7.0: seams that hold (validate at use, one typed boundary). Each section
-- below names what it changes and why; a fresh install of 0.7.0 (sql/pg_grail.sql) gives the same
-- objects (test: sql/upgrade.sql).
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.7.0'" to load this file. \quit

-- pg_grail's internal functions live in a schema of their own, a member of the extension, so that
-- \df grail.* lists what users call. The two trigger functions, grail._log_changes and
-- grail._mark_stale, stay in grail: users' tables name them in their triggers, which a dump restores
-- as EXECUTE FUNCTION grail._log_changes(...) into whatever version CREATE EXTENSION installs.
-- ALTER FUNCTION ... SET SCHEMA keeps each function's oid: its privileges, comment and the event
-- triggers that call it stay; the bodies that name a moved function are replaced at the end.
-- A schema of that name made by someone else is refused with the reason rather than taken over:
-- as a member of the extension it would be dropped with it (its other objects too, under CASCADE),
-- pg_dump would stop dumping it, and its owner and privileges would not be the extension's.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname OPERATOR(pg_catalog.=) 'grail_internal') THEN
		RAISE EXCEPTION 'schema "grail_internal" already exists, and pg_grail keeps its internal functions in a schema of that name'
			USING ERRCODE = 'duplicate_schema',
			      DETAIL = 'pg_grail creates the schema itself and makes it a member of the extension; it does not take over a schema that exists.',
			      HINT = 'Rename that schema (ALTER SCHEMA grail_internal RENAME TO another_name) or drop it, then install or update pg_grail again.';
	END IF;
END
$$;
CREATE SCHEMA grail_internal;
COMMENT ON SCHEMA grail_internal IS 'pg_grail''s internal functions: called by the extension itself, not by users';
GRANT USAGE ON SCHEMA grail_internal TO PUBLIC;

-- pg_grail's objects: the extension's members, and its schema (grail: CREATE EXTENSION makes it, but
-- not as a member). What the guards below keep with superusers (and the library's REASSIGN OWNED
-- hook, src/pg/entry/owner_hooks.cpp), what the update to 0.7.0 gives back to one, and whose grants
-- the scripts take back; one list, so that none of them can disagree about what they cover.
CREATE FUNCTION grail_internal._objects()
RETURNS TABLE (classid oid, objid oid)
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
AS $$
	SELECT d.classid, d.objid FROM pg_catalog.pg_depend d
	JOIN pg_catalog.pg_extension e ON e.oid OPERATOR(pg_catalog.=) d.refobjid AND e.extname OPERATOR(pg_catalog.=) 'pg_grail'
	WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
	  AND d.objsubid OPERATOR(pg_catalog.=) 0 AND d.deptype OPERATOR(pg_catalog.=) 'e'
	UNION ALL
	SELECT 'pg_catalog.pg_namespace'::pg_catalog.regclass::pg_catalog.oid, e.extnamespace FROM pg_catalog.pg_extension e
	WHERE e.extname OPERATOR(pg_catalog.=) 'pg_grail'
$$;
REVOKE ALL ON FUNCTION grail_internal._objects() FROM PUBLIC;
COMMENT ON FUNCTION grail_internal._objects() IS 'pg_grail internal: pg_grail''s objects (the extension''s members and its schema), which its guards keep with superusers';

-- Objects of pg_grail that a superuser handed to a role that is not one (ALTER ... OWNER TO), which
-- 0.7.0 refuses (grail_on_owner_change, below): that role could change them while they run with
-- others' rights. Each goes back to the extension's owner (or, where that role is no longer a
-- superuser, to the role running this update), with a WARNING that names it; before any DDL that
-- fires 0.6.0's event triggers (CREATE SCHEMA and CREATE FUNCTION above fire none), since an event
-- trigger's function owned by such a role fails this script's DDL (it runs with that role's
-- rights), and functions first, as the ALTER TABLE of the others fires event triggers.
DO $$
DECLARE
	handed record;
	new_owner pg_catalog.name;
BEGIN
	SELECT CASE WHEN r.rolsuper THEN r.rolname ELSE CURRENT_USER END INTO new_owner
	FROM pg_catalog.pg_extension e JOIN pg_catalog.pg_roles r ON r.oid OPERATOR(pg_catalog.=) e.extowner
	WHERE e.extname OPERATOR(pg_catalog.=) 'pg_grail';
	FOR handed IN
		WITH owned AS (
			SELECT o.classid, o.objid, COALESCE(p.proowner, c.relowner, n.nspowner) AS owner
			FROM grail_internal._objects() o
			LEFT JOIN pg_catalog.pg_proc p ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
			                               AND p.oid OPERATOR(pg_catalog.=) o.objid
			LEFT JOIN pg_catalog.pg_class c ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
			                                AND c.oid OPERATOR(pg_catalog.=) o.objid
			LEFT JOIN pg_catalog.pg_namespace n ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
			                                    AND n.oid OPERATOR(pg_catalog.=) o.objid)
		SELECT i.type, i.identity, pg_catalog.pg_get_userbyid(w.owner) AS owner
		FROM owned w
		CROSS JOIN LATERAL pg_catalog.pg_identify_object(w.classid, w.objid, 0) i
		WHERE w.owner IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) w.owner AND r.rolsuper)
		ORDER BY i.type OPERATOR(pg_catalog.<>) 'function', i.identity
	LOOP
		RAISE WARNING 'pg_grail gives % % back to role "%" from role "%", which is not a superuser', handed.type,
			handed.identity, new_owner, handed.owner;
		EXECUTE pg_catalog.format('ALTER %s %s OWNER TO %I',
		                          CASE WHEN handed.type OPERATOR(pg_catalog.=) 'function' THEN 'ROUTINE'
		                               WHEN handed.type OPERATOR(pg_catalog.=) 'schema' THEN 'SCHEMA'
		                               ELSE 'TABLE' END,
		                          handed.identity, new_owner);
	END LOOP;
END
$$;

ALTER FUNCTION grail._activity() SET SCHEMA grail_internal;
ALTER FUNCTION grail._alters_column_type(pg_ddl_command, name, name) SET SCHEMA grail_internal;
ALTER FUNCTION grail._ancestors(oid) SET SCHEMA grail_internal;
ALTER FUNCTION grail._changes_trigger_state(pg_ddl_command) SET SCHEMA grail_internal;
ALTER FUNCTION grail._descendants(oid) SET SCHEMA grail_internal;
ALTER FUNCTION grail._drop_triggers(bigint, regclass[], text[]) SET SCHEMA grail_internal;
ALTER FUNCTION grail._family_change(pg_ddl_command) SET SCHEMA grail_internal;
ALTER FUNCTION grail._has_column(oid, name) SET SCHEMA grail_internal;
ALTER FUNCTION grail._key_type(text) SET SCHEMA grail_internal;
ALTER FUNCTION grail._on_alter_table() SET SCHEMA grail_internal;
ALTER FUNCTION grail._on_drop() SET SCHEMA grail_internal;
ALTER FUNCTION grail._on_family_change() SET SCHEMA grail_internal;
ALTER FUNCTION grail._trigger_names(bigint) SET SCHEMA grail_internal;
ALTER FUNCTION grail._watch(bigint) SET SCHEMA grail_internal;
ALTER FUNCTION grail._watched(bigint, oid, regclass[]) SET SCHEMA grail_internal;
-- 0.6.0's bodies that name a moved function, with its new name: the event triggers among them fire
-- during this script's own DDL. (The sections below and the end replace them with 0.7.0's.)
CREATE OR REPLACE FUNCTION grail_internal._drop_triggers(graph_id bigint, tables regclass[], keep text[] DEFAULT '{}'::text[])
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
DECLARE
	t pg_catalog.oid;
	trigger_name pg_catalog.name;
BEGIN
	FOR t IN SELECT r FROM pg_catalog.unnest(tables::pg_catalog.oid[]) r
	         WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r) LOOP
		FOR trigger_name IN SELECT tg.tgname FROM pg_catalog.pg_trigger tg
		                    WHERE tg.tgrelid OPERATOR(pg_catalog.=) t
		                      AND tg.tgname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (grail_internal._trigger_names(graph_id))
		                      AND tg.tgname::pg_catalog.text OPERATOR(pg_catalog.<>) ALL (keep) LOOP
			EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', trigger_name, t::pg_catalog.regclass);
		END LOOP;
	END LOOP;
END
$function$
;

CREATE OR REPLACE FUNCTION grail_internal._on_alter_table()
 RETURNS event_trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
BEGIN
	UPDATE grail.graph g SET source_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0 AND c.objid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column);
	UPDATE grail.graph g SET target_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0 AND c.objid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail_internal._changes_trigger_state(c.command)
	  AND NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail_internal._alters_column_type(c.command, g.source_column, g.target_column) AND NOT g.stale;
END
$function$
;

CREATE OR REPLACE FUNCTION grail_internal._on_drop()
 RETURNS event_trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
DECLARE
	dropped record;
BEGIN
	FOR dropped IN
		DELETE FROM grail.graph g
		USING pg_catalog.pg_event_trigger_dropped_objects() o
		WHERE (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		       AND o.objid OPERATOR(pg_catalog.=) g.relid::pg_catalog.oid
		       AND (o.objsubid OPERATOR(pg_catalog.=) 0
		            OR NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column)
		            OR NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column)))
		   OR (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
		       AND o.objid OPERATOR(pg_catalog.=) g.namespace::pg_catalog.oid)
		RETURNING g.id, g.watched_tables
	LOOP
		PERFORM grail_internal._drop_triggers(dropped.id, dropped.watched_tables);
		DELETE FROM grail.pending_change WHERE graph_id OPERATOR(pg_catalog.=) dropped.id;
	END LOOP;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		UPDATE grail.graph g SET stale = true
		WHERE NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	END IF;
END
$function$
;

CREATE OR REPLACE FUNCTION grail_internal._on_family_change()
 RETURNS event_trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
DECLARE
	change pg_catalog.text;
	tables pg_catalog.oid[];
	g record;
BEGIN
	-- 'rows' sorts after 'empty': the stronger change wins.
	SELECT pg_catalog.max(grail_internal._family_change(c.command)),
	       pg_catalog.array_agg(c.objid) FILTER (WHERE grail_internal._family_change(c.command) IS NOT NULL)
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
		                 OR relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._ancestors(t)))
		  AND NOT grail_internal._watched(id, relid::pg_catalog.oid, watched_tables)
	LOOP
		PERFORM grail_internal._watch(g.id);
		IF change OPERATOR(pg_catalog.=) 'rows' THEN
			UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) g.id;
		END IF;
	END LOOP;
END
$function$
;

CREATE OR REPLACE FUNCTION grail_internal._watch(graph_id bigint)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'pg_temp'
AS $function$
DECLARE
	g record;
	t pg_catalog.oid;
	names pg_catalog.text[] := grail_internal._trigger_names(graph_id);
	up pg_catalog.oid[];
	down pg_catalog.oid[];
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail_internal._ancestors(g.relid::pg_catalog.oid);
	down := grail_internal._descendants(g.relid::pg_catalog.oid);
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
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[3:7]);
	END LOOP;
	FOREACH t IN ARRAY up LOOP
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[1:1]);
	END LOOP;
	-- Off the tables that left the family.
	PERFORM grail_internal._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$function$
;

CREATE OR REPLACE FUNCTION grail.save_chordless_cycles(graph text, into_table text, min_length integer DEFAULT 3, max_length integer DEFAULT NULL::integer)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
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
	WHERE t.oid OPERATOR(pg_catalog.=) grail_internal._key_type(graph);
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
$function$
;


-- Column renames through ALTER VIEW, ALTER MATERIALIZED VIEW, ALTER FOREIGN TABLE ... RENAME COLUMN
-- and ALTER TYPE ... RENAME ATTRIBUTE, which PostgreSQL accepts on a table, are followed as ALTER
-- TABLE ... RENAME COLUMN is: grail_on_alter_table fires on their tags too (a graph used to keep the
-- old name and read whatever column took it, or vanish from grail.graphs). The tags of an event
-- trigger cannot be altered, so it is made again.
DROP EVENT TRIGGER grail_on_alter_table;
CREATE EVENT TRIGGER grail_on_alter_table ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER MATERIALIZED VIEW', 'ALTER FOREIGN TABLE', 'ALTER TYPE')
	EXECUTE FUNCTION grail_internal._on_alter_table();
ALTER EVENT TRIGGER grail_on_alter_table ENABLE ALWAYS;

-- The staleness trigger of an ancestor checks, where it fires, that its table is an ancestor of
-- its graph's edge table: a table-only dump (pg_dump -t) restored into another database brings the
-- trigger along, and there it must not mark whichever graph has the same id stale; it warns
-- instead (the log triggers' function, src/pg/entry/change_log.cpp, does the same for its tables).
CREATE OR REPLACE FUNCTION grail._mark_stale()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
BEGIN
	SELECT id, name, relid INTO g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) TG_ARGV[0]::pg_catalog.int8;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	-- A trigger that came with a dump of its table alone (pg_dump -t) into a database where another
	-- graph has its id is none of that graph's: its table is not an ancestor of the edge table.
	IF TG_RELID OPERATOR(pg_catalog.<>) ALL (grail_internal._ancestors(g.relid::pg_catalog.oid)) THEN
		RAISE WARNING USING ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = pg_catalog.format('pg_grail trigger "%s" on table "%s" ignores this write: the table is not in the '
			                            'inheritance family of graph "%s" (id %s), whose edge table is "%s"',
			                            TG_NAME, TG_TABLE_NAME, g.name, g.id, g.relid),
			DETAIL = 'Such a trigger comes with a dump of the table alone (pg_dump -t) restored into a database '
			         'where another graph has that id.',
			HINT = pg_catalog.format('Drop the trigger: DROP TRIGGER %I ON %I.%I;', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME);
		RETURN NULL;
	END IF;
	UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) g.id AND NOT stale;
	RETURN NULL;
END
$$;

-- A foreign table created as a partition (or child) of a watched table, or attached as one, joins
-- the family too: the family-change event trigger sees CREATE FOREIGN TABLE and ALTER FOREIGN
-- TABLE (grail_internal._family_change counts a new foreign member as a change with rows, so the graph goes
-- stale), and grail_internal._watch puts no log triggers on a foreign table, which can have no transition
-- tables (making them failed the DDL): the graph stays unwatched and refuses until the table
-- leaves; a build refuses it, and a scan refuses any relation that stores no rows here.
DROP EVENT TRIGGER grail_on_family_change;
CREATE EVENT TRIGGER grail_on_family_change ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE')
	EXECUTE FUNCTION grail_internal._on_family_change();
ALTER EVENT TRIGGER grail_on_family_change ENABLE ALWAYS;

CREATE OR REPLACE FUNCTION grail_internal._watch(graph_id bigint)
RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	t pg_catalog.oid;
	names pg_catalog.text[] := grail_internal._trigger_names(graph_id);
	up pg_catalog.oid[];
	down pg_catalog.oid[];
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail_internal._ancestors(g.relid::pg_catalog.oid);
	down := grail_internal._descendants(g.relid::pg_catalog.oid);
	FOREACH t IN ARRAY down LOOP
		-- A foreign table can have no transition tables (nor rows here): the graph stays unwatched,
		-- so it refuses, and a build refuses the table.
		CONTINUE WHEN (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) t) OPERATOR(pg_catalog.=) 'f';
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
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[3:7]);
	END LOOP;
	FOREACH t IN ARRAY up LOOP
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[1:1]);
	END LOOP;
	-- Off the tables that left the family.
	PERFORM grail_internal._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$$;

-- NULL arguments: every function is STRICT unless it must take NULLs (an optional argument, a
-- key_type given as a typed NULL); those check their other arguments in one declared place
-- (GRAIL_FUNCTION_NULLABLE, src/pg/boundary/guard.hpp). These internal helpers were not STRICT and gave an
-- answer built from NULLs (an array of NULL trigger names) or an error instead of NULL.
ALTER FUNCTION grail_internal._trigger_names(bigint) STRICT;
ALTER FUNCTION grail_internal._drop_triggers(bigint, regclass[], text[]) STRICT;
ALTER FUNCTION grail_internal._watch(bigint) STRICT;
ALTER FUNCTION grail_internal._has_column(oid, name) STRICT;

-- Publications: grail.pending_change had no replica identity, so with a publication FOR ALL TABLES
-- every delete from it failed (merge_graph, refresh_graph, drop_graph, background merges, DROP TABLE
-- of an edge table). No key fits: the whole row is its identity.
ALTER TABLE grail.pending_change REPLICA IDENTITY FULL;

-- grail.graphs and grail.activity become security barriers: a leaky function in a caller's WHERE
-- clause ran before the views' privilege checks and saw the graphs over tables the caller cannot
-- read.
ALTER VIEW grail.graphs SET (security_barrier = true);
ALTER VIEW grail.activity SET (security_barrier = true);

-- Column renames and type changes that PostgreSQL makes through another table are followed too:
-- ALTER TABLE <inheritance parent or partitioned table> RENAME COLUMN renames the column of its
-- children and partitions, ALTER TYPE <composite type> RENAME ATTRIBUTE / ALTER ATTRIBUTE ... TYPE
-- CASCADE that of the tables made OF the type, and the event trigger is told only of the parent or
-- the type. A graph over the child kept the old name and read whichever column took it (a silent
-- wrong answer), and a typed table's type change left its graph not stale.

-- The tables whose columns a rename (or type change) of a column of relation changes too:
-- relation, its inheritance descendants and partitions, and, where relation is a composite type,
-- the tables made OF that type (ALTER TYPE ... CASCADE). PostgreSQL reports only relation's column
-- to the event trigger.
CREATE FUNCTION grail_internal._column_changes_reach(relation oid)
RETURNS oid[]
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
	SELECT grail_internal._descendants(relation) OPERATOR(pg_catalog.||) ARRAY(
		SELECT t.oid FROM pg_catalog.pg_class k
		JOIN pg_catalog.pg_class t ON t.reloftype OPERATOR(pg_catalog.=) k.reltype
		WHERE k.oid OPERATOR(pg_catalog.=) relation AND k.relkind OPERATOR(pg_catalog.=) 'c')
$$;
REVOKE ALL ON FUNCTION grail_internal._column_changes_reach(oid) FROM PUBLIC;

CREATE OR REPLACE FUNCTION grail_internal._on_alter_table()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE grail.graph g SET source_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0
	  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column);
	UPDATE grail.graph g SET target_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0
	  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail_internal._changes_trigger_state(c.command)
	  AND NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND (c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	       OR g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid)))
	  AND grail_internal._alters_column_type(c.command, g.source_column, g.target_column) AND NOT g.stale;
END
$$;

-- Planner integration: every function had COST 1 and ROWS 1000, so a join on reachable() was
-- planned as if it cost an equality test and kept a third of the pairs, and a bfs() as 1000 rows.
-- The costs are now measured against a builtin comparison (COST 1); set-returning functions cost
-- per row, with ROWS their typical output, and a support function estimates the rows of
-- scc_components and bfs and the selectivity of reachable() from the build of a graph named by a
-- constant.
ALTER FUNCTION grail.create_graph(text, regclass, name, name, int, boolean, boolean) COST 1000000;
ALTER FUNCTION grail.refresh_graph(text) COST 1000000;
ALTER FUNCTION grail.merge_graph(text) COST 1000000;
ALTER FUNCTION grail.alter_graph(text, boolean) COST 10000;
ALTER FUNCTION grail.drop_graph(text) COST 10000;
ALTER FUNCTION grail.reachable(text, bigint, bigint) COST 25;
ALTER FUNCTION grail.reachable(text, text, text) COST 35;
ALTER FUNCTION grail.reachable(text, uuid, uuid) COST 35;
ALTER FUNCTION grail.reachable(text, bigint[], bigint[]) COST 1000;
ALTER FUNCTION grail.reachable(text, text[], text[]) COST 1000;
ALTER FUNCTION grail.reachable(text, uuid[], uuid[]) COST 1000;
ALTER FUNCTION grail.scc_component(text, bigint) COST 15;
ALTER FUNCTION grail.scc_component(text, text) COST 15;
ALTER FUNCTION grail.scc_component(text, uuid) COST 15;
ALTER FUNCTION grail.scc_components(text) COST 3 ROWS 10000;
ALTER FUNCTION grail.scc_components(text, anyelement) COST 3 ROWS 10000;
ALTER FUNCTION grail.bfs(text, bigint, int) COST 5 ROWS 100;
ALTER FUNCTION grail.bfs(text, text, int) COST 5 ROWS 100;
ALTER FUNCTION grail.bfs(text, uuid, int) COST 5 ROWS 100;
ALTER FUNCTION grail.chordless_cycles(text, int, int) COST 1000 ROWS 100;
ALTER FUNCTION grail.chordless_cycles(text, anyelement, int, int) COST 1000 ROWS 100;
ALTER FUNCTION grail.chordless_cycle_counts(text, int) COST 100000 ROWS 10;
ALTER FUNCTION grail_internal._key_type(text) COST 10;
ALTER FUNCTION grail.device_info() COST 100;
ALTER FUNCTION grail.cache_info() COST 10;
ALTER FUNCTION grail.cache_counters() COST 10;

CREATE FUNCTION grail_internal._planner_support(internal)
RETURNS internal
AS 'MODULE_PATHNAME', 'grail_planner_support'
LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION grail_internal._planner_support(internal) IS
'Planner support (prosupport) of scc_components, bfs and reachable: rows and selectivity from the build of a graph named by a constant (its vertices; the fraction of reachable pairs in a fixed sample). Any error while estimating leaves the declared estimate.';
ALTER FUNCTION grail.scc_components(text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.scc_components(text, anyelement) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, bigint, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, text, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, uuid, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.reachable(text, bigint, bigint) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.reachable(text, text, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.reachable(text, uuid, uuid) SUPPORT grail_internal._planner_support;

-- Typing: an untyped literal resolves to the text overload; on a uuid or integer graph the text
-- forms now read their keys as keys of the graph's type (they failed with "has uuid keys, not text
-- keys"), answering keys as text where they return text.
COMMENT ON FUNCTION grail.reachable(text, text, text) IS
'reachable() over a graph with text keys; a key that is not in the graph reaches only itself. On a uuid or integer graph (an untyped literal resolves here), each key is read as a key of the graph''s type.';
COMMENT ON FUNCTION grail.reachable(text, text[], text[]) IS
'reachable() for each pair (sources[i], targets[i]) of text keys; a NULL element gives NULL. On a uuid or integer graph, each key is read as a key of the graph''s type.';
COMMENT ON FUNCTION grail.scc_component(text, text) IS
'The strongly connected component of one text key: its smallest key in byte order (COLLATE "C"); a key that is not in the graph is its own component. On a uuid or integer graph, the key is read as a key of the graph''s type and the component''s key is answered as text.';
COMMENT ON FUNCTION grail.bfs(text, text, int) IS
'bfs() from a text key: each reached key, its depth and its parent (the smallest key in byte order one level up with an edge to it). On a uuid or integer graph, the source is read as a key of the graph''s type and the keys are answered as text.';
-- Paths and cycles: one shortest path between two keys, one shortest directed cycle through a key.
CREATE FUNCTION grail.path(graph text, source bigint, target bigint)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'grail_path'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.path(text, bigint, bigint) IS
'One shortest path from source to target along edge direction, as its vertices (source first, target last; ARRAY[source] when source = target): each vertex''s predecessor is its bfs() parent from source. NULL when target is not reachable or a key is not a vertex.';

CREATE FUNCTION grail.path(graph text, source text, target text)
RETURNS text[]
AS 'MODULE_PATHNAME', 'grail_path_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.path(text, text, text) IS
'path() between text keys: one shortest path as its keys, each one''s predecessor its bfs() parent from source; NULL when none. On a uuid or integer graph, keys that are valid literals of its kind are read as such (an untyped literal comes here), and the path is given as text.';

CREATE FUNCTION grail.path(graph text, source uuid, target uuid)
RETURNS uuid[]
AS 'MODULE_PATHNAME', 'grail_path_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.path(text, uuid, uuid) IS
'path() between uuid keys: one shortest path as its keys, each one''s predecessor its bfs() parent from source; NULL when none.';

CREATE FUNCTION grail.find_cycle(graph text, vertex bigint)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'grail_find_cycle'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.find_cycle(text, bigint) IS
'One shortest directed cycle through vertex, as its vertices from vertex back to vertex (ARRAY[v, ..., v], two edges or more: self-loops are not part of a graph). Its last edge comes from the smallest vertex at the least bfs() depth from vertex with an edge to it; the rest is that vertex''s path(). NULL when vertex is on no cycle or is not a vertex.';

CREATE FUNCTION grail.find_cycle(graph text, vertex text)
RETURNS text[]
AS 'MODULE_PATHNAME', 'grail_find_cycle_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.find_cycle(text, text) IS
'find_cycle() through a text key: one shortest directed cycle as its keys, from the key back to it; NULL when none. On a uuid or integer graph, a key that is a valid literal of its kind is read as such, and the cycle is given as text.';

CREATE FUNCTION grail.find_cycle(graph text, vertex uuid)
RETURNS uuid[]
AS 'MODULE_PATHNAME', 'grail_find_cycle_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.find_cycle(text, uuid) IS
'find_cycle() through a uuid key: one shortest directed cycle as its keys, from the key back to it; NULL when none.';
-- Traversal in either direction: bfs() with a direction, descendants() and ancestors().
-- bfs() takes the direction in a four-argument overload (max_depth given, NULL for no limit), so
-- that the three-argument bfs() and every call written for it stay as they were.
CREATE FUNCTION grail.bfs(graph text, source bigint, max_depth int, direction text)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs_direction'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, bigint, int, text) IS
'bfs() in a direction: ''out'' along edges (as bfs(graph, source, max_depth)), ''in'' against them (the vertices that reach source; parent is the smallest vertex one level up that the vertex has an edge to), ''both'' ignoring their direction (parent: the smallest vertex one level up joined to it by an edge either way). Ordered by depth, then vertex; the source at depth 0 with a NULL parent. max_depth NULL means no limit; a NULL direction gives no rows.';

CREATE FUNCTION grail.bfs(graph text, source text, max_depth int, direction text)
RETURNS TABLE (vertex text, depth int, parent text)
AS 'MODULE_PATHNAME', 'grail_bfs_direction_text'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, text, int, text) IS
'bfs() in a direction (''out'', ''in'' or ''both'') from a text key; parents are the smallest keys in byte order.';

CREATE FUNCTION grail.bfs(graph text, source uuid, max_depth int, direction text)
RETURNS TABLE (vertex uuid, depth int, parent uuid)
AS 'MODULE_PATHNAME', 'grail_bfs_direction_uuid'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, uuid, int, text) IS
'bfs() in a direction (''out'', ''in'' or ''both'') from a uuid key.';

CREATE FUNCTION grail.descendants(graph text, vertex bigint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_descendants'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.descendants(text, bigint, int) IS
'The vertices that vertex reaches, each with its distance (depth) from vertex: vertex itself at depth 0 (as in bfs(); WHERE depth > 0 leaves it out), ordered by depth, then vertex. max_depth NULL means no limit. A vertex that is not in the graph gives only itself.';

CREATE FUNCTION grail.descendants(graph text, vertex text, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex text, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_descendants_text'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.descendants(text, text, int) IS
'descendants() of a text key: the keys it reaches and their depths, itself at depth 0.';

CREATE FUNCTION grail.descendants(graph text, vertex uuid, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex uuid, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_descendants_uuid'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.descendants(text, uuid, int) IS
'descendants() of a uuid key: the keys it reaches and their depths, itself at depth 0.';

CREATE FUNCTION grail.ancestors(graph text, vertex bigint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_ancestors'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.ancestors(text, bigint, int) IS
'The vertices that reach vertex, each with its distance (depth) to vertex: vertex itself at depth 0 (WHERE depth > 0 leaves it out), ordered by depth, then vertex. max_depth NULL means no limit. A vertex that is not in the graph gives only itself.';

CREATE FUNCTION grail.ancestors(graph text, vertex text, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex text, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_ancestors_text'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.ancestors(text, text, int) IS
'ancestors() of a text key: the keys that reach it and their depths, itself at depth 0.';

CREATE FUNCTION grail.ancestors(graph text, vertex uuid, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex uuid, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_ancestors_uuid'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.ancestors(text, uuid, int) IS
'ancestors() of a uuid key: the keys that reach it and their depths, itself at depth 0.';
-- The planner's estimates (grail_internal._planner_support) for them, as for the three-argument bfs().
ALTER FUNCTION grail.bfs(text, bigint, int, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, text, int, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, uuid, int, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.descendants(text, bigint, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.descendants(text, text, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.descendants(text, uuid, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.ancestors(text, bigint, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.ancestors(text, text, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.ancestors(text, uuid, int) SUPPORT grail_internal._planner_support;

-- The GPU service (docs/architecture.md, The GPU service): the images it keeps resident.
CREATE FUNCTION grail.gpu_service_images()
RETURNS TABLE (graph_id bigint, build bigint, build_uuid uuid, host_bytes bigint, device_bytes bigint,
               last_used timestamptz, requests bigint)
AS 'MODULE_PATHNAME', 'grail_gpu_service_images'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED COST 100 ROWS 10;
-- As grail.cache_info(): the images of every graph of the database, those over tables the caller
-- cannot read included.
REVOKE ALL ON FUNCTION grail.gpu_service_images() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.gpu_service_images() TO pg_monitor;
COMMENT ON FUNCTION grail.gpu_service_images() IS
'The images of this database''s graph builds that the GPU service keeps resident (graph_id is grail.graph.id): their mapped bytes, the device memory their copies hold (the CPU stand-in: its host copies), last use and requests. No rows when the service does not run: grail.device_info() says why. For pg_monitor members.';
COMMENT ON FUNCTION grail.device_info() IS
'The GPU this session would use (name, compute capability, memory), or why it runs on the CPU only, then the GPU service: running (server pid, executor, restarts) or why not. Initialises CUDA in this backend.';

-- Paths, cycles and chordless_cycles() progress: text keys on other graphs, the search in grail.activity.
COMMENT ON FUNCTION grail_internal._activity() IS
'The builds and merges in progress in this database, and the chordless_cycles() searches open, that the current role may see (grail.activity); none without pg_grail in shared_preload_libraries.';
COMMENT ON VIEW grail.activity IS 'pg_grail graphs (those grail.graphs lists, or all for members of pg_read_all_stats) with their pending changes, and the builds and merges in progress in this database (create_graph, refresh_graph, merge_graph, background merges) and the chordless_cycles() searches open (done: start vertices whose cycles are all found, of total: the graph''s vertices): phase, rows, vertices or bytes done of total where known, start and elapsed time; the progress columns are NULL without pg_grail in shared_preload_libraries';

-- Merges you can watch, as autovacuum is watched (pg_stat_all_tables): each graph's catalog row
-- keeps when it was last merged by hand (grail.merge_graph()) and in the background, and how many
-- times each, written by the merge's own build (src/pg/store/catalog.cpp, store_index), so that
-- they are transactional with it (a merge that rolls back counts nothing), survive a restart, and
-- go with the graph to a dump and a standby. grail.log_merge_min_duration logs the merges.
ALTER TABLE grail.graph
	ADD COLUMN last_merge timestamptz,
	ADD COLUMN merge_count bigint NOT NULL DEFAULT 0,
	ADD COLUMN last_background_merge timestamptz,
	ADD COLUMN background_merge_count bigint NOT NULL DEFAULT 0;

-- oid and reg* keys, and system catalogs as edge tables. Where each build was made (the cluster,
-- the database and the edge table's number: src/pg/store/catalog.hpp, build_scope), so that a build
-- keyed by oids (roles, relations, ...) never answers after a restore renumbered those objects: the
-- edge table's reg* columns come back as names, and relid as a regclass, both renumbered; the
-- stored image does not.
ALTER TABLE grail.graph ADD COLUMN built_in text;
COMMENT ON FUNCTION grail.scc_components(text, anyelement) IS
'scc_components() with keys of the type of key_type (NULL::bigint, NULL::text, NULL::varchar, NULL::uuid, NULL::oid or a NULL of the reg* type of the graph''s keys, as NULL::regrole): each component is identified by its smallest key (byte order, as COLLATE "C", for text; uuid order for uuid; the oid''s number for oid types); ordered by key.';
COMMENT ON FUNCTION grail.chordless_cycles(text, anyelement, int, int) IS
'chordless_cycles() with keys of the type of key_type (NULL::bigint, NULL::text, NULL::varchar, NULL::uuid, NULL::oid or a NULL of the reg* type of the graph''s keys): each cycle from its smallest key (byte order for text) towards its smaller neighbour.';

-- Keys of oid and reg* types in their own type: grail.bfs('roles', 'alice'::regrole) answers
-- regrole vertices. One polymorphic overload per function (anyelement, or anycompatiblenonarray where two
-- keys may be of an oid type and one of its aliases): an overload per reg* type would be seven
-- more of each. Either way, a candidate that takes an integer implicitly (as every oid type and
-- every polymorphic one does) makes a call with integer or smallint keys ambiguous between it and
-- the bigint overload (PostgreSQL prefers neither: bigint is not the numeric category's preferred
-- type), so integer and smallint overloads come with it: such a call matches one of them exactly,
-- and they answer as the bigint overload does, in bigint. The C functions read the key's type
-- and hand the call to the bigint implementation with the keys as bigints.
CREATE FUNCTION grail.reachable(graph text, source anycompatiblenonarray, target anycompatiblenonarray)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 25;
COMMENT ON FUNCTION grail.reachable(text, anycompatiblenonarray, anycompatiblenonarray) IS
'reachable() over a graph keyed by oid or a reg* type (regrole, regclass, regnamespace, regproc, regprocedure, regtype), with keys of its type or oid: reachable(''roles'', ''alice''::regrole, ''admins''). An oid that is not in the graph reaches only itself.';
CREATE FUNCTION grail.reachable(graph text, source integer, target integer)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_int4'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 25;
COMMENT ON FUNCTION grail.reachable(text, integer, integer) IS
'reachable() with integer keys, as reachable(graph, bigint, bigint).';
CREATE FUNCTION grail.reachable(graph text, source smallint, target smallint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_int2'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 25;
COMMENT ON FUNCTION grail.reachable(text, smallint, smallint) IS
'reachable() with smallint keys, as reachable(graph, bigint, bigint).';

CREATE FUNCTION grail.reachable(graph text, sources anycompatiblearray, targets anycompatiblearray)
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.reachable(text, anycompatiblearray, anycompatiblearray) IS
'reachable() for each pair (sources[i], targets[i]) of keys of an oid type; a NULL element gives NULL.';
CREATE FUNCTION grail.reachable(graph text, sources integer[], targets integer[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.reachable(text, integer[], integer[]) IS
'reachable() for each pair of integer keys, as reachable(graph, bigint[], bigint[]).';
CREATE FUNCTION grail.reachable(graph text, sources smallint[], targets smallint[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.reachable(text, smallint[], smallint[]) IS
'reachable() for each pair of smallint keys, as reachable(graph, bigint[], bigint[]).';

CREATE FUNCTION grail.scc_component(graph text, vertex anyelement)
RETURNS anyelement
AS 'MODULE_PATHNAME', 'grail_scc_component_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 15;
COMMENT ON FUNCTION grail.scc_component(text, anyelement) IS
'scc_component() of a key of an oid type: the component''s smallest oid, in the key''s type.';
CREATE FUNCTION grail.scc_component(graph text, vertex integer)
RETURNS bigint
AS 'MODULE_PATHNAME', 'grail_scc_component_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 15;
COMMENT ON FUNCTION grail.scc_component(text, integer) IS 'scc_component() of an integer key, as scc_component(graph, bigint).';
CREATE FUNCTION grail.scc_component(graph text, vertex smallint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'grail_scc_component_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 15;
COMMENT ON FUNCTION grail.scc_component(text, smallint) IS 'scc_component() of a smallint key, as scc_component(graph, bigint).';

CREATE FUNCTION grail.bfs(graph text, source anyelement, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex anyelement, depth int, parent anyelement)
AS 'MODULE_PATHNAME', 'grail_bfs_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, anyelement, int) IS
'bfs() from a key of an oid type (grail.bfs(''roles'', ''alice''::regrole)): the vertices and parents in the key''s type.';
CREATE FUNCTION grail.bfs(graph text, source integer, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, integer, int) IS 'bfs() from an integer key, as bfs(graph, bigint, max_depth).';
CREATE FUNCTION grail.bfs(graph text, source smallint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, smallint, int) IS 'bfs() from a smallint key, as bfs(graph, bigint, max_depth).';

CREATE FUNCTION grail.bfs(graph text, source anyelement, max_depth int, direction text)
RETURNS TABLE (vertex anyelement, depth int, parent anyelement)
AS 'MODULE_PATHNAME', 'grail_bfs_direction_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, anyelement, int, text) IS
'bfs() in a direction (''out'', ''in'' or ''both'') from a key of an oid type, in the key''s type.';
CREATE FUNCTION grail.bfs(graph text, source integer, max_depth int, direction text)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs_direction_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, integer, int, text) IS 'bfs() in a direction from an integer key, as bfs(graph, bigint, max_depth, direction).';
CREATE FUNCTION grail.bfs(graph text, source smallint, max_depth int, direction text)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs_direction_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, smallint, int, text) IS 'bfs() in a direction from a smallint key, as bfs(graph, bigint, max_depth, direction).';

CREATE FUNCTION grail.descendants(graph text, vertex anyelement, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex anyelement, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_descendants_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.descendants(text, anyelement, int) IS
'descendants() of a key of an oid type, in the key''s type: grail.descendants(''roles'', ''alice''::regrole) are the roles alice is a member of, directly or through others.';
CREATE FUNCTION grail.descendants(graph text, vertex integer, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_descendants_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.descendants(text, integer, int) IS 'descendants() of an integer key, as descendants(graph, bigint, max_depth).';
CREATE FUNCTION grail.descendants(graph text, vertex smallint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_descendants_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.descendants(text, smallint, int) IS 'descendants() of a smallint key, as descendants(graph, bigint, max_depth).';

CREATE FUNCTION grail.ancestors(graph text, vertex anyelement, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex anyelement, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_ancestors_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.ancestors(text, anyelement, int) IS
'ancestors() of a key of an oid type, in the key''s type: grail.ancestors(''roles'', ''admins''::regrole) are every member of admins, directly or through others.';
CREATE FUNCTION grail.ancestors(graph text, vertex integer, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_ancestors_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.ancestors(text, integer, int) IS 'ancestors() of an integer key, as ancestors(graph, bigint, max_depth).';
CREATE FUNCTION grail.ancestors(graph text, vertex smallint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int)
AS 'MODULE_PATHNAME', 'grail_traverse_ancestors_any'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.ancestors(text, smallint, int) IS 'ancestors() of a smallint key, as ancestors(graph, bigint, max_depth).';

CREATE FUNCTION grail.path(graph text, source anycompatiblenonarray, target anycompatiblenonarray)
RETURNS anycompatiblearray
AS 'MODULE_PATHNAME', 'grail_path_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.path(text, anycompatiblenonarray, anycompatiblenonarray) IS
'path() between keys of an oid type: one shortest path as its keys, in their type; NULL when none.';
CREATE FUNCTION grail.path(graph text, source integer, target integer)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'grail_path_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.path(text, integer, integer) IS 'path() between integer keys, as path(graph, bigint, bigint).';
CREATE FUNCTION grail.path(graph text, source smallint, target smallint)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'grail_path_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.path(text, smallint, smallint) IS 'path() between smallint keys, as path(graph, bigint, bigint).';

CREATE FUNCTION grail.find_cycle(graph text, vertex anyelement)
RETURNS anyarray
AS 'MODULE_PATHNAME', 'grail_find_cycle_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.find_cycle(text, anyelement) IS
'find_cycle() through a key of an oid type: one shortest directed cycle as its keys, in their type; NULL when none.';
CREATE FUNCTION grail.find_cycle(graph text, vertex integer)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'grail_find_cycle_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.find_cycle(text, integer) IS 'find_cycle() through an integer key, as find_cycle(graph, bigint).';
CREATE FUNCTION grail.find_cycle(graph text, vertex smallint)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'grail_find_cycle_any'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.find_cycle(text, smallint) IS 'find_cycle() through a smallint key, as find_cycle(graph, bigint).';

-- The planner's estimates (grail_internal._planner_support), as for the bigint overloads.
ALTER FUNCTION grail.reachable(text, anycompatiblenonarray, anycompatiblenonarray) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.reachable(text, integer, integer) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.reachable(text, smallint, smallint) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, anyelement, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, integer, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, smallint, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, anyelement, int, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, integer, int, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.bfs(text, smallint, int, text) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.descendants(text, anyelement, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.descendants(text, integer, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.descendants(text, smallint, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.ancestors(text, anyelement, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.ancestors(text, integer, int) SUPPORT grail_internal._planner_support;
ALTER FUNCTION grail.ancestors(text, smallint, int) SUPPORT grail_internal._planner_support;
-- Filters: create_graph(..., filter => 'kind = ''prod''') builds the graph over the rows that pass a
-- boolean expression of the edge table's columns, checked as a partial index's predicate is
-- (src/pg/store/edge_filter.hpp). It is stored as SQL text, as PostgreSQL's deparser writes it with
-- only pg_catalog on the search_path (so every other object is schema-qualified), because the
-- oids of a node tree would not survive a dump restored elsewhere (grail.graph's rows are dumped
-- as data), pg_upgrade, or a function dropped and created again. filter_columns: the columns it
-- reads, by name: a RENAME COLUMN rewrites the text, a dropped or retyped column makes the graph
-- stale, and its refresh then says why.
ALTER TABLE grail.graph
	ADD COLUMN filter text,
	ADD COLUMN filter_columns name[] NOT NULL DEFAULT '{}';

DROP FUNCTION grail.create_graph(text, regclass, name, name, int, boolean, boolean);
CREATE FUNCTION grail.create_graph(name text, edges regclass, source_column name DEFAULT 'source',
                                   target_column name DEFAULT 'target', labels int DEFAULT 2,
                                   skip_nulls boolean DEFAULT false, live boolean DEFAULT true,
                                   filter text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_create_graph'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE COST 1000000;
-- Plain views as edge sources: a graph over a view is read in each statement's snapshot as the
-- querying role, through the view's query (src/pg/store/edges.cpp), and stores no build.
COMMENT ON FUNCTION grail.create_graph(text, regclass, name, name, int, boolean, boolean, text) IS
'Reads the edge table (two key columns), builds the reachability index and stores it; returns a one-line summary. name is read like a table name (schema.name, or the current schema); it needs CREATE on that schema, and ownership of the edge table or its TRIGGER privilege with UPDATE, DELETE or TRUNCATE. Rows with a NULL endpoint are an error unless skip_nulls. live (the default): writes to the edge table are logged and every query answers for the rows its snapshot sees, with no refresh (grail.merge_graph and the background merge fold them into a new build); live => false: a write makes the graph stale until grail.refresh_graph. filter: a boolean expression over the edge table''s columns, as a partial index''s WHERE clause (immutable functions only, no subqueries or aggregates): only the rows where it is true are edges, at every build, merge and logged write (an UPDATE that moves a row into or out of it adds or removes its edge); NULL (the default): every row. A NULL in any other argument gives NULL. Over a plain view (SELECT on its edge columns is all it needs; no filter; live ignored): nothing is stored, and every statement reads the view''s query as its own role, in its own snapshot (the view''s security_barrier, security_invoker and the row-level security under it apply), once per statement.';

-- The stored filter with a renamed column's new name (src/pg/entry/ddl_commands.cpp); an error
-- where the filter no longer parses.
CREATE FUNCTION grail_internal._filter_renamed(edge_table oid, filter text, old_name name, new_name name)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_filter_renamed'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._filter_renamed(oid, text, name, name) FROM PUBLIC;

-- True where a graph's stored filter reads back, an error where it does not; read with its columns
-- looked up in the catalog, without a lock on the edge table (src/pg/store/edge_filter.hpp).
CREATE FUNCTION grail_internal._filter_reads_back(edge_table oid, filter text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_filter_reads_back'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._filter_reads_back(oid, text) FROM PUBLIC;

-- The graphs whose filter no longer reads back (every column it names still there: a missing column
-- makes its graph stale elsewhere), with the error reading it gave: what the event triggers' filter
-- checks act on, refusing the command at its end (_refuse_unreadable_filters) or making the graph
-- stale at its start (_on_ddl_start). A stale graph's filter is not read: its triggers log nothing,
-- and its refresh says what is wrong. These checks run at DDL commands of the database, whoever runs
-- them: they wait for no lock on an edge table.
CREATE FUNCTION grail_internal._unreadable_filters()
RETURNS TABLE (graph_id bigint, schema_name name, graph_name text, graph_filter text, error_text text)
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	filtered record;
BEGIN
	FOR filtered IN
		SELECT gr.id, n.nspname, gr.name, gr.relid, gr.filter FROM grail.graph gr
		JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) gr.namespace
		WHERE gr.filter IS NOT NULL AND NOT gr.stale
		  AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(gr.filter_columns) f
		                  WHERE NOT grail_internal._has_column(gr.relid::pg_catalog.oid, f))
	LOOP
		BEGIN
			PERFORM grail_internal._filter_reads_back(filtered.relid::pg_catalog.oid, filtered.filter);
		EXCEPTION WHEN OTHERS THEN
			graph_id := filtered.id;
			schema_name := filtered.nspname;
			graph_name := filtered.name;
			graph_filter := filtered.filter;
			error_text := SQLERRM;
			RETURN NEXT;
		END;
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._unreadable_filters() FROM PUBLIC;

-- Refuses the command whose end a filter check runs at (grail_internal._on_drop, _on_alter_table,
-- _on_alter_object) where a graph's filter no longer reads back, naming the first such graph: the
-- command broke it, since grail_internal._on_ddl_start made every graph whose filter was broken
-- before the command started stale. refused: what the command did to an object the filter uses,
-- 'drop' or 'change', as its message says. One function, so that the checks' messages, SQLSTATE,
-- detail and hint stay alike.
CREATE FUNCTION grail_internal._refuse_unreadable_filters(refused text)
RETURNS void
LANGUAGE plpgsql STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	filtered record;
BEGIN
	FOR filtered IN SELECT * FROM grail_internal._unreadable_filters() LOOP
		RAISE EXCEPTION USING
			ERRCODE = 'dependent_objects_still_exist',
			MESSAGE = pg_catalog.format(
				CASE refused
					WHEN 'drop' THEN 'cannot drop an object that the filter of pg_grail graph "%s.%s" uses'
					ELSE 'cannot change an object that the filter of pg_grail graph "%s.%s" uses, as that would leave the filter invalid'
				END, filtered.schema_name, filtered.graph_name),
			DETAIL = pg_catalog.format('The filter is: %s', filtered.graph_filter),
			HINT = 'Drop the graph with grail.drop_graph() first, or create it again with another filter.';
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._refuse_unreadable_filters(text) FROM PUBLIC;

-- {old name, new name} of a command that renamed a column, else NULL (src/pg/entry/ddl_commands.cpp).
CREATE FUNCTION grail_internal._column_rename(pg_ddl_command)
RETURNS text[]
AS 'MODULE_PATHNAME', 'grail_column_rename'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._column_rename(pg_ddl_command) FROM PUBLIC;

-- As before, and a filter follows the renames of its columns (a filter that no longer parses leaves
-- its graph stale rather than refusing the rename), and a type change of one of its columns (which
-- rewrites the rows without firing triggers and can change what the filter passes) makes its graph
-- stale.
CREATE OR REPLACE FUNCTION grail_internal._on_alter_table()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	r record;
BEGIN
	UPDATE grail.graph g SET source_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0
	  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column);
	UPDATE grail.graph g SET target_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0
	  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column);
	FOR r IN
		SELECT g.id, g.relid::pg_catalog.oid AS relid, g.filter, n.names[1]::pg_catalog.name AS old_name,
		       n.names[2]::pg_catalog.name AS new_name
		FROM grail.graph g, pg_catalog.pg_event_trigger_ddl_commands() c,
		     LATERAL (SELECT grail_internal._column_rename(c.command) AS names) n
		WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		  AND n.names IS NOT NULL AND g.filter IS NOT NULL
		  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
		  AND n.names[1]::pg_catalog.name OPERATOR(pg_catalog.=) ANY (g.filter_columns)
		  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, n.names[1]::pg_catalog.name)
	LOOP
		BEGIN
			UPDATE grail.graph SET filter = grail_internal._filter_renamed(r.relid::pg_catalog.oid, r.filter, r.old_name::pg_catalog.name, r.new_name::pg_catalog.name),
			                       filter_columns = pg_catalog.array_replace(filter_columns, r.old_name, r.new_name)
			WHERE id OPERATOR(pg_catalog.=) r.id;
		EXCEPTION WHEN OTHERS THEN
			UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) r.id;
		END;
	END LOOP;
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail_internal._changes_trigger_state(c.command)
	  AND NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND (c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	       OR g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid)))
	  AND (grail_internal._alters_column_type(c.command, g.source_column, g.target_column)
	       OR EXISTS (SELECT 1 FROM pg_catalog.unnest(g.filter_columns) f
	                  WHERE grail_internal._alters_column_type(c.command, f, f)))
	  AND NOT g.stale;
END
$$;

-- As before, and a graph whose filter reads a column that is dropped goes stale (its refresh says
-- which column); a DROP of another object that its filter uses (a function, an operator, a type,
-- a schema) is refused, as PostgreSQL refuses to drop what a partial index uses: the filter could
-- no longer be read, and every write to the edge table would fail in its trigger. (A stale
-- graph's filter is not checked: its triggers log nothing, and its refresh says what is wrong.)
CREATE OR REPLACE FUNCTION grail_internal._on_drop()
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
		            OR NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column)
		            OR NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column)))
		   OR (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
		       AND o.objid OPERATOR(pg_catalog.=) g.namespace::pg_catalog.oid)
		RETURNING g.id, g.watched_tables
	LOOP
		PERFORM grail_internal._drop_triggers(dropped.id, dropped.watched_tables);
		DELETE FROM grail.pending_change WHERE graph_id OPERATOR(pg_catalog.=) dropped.id;
	END LOOP;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		UPDATE grail.graph g SET stale = true
		WHERE NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	END IF;
	UPDATE grail.graph g SET stale = true
	WHERE g.filter IS NOT NULL AND NOT g.stale
	  AND EXISTS (SELECT 1 FROM pg_catalog.unnest(g.filter_columns) f
	              WHERE NOT grail_internal._has_column(g.relid::pg_catalog.oid, f));
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_class'::pg_catalog.regclass
	             AND o.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		PERFORM grail_internal._refuse_unreadable_filters('drop');
	END IF;
END
$$;

-- Materialized views as edge sources: a graph over one builds as over a table, is never live (a
-- materialized view fires no triggers), and goes stale when REFRESH MATERIALIZED VIEW (also
-- CONCURRENTLY) changes its rows, in the refresh's transaction: a refresh rolled back leaves it as
-- it was. grail.refresh_graph() rebuilds it. (A restore refreshes materialized views after the
-- graphs' rows are in: their graphs come back stale.) _watch puts no triggers on one.
CREATE OR REPLACE FUNCTION grail_internal._watch(graph_id bigint)
RETURNS void
LANGUAGE plpgsql STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	t pg_catalog.oid;
	names pg_catalog.text[] := grail_internal._trigger_names(graph_id);
	up pg_catalog.oid[];
	down pg_catalog.oid[];
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail_internal._ancestors(g.relid::pg_catalog.oid);
	down := grail_internal._descendants(g.relid::pg_catalog.oid);
	FOREACH t IN ARRAY down LOOP
		-- A foreign table can have no transition tables (nor rows here): the graph stays unwatched,
		-- so it refuses, and a build refuses the table. A materialized view can have no triggers: its
		-- rows change only by REFRESH MATERIALIZED VIEW, which grail_internal._on_refresh sees.
		CONTINUE WHEN (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) t) OPERATOR(pg_catalog.=) ANY ('{f,m}'::pg_catalog.char[]);
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
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[3:7]);
	END LOOP;
	FOREACH t IN ARRAY up LOOP
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[1:1]);
	END LOOP;
	-- Off the tables that left the family.
	PERFORM grail_internal._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$$;

CREATE FUNCTION grail_internal._on_refresh()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND NOT g.stale;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._on_refresh() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_refresh ON ddl_command_end
	WHEN TAG IN ('REFRESH MATERIALIZED VIEW')
	EXECUTE FUNCTION grail_internal._on_refresh();
ALTER EVENT TRIGGER grail_on_refresh ENABLE ALWAYS;

-- A function, operator, type, collation or schema that a filter names cannot be renamed or moved to
-- another schema, as it cannot be dropped (grail_internal._on_drop), nor a function made other than
-- IMMUTABLE (ALTER FUNCTION or ROUTINE, CREATE OR REPLACE FUNCTION), nor a call of the filter made
-- ambiguous by an overload (CREATE FUNCTION, PROCEDURE, AGGREGATE, OPERATOR or CAST): the stored
-- filter would no longer read back, or no longer be fit to filter rows, and every write to the edge
-- table would fail in its trigger.
CREATE FUNCTION grail_internal._on_alter_object()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	PERFORM grail_internal._refuse_unreadable_filters('change');
END
$$;
REVOKE ALL ON FUNCTION grail_internal._on_alter_object() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_alter_object ON ddl_command_end
	WHEN TAG IN ('ALTER FUNCTION', 'CREATE FUNCTION', 'ALTER PROCEDURE', 'CREATE PROCEDURE', 'ALTER ROUTINE',
	             'ALTER AGGREGATE', 'CREATE AGGREGATE', 'ALTER OPERATOR', 'CREATE OPERATOR', 'CREATE CAST', 'ALTER TYPE',
	             'ALTER DOMAIN', 'ALTER COLLATION', 'ALTER SCHEMA', 'ALTER EXTENSION')
	EXECUTE FUNCTION grail_internal._on_alter_object();
ALTER EVENT TRIGGER grail_on_alter_object ENABLE ALWAYS;

-- The checks at a command's end (grail_internal._refuse_unreadable_filters: _on_drop,
-- _on_alter_table, _on_alter_object) parse every graph's filter and refuse the command where one no
-- longer reads back, taking it for the command that broke it. A filter broken by what they did not
-- see (event triggers disabled meanwhile) would then fail every later DROP TABLE, CREATE FUNCTION or
-- ALTER SCHEMA in the database, whoever runs it: so when such a command starts, a graph whose
-- filter no longer reads back goes stale (its writes skip the filter, its queries and refresh say
-- why), with a WARNING, and the checks at the end refuse only the command that breaks a filter.
-- Reading every filter back costs about 30 us a graph, so it is done at the start of the commands
-- that a check at the end can refuse only, not of every CREATE TEMP TABLE: the tags of
-- grail_on_alter_object and grail_on_alter_table, and those of the commands that can drop an object
-- other than a relation or a trigger (what grail_on_drop refuses), as PostgreSQL 15 fires sql_drop
-- for them (more than its documentation's matrix says): every DROP but DROP TRIGGER, which drops
-- triggers alone (a relation's DROP drops its row type, and DROP INDEX or SEQUENCE ... CASCADE the
-- constraints and defaults that use them); ALTER TABLE, FOREIGN TABLE, VIEW and DOMAIN (a column, a
-- constraint, a default); ALTER OPERATOR FAMILY ... DROP; ALTER PUBLICATION (a table or schema
-- taken out); ALTER DEFAULT PRIVILEGES (an entry back to the default). test/pgtap/filter_ddl_start.sql
-- runs a command of each tag.
CREATE FUNCTION grail_internal._on_ddl_start()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	filtered record;
	graph_owner pg_catalog.regrole;
BEGIN
	FOR filtered IN SELECT * FROM grail_internal._unreadable_filters() LOOP
		UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) filtered.graph_id
		RETURNING owner INTO graph_owner;
		-- Said to the graph's owner (its members, superusers) only: the command may be any role's, and
		-- grail.graphs shows a graph's filter only to roles that may read its columns.
		CONTINUE WHEN NOT pg_catalog.pg_has_role(SESSION_USER, graph_owner::pg_catalog.oid, 'MEMBER');
		RAISE WARNING 'the filter of pg_grail graph "%.%" no longer reads back: the graph is stale', filtered.schema_name,
		              filtered.graph_name
			USING ERRCODE = 'object_not_in_prerequisite_state',
			      DETAIL = pg_catalog.format('The filter is: %s (%s)', filtered.graph_filter, filtered.error_text),
			      HINT = 'Put back what the filter uses and refresh the graph, or drop it with grail.drop_graph().';
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._on_ddl_start() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_ddl_start ON ddl_command_start
	WHEN TAG IN ('ALTER AGGREGATE', 'ALTER COLLATION', 'ALTER DEFAULT PRIVILEGES', 'ALTER DOMAIN', 'ALTER EXTENSION',
	             'ALTER FOREIGN TABLE', 'ALTER FUNCTION', 'ALTER MATERIALIZED VIEW', 'ALTER OPERATOR',
	             'ALTER OPERATOR FAMILY', 'ALTER PROCEDURE', 'ALTER PUBLICATION', 'ALTER ROUTINE', 'ALTER SCHEMA',
	             'ALTER TABLE', 'ALTER TYPE', 'ALTER VIEW', 'CREATE AGGREGATE', 'CREATE CAST', 'CREATE FUNCTION',
	             'CREATE OPERATOR', 'CREATE PROCEDURE', 'DROP ACCESS METHOD', 'DROP AGGREGATE', 'DROP CAST',
	             'DROP COLLATION', 'DROP CONVERSION', 'DROP DOMAIN', 'DROP EXTENSION', 'DROP FOREIGN DATA WRAPPER',
	             'DROP FOREIGN TABLE', 'DROP FUNCTION', 'DROP INDEX', 'DROP LANGUAGE', 'DROP MATERIALIZED VIEW',
	             'DROP OPERATOR', 'DROP OPERATOR CLASS', 'DROP OPERATOR FAMILY', 'DROP OWNED', 'DROP POLICY',
	             'DROP PROCEDURE', 'DROP PUBLICATION', 'DROP ROUTINE', 'DROP RULE', 'DROP SCHEMA', 'DROP SEQUENCE',
	             'DROP SERVER', 'DROP STATISTICS', 'DROP SUBSCRIPTION', 'DROP TABLE', 'DROP TEXT SEARCH CONFIGURATION',
	             'DROP TEXT SEARCH DICTIONARY', 'DROP TEXT SEARCH PARSER', 'DROP TEXT SEARCH TEMPLATE',
	             'DROP TRANSFORM', 'DROP TYPE', 'DROP USER MAPPING', 'DROP VIEW')
	EXECUTE FUNCTION grail_internal._on_ddl_start();
ALTER EVENT TRIGGER grail_on_ddl_start ENABLE ALWAYS;
-- The incremental overlay of live graphs: each row of the change log carries its writer's
-- top-level transaction, which orders the log, so that a reader whose snapshot sees all that its
-- last read saw reads only the rows logged since (src/pg/store/pending_changes.hpp). Rows logged
-- before the column have none: readers take them as logged before any bound.
ALTER TABLE grail.pending_change ADD COLUMN xid xid8;
DROP INDEX grail.pending_change_graph;
CREATE INDEX pending_change_graph ON grail.pending_change (graph_id, xid);
-- The log trigger writes its rows through the access methods, with its own transaction's id and no
-- trigger; a row written by SQL (a restore's COPY, a logical replication apply of the table, a
-- hand) gets the id of the transaction that writes it, whatever it says, so that no row below a
-- reader's bound appears after the reader's snapshot.
CREATE FUNCTION grail_internal._pending_change_xid()
RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	NEW.xid := pg_catalog.pg_current_xact_id();
	RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._pending_change_xid() FROM PUBLIC;
COMMENT ON FUNCTION grail_internal._pending_change_xid() IS 'pg_grail internal: sets the xid of a row of grail.pending_change written by SQL to its writer''s transaction';
CREATE TRIGGER pending_change_xid BEFORE INSERT OR UPDATE ON grail.pending_change
	FOR EACH ROW EXECUTE FUNCTION grail_internal._pending_change_xid();
ALTER TABLE grail.pending_change ENABLE ALWAYS TRIGGER pending_change_xid;

-- Only pg_grail writes its catalog tables (src/pg/entry/catalog_writes.cpp): a row of grail.graph
-- decides whose rights a graph's filter and merges run with (owner) and what they run (filter), so
-- a role that could write it could run its own function as a superuser. Grants are guarded
-- (grail_on_grant), but a membership that writes every table (pg_write_all_data) is not, nor a grant
-- made while event triggers were disabled: each row written and each TRUNCATE is refused unless
-- its role is a superuser or the extension's owner. ENABLE ALWAYS (a replica's apply and a restore
-- as a superuser pass it); the index's writer, which stores chunks through the access methods
-- unless a user's trigger is on the table, knows these for pg_grail's.
CREATE FUNCTION grail_internal._refuse_catalog_writes()
RETURNS trigger
AS 'MODULE_PATHNAME', 'grail_refuse_catalog_writes'
LANGUAGE C;
REVOKE ALL ON FUNCTION grail_internal._refuse_catalog_writes() FROM PUBLIC;
COMMENT ON FUNCTION grail_internal._refuse_catalog_writes() IS 'pg_grail internal: refuses a write to pg_grail''s catalog tables by a role that is neither a superuser nor the extension''s owner';
CREATE TRIGGER catalog_writes BEFORE INSERT OR UPDATE OR DELETE ON grail.graph
	FOR EACH ROW EXECUTE FUNCTION grail_internal._refuse_catalog_writes();
CREATE TRIGGER catalog_truncates BEFORE TRUNCATE ON grail.graph
	FOR EACH STATEMENT EXECUTE FUNCTION grail_internal._refuse_catalog_writes();
ALTER TABLE grail.graph ENABLE ALWAYS TRIGGER catalog_writes, ENABLE ALWAYS TRIGGER catalog_truncates;
CREATE TRIGGER catalog_writes BEFORE INSERT OR UPDATE OR DELETE ON grail.index_chunk
	FOR EACH ROW EXECUTE FUNCTION grail_internal._refuse_catalog_writes();
CREATE TRIGGER catalog_truncates BEFORE TRUNCATE ON grail.index_chunk
	FOR EACH STATEMENT EXECUTE FUNCTION grail_internal._refuse_catalog_writes();
ALTER TABLE grail.index_chunk ENABLE ALWAYS TRIGGER catalog_writes, ENABLE ALWAYS TRIGGER catalog_truncates;
CREATE TRIGGER catalog_writes BEFORE INSERT OR UPDATE OR DELETE ON grail.pending_change
	FOR EACH ROW EXECUTE FUNCTION grail_internal._refuse_catalog_writes();
CREATE TRIGGER catalog_truncates BEFORE TRUNCATE ON grail.pending_change
	FOR EACH STATEMENT EXECUTE FUNCTION grail_internal._refuse_catalog_writes();
ALTER TABLE grail.pending_change ENABLE ALWAYS TRIGGER catalog_writes, ENABLE ALWAYS TRIGGER catalog_truncates;

-- What answers a graph's functions: grail.explain_graph() opens the graph as they open it, in the
-- calling statement's snapshot, and says which build, image, overlay and device answer each.
CREATE FUNCTION grail.explain_graph(graph text)
RETURNS TABLE (function text, answers_from text, build bigint, build_uuid uuid, built_at timestamptz, image text,
               image_format integer, pending_changes bigint, overlay_inserted bigint, overlay_deleted bigint,
               device text, device_detail text)
AS 'MODULE_PATHNAME', 'grail_explain_graph'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED COST 100 ROWS 7;
COMMENT ON FUNCTION grail.explain_graph(text) IS
'What answers the graph''s functions in this statement''s snapshot, in this session, one row per group of functions: answers_from (build; build and overlay: the last build and the overlay of the pending changes the snapshot sees, for reachable(); snapshot rebuild: an index of the rows the snapshot sees, built in this session and kept; rows read: the same, for a statement whose own writes are not logged yet), the build (number, uuid, built_at), where its image lives (shared cache, private copy, memory of this backend), its format version, the pending edge changes the snapshot sees, the edges the overlay inserts and deletes, and the device (cpu, gpu service, gpu in this backend) with why. It opens the graph as the functions do, with their checks, and loads (or rebuilds) what they would, keeping it for them.';

-- The bodies that name a moved function, as pg_grail.sql has them.
CREATE OR REPLACE FUNCTION grail._mark_stale()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
BEGIN
	SELECT id, name, relid INTO g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) TG_ARGV[0]::pg_catalog.int8;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	-- A trigger that came with a dump of its table alone (pg_dump -t) into a database where another
	-- graph has its id is none of that graph's: its table is not an ancestor of the edge table.
	IF TG_RELID OPERATOR(pg_catalog.<>) ALL (grail_internal._ancestors(g.relid::pg_catalog.oid)) THEN
		RAISE WARNING USING ERRCODE = 'object_not_in_prerequisite_state',
			MESSAGE = pg_catalog.format('pg_grail trigger "%s" on table "%s" ignores this write: the table is not in the '
			                            'inheritance family of graph "%s" (id %s), whose edge table is "%s"',
			                            TG_NAME, TG_TABLE_NAME, g.name, g.id, g.relid),
			DETAIL = 'Such a trigger comes with a dump of the table alone (pg_dump -t) restored into a database '
			         'where another graph has that id.',
			HINT = pg_catalog.format('Drop the trigger: DROP TRIGGER %I ON %I.%I;', TG_NAME, TG_TABLE_SCHEMA, TG_TABLE_NAME);
		RETURN NULL;
	END IF;
	UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) g.id AND NOT stale;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION grail_internal._drop_triggers(graph_id bigint, tables regclass[], keep text[] DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	t pg_catalog.oid;
	trigger_name pg_catalog.name;
BEGIN
	FOR t IN SELECT r FROM pg_catalog.unnest(tables::pg_catalog.oid[]) r
	         WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) r) LOOP
		FOR trigger_name IN SELECT tg.tgname FROM pg_catalog.pg_trigger tg
		                    WHERE tg.tgrelid OPERATOR(pg_catalog.=) t
		                      AND tg.tgname::pg_catalog.text OPERATOR(pg_catalog.=) ANY (grail_internal._trigger_names(graph_id))
		                      AND tg.tgname::pg_catalog.text OPERATOR(pg_catalog.<>) ALL (keep) LOOP
			EXECUTE pg_catalog.format('DROP TRIGGER %I ON %s', trigger_name, t::pg_catalog.regclass);
		END LOOP;
	END LOOP;
END
$$;

CREATE OR REPLACE FUNCTION grail_internal._watch(graph_id bigint)
RETURNS void
LANGUAGE plpgsql STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	t pg_catalog.oid;
	names pg_catalog.text[] := grail_internal._trigger_names(graph_id);
	up pg_catalog.oid[];
	down pg_catalog.oid[];
BEGIN
	SELECT * INTO STRICT g FROM grail.graph WHERE id OPERATOR(pg_catalog.=) graph_id;
	up := grail_internal._ancestors(g.relid::pg_catalog.oid);
	down := grail_internal._descendants(g.relid::pg_catalog.oid);
	FOREACH t IN ARRAY down LOOP
		-- A foreign table can have no transition tables (nor rows here): the graph stays unwatched,
		-- so it refuses, and a build refuses the table. A materialized view can have no triggers: its
		-- rows change only by REFRESH MATERIALIZED VIEW, which grail_internal._on_refresh sees.
		CONTINUE WHEN (SELECT c.relkind FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) t) OPERATOR(pg_catalog.=) ANY ('{f,m}'::pg_catalog.char[]);
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
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[3:7]);
	END LOOP;
	FOREACH t IN ARRAY up LOOP
		PERFORM grail_internal._drop_triggers(graph_id, ARRAY[t]::pg_catalog.regclass[], names[1:1]);
	END LOOP;
	-- Off the tables that left the family.
	PERFORM grail_internal._drop_triggers(graph_id, ARRAY(SELECT r FROM pg_catalog.unnest(g.watched_tables::pg_catalog.oid[]) r
	                                             WHERE r OPERATOR(pg_catalog.<>) ALL (up OPERATOR(pg_catalog.||) down))::pg_catalog.regclass[]);
	UPDATE grail.graph SET watched_tables = (up OPERATOR(pg_catalog.||) down)::pg_catalog.regclass[]
	WHERE id OPERATOR(pg_catalog.=) graph_id;
END
$$;

CREATE OR REPLACE FUNCTION grail_internal._on_drop()
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
		            OR NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column)
		            OR NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column)))
		   OR (o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
		       AND o.objid OPERATOR(pg_catalog.=) g.namespace::pg_catalog.oid)
		RETURNING g.id, g.watched_tables
	LOOP
		PERFORM grail_internal._drop_triggers(dropped.id, dropped.watched_tables);
		DELETE FROM grail.pending_change WHERE graph_id OPERATOR(pg_catalog.=) dropped.id;
	END LOOP;
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		UPDATE grail.graph g SET stale = true
		WHERE NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	END IF;
	UPDATE grail.graph g SET stale = true
	WHERE g.filter IS NOT NULL AND NOT g.stale
	  AND EXISTS (SELECT 1 FROM pg_catalog.unnest(g.filter_columns) f
	              WHERE NOT grail_internal._has_column(g.relid::pg_catalog.oid, f));
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger_dropped_objects() o
	           WHERE o.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_class'::pg_catalog.regclass
	             AND o.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_trigger'::pg_catalog.regclass) THEN
		PERFORM grail_internal._refuse_unreadable_filters('drop');
	END IF;
END
$$;

CREATE OR REPLACE FUNCTION grail_internal._column_changes_reach(relation oid)
RETURNS oid[]
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
	SELECT grail_internal._descendants(relation) OPERATOR(pg_catalog.||) ARRAY(
		SELECT t.oid FROM pg_catalog.pg_class k
		JOIN pg_catalog.pg_class t ON t.reloftype OPERATOR(pg_catalog.=) k.reltype
		WHERE k.oid OPERATOR(pg_catalog.=) relation AND k.relkind OPERATOR(pg_catalog.=) 'c')
$$;

CREATE OR REPLACE FUNCTION grail_internal._on_alter_table()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	r record;
BEGIN
	UPDATE grail.graph g SET source_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0
	  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.source_column);
	UPDATE grail.graph g SET target_column = a.attname
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) c.objid AND a.attnum OPERATOR(pg_catalog.=) c.objsubid
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objsubid OPERATOR(pg_catalog.>) 0
	  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
	  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, g.target_column);
	FOR r IN
		SELECT g.id, g.relid::pg_catalog.oid AS relid, g.filter, n.names[1]::pg_catalog.name AS old_name,
		       n.names[2]::pg_catalog.name AS new_name
		FROM grail.graph g, pg_catalog.pg_event_trigger_ddl_commands() c,
		     LATERAL (SELECT grail_internal._column_rename(c.command) AS names) n
		WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		  AND n.names IS NOT NULL AND g.filter IS NOT NULL
		  AND g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid))
		  AND n.names[1]::pg_catalog.name OPERATOR(pg_catalog.=) ANY (g.filter_columns)
		  AND NOT grail_internal._has_column(g.relid::pg_catalog.oid, n.names[1]::pg_catalog.name)
	LOOP
		BEGIN
			UPDATE grail.graph SET filter = grail_internal._filter_renamed(r.relid::pg_catalog.oid, r.filter, r.old_name::pg_catalog.name, r.new_name::pg_catalog.name),
			                       filter_columns = pg_catalog.array_replace(filter_columns, r.old_name, r.new_name)
			WHERE id OPERATOR(pg_catalog.=) r.id;
		EXCEPTION WHEN OTHERS THEN
			UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) r.id;
		END;
	END LOOP;
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	  AND grail_internal._changes_trigger_state(c.command)
	  AND NOT g.stale AND NOT grail_internal._watched(g.id, g.relid::pg_catalog.oid, g.watched_tables);
	UPDATE grail.graph g SET stale = true
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
	  AND (c.objid OPERATOR(pg_catalog.=) ANY (g.watched_tables::pg_catalog.oid[])
	       OR g.relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._column_changes_reach(c.objid)))
	  AND (grail_internal._alters_column_type(c.command, g.source_column, g.target_column)
	       OR EXISTS (SELECT 1 FROM pg_catalog.unnest(g.filter_columns) f
	                  WHERE grail_internal._alters_column_type(c.command, f, f)))
	  AND NOT g.stale;
	-- A filter can read a field of a column whose type is another table's row type, (c).f: an ALTER
	-- TABLE that renames or drops that table's column would leave the filter invalid, and every write
	-- to the edge table would fail in its trigger. Refused as a change of a function the filter uses
	-- is (grail_internal._on_alter_object); the edge table's own filter columns were followed above,
	-- or their graph made stale.
	PERFORM grail_internal._refuse_unreadable_filters('change');
END
$$;

CREATE OR REPLACE FUNCTION grail_internal._on_family_change()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	change pg_catalog.text;
	tables pg_catalog.oid[];
	g record;
BEGIN
	-- 'rows' sorts after 'empty': the stronger change wins.
	SELECT pg_catalog.max(grail_internal._family_change(c.command)),
	       pg_catalog.array_agg(c.objid) FILTER (WHERE grail_internal._family_change(c.command) IS NOT NULL)
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
		                 OR relid::pg_catalog.oid OPERATOR(pg_catalog.=) ANY (grail_internal._ancestors(t)))
		  AND NOT grail_internal._watched(id, relid::pg_catalog.oid, watched_tables)
	LOOP
		PERFORM grail_internal._watch(g.id);
		IF change OPERATOR(pg_catalog.=) 'rows' THEN
			UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) g.id;
		END IF;
	END LOOP;
END
$$;

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
	IF pg_catalog.cardinality(parts) OPERATOR(pg_catalog.>) 2 THEN
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
	WHERE t.oid OPERATOR(pg_catalog.=) grail_internal._key_type(graph);
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

CREATE OR REPLACE FUNCTION grail_internal._on_alter_object()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	PERFORM grail_internal._refuse_unreadable_filters('change');
END
$$;

COMMENT ON FUNCTION grail._mark_stale() IS
'Internal: the trigger that marks a graph stale when a table above its edge table changes; not for users to call. It stays in schema grail, not grail_internal: users'' tables name it in their triggers, which a dump restores as EXECUTE FUNCTION grail._mark_stale(...).';
COMMENT ON FUNCTION grail._log_changes() IS
'Internal: the trigger that logs a live graph''s edge changes (or marks a graph that is not live stale); not for users to call. It stays in schema grail, not grail_internal: users'' tables name it in their triggers, which a dump restores as EXECUTE FUNCTION grail._log_changes(...).';

-- Delta merges: a merge that changes a small share of a graph stores the change from its base
-- build (src/core/build_delta.hpp) in grail.index_chunk rows of negative seq, beside the base's
-- image (seq from 0), instead of a whole new image; index_bytes is then the size of the image that
-- base and delta make. All NULL for a full build.
ALTER TABLE grail.graph
	ADD COLUMN base_build bigint,
	ADD COLUMN base_build_uuid uuid,
	ADD COLUMN base_index_bytes bigint,
	ADD COLUMN delta_changes bigint,
	ADD COLUMN delta_bytes bigint;
-- What a build's snapshot counted as ended: its xmax and the transactions it counted as in
-- progress, so that a reader's overlay of an older build that saw every change this build took in
-- is kept across it (src/pg/store/pending_changes.hpp, build_carries). NULL: not recorded.
ALTER TABLE grail.graph
	ADD COLUMN build_xmax xid8,
	ADD COLUMN build_running xid8[];
-- Build speed: an index chunk row (src/pg/store/catalog.cpp, kChunkBytes) fills one heap page and
-- stays there rather than going to TOAST in 2 kB pieces (each another heap tuple, index entry and
-- WAL record); rows are lz4-compressed by the library where that makes them smaller. Chunks of
-- images written before (4 MB, toasted) are read as before.
ALTER TABLE grail.index_chunk SET (toast_tuple_target = 8160);

-- grail.graphs with the columns this version adds (once they are all in grail.graph): when each
-- graph was last merged by hand and in the background and how many times each, its filter, and its
-- build number and, for a build that a merge stored as its delta from a full build, that base
-- build, its changes and its stored bytes (NULL for a full build).
-- Every operator and function is named with its schema: an update runs this with search_path =
-- grail, where a role that held CREATE on grail before 0.7.0 (default privileges) may have put an
-- operator that oid = regclass would take as its exact match, to run in every caller of the view.
CREATE OR REPLACE VIEW grail.graphs WITH (security_barrier = true) AS
SELECT n.nspname AS schema,
       g.name,
       g.relid::pg_catalog.regclass AS relation,
       s.attname AS source_column,
       t.attname AS target_column,
       g.vertices,
       g.edges,
       g.components,
       g.components AS dag_vertices,
       g.dag_edges,
       g.labels,
       g.built_at,
       pg_catalog.round((g.read_ms OPERATOR(pg_catalog.+) g.graph_ms OPERATOR(pg_catalog.+) g.scc_ms
                         OPERATOR(pg_catalog.+) g.label_ms OPERATOR(pg_catalog.+) g.persist_ms)::pg_catalog.numeric,
                        1) AS build_ms,
       pg_catalog.round(g.read_ms::pg_catalog.numeric, 1) AS read_ms,
       pg_catalog.round((g.graph_ms OPERATOR(pg_catalog.+) g.scc_ms)::pg_catalog.numeric, 1) AS scc_ms,
       pg_catalog.round(g.label_ms::pg_catalog.numeric, 1) AS label_ms,
       pg_catalog.round(g.persist_ms::pg_catalog.numeric, 1) AS persist_ms,
       g.index_bytes,
       g.stale,
       g.owner,
       g.live,
       (SELECT COALESCE(pg_catalog.sum(COALESCE(pg_catalog.cardinality(p.source), pg_catalog.cardinality(p.source_key), 1)), 0)
        FROM grail.pending_change p WHERE p.graph_id OPERATOR(pg_catalog.=) g.id) AS pending_changes,
       g.last_merge,
       g.merge_count,
       g.last_background_merge,
       g.background_merge_count,
       g.filter,
       g.build,
       g.base_build,
       g.delta_changes,
       g.delta_bytes
FROM grail.graph g
JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) g.namespace
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) g.relid
JOIN pg_catalog.pg_attribute s ON s.attrelid OPERATOR(pg_catalog.=) g.relid
                              AND s.attname OPERATOR(pg_catalog.=) g.source_column AND NOT s.attisdropped
JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) g.relid
                              AND t.attname OPERATOR(pg_catalog.=) g.target_column AND NOT t.attisdropped
WHERE pg_catalog.has_schema_privilege(c.relnamespace, 'USAGE')
  AND pg_catalog.has_column_privilege(c.oid, s.attnum, 'SELECT')
  AND pg_catalog.has_column_privilege(c.oid, t.attnum, 'SELECT')
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(g.filter_columns) f(name)
                  JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) g.relid
                                                AND a.attname OPERATOR(pg_catalog.=) f.name AND NOT a.attisdropped
                  WHERE NOT pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT'))
  AND NOT pg_catalog.row_security_active(c.oid);

COMMENT ON VIEW grail.graphs IS 'pg_grail graphs over the edge columns the current role may read: schema, name, edge table, sizes, build times by phase, index size, staleness, whether the graph is live and its edge changes not yet merged (edges of grail.pending_change), when it was last merged by hand (merge_graph) and in the background, and how many times each, its filter (NULL: every row of the table is an edge), its build number, and for a build that a merge stored as a delta: the full build it is a delta from (base_build), the edges and vertices it changes and its stored bytes (NULL for a full build)';

-- grail.graphs and grail.activity show a filtered graph only to roles that may read its filter's
-- columns too (as querying it needs): its sizes and pending changes count the rows the filter passes.
CREATE OR REPLACE VIEW grail.activity WITH (security_barrier = true) AS
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
             AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(g.filter_columns) f(name)
                             JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) g.relid
                                                           AND a.attname OPERATOR(pg_catalog.=) f.name
                                                           AND NOT a.attisdropped
                             WHERE NOT pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT'))
             AND NOT pg_catalog.row_security_active(c.oid))) g
FULL JOIN (SELECT a.*
           FROM grail_internal._activity() a
           WHERE pg_catalog.pg_has_role('pg_read_all_stats', 'USAGE')
              OR NOT EXISTS (SELECT 1
                             FROM grail.graph fg
                             CROSS JOIN pg_catalog.unnest(fg.filter_columns) f(name)
                             JOIN pg_catalog.pg_attribute fa ON fa.attrelid OPERATOR(pg_catalog.=) fg.relid
                                                            AND fa.attname OPERATOR(pg_catalog.=) f.name
                                                            AND NOT fa.attisdropped
                             WHERE fg.id OPERATOR(pg_catalog.=) a.graph_id
                               AND NOT pg_catalog.has_column_privilege(fg.relid, fa.attnum, 'SELECT'))) p
  ON p.graph_id OPERATOR(pg_catalog.=) g.id;

-- pg_grail's objects stay with superusers: the owner of one can change it (CREATE OR REPLACE of a
-- function, a trigger on a catalog table, a view made again, objects put into its schemas), and
-- each runs with other roles' rights: the event triggers' functions in every session that runs
-- DDL, the SECURITY DEFINER functions, the catalog tables under the extension owner's rights
-- (src/pg/boundary/run_as_role.cpp), the views and functions in whoever calls them. So an ALTER ...
-- OWNER TO (or anything else) that leaves one of them to a role that is not a superuser is refused,
-- as PostgreSQL refuses an event trigger owned by one. (ALTER ROLE ... NOSUPERUSER of their owner
-- fires no event trigger: README, Security.)
CREATE FUNCTION grail_internal._on_owner_change()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	handed record;
BEGIN
	SELECT c.object_type, c.object_identity, pg_catalog.pg_get_userbyid(o.owner) AS owner INTO handed
	FROM pg_catalog.pg_event_trigger_ddl_commands() c
	CROSS JOIN LATERAL (
		SELECT p.proowner AS owner FROM pg_catalog.pg_proc p
		WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass AND p.oid OPERATOR(pg_catalog.=) c.objid
		UNION ALL
		SELECT r.relowner FROM pg_catalog.pg_class r
		WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass AND r.oid OPERATOR(pg_catalog.=) c.objid
		UNION ALL
		SELECT n.nspowner FROM pg_catalog.pg_namespace n
		WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass AND n.oid OPERATOR(pg_catalog.=) c.objid
		UNION ALL
		SELECT t.typowner FROM pg_catalog.pg_type t
		WHERE c.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass AND t.oid OPERATOR(pg_catalog.=) c.objid) o
	WHERE EXISTS (SELECT 1 FROM grail_internal._objects() ours
	              WHERE ours.classid OPERATOR(pg_catalog.=) c.classid AND ours.objid OPERATOR(pg_catalog.=) c.objid)
	  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) o.owner AND r.rolsuper)
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'pg_grail''s % % cannot be owned by role "%", which is not a superuser', handed.object_type,
		                handed.object_identity, handed.owner
			USING ERRCODE = 'insufficient_privilege',
			      DETAIL = 'Its owner could change it, and it runs with other roles'' rights: pg_grail''s event triggers in '
			               'every session that runs DDL, its SECURITY DEFINER functions and its catalog with the '
			               'extension owner''s, its functions and views with their callers''.',
			      HINT = 'Leave pg_grail''s objects to a superuser; grant EXECUTE on its functions to the roles that use them.';
	END IF;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._on_owner_change() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_owner_change ON ddl_command_end
	WHEN TAG IN ('ALTER FUNCTION', 'ALTER PROCEDURE', 'ALTER ROUTINE', 'ALTER AGGREGATE', 'ALTER TABLE', 'ALTER VIEW',
	             'ALTER MATERIALIZED VIEW', 'ALTER SEQUENCE', 'ALTER SCHEMA', 'ALTER TYPE')
	EXECUTE FUNCTION grail_internal._on_owner_change();
ALTER EVENT TRIGGER grail_on_owner_change ENABLE ALWAYS;

-- Nor may a GRANT give a role that is not a superuser CREATE on pg_grail's schemas (a function put
-- there next to pg_grail's own makes the event triggers' calls of them ambiguous, so that every
-- DROP TABLE of an edge table fails) or more than SELECT on its tables, views and sequences or on
-- their columns (writes forge graphs; a trigger on a catalog table runs under the extension owner's
-- rights). A GRANT reports no objects to an event trigger, so every GRANT checks them all (a few
-- hundred ACL entries).
CREATE FUNCTION grail_internal._on_grant()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	granted record;
BEGIN
	WITH grants AS (
		SELECT 'schema' AS kind, pg_catalog.quote_ident(n.nspname) AS name, a.privilege_type, a.grantee
		FROM grail_internal._objects() o
		JOIN pg_catalog.pg_namespace n ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
		                              AND n.oid OPERATOR(pg_catalog.=) o.objid
		CROSS JOIN LATERAL pg_catalog.aclexplode(n.nspacl) a
		WHERE a.privilege_type OPERATOR(pg_catalog.=) 'CREATE'
		UNION ALL
		SELECT CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'S' THEN 'sequence' ELSE 'table' END,
		       c.oid::pg_catalog.regclass::pg_catalog.text, a.privilege_type, a.grantee
		FROM grail_internal._objects() o
		JOIN pg_catalog.pg_class c ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		                          AND c.oid OPERATOR(pg_catalog.=) o.objid
		CROSS JOIN LATERAL pg_catalog.aclexplode(c.relacl) a
		WHERE a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT'
		UNION ALL
		-- A column's privileges are its own (GRANT UPDATE (relid) ON grail.graph): a write all the same.
		SELECT 'table', c.oid::pg_catalog.regclass::pg_catalog.text,
		       pg_catalog.format('%s (%I)', a.privilege_type, t.attname), a.grantee
		FROM grail_internal._objects() o
		JOIN pg_catalog.pg_class c ON o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		                          AND c.oid OPERATOR(pg_catalog.=) o.objid
		JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) c.oid AND t.attnum OPERATOR(pg_catalog.>) 0
		CROSS JOIN LATERAL pg_catalog.aclexplode(t.attacl) a
		WHERE a.privilege_type OPERATOR(pg_catalog.<>) 'SELECT')
	SELECT g.kind, g.name, g.privilege_type,
	       CASE WHEN g.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
	            ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)) END AS grantee
	INTO granted
	FROM grants g
	WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.oid OPERATOR(pg_catalog.=) g.grantee AND r.rolsuper)
	LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% on pg_grail''s % % cannot be granted to %, which is not a superuser', granted.privilege_type,
		                granted.kind, granted.name, granted.grantee
			USING ERRCODE = 'insufficient_privilege',
			      DETAIL = 'pg_grail''s event triggers and catalog run with the extension owner''s rights: CREATE on its '
			               'schemas lets a role put functions beside pg_grail''s, and more than SELECT on its tables lets it '
			               'forge graphs or put triggers on them.',
			      HINT = pg_catalog.format('Grant EXECUTE on pg_grail''s functions to the roles that use them, and nothing more '
			                               'on its objects (a grant made before this check: REVOKE %s ON %s %s FROM %s;).',
			                               granted.privilege_type, pg_catalog.upper(granted.kind), granted.name, granted.grantee);
	END IF;
END
$$;
REVOKE ALL ON FUNCTION grail_internal._on_grant() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_grant ON ddl_command_end WHEN TAG IN ('GRANT')
	EXECUTE FUNCTION grail_internal._on_grant();
ALTER EVENT TRIGGER grail_on_grant ENABLE ALWAYS;

-- Grants that default privileges added (ALTER DEFAULT PRIVILEGES of the role running this script,
-- for all schemas or for an empty grail schema of its own) are taken back: CREATE on grail or
-- grail_internal let any grantee put there a function that the event triggers above, running with
-- this role's rights, call in place of pg_grail's (an overload their arguments match better: a
-- superuser's rights for anyone), and writes to the catalog tables or views forge graphs. What
-- stays on each of the extension's schemas, tables, views, sequences and functions
-- (grail_internal._objects()) is
-- PostgreSQL's default for it (acldefault) and what this script grants: USAGE on the schemas and
-- SELECT on the views to PUBLIC, SELECT on the catalog to pg_database_owner, EXECUTE on the
-- monitoring functions to pg_monitor; nothing on their columns. A default privilege that takes a
-- grant away (EXECUTE from PUBLIC) is the administrator's choice and stays.
DO $$
DECLARE
	extra record;
BEGIN
	FOR extra IN
		WITH object AS (
			-- kind, name, ACL, default ACL, owner, the one grant the script makes beyond the default, and
			-- for a column's own privileges (GRANT UPDATE (relid) ON grail.graph) the column
			SELECT 'SCHEMA' AS kind, pg_catalog.quote_ident(n.nspname) AS name, n.nspacl AS acl,
			       pg_catalog.acldefault('n', n.nspowner) AS base, n.nspowner AS owner,
			       0::pg_catalog.oid AS kept_grantee, 'USAGE'::pg_catalog.text AS kept_privilege,
			       NULL::pg_catalog.name AS column_name
			FROM pg_catalog.pg_namespace n
			JOIN grail_internal._objects() m ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
			                                 AND m.objid OPERATOR(pg_catalog.=) n.oid
			UNION ALL
			SELECT CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'S' THEN 'SEQUENCE' ELSE 'TABLE' END,
			       pg_catalog.format('%s.%I', c.relnamespace::pg_catalog.regnamespace, c.relname), c.relacl,
			       pg_catalog.acldefault(CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'S' THEN 's'::pg_catalog."char"
			                                  ELSE 'r' END, c.relowner),
			       c.relowner,
			       CASE WHEN c.relkind OPERATOR(pg_catalog.=) 'v' THEN 0::pg_catalog.oid
			            ELSE 'pg_database_owner'::pg_catalog.regrole::pg_catalog.oid END,
			       'SELECT', NULL
			FROM pg_catalog.pg_class c
			JOIN grail_internal._objects() m ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
			                                 AND m.objid OPERATOR(pg_catalog.=) c.oid
			UNION ALL
			-- Their columns, which neither PostgreSQL nor this script grants anything on.
			SELECT 'TABLE', pg_catalog.format('%s.%I', c.relnamespace::pg_catalog.regnamespace, c.relname), t.attacl,
			       NULL, c.relowner, NULL, NULL, t.attname
			FROM pg_catalog.pg_class c
			JOIN grail_internal._objects() m ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
			                                 AND m.objid OPERATOR(pg_catalog.=) c.oid
			JOIN pg_catalog.pg_attribute t ON t.attrelid OPERATOR(pg_catalog.=) c.oid AND t.attnum OPERATOR(pg_catalog.>) 0
			UNION ALL
			SELECT 'FUNCTION',
			       pg_catalog.format('%s.%I(%s)', p.pronamespace::pg_catalog.regnamespace, p.proname,
			                         pg_catalog.pg_get_function_identity_arguments(p.oid)),
			       p.proacl,
			       pg_catalog.acldefault('f', p.proowner), p.proowner,
			       CASE WHEN p.oid OPERATOR(pg_catalog.=) ANY (ARRAY['grail.cache_info()'::pg_catalog.regprocedure,
			                                                         'grail.cache_counters()'::pg_catalog.regprocedure,
			                                                         'grail.gpu_service_images()'::pg_catalog.regprocedure])
			            THEN 'pg_monitor'::pg_catalog.regrole::pg_catalog.oid END,
			       'EXECUTE', NULL
			FROM pg_catalog.pg_proc p
			JOIN grail_internal._objects() m ON m.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
			                                 AND m.objid OPERATOR(pg_catalog.=) p.oid)
		SELECT o.kind, o.name,
		       CASE WHEN o.column_name IS NULL THEN a.privilege_type
		            ELSE pg_catalog.format('%s (%I)', a.privilege_type, o.column_name) END AS privilege_type,
		       a.is_grantable,
		       CASE WHEN a.grantee OPERATOR(pg_catalog.=) 0 THEN 'PUBLIC'
		            ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END AS grantee,
		       -- (kept_grantee is NULL where the script grants nothing beyond the default)
		       COALESCE(a.grantee OPERATOR(pg_catalog.=) o.kept_grantee
		                AND a.privilege_type OPERATOR(pg_catalog.=) o.kept_privilege, false)
		       OR EXISTS (SELECT 1 FROM pg_catalog.aclexplode(o.base) b
		                  WHERE b.grantee OPERATOR(pg_catalog.=) a.grantee
		                    AND b.privilege_type OPERATOR(pg_catalog.=) a.privilege_type) AS kept
		FROM object o
		CROSS JOIN LATERAL pg_catalog.aclexplode(o.acl) a
		WHERE o.acl IS NOT NULL AND a.grantee OPERATOR(pg_catalog.<>) o.owner
	LOOP
		-- A grant this script or PostgreSQL makes keeps its privilege, without a grant option.
		-- Said (a WARNING: CREATE EXTENSION hides notices), since an update also takes back what was
		-- granted by hand since the install.
		IF NOT extra.kept THEN
			RAISE WARNING 'pg_grail takes back % on % % from %, a grant it does not make', extra.privilege_type,
				pg_catalog.lower(extra.kind), extra.name, extra.grantee;
			EXECUTE pg_catalog.format('REVOKE %s ON %s %s FROM %s CASCADE', extra.privilege_type, extra.kind, extra.name,
			                          extra.grantee);
		ELSIF extra.is_grantable THEN
			RAISE WARNING 'pg_grail takes back the grant option of % on % % from %', extra.privilege_type,
				pg_catalog.lower(extra.kind), extra.name, extra.grantee;
			EXECUTE pg_catalog.format('REVOKE GRANT OPTION FOR %s ON %s %s FROM %s CASCADE', extra.privilege_type,
			                          extra.kind, extra.name, extra.grantee);
		END IF;
	END LOOP;
END
$$;

-- Objects in pg_grail's schemas that pg_grail did not make. While default privileges gave PUBLIC
-- CREATE on grail (see above), any role could have put one there: a function that calls of
-- grail's functions reach in place of pg_grail's where it matches their arguments better. Each is
-- named, for an administrator to drop unless it is theirs; the update takes none away itself.
DO $$
DECLARE
	foreign_object record;
BEGIN
	FOR foreign_object IN
		-- (pg_describe_object leaves out a schema on the search_path, as grail is here)
		SELECT pg_catalog.format('%s in schema %s', pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid),
		                         d.refobjid::pg_catalog.regnamespace) AS name,
		       COALESCE(p.proowner, c.relowner, o.oprowner, t.typowner) AS owner
		FROM pg_catalog.pg_depend d
		LEFT JOIN pg_catalog.pg_proc p ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
		                               AND p.oid OPERATOR(pg_catalog.=) d.objid
		LEFT JOIN pg_catalog.pg_class c ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		                                AND c.oid OPERATOR(pg_catalog.=) d.objid
		LEFT JOIN pg_catalog.pg_operator o ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
		                                   AND o.oid OPERATOR(pg_catalog.=) d.objid
		LEFT JOIN pg_catalog.pg_type t ON d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_type'::pg_catalog.regclass
		                               AND t.oid OPERATOR(pg_catalog.=) d.objid
		WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
		  AND d.refobjid OPERATOR(pg_catalog.=) ANY (ARRAY['grail'::pg_catalog.regnamespace,
		                                                   'grail_internal'::pg_catalog.regnamespace]::pg_catalog.oid[])
		  AND d.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_extension'::pg_catalog.regclass
		  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend m
		                  WHERE m.classid OPERATOR(pg_catalog.=) d.classid AND m.objid OPERATOR(pg_catalog.=) d.objid
		                    AND m.deptype OPERATOR(pg_catalog.=) 'e'
		                    AND m.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass)
	LOOP
		RAISE WARNING 'schemas of pg_grail hold % (owner %), which pg_grail did not make', foreign_object.name,
			COALESCE(foreign_object.owner::pg_catalog.regrole::pg_catalog.text, 'unknown')
			USING HINT = 'Drop it unless you made it: calls of pg_grail''s functions may reach a function there.';
	END LOOP;
END
$$;
