-- A graph name with an empty quoted part ('""', 'public.""') is refused as an invalid name, as SQL
-- refuses a zero-length delimited identifier. It used to reach the catalog's INSERT and fail there
-- with a check constraint violation on grail.graph whose DETAIL printed the catalog row.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(7);

CREATE TABLE hgn_edges (source bigint, target bigint);
INSERT INTO hgn_edges VALUES (1, 2);

SELECT throws_ok($$SELECT grail.create_graph('""', 'hgn_edges')$$, '42602', 'invalid pg_grail graph name """"',
                 'create_graph(): an empty quoted name is an invalid name');
SELECT throws_ok($$SELECT grail.create_graph('public.""', 'hgn_edges')$$, '42602', NULL,
                 'create_graph(): so is an empty quoted name after a schema');
SELECT throws_ok($$SELECT grail.create_graph('"".hgn', 'hgn_edges')$$, '42602', NULL,
                 'create_graph(): and an empty quoted schema');
SELECT throws_ok($$SELECT grail.reachable('""', 1::bigint, 2::bigint)$$, '42602', NULL,
                 'reachable(): an empty quoted name is an invalid name, not a missing graph');
SELECT throws_ok($$SELECT grail.create_graph('   ', 'hgn_edges')$$, '22023', 'a pg_grail graph name cannot be empty',
                 'a blank name is still the empty name');
-- A quote inside a quoted name, and a one-character quoted name, still work.
SELECT lives_ok($$SELECT grail.create_graph('"a""b"', 'hgn_edges')$$, 'a doubled quote inside a quoted name');
SELECT is(grail.reachable('"a""b"', 1::bigint, 2::bigint), true, 'and it answers');

SELECT * FROM finish();
ROLLBACK;
