-- pg_grail 0.6.0 -> 0.7.0: seams that hold (validate at use, one typed boundary). Each section
-- below names what it changes and why; a fresh install of 0.7.0 (sql/pg_grail.sql) gives the same
-- objects (test: sql/upgrade.sql).
\echo Use "ALTER EXTENSION pg_grail UPDATE TO '0.7.0'" to load this file. \quit

-- NULL arguments: every function is STRICT unless it must take NULLs (an optional argument, a
-- key_type given as a typed NULL); those check their other arguments in one declared place
-- (GRAIL_FUNCTION_NULLABLE, src/pg/guard.hpp). These internal helpers were not STRICT and gave an
-- answer built from NULLs (an array of NULL trigger names) or an error instead of NULL.
ALTER FUNCTION grail._trigger_names(bigint) STRICT;
ALTER FUNCTION grail._drop_triggers(bigint, regclass[], text[]) STRICT;
ALTER FUNCTION grail._watch(bigint) STRICT;
ALTER FUNCTION grail._has_column(oid, name) STRICT;

-- Publications: grail.pending_change had no replica identity, so with a publication FOR ALL TABLES
-- every delete from it failed (merge_graph, refresh_graph, drop_graph, background merges, DROP TABLE
-- of an edge table). No key fits: the whole row is its identity.
ALTER TABLE grail.pending_change REPLICA IDENTITY FULL;

-- grail.graphs and grail.activity become security barriers: a leaky function in a caller's WHERE
-- clause ran before the views' privilege checks and saw the graphs over tables the caller cannot
-- read.
ALTER VIEW grail.graphs SET (security_barrier = true);
ALTER VIEW grail.activity SET (security_barrier = true);
