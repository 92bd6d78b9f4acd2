-- pg_grail 0.1.0 -> 0.2.0: chordless cycles. Released: never edit.
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.2.0'" to load this file. \quit

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
