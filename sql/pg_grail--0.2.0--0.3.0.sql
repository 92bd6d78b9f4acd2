-- pg_grail 0.2.0 -> 0.3.0: security. Graphs live in schemas; catalog SQL immune to the caller's
-- search_path; the database owner may dump the catalog; graphs are listed only to roles that may
-- read their edge columns.
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

GRANT SELECT ON grail.graph, grail.index_chunk, grail.build_seq, grail.graph_id_seq TO pg_database_owner;

DROP VIEW grail.graphs;
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
JOIN pg_catalog.pg_attribute s ON s.attrelid = g.relid AND s.attnum = g.source_attnum
JOIN pg_catalog.pg_attribute t ON t.attrelid = g.relid AND t.attnum = g.target_attnum
WHERE pg_catalog.has_schema_privilege(c.relnamespace, 'USAGE')
  AND pg_catalog.has_column_privilege(c.oid, s.attnum, 'SELECT')
  AND pg_catalog.has_column_privilege(c.oid, t.attnum, 'SELECT')
  AND NOT pg_catalog.row_security_active(c.oid);

GRANT SELECT ON grail.graphs TO PUBLIC;
COMMENT ON VIEW grail.graphs IS 'pg_grail graphs over the edge columns the current role may read: schema, name, edge table, sizes, build times by phase, index size, staleness';

COMMENT ON FUNCTION grail.create_graph(text, regclass, name, name, int, boolean) IS
'Reads the edge table (two integer columns), builds the reachability index and stores it; returns a one-line summary. name is read like a table name (schema.name, or the current schema); it needs CREATE on that schema, and ownership of the edge table or its TRIGGER privilege with UPDATE, DELETE or TRUNCATE. Rows with a NULL endpoint are an error unless skip_nulls.';

CREATE OR REPLACE FUNCTION grail._mark_stale()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE grail.graph SET stale = true WHERE id OPERATOR(pg_catalog.=) TG_ARGV[0]::pg_catalog.int8 AND NOT stale;
	RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION grail._mark_stale() FROM PUBLIC;

-- A graph goes with its edge table and with its schema: DROP TABLE and DROP SCHEMA drop the graphs
-- over the table or in the schema (and the staleness trigger a graph keeps on a table that stays).
CREATE OR REPLACE FUNCTION grail._drop_graphs_of_dropped_tables()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	dropped record;
BEGIN
	FOR dropped IN
		DELETE FROM grail.graph g
		WHERE g.relid::pg_catalog.oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
		                                  WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
		                                    AND o.objsubid OPERATOR(pg_catalog.=) 0)
		   OR g.namespace::pg_catalog.oid IN (SELECT o.objid FROM pg_catalog.pg_event_trigger_dropped_objects() o
		                                      WHERE o.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass)
		RETURNING g.id, g.relid::pg_catalog.oid AS relid
	LOOP
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid OPERATOR(pg_catalog.=) dropped.relid) THEN
			EXECUTE pg_catalog.format('DROP TRIGGER IF EXISTS %I ON %s', 'grail_stale_' OPERATOR(pg_catalog.||) dropped.id,
			                          dropped.relid::pg_catalog.regclass);
		END IF;
	END LOOP;
END
$$;
REVOKE ALL ON FUNCTION grail._drop_graphs_of_dropped_tables() FROM PUBLIC;

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
