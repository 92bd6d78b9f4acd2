-- chordless_cycles(), chordless_cycle_counts(), save_chordless_cycles(): the SQL surface, known
-- counts on classic graphs, every cycle checked in SQL (a cycle of edges, no chord, canonical
-- orientation, none twice), and the counts against the enumeration.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(16 + 7 * 6);

-- Surface.
SELECT has_function('grail', 'chordless_cycles', ARRAY['text', 'integer', 'integer']);
SELECT function_returns('grail', 'chordless_cycles', ARRAY['text', 'integer', 'integer'], 'setof bigint[]');
SELECT volatility_is('grail', 'chordless_cycles', ARRAY['text', 'integer', 'integer'], 'stable');
SELECT isnt_strict('grail', 'chordless_cycles', ARRAY['text', 'integer', 'integer']);
SELECT is((SELECT proretset AND proparallel = 's' FROM pg_proc
           WHERE oid = 'grail.chordless_cycles(text, int, int)'::regprocedure), true,
          'chordless_cycles() returns a set and is parallel safe');
SELECT has_function('grail', 'chordless_cycle_counts', ARRAY['text', 'integer']);
SELECT function_returns('grail', 'chordless_cycle_counts', ARRAY['text', 'integer'], 'setof record');
SELECT volatility_is('grail', 'chordless_cycle_counts', ARRAY['text', 'integer'], 'stable');
SELECT isnt_strict('grail', 'chordless_cycle_counts', ARRAY['text', 'integer']);
SELECT has_function('grail', 'save_chordless_cycles', ARRAY['text', 'text', 'integer', 'integer']);
SELECT function_returns('grail', 'save_chordless_cycles', ARRAY['text', 'text', 'integer', 'integer'], 'bigint');
SELECT volatility_is('grail', 'save_chordless_cycles', ARRAY['text', 'text', 'integer', 'integer'], 'volatile');
SELECT is((SELECT proparallel FROM pg_proc WHERE oid = 'grail.save_chordless_cycles(text, text, int, int)'::regprocedure),
          'u', 'save_chordless_cycles() is parallel unsafe');
SELECT is((SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'grail' AND p.proname LIKE '%chordless%' AND obj_description(p.oid, 'pg_proc') IS NULL),
          0::bigint, 'the chordless functions have comments');
SELECT throws_ok($$SELECT * FROM grail.chordless_cycles('no_such_graph')$$, '42704', NULL,
                 'an unknown graph is undefined_object');
SELECT throws_ok($$SELECT * FROM grail.chordless_cycle_counts('no_such_graph', 2)$$, '22023', NULL,
                 'a max_length below 3 is invalid_parameter_value');

-- Known graphs: name, edges (with ids that do not follow the structure, direction mixed,
-- duplicates and self-loops here and there), and the expected counts by length.
CREATE TABLE known (name text, source bigint, target bigint);
CREATE TABLE known_counts (name text, length int, cycles bigint);

-- K_{4,5}: C(4,2) * C(5,2) = 60 squares.
INSERT INTO known SELECT 'k45', a * 1000 - 7, b * 31 + 5 FROM generate_series(1, 4) a, generate_series(1, 5) b;
INSERT INTO known_counts VALUES ('k45', 4, 60);
-- K_6: C(6,3) = 20 triangles, given in both directions, with self-loops.
INSERT INTO known SELECT 'k6', a, b FROM generate_series(1, 6) a, generate_series(1, 6) b;
INSERT INTO known_counts VALUES ('k6', 3, 20);
-- Wheel with a rim of 7: 7 triangles and the rim.
INSERT INTO known SELECT 'wheel7', 0, i FROM generate_series(1, 7) i
	UNION ALL SELECT 'wheel7', i % 7 + 1, i FROM generate_series(1, 7) i;
INSERT INTO known_counts VALUES ('wheel7', 3, 7), ('wheel7', 7, 1);
-- C_9 on negative ids, with a duplicate edge.
INSERT INTO known SELECT 'c9', -i, -((i + 1) % 9) FROM generate_series(0, 8) i UNION ALL SELECT 'c9', 0, -1;
INSERT INTO known_counts VALUES ('c9', 9, 1);
-- Petersen: 12 five-cycles, 10 six-cycles.
INSERT INTO known SELECT 'petersen', i, (i + 1) % 5 FROM generate_series(0, 4) i
	UNION ALL SELECT 'petersen', i, i + 5 FROM generate_series(0, 4) i
	UNION ALL SELECT 'petersen', i + 5, (i + 2) % 5 + 5 FROM generate_series(0, 4) i;
INSERT INTO known_counts VALUES ('petersen', 5, 12), ('petersen', 6, 10);
-- Grid 4 x 10 (Table 1 of papers/gpu-chordless-cycles.txt): 1,823 chordless cycles; by length
-- as NetworkX 3.6 chordless_cycles() gives them.
INSERT INTO known SELECT 'grid4x10', r * 10 + c, r * 10 + c + 1 FROM generate_series(0, 3) r, generate_series(0, 8) c
	UNION ALL SELECT 'grid4x10', r * 10 + c, (r + 1) * 10 + c FROM generate_series(0, 2) r, generate_series(0, 9) c;
INSERT INTO known_counts VALUES ('grid4x10', 4, 27), ('grid4x10', 8, 16), ('grid4x10', 10, 22), ('grid4x10', 12, 61),
	('grid4x10', 14, 112), ('grid4x10', 16, 163), ('grid4x10', 18, 202), ('grid4x10', 20, 249), ('grid4x10', 22, 316),
	('grid4x10', 24, 367), ('grid4x10', 26, 280), ('grid4x10', 28, 8);
-- A tree with a self-loop: none.
INSERT INTO known SELECT 'tree', i, i / 2 FROM generate_series(1, 20) i;

CREATE FUNCTION pg_temp.check_graph(g text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format('CREATE TABLE %I AS SELECT source, target FROM known WHERE name = %L', 'e_' || g, g);
	PERFORM grail.create_graph(g, ('e_' || g)::regclass);
	EXECUTE format('CREATE TEMP TABLE und AS SELECT DISTINCT least(source, target) AS a, greatest(source, target) AS b '
	               'FROM known WHERE name = %L AND source <> target', g);
	EXECUTE format('CREATE TEMP TABLE got AS SELECT c FROM grail.chordless_cycles(%L) c', g);

	RETURN NEXT set_eq(format('SELECT length, cycles FROM grail.chordless_cycle_counts(%L)', g),
	                   format('SELECT length, cycles FROM known_counts WHERE name = %L', g),
	                   g || ': the known numbers of chordless cycles by length');
	RETURN NEXT is((SELECT count(*) FROM got), (SELECT coalesce(sum(cycles), 0) FROM known_counts WHERE name = g)::bigint,
	               g || ': as many cycles enumerated');
	RETURN NEXT is((SELECT count(DISTINCT c) FROM got), (SELECT count(*) FROM got), g || ': none twice');
	RETURN NEXT is((SELECT count(*) FROM got
	                WHERE c[1] <> (SELECT min(v) FROM unnest(c) v) OR c[2] > c[cardinality(c)]
	                   OR cardinality(c) <> (SELECT count(DISTINCT v) FROM unnest(c) v) OR cardinality(c) < 3),
	               0::bigint, g || ': distinct vertices from the smallest id towards its smaller neighbour');
	-- Consecutive vertices adjacent, and no other edge among the cycle's vertices: the edges
	-- inside each cycle's vertex set are exactly its length.
	RETURN NEXT is((SELECT count(*) FROM got
	                WHERE (SELECT count(*) FROM und WHERE a = ANY (c) AND b = ANY (c)) <> cardinality(c)
	                   OR EXISTS (SELECT FROM generate_subscripts(c, 1) i
	                              WHERE NOT EXISTS (SELECT FROM und WHERE a = least(c[i], c[i % cardinality(c) + 1])
	                                                                  AND b = greatest(c[i], c[i % cardinality(c) + 1])))),
	               0::bigint, g || ': every cycle is induced');
	RETURN NEXT set_eq(format('SELECT length, cycles FROM grail.chordless_cycle_counts(%L)', g),
	                   'SELECT cardinality(c), count(*) FROM got GROUP BY 1',
	                   g || ': the counts by length are those of the enumeration');
	DROP TABLE und, got;
END
$f$;

SELECT pg_temp.check_graph(g) FROM unnest(ARRAY['k45', 'k6', 'wheel7', 'c9', 'petersen', 'grid4x10', 'tree']) g;

SELECT * FROM finish();
ROLLBACK;
