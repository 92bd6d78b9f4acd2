-- Dense integer ids (serial keys with gaps) are resolved through a direct id table (image format
-- 8), sparse ones through the hash table. Every answer equals the closure of the rows: ids in the
-- gaps, just outside the span, negative and extreme ones; pending inserts in the gaps, past the ends
-- and far away (the overlay over a direct table); merges that keep the ids dense, make them sparse
-- (a far id: the next image has a hash table) and dense again (stored as deltas, and in full by
-- refresh_graph); the int4 overload and the array form.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(16);

CREATE TABLE di_e (source bigint, target bigint);

-- Pairs of ids (the rows' vertices and the probes) whose reachable() differs from the closure of
-- the rows of di_e, by the per-row call, the array form and the int4 overload.
CREATE FUNCTION pg_temp.wrong() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	DROP TABLE IF EXISTS pg_temp.di_pairs;
	CREATE TEMP TABLE di_pairs AS
	WITH RECURSIVE v(v) AS (SELECT source FROM di_e UNION SELECT target FROM di_e
	                        UNION SELECT unnest(ARRAY[-9223372036854775808, 9223372036854775807, -5, -1, 0, 1, 2,
	                                                  149, 150, 151, 299, 300, 301, 5000, 1099511627776])),
	r(a, b) AS (SELECT v, v FROM v UNION SELECT r.a, e.target FROM r JOIN di_e e ON e.source = r.b)
	SELECT x.v AS a, y.v AS b, r.a IS NOT NULL AS want
	FROM v x CROSS JOIN v y LEFT JOIN r ON r.a = x.v AND r.b = y.v;
	SELECT (SELECT count(*) FROM di_pairs WHERE grail.reachable('di_g', a, b) IS DISTINCT FROM want)
	     + (SELECT count(*) FROM di_pairs WHERE a BETWEEN -2147483648 AND 2147483647 AND b BETWEEN -2147483648 AND 2147483647
	                                      AND grail.reachable('di_g', a::int, b::int) IS DISTINCT FROM want)
	     + (SELECT count(*) FROM (SELECT array_agg(a ORDER BY a, b) AS a, array_agg(b ORDER BY a, b) AS b,
	                                     array_agg(want ORDER BY a, b) AS want FROM di_pairs) arrays,
	                             unnest(grail.reachable('di_g', arrays.a, arrays.b), arrays.want) u(got, expected)
	        WHERE got IS DISTINCT FROM expected)
	INTO n;
	RETURN n;
END $$;

-- Ids 1..300 but every third (a chain with a few cycles and shortcuts): span 300 for 200 ids.
INSERT INTO di_e SELECT i, i + CASE WHEN (i + 1) % 3 = 0 THEN 2 ELSE 1 END FROM generate_series(1, 298) i WHERE i % 3 <> 0;
INSERT INTO di_e SELECT i + 7 - (i + 7) % 3 + 1, i FROM generate_series(1, 280, 31) i;
INSERT INTO di_e VALUES (5, 5), (8, 5), (8, 5), (-4, 1), (-2, -4);
SELECT grail.create_graph('di_g', 'di_e') IS NOT NULL AS made \gset
SELECT is((SELECT image_format FROM grail.explain_graph('di_g') LIMIT 1), 8, 'a build writes format 8');
SELECT is(pg_temp.wrong(), 0::bigint, 'dense ids with gaps: every answer is the closure''s');

-- Pending inserts: into a gap, past both ends, and far away; a delete of a base edge.
INSERT INTO di_e VALUES (150, 3), (2, 150), (301, -1), (299, 301), (1099511627776, 4), (298, 1099511627776);
DELETE FROM di_e WHERE source = 100;
SELECT is(pg_temp.wrong(), 0::bigint, 'pending inserts in a gap, past the ends and far away, over a direct table');
SELECT ok(grail.reachable('di_g', 298, 4) AND grail.reachable('di_g', 299, -1), 'the new edges lead on');

-- Merged: the far id makes the ids sparse (a hash table), stored as a delta of the direct build.
SELECT lives_ok($$SELECT grail.merge_graph('di_g')$$, 'merge with a far id');
SELECT is(pg_temp.wrong(), 0::bigint, 'after the merge that makes the ids sparse');
SELECT isnt((SELECT base_build FROM grail.graph WHERE name = 'di_g'), NULL, 'stored as a delta');
SELECT index_bytes AS sparse_bytes FROM grail.graphs WHERE name = 'di_g' \gset

-- The far id's rows deleted: dense again, and the image smaller (a direct table of ~300 slots of
-- 8 bytes where the hash had 512 of 16).
DELETE FROM di_e WHERE source = 1099511627776 OR target = 1099511627776;
SELECT lives_ok($$SELECT grail.merge_graph('di_g')$$, 'merge without it');
SELECT is(pg_temp.wrong(), 0::bigint, 'after the merge that makes them dense again');
SELECT cmp_ok((SELECT index_bytes FROM grail.graphs WHERE name = 'di_g'), '<', :sparse_bytes::bigint,
              'the direct table is smaller than the hash table');

-- Pending changes over that delta build: ids in gaps and new ones, deleted ones.
INSERT INTO di_e VALUES (3, 6), (6, 9), (9, 300), (300, 2);
DELETE FROM di_e WHERE source = 2;
SELECT is(pg_temp.wrong(), 0::bigint, 'pending changes over a delta of a direct table');
SELECT lives_ok($$SELECT grail.refresh_graph('di_g')$$, 'refreshed');
SELECT is((SELECT base_build FROM grail.graph WHERE name = 'di_g'), NULL, 'a full image');
SELECT is(pg_temp.wrong(), 0::bigint, 'after refresh_graph');

-- Every row gone: the empty graph, then one vertex.
DELETE FROM di_e;
SELECT lives_ok($$SELECT grail.merge_graph('di_g')$$, 'merged to empty');
INSERT INTO di_e VALUES (7, 7);
SELECT is(pg_temp.wrong(), 0::bigint, 'the empty graph and one pending vertex');

SELECT * FROM finish();
ROLLBACK;
