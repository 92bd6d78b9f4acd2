-- pg_grail 0.5.0 -> 0.6.0: live graphs become the default. create_graph() takes a last argument
-- live (default true); live => false builds a graph that writes make stale, as before. Graphs that
-- exist keep their mode (grail.alter_graph(name, live => true) makes one live).
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.6.0'" to load this file. \quit

DROP FUNCTION grail.create_graph(text, regclass, name, name, int, boolean);
CREATE FUNCTION grail.create_graph(name text, edges regclass, source_column name DEFAULT 'source',
                                   target_column name DEFAULT 'target', labels int DEFAULT 5,
                                   skip_nulls boolean DEFAULT false, live boolean DEFAULT true)
RETURNS text
AS 'MODULE_PATHNAME', 'grail_create_graph'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION grail.create_graph(text, regclass, name, name, int, boolean, boolean) IS
'Reads the edge table (two key columns), builds the reachability index and stores it; returns a one-line summary. name is read like a table name (schema.name, or the current schema); it needs CREATE on that schema, and ownership of the edge table or its TRIGGER privilege with UPDATE, DELETE or TRUNCATE. Rows with a NULL endpoint are an error unless skip_nulls. live (the default): writes to the edge table are logged and every query answers for the rows its snapshot sees, with no refresh (grail.merge_graph and the background merge fold them into a new build); live => false: a write makes the graph stale until grail.refresh_graph.';
