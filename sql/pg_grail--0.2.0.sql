-- pg_grail 0.2.0 install script. Released: never edit.
\echo Use "CREATE EXTENSION pg_grail" to load this file. \quit

-- Catalog. Owned by the extension owner; users reach it only through the functions below,
-- which check the caller's privileges on the edge table before they read or write it.

CREATE SEQUENCE grail.build_seq;
CREATE SEQUENCE grail.graph_id_seq;

-- relid and owner are regclass and regrole, not oid: pg_dump writes them as names, so a restore
-- into another cluster resolves them to that cluster's objects.
CREATE TABLE grail.graph (
	id            bigint PRIMARY KEY DEFAULT nextval('grail.graph_id_seq'),
	name          text NOT NULL UNIQUE CHECK (name <> ''),
	relid         regclass NOT NULL,
	source_attnum int2 NOT NULL,
	target_attnum int2 NOT NULL,
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
	persist_ms    float8
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

-- pg_dump carries the graphs and their indexes.
SELECT pg_catalog.pg_extension_config_dump('grail.graph', '');
SELECT pg_catalog.pg_extension_config_dump('grail.index_chunk', '');
SELECT pg_catalog.pg_extension_config_dump('grail.graph_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('grail.build_seq', '');

REVOKE ALL ON grail.graph, grail.index_chunk, grail.build_seq, grail.graph_id_seq FROM PUBLIC;
GRANT USAGE ON SCHEMA grail TO PUBLIC;

CREATE VIEW grail.graphs AS
SELECT g.name,
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
LEFT JOIN pg_catalog.pg_attribute s ON s.attrelid = g.relid AND s.attnum = g.source_attnum
LEFT JOIN pg_catalog.pg_attribute t ON t.attrelid = g.relid AND t.attnum = g.target_attnum;

GRANT SELECT ON grail.graphs TO PUBLIC;
COMMENT ON VIEW grail.graphs IS 'pg_grail graphs: edge table, sizes, build times by phase, index size, staleness';

-- Graph lifecycle

CREATE FUNCTION grail.create_graph(name text, edges regclass, source_column name DEFAULT 'source',
                                   target_column name DEFAULT 'target', labels int DEFAULT 5,
                                   skip_nulls boolean DEFAULT false)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_create_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION grail.create_graph(text, regclass, name, name, int, boolean) IS
'Reads the edge table (two integer columns), builds the reachability index and stores it; returns a one-line summary. Rows with a NULL endpoint are an error unless skip_nulls.';

CREATE FUNCTION grail.refresh_graph(name text)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_refresh_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION grail.refresh_graph(text) IS
'Rebuilds the index of a graph from the current contents of its edge table; returns a one-line summary.';

CREATE FUNCTION grail.drop_graph(name text)
RETURNS void
AS 'MODULE_PATHNAME', 'grail_drop_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION grail.drop_graph(text) IS 'Drops a graph and its index; the edge table is not touched.';

-- Queries

CREATE FUNCTION grail.reachable(graph text, source bigint, target bigint)
RETURNS boolean
AS 'MODULE_PATHNAME', 'grail_reachable'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.reachable(text, bigint, bigint) IS
'True if a directed path leads from source to target. Every vertex reaches itself; an id that is not in the graph reaches only itself.';

CREATE FUNCTION grail.reachable(graph text, sources bigint[], targets bigint[])
RETURNS boolean[]
AS 'MODULE_PATHNAME', 'grail_reachable_batch'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.reachable(text, bigint[], bigint[]) IS
'reachable() for each pair (sources[i], targets[i]); the arrays must have equal length; a NULL element gives NULL.';

CREATE FUNCTION grail.scc_components(graph text)
RETURNS TABLE (vertex bigint, component bigint)
AS 'MODULE_PATHNAME', 'grail_scc_components'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.scc_components(text) IS
'Every vertex with its strongly connected component, identified by the smallest vertex id in it; ordered by vertex.';

CREATE FUNCTION grail.scc_component(graph text, vertex bigint)
RETURNS bigint
AS 'MODULE_PATHNAME', 'grail_scc_component'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION grail.scc_component(text, bigint) IS
'The strongly connected component of one vertex (its smallest vertex id); an id that is not in the graph is its own component.';

CREATE FUNCTION grail.bfs(graph text, source bigint, max_depth int DEFAULT NULL)
RETURNS TABLE (vertex bigint, depth int, parent bigint)
AS 'MODULE_PATHNAME', 'grail_bfs'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.bfs(text, bigint, int) IS
'Breadth-first search from source along edge direction: each reached vertex, its depth, and its parent (the smallest vertex one level up with an edge to it; NULL for the source). Ordered by depth, then vertex. max_depth NULL means no limit.';

CREATE FUNCTION grail.device_info()
RETURNS text
AS 'MODULE_PATHNAME', 'grail_device_info'
LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION grail.device_info() IS
'The GPU this session would use (name, compute capability, memory), or why it runs on the CPU only. Initialises CUDA in this backend.';

-- Staleness: any change to the edge table's rows marks the graphs over it stale, so that no
-- query answers from an index that no longer matches the table.
CREATE FUNCTION grail._mark_stale()
RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	UPDATE grail.graph SET stale = true WHERE id = TG_ARGV[0]::bigint AND NOT stale;
	RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION grail._mark_stale() FROM PUBLIC;

-- A graph goes with its edge table: DROP TABLE drops the graphs over it.
CREATE FUNCTION grail._drop_graphs_of_dropped_tables()
RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	DELETE FROM grail.graph
	WHERE relid::oid IN (SELECT objid FROM pg_event_trigger_dropped_objects()
	                     WHERE classid = 'pg_class'::regclass AND objsubid = 0);
END
$$;
REVOKE ALL ON FUNCTION grail._drop_graphs_of_dropped_tables() FROM PUBLIC;
CREATE EVENT TRIGGER grail_drop_graphs_of_dropped_tables ON sql_drop
	EXECUTE FUNCTION grail._drop_graphs_of_dropped_tables();

-- Chordless cycles (papers/gpu-chordless-cycles.txt), over the undirected simple view of a graph.

CREATE FUNCTION grail.chordless_cycles(graph text, min_length int DEFAULT 3, max_length int DEFAULT NULL)
RETURNS SETOF bigint[]
AS 'MODULE_PATHNAME', 'grail_chordless_cycles'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION grail.chordless_cycles(text, int, int) IS
'Every chordless (induced) cycle of the graph seen as undirected and simple (direction, self-loops and duplicate edges ignored), once, as its vertex ids in cycle order from the smallest id towards its smaller neighbour. Lengths min_length (at least 3) to max_length (NULL: no limit). Rows are produced as they are asked for: called in the select list, LIMIT stops the search early. A NULL graph or min_length gives no rows.';

CREATE FUNCTION grail.chordless_cycle_counts(graph text, max_length int DEFAULT NULL)
RETURNS TABLE (length int, cycles bigint)
AS 'MODULE_PATHNAME', 'grail_chordless_cycle_counts'
LANGUAGE C STABLE CALLED ON NULL INPUT PARALLEL SAFE ROWS 10;
COMMENT ON FUNCTION grail.chordless_cycle_counts(text, int) IS
'The number of chordless cycles of each length up to max_length (NULL: no limit), counted without materialising them; lengths without cycles are left out. A NULL graph gives no rows.';

CREATE FUNCTION grail.save_chordless_cycles(graph text, into_table text, min_length int DEFAULT 3,
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
	SELECT pg_catalog.string_agg(pg_catalog.quote_ident(p), '.' ORDER BY i) INTO target
	FROM pg_catalog.unnest(parts) WITH ORDINALITY AS u(p, i);
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
'Creates the table into_table (id bigint, length int, vertices bigint[]) and fills it with chordless_cycles(graph, min_length, max_length), id numbering the cycles from 1; returns the number of cycles. An existing table of that name is an error. into_table is read like an SQL name: unquoted parts fold to lower case, "schema.table" is qualified.';
