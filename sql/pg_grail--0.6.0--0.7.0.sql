-- pg_grail 0.6.0 -> 0.7.0: seams that hold (validate at use, one typed boundary). Each section
-- below names what it changes and why; a fresh install of 0.7.0 (sql/pg_grail.sql) gives the same
-- objects (test: sql/upgrade.sql).
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.7.0'" to load this file. \quit
