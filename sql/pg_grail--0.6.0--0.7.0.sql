-- pg_grail 0.6.0 -> 0.7.0: seams that hold (validate at use, one typed boundary). Each section
-- below names what it changes and why; a fresh install of 0.7.0 (sql/pg_grail.sql) gives the same
-- objects (test: sql/upgrade.sql).
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.7.0'" to load this file. \quit

-- The staleness trigger of an ancestor checks, where it fires, that its table is an ancestor of
-- its graph's edge table: a table-only dump (pg_dump -t) restored into another database brings the
-- trigger along, and there it must not mark whichever graph has the same id stale; it warns
-- instead (the log triggers' function, src/pg/change_log.cpp, does the same for its tables).
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
	IF TG_RELID OPERATOR(pg_catalog.<>) ALL (grail._ancestors(g.relid::pg_catalog.oid)) THEN
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
