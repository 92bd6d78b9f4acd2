-- grail.activity names a build's graph by its own name (the schema is a column of its own), as
-- valid text however long its schema and name: here read from inside a create_graph through a
-- trigger on grail.index_chunk, while the build is storing its index.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(3);

-- A schema of 30 two-byte characters: "schema.name" is longer than a name (63 bytes) and cut there
-- would end inside a character.
CREATE SCHEMA "éééééééééééééééééééééééééééééé";
CREATE TABLE "éééééééééééééééééééééééééééééé".edges (source bigint, target bigint);
INSERT INTO "éééééééééééééééééééééééééééééé".edges VALUES (1, 2);

CREATE TABLE activity_seen (graph text, graph_bytes bytea);
CREATE FUNCTION record_activity() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO public.activity_seen SELECT a.graph, pg_catalog.textsend(a.graph) FROM grail_internal._activity() a;
	RETURN NULL;
END
$$;
CREATE TRIGGER record_activity AFTER INSERT ON grail.index_chunk
	FOR EACH STATEMENT EXECUTE FUNCTION record_activity();

SELECT grail.create_graph('"éééééééééééééééééééééééééééééé"."xéééé"', '"éééééééééééééééééééééééééééééé".edges');
SELECT grail.create_graph('"éééééééééééééééééééééééééééééé"."xéééééééééééééééééééééééééééééééééééé"',
                          '"éééééééééééééééééééééééééééééé".edges');

SELECT CASE WHEN current_setting('shared_preload_libraries') ~ '\mpg_grail\M' THEN
	collect_tap(
		is((SELECT count(*) FROM activity_seen), 2::bigint, 'the builds were seen in progress'),
		is(ARRAY(SELECT graph_bytes FROM activity_seen ORDER BY graph_bytes),
		   ARRAY[convert_to('xéééé', 'UTF8'), convert_to('xééééééééééééééééééééééééééééééé', 'UTF8')],
		   'each build shows its graph''s name, cut at a character boundary'),
		ok((SELECT bool_and(pg_catalog.length(graph) > 0) FROM activity_seen), 'as valid text'))
ELSE skip('grail.activity shows builds only with pg_grail in shared_preload_libraries', 3) END;

SELECT * FROM finish();
ROLLBACK;
