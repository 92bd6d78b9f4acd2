-- ALTER TABLE ... OWNER TO hands the table's graphs that its old owner owned to the new owner, as it
-- hands over the table's indexes; a graph another role made stays that role's. Before, the old
-- owner kept a live graph it could no longer merge (its rights on the table were the owner's), and
-- only a superuser could merge it: background merges failed from then on.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(18);
SET client_min_messages = warning;

CREATE ROLE to_first;
CREATE ROLE to_second;
CREATE ROLE to_maker;
CREATE SCHEMA to_s AUTHORIZATION to_first;
GRANT USAGE, CREATE ON SCHEMA to_s TO to_second, to_maker;
SET ROLE to_first;
CREATE TABLE to_s.edges (source bigint, target bigint);
INSERT INTO to_s.edges VALUES (1, 2), (2, 3);
GRANT SELECT, TRIGGER, UPDATE ON to_s.edges TO to_maker;
SELECT grail.create_graph('to_s.mine', 'to_s.edges');
SELECT grail.alter_graph('to_s.mine', live => true);
CREATE VIEW to_s.edge_view AS SELECT source, target FROM to_s.edges;
SELECT grail.create_graph('to_s.viewed', 'to_s.edge_view');
CREATE TABLE to_s.parted (source bigint, target bigint) PARTITION BY RANGE (source);
CREATE TABLE to_s.parted_low PARTITION OF to_s.parted FOR VALUES FROM (0) TO (100);
INSERT INTO to_s.parted VALUES (1, 2);
SELECT grail.create_graph('to_s.parted_g', 'to_s.parted');
RESET ROLE;
SET ROLE to_maker;
SELECT grail.create_graph('to_s.made', 'to_s.edges');
RESET ROLE;

CREATE FUNCTION pg_temp.owner_of(g text) RETURNS text LANGUAGE sql AS
	$$SELECT owner::text FROM grail.graph WHERE namespace = 'to_s'::regnamespace AND name = g$$;

-- A rolled-back change of owner leaves the graph's owner as it was.
SAVEPOINT before_change;
ALTER TABLE to_s.edges OWNER TO to_second;
SELECT is(pg_temp.owner_of('mine'), 'to_second', 'ALTER TABLE OWNER TO hands the old owner''s graph over');
ROLLBACK TO SAVEPOINT before_change;
SELECT is(pg_temp.owner_of('mine'), 'to_first', 'rolled back, the graph is the old owner''s again');

ALTER TABLE to_s.edges OWNER TO to_second;
SELECT is(pg_temp.owner_of('mine'), 'to_second', 'the table''s graph follows its owner');
SELECT is(pg_temp.owner_of('made'), 'to_maker', 'a graph another role made stays that role''s');
SELECT is((SELECT owner::text FROM grail.graphs WHERE schema = 'to_s' AND name = 'mine'), 'to_second',
          'grail.graphs shows the new owner');

-- The new owner merges the live graph; the old one no longer may.
INSERT INTO to_s.edges VALUES (3, 4);
SET ROLE to_first;
SELECT throws_ok($$SELECT grail.merge_graph('to_s.mine')$$, '42501', NULL, 'the old owner may not merge it');
RESET ROLE;
SET ROLE to_second;
SELECT lives_ok($$SELECT grail.merge_graph('to_s.mine')$$, 'the new owner merges it');
SELECT is(grail.reachable('to_s.mine', 1, 4), true, 'and it answers from the merged rows');
SELECT is((SELECT pending_changes FROM grail.graphs WHERE schema = 'to_s' AND name = 'mine'), 0::bigint,
          'nothing left pending');
RESET ROLE;

-- The owner given by another subcommand beside it, and a change to the same owner.
ALTER TABLE to_s.edges OWNER TO to_first, ALTER COLUMN target SET STATISTICS 100;
SELECT is(pg_temp.owner_of('mine'), 'to_first', 'OWNER TO among other subcommands hands it over');
ALTER TABLE to_s.edges OWNER TO to_first;
SELECT is(pg_temp.owner_of('mine'), 'to_first', 'OWNER TO the same owner changes nothing');
SELECT is(pg_temp.owner_of('made'), 'to_maker', 'the other role''s graph is still its own');

-- Views and partitioned tables, by their own ALTER forms.
ALTER VIEW to_s.edge_view OWNER TO to_second;
SELECT is(pg_temp.owner_of('viewed'), 'to_second', 'ALTER VIEW OWNER TO hands a view''s graph over');
ALTER TABLE to_s.parted OWNER TO to_second;
SELECT is(pg_temp.owner_of('parted_g'), 'to_second', 'a partitioned table''s graph follows its owner');
ALTER TABLE to_s.parted_low OWNER TO to_first;
SELECT is(pg_temp.owner_of('parted_g'), 'to_second', 'a partition''s owner is not its parent''s graph''s');

-- A missing table: the command's own notice, nothing else.
SELECT lives_ok($$ALTER TABLE IF EXISTS to_s.missing OWNER TO to_second$$, 'IF EXISTS on a missing table');
-- Only the graphs of this relation: another table of the same old owner keeps its graph's owner.
SET ROLE to_second;
CREATE TABLE to_s.other (source bigint, target bigint);
SELECT grail.create_graph('to_s.other_g', 'to_s.other');
RESET ROLE;
ALTER TABLE to_s.parted OWNER TO to_first;
SELECT is(pg_temp.owner_of('other_g'), 'to_second', 'graphs over other tables of the old owner stay');

-- The owner itself (no superuser), a member of the new owner's role, as ALTER TABLE requires.
GRANT to_first TO to_second;
SET ROLE to_second;
ALTER TABLE to_s.other OWNER TO to_first;
RESET ROLE;
SELECT is(pg_temp.owner_of('other_g'), 'to_first', 'an owner that is no superuser hands its graph over too');

SELECT * FROM finish();
ROLLBACK;
