-- pg_grail install script of the current version (the Makefile copies it to sql/pg_grail--$(EXTVERSION).sql).
-- Change it together with a new upgrade script sql/pg_grail--OLD--NEW.sql; released scripts are never edited.
\echo Use "CREATE EXTENSION pg_grail" to load this file. \quit

-- Every statement here and in the functions below that run with the owner's rights names its
-- operators and functions with their schema, or runs with a fixed search_path: no object of a
-- caller's schema may ever run with those rights (README, Security).

-- The grail schema must be ours: its owner could drop or replace what this script puts in it.
-- CREATE EXTENSION made it just now for the role running this script, or it is left, empty,
-- by a DROP EXTENSION of that role.
DO $$
DECLARE
	schema_owner oid;
BEGIN
	SELECT n.nspowner INTO schema_owner FROM pg_catalog.pg_namespace n
	WHERE n.nspname OPERATOR(pg_catalog.=) 'grail'::pg_catalog.name;
	IF schema_owner OPERATOR(pg_catalog.<>) (SELECT r.oid FROM pg_catalog.pg_roles r
	                                         WHERE r.rolname OPERATOR(pg_catalog.=) CURRENT_USER)
	   OR EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
	              WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_namespace'::pg_catalog.regclass
	                AND d.refobjid OPERATOR(pg_catalog.=) 'grail'::pg_catalog.regnamespace
	                AND d.classid OPERATOR(pg_catalog.<>) 'pg_catalog.pg_extension'::pg_catalog.regclass) THEN
		RAISE EXCEPTION 'schema grail already exists and belongs to role % or holds objects',
			schema_owner::pg_catalog.regrole
			USING ERRCODE = 'duplicate_schema',
			      HINT = 'pg_grail installs into a schema of its own: drop or rename the existing schema grail first.';
	END IF;
END
$$;

-- Catalog. Owned by the extension owner; users reach it only through the functions below,
-- which check the caller's privileges on the edge table before they read or write it.

CREATE SEQUENCE grail.build_seq;
CREATE SEQUENCE grail.graph_id_seq;

-- relid, owner and namespace are regclass, regrole and regnamespace, not oid: pg_dump writes them
-- as names, so a restore into another cluster resolves them to that cluster's objects. A graph
-- lives in a schema (namespace), found as a table is; the columns from namespace on come last, in
-- the order the upgrades added them (0.3.0 on), so that an updated catalog has the same columns.
CREATE TABLE grail.graph (
	id            bigint PRIMARY KEY DEFAULT nextval('grail.graph_id_seq'),
	name          text NOT NULL CHECK (name <> ''),
	relid         regclass NOT NULL,
	source_column name NOT NULL,  -- by name, not number: a restore renumbers columns after dropped ones;
	target_column name NOT NULL,  -- renames are followed (grail_internal._on_alter_table)
	owner         regrole NOT NULL,
	labels        int NOT NULL,
	skip_nulls    boolean NOT NULL,
	build         bigint,
	stale         boolean NOT NULL DEFAULT false,
	built_at      timestamptz,
	input_rows    bigint,
	null_rows     bigint,
	vertices      bigint,
	edges         bigint,
	components    bigint,
	dag_edges     bigint,
	index_bytes   bigint,
	read_ms       float8,
	graph_ms      float8,
	scc_ms        float8,
	label_ms      float8,
	persist_ms    float8,
	namespace     regnamespace NOT NULL,
	build_uuid    uuid,  -- never reused, unlike build: backends key their cached indexes on it
	-- The tables the last build depends on and watches: the edge table, its inheritance ancestors
	-- and descendants (grail_internal._watched).
	watched_tables regclass[] NOT NULL DEFAULT '{}',
	-- Writes to a live graph's edge table go to grail.pending_change and queries answer for the rows
	-- their snapshot sees; writes to another graph's table make it stale (0.5.0).
	live          boolean NOT NULL DEFAULT false,
	-- Merges you can watch, as autovacuum is watched (pg_stat_all_tables): when the graph was last
	-- merged by hand (grail.merge_graph()) and in the background, and how many times each, written by
	-- the merge's own build (src/pg/store/catalog.cpp, store_index), so that they are transactional
	-- with it (a merge that rolls back counts nothing), survive a restart, and go with the graph to a
	-- dump and a standby. grail.log_merge_min_duration logs the merges.
	last_merge    timestamptz,
	merge_count   bigint NOT NULL DEFAULT 0,
	last_background_merge timestamptz,
	background_merge_count bigint NOT NULL DEFAULT 0,
	-- oid and reg* keys, and system catalogs as edge tables. Where each build was made (the cluster,
	-- the database and the edge table's number: src/pg/store/catalog.hpp, build_scope), so that a
	-- build keyed by oids (roles, relations, ...) never answers after a restore renumbered those
	-- objects: the edge table's reg* columns come back as names, and relid as a regclass, both
	-- renumbered; the stored image does not.
	built_in      text,
	-- Filters: create_graph(..., filter => 'kind = ''prod''') builds the graph over the rows that
	-- pass a boolean expression of the edge table's columns, checked as a partial index's predicate
	-- is (src/pg/store/edge_filter.hpp). It is stored as SQL text, as PostgreSQL's deparser writes
	-- it with only pg_catalog on the search_path (so every other object is schema-qualified),
	-- because the oids of a node tree would not survive a dump restored elsewhere (grail.graph's
	-- rows are dumped as data), pg_upgrade, or a function dropped and created again.
	-- filter_columns: the columns it reads, by name: a RENAME COLUMN rewrites the text, a dropped or
	-- retyped column makes the graph stale, and its refresh then says why.
	filter        text,
	filter_columns name[] NOT NULL DEFAULT '{}',
	-- Delta merges: a merge that changes a small share of a graph stores the change from its base
	-- build (src/core/build_delta.hpp) in grail.index_chunk rows of negative seq, beside the base's
	-- image (seq from 0), instead of a whole new image; index_bytes is then the size of the image
	-- that base and delta make. All NULL for a full build.
	base_build    bigint,
	base_build_uuid uuid,
	base_index_bytes bigint,
	delta_changes bigint,
	delta_bytes   bigint,
	-- What the build's snapshot counted as ended: its xmax and the transactions it counted as in
	-- progress. A reader whose overlay of an older build saw every change this build took in keeps
	-- that overlay across it (src/pg/store/pending_changes.hpp, build_carries). NULL: not recorded
	-- (a graph that is not live, or a build in a transaction that had written before it).
	build_xmax    xid8,
	build_running xid8[],
	UNIQUE (namespace, name)
);

-- The serialized index (src/core/index.hpp), in chunks; no compression: the data is dense
-- binary and decompressing it would cost every cold backend.
CREATE TABLE grail.index_chunk (
	graph_id bigint NOT NULL REFERENCES grail.graph (id) ON DELETE CASCADE,
	seq      int NOT NULL,
	data     bytea NOT NULL,
	PRIMARY KEY (graph_id, seq)
);
ALTER TABLE grail.index_chunk ALTER COLUMN data SET STORAGE EXTERNAL;
ALTER SEQUENCE grail.graph_id_seq OWNED BY grail.graph.id;

-- The changes to a live graph's edge table that its build did not read, written by
-- grail._log_changes in the writer's transaction, so a query sees exactly the changes its snapshot
-- sees; a build deletes the rows its own snapshot sees, which are the changes it read. A row holds
-- up to 8192 edges of one statement (element i of the source and target arrays is one edge, a NULL
-- element a NULL endpoint) whose count of rows changed by `change`: +1 for each edge row written,
-- -1 for each removed, +n or -n for an edge whose count an UPDATE changed. A row whose arrays are
-- NULL (change 0) is a TRUNCATE's marker. One row per batch rather than per edge: a bulk write
-- logs a few wide rows and index entries. Keys: source/target for integer keys,
-- source_key/target_key (text, uuid as text) otherwise. STORAGE EXTERNAL: the toaster does not
-- compress them (pglz costs the writer more than it saves); the trigger lz4-compresses a full
-- batch's arrays itself where the server has lz4.
-- No foreign key: a bulk write would check one per row; drops delete a graph's rows themselves.
CREATE TABLE grail.pending_change (
	graph_id   bigint NOT NULL,
	change     int NOT NULL,
	source     bigint[],
	target     bigint[],
	source_key text[],
	target_key text[],
	-- The incremental overlay of live graphs: each row carries its writer's top-level transaction,
	-- which orders the log, so that a reader whose snapshot sees all that its last read saw reads only
	-- the rows logged since (src/pg/store/pending_changes.hpp). Rows logged before 0.7.0 have none:
	-- readers take them as logged before any bound.
	xid        xid8
);
ALTER TABLE grail.pending_change ALTER COLUMN source SET STORAGE EXTERNAL, ALTER COLUMN target SET STORAGE EXTERNAL,
	ALTER COLUMN source_key SET STORAGE EXTERNAL, ALTER COLUMN target_key SET STORAGE EXTERNAL;
CREATE INDEX pending_change_graph ON grail.pending_change (graph_id, xid);
-- Merges, refreshes and drops delete its rows: a publication FOR ALL TABLES, which publishes it
-- too, refuses deletes from a table without a replica identity. No key fits (a row is one batch of
-- one statement; no column tells two apart), so the whole row; its cost is WAL under wal_level =
-- logical only. grail.graph and grail.index_chunk have primary keys.
ALTER TABLE grail.pending_change REPLICA IDENTITY FULL;

-- pg_dump carries the graphs, their indexes and their pending changes.
SELECT pg_catalog.pg_extension_config_dump('grail.graph', '');
SELECT pg_catalog.pg_extension_config_dump('grail.pending_change', '');
SELECT pg_catalog.pg_extension_config_dump('grail.index_chunk', '');
SELECT pg_catalog.pg_extension_config_dump('grail.graph_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('grail.build_seq', '');

REVOKE ALL ON grail.graph, grail.index_chunk, grail.build_seq, grail.graph_id_seq, grail.pending_change FROM PUBLIC;
-- pg_dump reads them: the database's owner may dump the database.
GRANT SELECT ON grail.graph, grail.index_chunk, grail.build_seq, grail.graph_id_seq, grail.pending_change
	TO pg_database_owner;
GRANT USAGE ON SCHEMA grail TO PUBLIC;

-- A role sees the graphs over the edge columns, and a filter's columns, it may read (as a build or
-- query needs them): a filtered graph's sizes count the rows its filter passes. A
-- security barrier: a function in the caller's WHERE clause must not see rows before the view's
-- privilege checks have filtered them.
-- Every operator and function is named with its schema: an update runs this with search_path =
-- grail, where a role that held CREATE on grail before 0.7.0 (default privileges) may have put an
-- operator that oid = regclass would take as its exact match, to run in every caller of the view.
CREATE VIEW grail.graphs WITH (security_barrier = true) AS
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

GRANT SELECT ON grail.graphs TO PUBLIC;
COMMENT ON VIEW grail.graphs IS 'pg_grail graphs over the edge columns the current role may read: schema, name, edge table, sizes, build times by phase, index size, staleness, whether the graph is live and its edge changes not yet merged (edges of grail.pending_change), when it was last merged by hand (merge_graph) and in the background, and how many times each, its filter (NULL: every row of the table is an edge), its build number, and for a build that a merge stored as a delta: the full build it is a delta from (base_build), the edges and vertices it changes and its stored bytes (NULL for a full build)';

-- pg_grail's internal functions live in a schema of their own, a member of the extension, so that
-- \df grail.* lists what users call. The two trigger functions, grail._log_changes and
-- grail._mark_stale, stay in grail: users' tables name them in their triggers, which a dump restores
-- as EXECUTE FUNCTION grail._log_changes(...) into whatever version CREATE EXTENSION installs.
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

-- Builds and merges in progress (src/pg/store/activity.cpp: shared memory, with pg_grail preloaded) and
-- each graph's pending changes (of the graphs grail.graphs shows). _activity() shows a role only the
-- builds over edge columns it may read, as grail.graphs does, or all of them to members of
-- pg_read_all_stats; the view leaves out those of a committed graph with a filter over columns the
-- role may not read (their totals count what the filter passed). A security barrier like
-- grail.graphs.
CREATE FUNCTION grail_internal._activity(OUT pid integer, OUT graph_id bigint, OUT schema text, OUT graph text,
                                OUT relation regclass, OUT command text, OUT phase text, OUT done bigint,
                                OUT total bigint, OUT unit text, OUT started timestamptz,
                                OUT phase_started timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'grail_activity'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 4;
COMMENT ON FUNCTION grail_internal._activity() IS
'The builds and merges in progress in this database, and the chordless_cycles() searches open, that the current role may see (grail.activity); none without pg_grail in shared_preload_libraries.';

CREATE VIEW grail.activity WITH (security_barrier = true) AS
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

GRANT SELECT ON grail.activity TO PUBLIC;
COMMENT ON VIEW grail.activity IS 'pg_grail graphs (those grail.graphs lists, or all for members of pg_read_all_stats) with their pending changes, and the builds and merges in progress in this database (create_graph, refresh_graph, merge_graph, background merges) and the chordless_cycles() searches open (done: start vertices whose cycles are all found, of total: the graph''s vertices): phase, rows, vertices or bytes done of total where known, start and elapsed time; the progress columns are NULL without pg_grail in shared_preload_libraries';

-- Graph lifecycle

-- Plain views as edge sources: a graph over a view is read in each statement's snapshot as the
-- querying role, through the view's query (src/pg/store/edges.cpp), and stores no build.
CREATE FUNCTION grail.create_graph(name text, edges regclass, source_column name DEFAULT 'source',
                                   target_column name DEFAULT 'target', labels int DEFAULT 2,
                                   skip_nulls boolean DEFAULT false, live boolean DEFAULT true,
                                   filter text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_create_graph'
LANGUAGE C VOLATILE CALLED ON NULL INPUT PARALLEL UNSAFE COST 1000000;
COMMENT ON FUNCTION grail.create_graph(text, regclass, name, name, int, boolean, boolean, text) IS
'Reads the edge table (two key columns), builds the reachability index and stores it; returns a one-line summary. name is read like a table name (schema.name, or the current schema); it needs CREATE on that schema, and ownership of the edge table or its TRIGGER privilege with UPDATE, DELETE or TRUNCATE. Rows with a NULL endpoint are an error unless skip_nulls. live (the default): writes to the edge table are logged and every query answers for the rows its snapshot sees, with no refresh (grail.merge_graph and the background merge fold them into a new build); live => false: a write makes the graph stale until grail.refresh_graph. filter: a boolean expression over the edge table''s columns, as a partial index''s WHERE clause (immutable functions only, no subqueries or aggregates): only the rows where it is true are edges, at every build, merge and logged write (an UPDATE that moves a row into or out of it adds or removes its edge); NULL (the default): every row. A NULL in any other argument gives NULL. Over a plain view (SELECT on its edge columns is all it needs; no filter; live ignored): nothing is stored, and every statement reads the view''s query as its own role, in its own snapshot (the view''s security_barrier, security_invoker and the row-level security under it apply), once per statement.';

CREATE FUNCTION grail.refresh_graph(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_refresh_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE COST 1000000;
COMMENT ON FUNCTION grail.refresh_graph(text) IS
'Rebuilds the index of a graph from the current contents of its edge table; returns a one-line summary.';

CREATE FUNCTION grail.alter_graph(name text, live boolean)
RETURNS void
AS 'MODULE_PATHNAME', 'grail_alter_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE COST 10000;
COMMENT ON FUNCTION grail.alter_graph(text, boolean) IS
'live => true: writes to the edge table no longer make the graph stale; each query answers for the rows its snapshot sees (the last build and the changes since, read from the table while changes are pending), and grail.merge_graph() folds the changes into a new build. live => false: writes make the graph stale again (and pending changes do now). Needs ownership of the graph; waits for writers of the edge table.';

CREATE FUNCTION grail.merge_graph(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_merge_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE COST 1000000;
COMMENT ON FUNCTION grail.merge_graph(text) IS
'Folds the pending changes of a live graph into a new build, reading the edge table in one snapshot without blocking its writers (changes committed meanwhile stay pending); returns a one-line summary. For a graph that is not live, the same as refresh_graph().';

CREATE FUNCTION grail.drop_graph(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'grail_drop_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE COST 10000;
COMMENT ON FUNCTION grail.drop_graph(text) IS 'Drops a graph and its index; the edge table is not touched.';

-- Queries

CREATE FUNCTION grail.reachable(graph text, source bigint, target bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 25;
COMMENT ON FUNCTION grail.reachable(text, bigint, bigint) IS
'True if a directed path leads from source to target. Every vertex reaches itself; an id that is not in the graph reaches only itself.';

CREATE FUNCTION grail.reachable(graph text, sources bigint[], targets bigint[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.reachable(text, bigint[], bigint[]) IS
'reachable() for each pair (sources[i], targets[i]); the arrays must have equal length; a NULL element gives NULL.';

CREATE FUNCTION grail.scc_components(graph text)
RETURNS TABLE (vertex bigint, component bigint)
AS 'MODULE_PATHNAME', 'grail_scc_components'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 3 ROWS 10000;
COMMENT ON FUNCTION grail.scc_components(text) IS
'Every vertex with its strongly connected component, identified by the smallest vertex id in it; ordered by vertex.';

CREATE FUNCTION grail.scc_component(graph text, vertex bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'grail_scc_component'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 15;
COMMENT ON FUNCTION grail.scc_component(text, bigint) IS
'The strongly connected component of one vertex (its smallest vertex id); an id that is not in the graph is its own component.';

CREATE FUNCTION grail.bfs(graph text, source bigint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, bigint, int) IS
'Breadth-first search from source along edge direction: each reached vertex, its depth, and its parent (the smallest vertex one level up with an edge to it; NULL for the source). Ordered by depth, then vertex. max_depth NULL means no limit.';

-- Text (text, varchar) and uuid keys: the same functions, taking and returning keys of the graph's
-- type. A graph keyed by one kind refuses keys of another. Functions whose arguments cannot say the
-- key type take key_type, a NULL of it: grail.scc_components('deps', NULL::text).
CREATE FUNCTION grail.reachable(graph text, source text, target text)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 35;
COMMENT ON FUNCTION grail.reachable(text, text, text) IS
'reachable() over a graph with text keys; a key that is not in the graph reaches only itself. On a uuid or integer graph (an untyped literal resolves here), each key is read as a key of the graph''s type.';

CREATE FUNCTION grail.reachable(graph text, source uuid, target uuid)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 35;
COMMENT ON FUNCTION grail.reachable(text, uuid, uuid) IS
'reachable() over a graph with uuid keys; a key that is not in the graph reaches only itself.';

CREATE FUNCTION grail.reachable(graph text, sources text[], targets text[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.reachable(text, text[], text[]) IS
'reachable() for each pair (sources[i], targets[i]) of text keys; a NULL element gives NULL. On a uuid or integer graph, each key is read as a key of the graph''s type.';

CREATE FUNCTION grail.reachable(graph text, sources uuid[], targets uuid[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 1000;
COMMENT ON FUNCTION grail.reachable(text, uuid[], uuid[]) IS
'reachable() for each pair (sources[i], targets[i]) of uuid keys; a NULL element gives NULL.';

CREATE FUNCTION grail.scc_components(graph text, key_type anyelement)
RETURNS TABLE (vertex anyelement, component anyelement)
AS 'MODULE_PATHNAME', 'grail_scc_components_keyed'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 3 ROWS 10000;
COMMENT ON FUNCTION grail.scc_components(text, anyelement) IS
'scc_components() with keys of the type of key_type (NULL::bigint, NULL::text, NULL::varchar, NULL::uuid, NULL::oid or a NULL of the reg* type of the graph''s keys, as NULL::regrole): each component is identified by its smallest key (byte order, as COLLATE "C", for text; uuid order for uuid; the oid''s number for oid types); ordered by key.';

CREATE FUNCTION grail.scc_component(graph text, vertex text)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_scc_component_text'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 15;
COMMENT ON FUNCTION grail.scc_component(text, text) IS
'The strongly connected component of one text key: its smallest key in byte order (COLLATE "C"); a key that is not in the graph is its own component. On a uuid or integer graph, the key is read as a key of the graph''s type and the component''s key is answered as text.';

CREATE FUNCTION grail.scc_component(graph text, vertex uuid)
RETURNS uuid
AS 'MODULE_PATHNAME', 'grail_scc_component_uuid'
LANGUAGE C STABLE STRICT PARALLEL SAFE COST 15;
COMMENT ON FUNCTION grail.scc_component(text, uuid) IS
'The strongly connected component of one uuid key: its smallest key; a key that is not in the graph is its own component.';

CREATE FUNCTION grail.bfs(graph text, source text, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex text, depth int, parent text)
AS 'MODULE_PATHNAME', 'grail_bfs_text'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, text, int) IS
'bfs() from a text key: each reached key, its depth and its parent (the smallest key in byte order one level up with an edge to it). On a uuid or integer graph, the source is read as a key of the graph''s type and the keys are answered as text.';

CREATE FUNCTION grail.bfs(graph text, source uuid, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex uuid, depth int, parent uuid)
AS 'MODULE_PATHNAME', 'grail_bfs_uuid'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 5 ROWS 100;
COMMENT ON FUNCTION grail.bfs(text, uuid, int) IS
'bfs() from a uuid key: each reached key, its depth and its parent (the smallest key one level up with an edge to it).';

-- The type of a graph's keys (bigint, text or uuid), for SQL that must name it.
CREATE FUNCTION grail_internal._key_type(graph text)
RETURNS regtype
AS 'MODULE_PATHNAME', 'grail_key_type'
LANGUAGE C STABLE STRICT COST 10;

CREATE FUNCTION grail.device_info()
RETURNS text
AS 'MODULE_PATHNAME', 'grail_device_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED COST 100;
COMMENT ON FUNCTION grail.device_info() IS
'The GPU this session would use (name, compute capability, memory), or why it runs on the CPU only, then the GPU service: running (server pid, executor, restarts) or why not. Initialises CUDA in this backend.';

-- The shared cache of index images (src/pg/service/image_cache.hpp): what it holds, what it did for this session.
CREATE FUNCTION grail.cache_info()
RETURNS TABLE (build uuid, bytes bigint, last_used timestamptz, backends integer, hits bigint, loads bigint)
AS 'MODULE_PATHNAME', 'grail_cache_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED COST 10 ROWS 10;
COMMENT ON FUNCTION grail.cache_info() IS
'The index images of this database in the server''s shared image cache: the build (grail.graph.build_uuid), its bytes, when a backend last opened it; and, when pg_grail is preloaded, how many backends map it now and how many times one opened it from the cache (hits) or wrote it from the catalog (loads) since the server started.';
REVOKE ALL ON FUNCTION grail.cache_info() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_info() TO pg_monitor;

CREATE FUNCTION grail.cache_counters(OUT cache_limit bigint, OUT cached_bytes bigint, OUT cached_images bigint,
                                     OUT hits bigint, OUT loads bigint, OUT private_copies bigint,
                                     OUT mode text, OUT mode_reason text)
RETURNS record
AS 'MODULE_PATHNAME', 'grail_cache_counters'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED COST 10;
COMMENT ON FUNCTION grail.cache_counters() IS
'The shared image cache: its limit (grail.shared_cache_size), the bytes and images it holds (all databases); this session''s images opened from it (hits), read from the catalog (loads), and kept private (cache off or too small); the mode (shared or private) and why.';
REVOKE ALL ON FUNCTION grail.cache_counters() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION grail.cache_counters() TO pg_monitor;

-- Staleness: any change to the rows a graph was built from marks it stale, so that no query answers
-- from an index that no longer matches them: triggers (grail_internal._watch) call _mark_stale; a query
-- checks that they are in place (grail_internal._watched); event triggers catch what triggers cannot.
CREATE FUNCTION grail._mark_stale()
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
REVOKE ALL ON FUNCTION grail._mark_stale() FROM PUBLIC;
COMMENT ON FUNCTION grail._mark_stale() IS
'Internal: the trigger that marks a graph stale when a table above its edge table changes; not for users to call. It stays in schema grail, not grail_internal: users'' tables name it in their triggers, which a dump restores as EXECUTE FUNCTION grail._mark_stale(...).';

-- The triggers of a live graph's edge table and its descendants (grail_internal._watch) log each statement's
-- changes to grail.pending_change (a live graph), or mark the graph stale (another), in C
-- (src/pg/entry/change_log.cpp): an UPDATE that changes no edge does neither.
CREATE FUNCTION grail._log_changes()
RETURNS trigger
AS 'MODULE_PATHNAME', 'grail_log_changes'
LANGUAGE C;
REVOKE ALL ON FUNCTION grail._log_changes() FROM PUBLIC;
COMMENT ON FUNCTION grail._log_changes() IS
'Internal: the trigger that logs a live graph''s edge changes (or marks a graph that is not live stale); not for users to call. It stays in schema grail, not grail_internal: users'' tables name it in their triggers, which a dump restores as EXECUTE FUNCTION grail._log_changes(...).';

-- The tables a graph over edge_table depends on besides it: the inheritance (or partition)
-- ancestors of the table and of its descendants outside that family (a descendant's other
-- parents), whose writes can reach its rows, and its descendants (the table itself first), whose
-- rows SELECT reads with its own. In C (src/pg/store/watch.cpp), as grail_internal._watched reads them.
CREATE FUNCTION grail_internal._ancestors(edge_table oid)
RETURNS oid[]
AS 'MODULE_PATHNAME', 'grail_ancestors'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._ancestors(oid) FROM PUBLIC;

CREATE FUNCTION grail_internal._descendants(edge_table oid)
RETURNS oid[]
AS 'MODULE_PATHNAME', 'grail_descendants'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._descendants(oid) FROM PUBLIC;

-- Whether a graph's triggers are all in place as grail_internal._watch made them, on the tables its build
-- recorded (grail.graph.watched_tables), which must still be the edge table's ancestors and
-- descendants; checked by what the triggers are (function, events, level, argument, no column
-- list, enabled always), not by their names alone: a table's owner can drop them and create
-- look-alikes (though not ones calling _mark_stale, which needs EXECUTE). In C
-- (src/pg/store/watch.cpp): every statement of a query checks it.
CREATE FUNCTION grail_internal._watched(graph_id bigint, edge_table oid, watched_tables regclass[])
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_watched'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._watched(bigint, oid, regclass[]) FROM PUBLIC;

-- The names of a graph's triggers (grail_internal._watch), and of those 0.4.0 put where they are now.
CREATE FUNCTION grail_internal._trigger_names(graph_id bigint)
RETURNS text[]
LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
	SELECT ARRAY['grail_stale_' OPERATOR(pg_catalog.||) graph_id,
	             'grail_stale_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_update',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_insert',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_delete',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_update',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_truncate',
	             'grail_log_' OPERATOR(pg_catalog.||) graph_id OPERATOR(pg_catalog.||) '_apply']
$$;
REVOKE ALL ON FUNCTION grail_internal._trigger_names(bigint) FROM PUBLIC;

-- Drops a graph's triggers from those of tables that still exist; keep: the names to leave.
CREATE FUNCTION grail_internal._drop_triggers(graph_id bigint, tables regclass[], keep text[] DEFAULT '{}')
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
REVOKE ALL ON FUNCTION grail_internal._drop_triggers(bigint, regclass[], text[]) FROM PUBLIC;

-- Puts a graph's triggers on the tables its build depends on, removing them first from the tables
-- of its last build, and records the tables (what grail_internal._watched checks): on the edge table and
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
-- (grail_internal._on_drop). A materialized view gets none (grail_internal._on_refresh).
CREATE FUNCTION grail_internal._watch(graph_id bigint)
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
REVOKE ALL ON FUNCTION grail_internal._watch(bigint) FROM PUBLIC;


-- Whether the table has a live column of that name.
CREATE FUNCTION grail_internal._has_column(edge_table oid, column_name name)
RETURNS boolean
LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
	SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute a
	               WHERE a.attrelid OPERATOR(pg_catalog.=) edge_table AND a.attname OPERATOR(pg_catalog.=) column_name
	                 AND NOT a.attisdropped)
$$;
REVOKE ALL ON FUNCTION grail_internal._has_column(oid, name) FROM PUBLIC;

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

-- A graph goes with its edge table, its edge columns and its schema: DROP TABLE, DROP COLUMN ...
-- CASCADE and DROP SCHEMA drop the graphs (and the staleness triggers a graph keeps on a table that
-- stays). A dropped staleness trigger leaves its graph stale: writes can have come in meanwhile.
-- A graph whose filter reads a column that is dropped goes stale (its refresh says which column); a
-- DROP of another object that its filter uses (a function, an operator, a type, a schema) is
-- refused, as PostgreSQL refuses to drop what a partial index uses: the filter could no longer be
-- read, and every write to the edge table would fail in its trigger. (A stale graph's filter is not
-- checked: its triggers log nothing, and its refresh says what is wrong.)
CREATE FUNCTION grail_internal._on_drop()
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
REVOKE ALL ON FUNCTION grail_internal._on_drop() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_drop ON sql_drop EXECUTE FUNCTION grail_internal._on_drop();

-- Whether an ALTER TABLE opened a window in which writes can go unseen: a trigger set to a state
-- other than ENABLE ALWAYS, or the table made unlogged (src/pg/entry/ddl_commands.cpp).
CREATE FUNCTION grail_internal._changes_trigger_state(pg_ddl_command)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_changes_trigger_state'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._changes_trigger_state(pg_ddl_command) FROM PUBLIC;

-- Whether an ALTER TABLE changed the type of a column of that name (src/pg/entry/ddl_commands.cpp).
CREATE FUNCTION grail_internal._alters_column_type(pg_ddl_command, source_column name, target_column name)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_alters_column_type'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._alters_column_type(pg_ddl_command, name, name) FROM PUBLIC;

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

-- RENAME COLUMN of an edge column: the graph follows (its column name no longer exists; the
-- renamed column's number comes with the command). PostgreSQL renames a table's column through
-- ALTER VIEW, ALTER MATERIALIZED VIEW and ALTER FOREIGN TABLE ... RENAME COLUMN and ALTER TYPE ...
-- RENAME ATTRIBUTE as well (their other subcommands refuse a table), so the event trigger fires on
-- all of these tags. (Where a rename goes unseen all the same, the columns are checked where they
-- are read: src/pg/store/edges.cpp.) The rename or type change of a column of an inheritance parent,
-- a partitioned table or a composite type (ALTER TYPE ... CASCADE) changes the column of its
-- children, partitions or typed tables too, which may be the edge table: grail_internal._column_changes_reach.
-- ALTER TABLE ... DISABLE TRIGGER (pg_dump --disable-triggers does it), ENABLE [REPLICA] TRIGGER,
-- SET UNLOGGED: from then on writes can go unseen, so the graph is stale even once the trigger is
-- back or the table logged again. (Not
-- ENABLE ALWAYS: a restore creates a graph's triggers one by one and enables each always, with
-- the graph's rows and index already in step with the table's.)
-- ALTER COLUMN ... TYPE of an edge column rewrites its rows without firing triggers: the graph is
-- stale. A filter follows the renames of its columns (a filter that no longer parses leaves its graph
-- stale rather than refusing the rename), and a type change of one of its columns (which rewrites
-- the rows without firing triggers and can change what the filter passes) makes its graph stale.
CREATE FUNCTION grail_internal._on_alter_table()
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
REVOKE ALL ON FUNCTION grail_internal._on_alter_table() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_alter_table ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER MATERIALIZED VIEW', 'ALTER FOREIGN TABLE', 'ALTER TYPE')
	EXECUTE FUNCTION grail_internal._on_alter_table();

-- Whether a CREATE TABLE or ALTER TABLE changed a table's inheritance family: 'rows' when a table
-- joined or left one with its rows, 'empty' when a new table joined one (src/pg/entry/ddl_commands.cpp).
CREATE FUNCTION grail_internal._family_change(pg_ddl_command)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_family_change'
LANGUAGE C STABLE STRICT;
REVOKE ALL ON FUNCTION grail_internal._family_change(pg_ddl_command) FROM PUBLIC;

-- A table joined or left the family of a graph's edge table (a partition created, attached or
-- detached; a child that inherits or stops): the graph's triggers move to its new family at once,
-- so that no write to a new member goes unseen, and the graph is stale if rows came or went with
-- the change. A new, empty partition leaves the graph answering: the routine monthly partition of a
-- lineage table must not stop its queries.
CREATE FUNCTION grail_internal._on_family_change()
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
REVOKE ALL ON FUNCTION grail_internal._on_family_change() FROM PUBLIC;
CREATE EVENT TRIGGER grail_on_family_change ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE', 'CREATE FOREIGN TABLE', 'ALTER FOREIGN TABLE')
	EXECUTE FUNCTION grail_internal._on_family_change();

-- Event triggers, like triggers, skip sessions with session_replication_role = replica unless
-- enabled always.
ALTER EVENT TRIGGER grail_on_drop ENABLE ALWAYS;
ALTER EVENT TRIGGER grail_on_alter_table ENABLE ALWAYS;
ALTER EVENT TRIGGER grail_on_family_change ENABLE ALWAYS;

-- Chordless cycles (papers/gpu-chordless-cycles.txt), over the undirected simple view of a graph.

CREATE FUNCTION grail.chordless_cycles(graph text, min_length int DEFAULT 3, max_length int DEFAULT NULL)
RETURNS SETOF bigint[]
AS 'MODULE_PATHNAME', 'grail_chordless_cycles'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 1000 ROWS 100;
COMMENT ON FUNCTION grail.chordless_cycles(text, int, int) IS
'Every chordless (induced) cycle of the graph seen as undirected and simple (direction, self-loops and duplicate edges ignored), once, as its vertex ids in cycle order from the smallest id towards its smaller neighbour. Lengths min_length (at least 3) to max_length (NULL: no limit). Rows are produced as they are asked for: called in the select list, LIMIT stops the search early. A NULL graph or min_length gives no rows.';

CREATE FUNCTION grail.chordless_cycle_counts(graph text, max_length int DEFAULT NULL)
RETURNS TABLE (length int, cycles bigint)
AS 'MODULE_PATHNAME', 'grail_chordless_cycle_counts'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 100000 ROWS 10;
COMMENT ON FUNCTION grail.chordless_cycle_counts(text, int) IS
'The number of chordless cycles of each length up to max_length (NULL: no limit), counted without materialising them; lengths without cycles are left out. A NULL graph gives no rows.';

CREATE FUNCTION grail.chordless_cycles(graph text, key_type anyelement, min_length int DEFAULT 3,
                                       max_length int DEFAULT NULL)
RETURNS SETOF anyarray
AS 'MODULE_PATHNAME', 'grail_chordless_cycles_keyed'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE COST 1000 ROWS 100;
COMMENT ON FUNCTION grail.chordless_cycles(text, anyelement, int, int) IS
'chordless_cycles() with keys of the type of key_type (NULL::bigint, NULL::text, NULL::varchar, NULL::uuid, NULL::oid or a NULL of the reg* type of the graph''s keys): each cycle from its smallest key (byte order for text) towards its smaller neighbour.';

CREATE FUNCTION grail.save_chordless_cycles(graph text, into_table text, min_length int DEFAULT 3,
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
COMMENT ON FUNCTION grail.save_chordless_cycles(text, text, int, int) IS
'Creates the table into_table (id bigint, length int, vertices bigint[]) and fills it with chordless_cycles(graph, min_length, max_length), id numbering the cycles from 1; returns the number of cycles. An existing table of that name is an error. into_table is read like an SQL name: unquoted parts fold to lower case, "schema.table" is qualified, an unqualified name is created in the current schema (the first of the search_path, as CREATE TABLE picks it).';

-- Planner integration: what pg_grail's functions cost (COST, ROWS above) and a support function
-- that estimates from the graph's build the rows of scc_components and bfs and the selectivity of
-- reachable() in a WHERE or JOIN clause, when the graph is named by a constant.

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

-- Materialized views as edge sources: a graph over one builds as over a table, is never live (a
-- materialized view fires no triggers), and goes stale when REFRESH MATERIALIZED VIEW (also
-- CONCURRENTLY) changes its rows, in the refresh's transaction: a refresh rolled back leaves it as
-- it was. grail.refresh_graph() rebuilds it. (A restore refreshes materialized views after the
-- graphs' rows are in: their graphs come back stale.) _watch puts no triggers on one.
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

-- Build speed: an index chunk row (src/pg/store/catalog.cpp, kChunkBytes) fills one heap page and
-- stays there rather than going to TOAST in 2 kB pieces (each another heap tuple, index entry and
-- WAL record); rows are lz4-compressed by the library where that makes them smaller. Chunks of
-- images written before (4 MB, toasted) are read as before.
ALTER TABLE grail.index_chunk SET (toast_tuple_target = 8160);

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
