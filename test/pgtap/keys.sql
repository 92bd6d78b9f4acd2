-- Text, varchar and uuid vertex keys: every function over random graphs with cycles,
-- self-loops, duplicate edges, the empty string and keys that differ only in case, accents or
-- spacing, against recursive queries over the rows and against the same graph keyed by integers
-- (each key's rank in byte order, so that "smallest" means the same on both sides).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(34);

SELECT setseed(0.61);
-- Package-like names, and keys a collation would order or compare differently than bytes do.
CREATE TABLE names AS
SELECT k FROM (SELECT 'pkg-' || (i * 7919 % 1000) || '-' || substr(md5(i::text), 1, 3) AS k FROM generate_series(1, 40) i) s
UNION SELECT unnest(ARRAY['', 'a', 'A', 'b', 'B', 'é', 'e', 'a b', 'ab', 'a-b', 'Z', 'zz', 'été']);
CREATE TABLE text_edges (source text, target text);
INSERT INTO text_edges
SELECT (SELECT k FROM names ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM names ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 90) i;
INSERT INTO text_edges VALUES ('a', 'A'), ('A', 'a'), ('a', 'a'), ('', 'é'), ('é', ''), ('e', 'é'), ('e', 'é'), ('ab', NULL);
-- The same graph keyed by each key's rank in byte order.
CREATE TABLE ranks AS SELECT k, row_number() OVER (ORDER BY k COLLATE "C") AS r FROM names;
CREATE TABLE rank_edges AS
SELECT s.r AS source, t.r AS target FROM text_edges e JOIN ranks s ON s.k = e.source JOIN ranks t ON t.k = e.target;

SELECT lives_ok($$SELECT grail.create_graph('tk', 'text_edges', skip_nulls => true)$$, 'a graph over text keys');
SELECT lives_ok($$SELECT grail.create_graph('rk', 'rank_edges')$$, 'the same graph over integer ranks');

-- Reachability against a recursive query, every pair of keys (and two the graph lacks).
CREATE TABLE keys_ AS SELECT source AS k FROM text_edges WHERE target IS NOT NULL UNION SELECT target FROM text_edges WHERE target IS NOT NULL;
CREATE TABLE truth AS
WITH RECURSIVE r(a, b) AS (SELECT k, k FROM keys_ UNION SELECT r.a, e.target FROM r JOIN text_edges e ON e.source = r.b WHERE e.target IS NOT NULL)
SELECT x.k AS a, y.k AS b, EXISTS (SELECT 1 FROM r WHERE r.a = x.k AND r.b = y.k) AS reaches FROM keys_ x, keys_ y;
SELECT is((SELECT count(*) FROM truth WHERE grail.reachable('tk', a, b) IS DISTINCT FROM reaches), 0::bigint,
          'reachable(text, text) equals the recursive query on every pair');
SELECT is((SELECT count(*) FROM truth), ((SELECT count(*) FROM keys_) ^ 2)::bigint, 'over all pairs');
SELECT cmp_ok((SELECT count(*) FROM truth WHERE reaches AND a <> b), '>', 0::bigint, 'some distinct pairs reach');
SELECT is((SELECT count(*) FROM truth WHERE grail.reachable('tk', a, b) IS DISTINCT FROM
                                            grail.reachable('rk', (SELECT r FROM ranks WHERE k = a), (SELECT r FROM ranks WHERE k = b))),
          0::bigint, 'and the integer-keyed graph agrees');
SELECT is((SELECT grail.reachable('tk', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)) FROM truth),
          (SELECT array_agg(reaches ORDER BY a, b) FROM truth), 'the array form answers the same');
SELECT is(grail.reachable('tk', ARRAY['a', NULL, 'absent'], ARRAY['A', 'a', 'absent']), ARRAY[true, NULL, true],
          'arrays: NULL elements give NULL; a key the graph lacks reaches itself');
SELECT is(grail.reachable('tk', 'absent', 'absent'), true, 'a key the graph lacks reaches itself');
SELECT is(grail.reachable('tk', 'absent', 'a'), false, 'and nothing else');
SELECT is(grail.reachable('tk', 'a', 'absent'), false, 'and is reached by nothing');
SELECT is(grail.reachable('tk', 'a', 'A'), true, 'keys that differ only in case are distinct vertices');

-- Components: the smallest key in byte order, as the integer graph's smallest rank says.
SELECT is((SELECT count(*) FROM grail.scc_components('tk', NULL::text) c
           JOIN ranks rv ON rv.k = c.vertex JOIN ranks rc ON rc.k = c.component
           FULL JOIN grail.scc_components('rk') i ON i.vertex = rv.r
           WHERE i.component IS DISTINCT FROM rc.r), 0::bigint,
          'scc_components(graph, NULL::text): each component is its smallest key in byte order');
SELECT is((SELECT array_agg(vertex) FROM grail.scc_components('tk', NULL::text)),
          (SELECT array_agg(k ORDER BY k COLLATE "C") FROM keys_), 'one row per key, ordered by key in byte order');
SELECT is((SELECT component FROM grail.scc_components('tk', NULL::text) WHERE vertex = 'é'), '',
          'the empty string is the smallest key of its component');
SELECT is((SELECT count(*) FROM grail.scc_components('tk', NULL::text) c WHERE grail.scc_component('tk', c.vertex) <> c.component),
          0::bigint, 'scc_component(graph, text) agrees with scc_components');
SELECT is(grail.scc_component('tk', 'absent'), 'absent', 'a key the graph lacks is its own component');
SELECT is((SELECT count(*) FROM grail.scc_components('tk', NULL::varchar)), (SELECT count(*) FROM keys_),
          'key_type may be NULL::varchar too');

-- BFS: depths as a recursive query finds them; the parent is the smallest key one level up.
CREATE TABLE bfs_source AS SELECT min(source COLLATE "C") AS s FROM text_edges WHERE source LIKE 'pkg-%' AND target IS NOT NULL;
CREATE TABLE bfs_truth AS
WITH RECURSIVE d(v, depth) AS (SELECT s, 0 FROM bfs_source UNION SELECT e.target, d.depth + 1 FROM d JOIN text_edges e ON e.source = d.v
                               WHERE e.target IS NOT NULL AND d.depth < 60)
SELECT v, min(depth) AS depth FROM d GROUP BY v;
SELECT cmp_ok((SELECT count(*) FROM bfs_truth), '>', 3::bigint, 'the BFS reaches several keys');
SELECT is((SELECT count(*) FROM grail.bfs('tk', (SELECT s FROM bfs_source)) b FULL JOIN bfs_truth t ON t.v = b.vertex
           WHERE b.depth IS DISTINCT FROM t.depth), 0::bigint, 'bfs(graph, text): every reached key at its depth');
SELECT is((SELECT count(*) FROM grail.bfs('tk', (SELECT s FROM bfs_source)) b WHERE b.parent IS DISTINCT FROM
             (SELECT min(e.source COLLATE "C") FROM text_edges e JOIN bfs_truth t ON t.v = e.source
              WHERE e.target = b.vertex AND t.depth = b.depth - 1)), 0::bigint,
          'each parent is the smallest key in byte order one level up');
SELECT is((SELECT array_agg(vertex) FROM grail.bfs('tk', 'absent')), ARRAY['absent'], 'bfs from a key the graph lacks: itself');

-- Chordless cycles: the integer graph's, mapped through the ranks.
SELECT is((SELECT array_agg(c::text ORDER BY c) FROM (SELECT ARRAY(SELECT r.r FROM unnest(c) WITH ORDINALITY u(k, o) JOIN ranks r ON r.k = u.k ORDER BY o) AS c
                                                      FROM grail.chordless_cycles('tk', NULL::text) c) s),
          (SELECT array_agg(c::text ORDER BY c) FROM grail.chordless_cycles('rk') c),
          'chordless_cycles(graph, NULL::text) are the integer graph''s cycles, key for rank');
SELECT cmp_ok((SELECT count(*) FROM grail.chordless_cycles('tk', NULL::text)), '>', 0::bigint, 'and there are some');
SELECT is(grail.save_chordless_cycles('tk', 'tk_cycles'), (SELECT count(*) FROM grail.chordless_cycles('tk', NULL::text)),
          'save_chordless_cycles over text keys');
SELECT is((SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tk_cycles'::regclass AND attname = 'vertices'),
          'text[]', 'into a table of text[] cycles');
-- As sets: the GPU finds cycles in no fixed order.
SELECT is((SELECT array_agg(vertices::text ORDER BY vertices::text) FROM tk_cycles),
          (SELECT array_agg(c::text ORDER BY c::text) FROM grail.chordless_cycles('tk', NULL::text) c), 'holding the cycles');

-- Keys of one kind only.
SELECT throws_ok($$SELECT grail.reachable('tk', 1, 2)$$, '42804', 'pg_grail graph "tk" has text keys, not integer keys',
                 'integer keys on a text graph are refused');
SELECT throws_ok($$SELECT grail.reachable('rk', 'a', 'b')$$, '42804', 'pg_grail graph "rk" has integer keys, not text keys',
                 'text keys on an integer graph are refused');
CREATE TABLE mixed_edges (source text, target bigint);
SELECT throws_like($$SELECT grail.create_graph('mixed', 'mixed_edges')$$, '%must hold keys of one kind%',
                   'columns of two kinds of key are refused');
CREATE TABLE float_edges (source float8, target float8);
SELECT throws_like($$SELECT grail.create_graph('floats', 'float_edges')$$, '%which pg_grail cannot key vertices by%',
                   'a type that cannot key vertices is refused');

-- uuid keys.
CREATE TABLE uuid_edges AS
SELECT md5('v' || (random() * 30)::int)::uuid AS source, md5('v' || (random() * 30)::int)::uuid AS target
FROM generate_series(1, 80);
SELECT lives_ok($$SELECT grail.create_graph('uk', 'uuid_edges')$$, 'a graph over uuid keys');
CREATE TABLE uuid_truth AS
WITH RECURSIVE v(k) AS (SELECT source FROM uuid_edges UNION SELECT target FROM uuid_edges),
r(a, b) AS (SELECT k, k FROM v UNION SELECT r.a, e.target FROM r JOIN uuid_edges e ON e.source = r.b)
SELECT x.k AS a, y.k AS b, EXISTS (SELECT 1 FROM r WHERE r.a = x.k AND r.b = y.k) AS reaches FROM v x, v y;
SELECT is((SELECT count(*) FROM uuid_truth WHERE grail.reachable('uk', a, b) IS DISTINCT FROM reaches), 0::bigint,
          'reachable(uuid, uuid) equals the recursive query on every pair');
SELECT is((SELECT count(*) FROM grail.scc_components('uk', NULL::uuid) c
           WHERE c.component IS DISTINCT FROM (SELECT (array_agg(t.b ORDER BY t.b))[1] FROM uuid_truth t
                                               JOIN uuid_truth u ON u.a = t.b AND u.b = t.a
                                               WHERE t.a = c.vertex AND t.reaches AND u.reaches)), 0::bigint,
          'scc_components(graph, NULL::uuid): each component is its smallest uuid');

SELECT * FROM finish();
ROLLBACK;
