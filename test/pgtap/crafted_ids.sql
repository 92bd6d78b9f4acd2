-- Integer ids chosen to collide in an unseeded id hash table (t * 0x9e3779b97f4a7c15^-1 mod 2^64,
-- all in slot 0 of the hash that formats 2 to 4 used): the build, its image and a load of it work
-- as with any other ids. The number of slots a lookup walks is asserted by the unit test
-- Index.CraftedIdsDoNotCollide; here, that such a graph builds, loads and answers.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(6);

CREATE FUNCTION pg_temp.evil_id(i bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT (CASE WHEN x >= 9223372036854775808 THEN x - 18446744073709551616 ELSE x END)::bigint
  FROM (SELECT (i::numeric * 17428512612931826493::numeric) % 18446744073709551616::numeric AS x) s $$;
CREATE TABLE crafted_edges (source bigint, target bigint);
INSERT INTO crafted_edges SELECT pg_temp.evil_id(i), pg_temp.evil_id(i + 1) FROM generate_series(0, 39998) i;

SELECT lives_ok($$SELECT grail.create_graph('crafted', 'crafted_edges', live => false)$$,
                'a graph over 40000 crafted ids builds');
SELECT is((SELECT vertices FROM grail.graphs WHERE name = 'crafted'), 40000::bigint, 'with every id a vertex');
SELECT is(grail.reachable('crafted', pg_temp.evil_id(3), pg_temp.evil_id(39000)), true, 'down the chain');
SELECT is(grail.reachable('crafted', pg_temp.evil_id(39000), pg_temp.evil_id(3)), false, 'not up it');
SELECT lives_ok($$SELECT grail.refresh_graph('crafted')$$, 'a refresh builds it again');
SELECT is(grail.reachable('crafted', ARRAY(SELECT pg_temp.evil_id(i) FROM generate_series(0, 39990, 10) i),
                          ARRAY(SELECT pg_temp.evil_id(i + 9) FROM generate_series(0, 39990, 10) i)),
          ARRAY(SELECT true FROM generate_series(0, 39990, 10)), 'every id found in the new build');

SELECT * FROM finish();
ROLLBACK;
