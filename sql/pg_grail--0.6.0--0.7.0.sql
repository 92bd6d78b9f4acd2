-- pg_grail 0.6.0 -> 0.7.0: seams that hold (validate at use, one typed boundary). Each section
-- below names what it changes and why; a fresh install of 0.7.0 (sql/pg_grail.sql) gives the same
-- objects (test: sql/upgrade.sql).
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.7.0'" to load this file. \quit

-- Column renames through ALTER VIEW, ALTER MATERIALIZED VIEW, ALTER FOREIGN TABLE ... RENAME COLUMN
-- and ALTER TYPE ... RENAME ATTRIBUTE, which PostgreSQL accepts on a table, are followed as ALTER
-- TABLE ... RENAME COLUMN is: grail_on_alter_table fires on their tags too (a graph used to keep the
-- old name and read whatever column took it, or vanish from grail.graphs). The tags of an event
-- trigger cannot be altered, so it is made again.
DROP EVENT TRIGGER grail_on_alter_table;
CREATE EVENT TRIGGER grail_on_alter_table ON ddl_command_end
	WHEN TAG IN ('ALTER TABLE', 'ALTER VIEW', 'ALTER MATERIALIZED VIEW', 'ALTER FOREIGN TABLE', 'ALTER TYPE')
	EXECUTE FUNCTION grail._on_alter_table();
ALTER EVENT TRIGGER grail_on_alter_table ENABLE ALWAYS;
