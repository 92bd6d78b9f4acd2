-- Text keys on an integer graph (the form that untyped literals take): a number past bigint's range
-- is refused as out of range (22003), the value cut short, wherever a text key is read (pairs,
-- arrays, bfs, path, scc_component); it used to be reported as a key of the wrong kind ("has integer
-- keys, not text keys"), which sent the caller looking for a type mistake. The limits themselves
-- are keys; a malformed literal keeps the kind error; a literal echoed in an oid graph's error is
-- cut short too.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(14);

CREATE TABLE hkl_edges (source bigint, target bigint);
INSERT INTO hkl_edges VALUES (-9223372036854775808, 1), (1, 9223372036854775807);
SELECT grail.create_graph('hkl', 'hkl_edges');

SELECT throws_ok($$SELECT grail.reachable('hkl', '1', '9223372036854775808')$$, '22003',
                 'pg_grail graph "hkl" has integer keys, and "9223372036854775808" is out of range for them',
                 'reachable(): one past the largest bigint is out of range');
SELECT throws_ok($$SELECT grail.reachable('hkl', ' -9223372036854775809 ', '1')$$, '22003', NULL,
                 'reachable(): one below the smallest, blanks around, is out of range');
SELECT throws_ok($$SELECT grail.reachable('hkl', '1', '+' || repeat('9', 100000))$$, '22003',
                 'pg_grail graph "hkl" has integer keys, and "+9999999999999999999999999999999..." is out of range for them',
                 'reachable(): a 100 kB number is cut short in the message');
SELECT throws_ok($$SELECT grail.reachable('hkl', ARRAY['1', '99999999999999999999'], ARRAY['1', '1'])$$, '22003', NULL,
                 'reachable() of text arrays: an element out of range');
SELECT throws_ok($$SELECT count(*) FROM grail.bfs('hkl', '99999999999999999999')$$, '22003', NULL,
                 'bfs(): out of range');
SELECT throws_ok($$SELECT grail.path('hkl', '1', '99999999999999999999')$$, '22003', NULL, 'path(): out of range');
SELECT throws_ok($$SELECT grail.scc_component('hkl', '-99999999999999999999'::text)$$, '22003', NULL,
                 'scc_component(): out of range');
SELECT is(grail.reachable('hkl', '-9223372036854775808', '9223372036854775807'), true,
          'the smallest and the largest bigint are keys, read from text');
SELECT is(grail.reachable('hkl', '+1', '9223372036854775807'), true, 'a plus sign is read as int8in reads it');
SELECT throws_like($$SELECT grail.reachable('hkl', '1', 'x99')$$, '%has integer keys, not text keys%',
                   'a malformed literal is still a key of another kind');
SELECT throws_like($$SELECT grail.reachable('hkl', '1', '+-5')$$, '%has integer keys, not text keys%',
                   'two signs are no integer (int8in refuses them), not -5');
SELECT throws_like($$SELECT grail.reachable('hkl', '1', '+')$$, '%has integer keys, not text keys%',
                   'a sign alone is no integer');

CREATE TABLE hkl_oid_edges (source regrole, target regrole);
INSERT INTO hkl_oid_edges VALUES ('pg_monitor', 'pg_read_all_stats');
SELECT grail.create_graph('hkl_oid', 'hkl_oid_edges');
SELECT throws_ok(format($$SELECT grail.reachable('hkl_oid', 'pg_monitor', %L)$$, repeat('r', 100000)), '42704',
                 'pg_grail graph "hkl_oid" has regrole keys, and "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrr..." names no role',
                 'an oid graph echoes a long name cut short');
CREATE TABLE hkl_plain_oid_edges (source oid, target oid);
INSERT INTO hkl_plain_oid_edges VALUES (1, 2);
SELECT grail.create_graph('hkl_plain_oid', 'hkl_plain_oid_edges');
SELECT throws_ok($$SELECT grail.reachable('hkl_plain_oid', '1', repeat('7', 1000))$$, '22P02',
                 'pg_grail graph "hkl_plain_oid" has oid keys, and "77777777777777777777777777777777..." is no oid',
                 'an oid graph echoes a long number cut short');

SELECT * FROM finish();
ROLLBACK;
