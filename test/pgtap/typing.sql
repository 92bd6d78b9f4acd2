-- Typing: an untyped literal resolves to the text overload, which on a uuid or integer graph reads
-- it as a key of the graph's kind (answering keys as text where the function returns text); a
-- call of the wrong overload gets the exact call to write in its hint; a table named where a graph
-- is expected is named so in the hint.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(41);

-- The SQLSTATE, message and hint of a statement's error, or NULL.
CREATE FUNCTION pg_temp.error_of(statement text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE state text; message text; hint text;
BEGIN
	EXECUTE statement;
	RETURN NULL;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
	RETURN state || ': ' || message || ' / ' || hint;
END $$;

SELECT setseed(0.19);
-- A uuid graph with cycles, self-loops and duplicate edges, and the same graph by integers.
CREATE TABLE ids AS SELECT i, ('00000000-0000-4000-8000-' || lpad(to_hex(i * 7919), 12, '0'))::uuid AS u FROM generate_series(1, 30) i;
CREATE TABLE int_edges AS SELECT (1 + random() * 29)::bigint AS source, (1 + random() * 29)::bigint AS target FROM generate_series(1, 45);
INSERT INTO int_edges VALUES (3, 3), (4, 5), (4, 5), (-9223372036854775808, 9223372036854775807), (9223372036854775807, 1);
CREATE TABLE uuid_edges AS SELECT s.u AS source, t.u AS target FROM int_edges e JOIN ids s ON s.i = e.source JOIN ids t ON t.i = e.target;
CREATE TABLE text_edges AS SELECT source::text AS source, target::text AS target FROM int_edges;
SELECT lives_ok($$SELECT grail.create_graph('ug', 'uuid_edges')$$, 'a uuid graph');
SELECT lives_ok($$SELECT grail.create_graph('ig', 'int_edges')$$, 'an integer graph');
SELECT lives_ok($$SELECT grail.create_graph('deps', 'text_edges')$$, 'a text graph whose keys look like integers');

-- Every pair (and a key the graph lacks), as untyped literals, against the typed calls.
CREATE TABLE keys_ AS SELECT u FROM ids UNION ALL SELECT '00000000-0000-4000-8000-ffffffffffff'::uuid;
CREATE TABLE ikeys AS SELECT i FROM ids UNION ALL SELECT unnest(ARRAY[-9223372036854775808, 9223372036854775807, 0]);
SELECT is_empty($$
	SELECT a.u, b.u FROM keys_ a, keys_ b
	WHERE grail.reachable('ug', a.u::text, b.u::text) IS DISTINCT FROM grail.reachable('ug', a.u, b.u)$$,
	'reachable(): text keys on a uuid graph answer as the uuids do');
SELECT is_empty($$
	SELECT a.i, b.i FROM ikeys a, ikeys b
	WHERE grail.reachable('ig', a.i::text, b.i::text) IS DISTINCT FROM grail.reachable('ig', a.i, b.i)$$,
	'reachable(): text keys on an integer graph answer as the integers do');
SELECT is(grail.reachable('ug', '00000000-0000-4000-8000-' || lpad(to_hex(4 * 7919), 12, '0'),
                          '00000000-0000-4000-8000-' || lpad(to_hex(5 * 7919), 12, '0')), true, 'an edge, by text uuids');
SELECT is(grail.reachable('ig', '4', '5'), true, 'an untyped literal on an integer graph');
SELECT is(grail.reachable('ig', ' +4 ', '5'), true, 'blanks and a sign, as int8 reads them');
SELECT is(grail.reachable('ig', '-9223372036854775808', '9223372036854775807'), true, 'the extreme ids as text');
SELECT is(grail.reachable('ug', upper('00000000-0000-4000-8000-' || lpad(to_hex(4 * 7919), 12, '0')),
                          '{00000000-0000-4000-8000-' || lpad(to_hex(5 * 7919), 12, '0') || '}'), true,
          'any form uuid reads: upper case, braces');
SELECT is(grail.reachable('ug', NULL::text, 'x'), NULL, 'a NULL key: NULL');

-- The arrays of keys.
SELECT is(grail.reachable('ug', ARRAY(SELECT a.u::text FROM keys_ a, keys_ b ORDER BY 1, b.u),
                                ARRAY(SELECT b.u::text FROM keys_ a, keys_ b ORDER BY a.u, b.u)),
          grail.reachable('ug', ARRAY(SELECT a.u FROM keys_ a, keys_ b ORDER BY 1, b.u),
                                ARRAY(SELECT b.u FROM keys_ a, keys_ b ORDER BY a.u, b.u)),
          'reachable(text[], text[]) on a uuid graph: as the uuid arrays');
SELECT is(grail.reachable('ig', ARRAY['4', NULL, '-9223372036854775808'], ARRAY['5', '5', '9223372036854775807']),
          ARRAY[true, NULL, true], 'reachable(text[], text[]) on an integer graph, NULLs kept');

-- scc_component and bfs answer the graph's keys as text.
SELECT is_empty($$SELECT a.u FROM keys_ a WHERE grail.scc_component('ug', a.u::text) IS DISTINCT FROM grail.scc_component('ug', a.u)::text$$,
                'scc_component(text) on a uuid graph: the component''s uuid as text');
SELECT is_empty($$SELECT a.i FROM ikeys a WHERE grail.scc_component('ig', a.i::text) IS DISTINCT FROM grail.scc_component('ig', a.i)::text$$,
                'scc_component(text) on an integer graph: the component''s id as text');
SELECT is_empty($$
	(SELECT a.u::text, b.vertex::text, b.depth, b.parent::text FROM keys_ a, grail.bfs('ug', a.u) b
	 EXCEPT ALL SELECT a.u::text, b.vertex, b.depth, b.parent FROM keys_ a, grail.bfs('ug', a.u::text) b)
	UNION ALL
	(SELECT a.u::text, b.vertex, b.depth, b.parent FROM keys_ a, grail.bfs('ug', a.u::text) b
	 EXCEPT ALL SELECT a.u::text, b.vertex::text, b.depth, b.parent::text FROM keys_ a, grail.bfs('ug', a.u) b)$$,
	'bfs(text) on a uuid graph: the rows of bfs(uuid), as text');
SELECT is_empty($$
	(SELECT a.i, b.vertex::text, b.depth, b.parent::text FROM ikeys a, grail.bfs('ig', a.i, 2) b
	 EXCEPT ALL SELECT a.i, b.vertex, b.depth, b.parent FROM ikeys a, grail.bfs('ig', a.i::text, 2) b)
	UNION ALL
	(SELECT a.i, b.vertex, b.depth, b.parent FROM ikeys a, grail.bfs('ig', a.i::text, 2) b
	 EXCEPT ALL SELECT a.i, b.vertex::text, b.depth, b.parent::text FROM ikeys a, grail.bfs('ig', a.i, 2) b)$$,
	'bfs(text) on an integer graph: the rows of bfs(bigint), as text');
SELECT is((SELECT count(*) FROM grail.bfs('ug', NULL::text)), 0::bigint, 'bfs from a NULL text key: no rows');
SELECT results_eq($$SELECT vertex, depth FROM grail.bfs('ug', upper('00000000-0000-4000-8000-ffffffffffff'))$$,
                  $$VALUES ('00000000-0000-4000-8000-ffffffffffff', 0)$$, 'a key the graph lacks: itself, in the canonical form');

-- A text graph keeps its text keys, even where they look like integers.
SELECT is(grail.reachable('deps', '4', '5'), true, 'a text graph: text keys');
SELECT is(grail.reachable('deps', '04', '5'), false, 'a text graph: ''04'' is not ''4''');

-- Live graphs: the pending rows the snapshot sees answer text keys too.
INSERT INTO uuid_edges VALUES ('00000000-0000-4000-8000-aaaaaaaaaaaa', '00000000-0000-4000-8000-bbbbbbbbbbbb');
INSERT INTO int_edges VALUES (1000, 1001);
SELECT is(grail.reachable('ug', '00000000-0000-4000-8000-aaaaaaaaaaaa', '00000000-0000-4000-8000-bbbbbbbbbbbb'), true,
          'a pending uuid edge, by text keys');
SELECT is(grail.reachable('ig', '1000', '1001'), true, 'a pending integer edge, by text keys');
SELECT is(grail.scc_component('ig', '1001'), '1001', 'scc_component on a live graph, by a text key');

-- Text that is no key of the graph's kind: the error says what to write.
SELECT is(pg_temp.error_of($$SELECT grail.reachable('ug', 'nope', '00000000-0000-4000-8000-aaaaaaaaaaaa')$$),
          '42804: pg_grail graph "ug" has uuid keys, not text keys / Write grail.reachable(''ug'', ''<uuid>''::uuid, ''<uuid>''::uuid): the graph''s keys are of type uuid.',
          'not a uuid: the call with uuid keys');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('ig', '1.5', '2')$$),
          '42804: pg_grail graph "ig" has integer keys, not text keys / Write grail.reachable(''ig'', <bigint>, <bigint>): the graph''s keys are of type bigint.',
          'not an integer: the call with integer keys');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('ig', '9223372036854775808', '2')$$),
          '22003: pg_grail graph "ig" has integer keys, and "9223372036854775808" is out of range for them / Keys of an integer graph are bigint values, from -9223372036854775808 to 9223372036854775807.',
          'an integer out of range: the range, not the key kind');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('ig', ARRAY['1', 'x'], ARRAY['1', '2'])$$),
          '42804: pg_grail graph "ig" has integer keys, not text keys / Write grail.reachable(''ig'', ''{...}''::bigint[], ''{...}''::bigint[]): the graph''s keys are of type bigint.',
          'an array with a key that is no integer');
SELECT is(pg_temp.error_of($$SELECT * FROM grail.bfs('ug', 'nope')$$),
          '42804: pg_grail graph "ug" has uuid keys, not text keys / Write grail.bfs(''ug'', ''<uuid>''::uuid): the graph''s keys are of type uuid.',
          'bfs: not a uuid');

-- The wrong overload: the hint is the call to write.
SELECT is(pg_temp.error_of($$SELECT * FROM grail.scc_components('deps')$$),
          '42804: pg_grail graph "deps" has text keys, not integer keys / Write grail.scc_components(''deps'', NULL::text): the graph''s keys are of type text.',
          'scc_components on a text graph: write NULL::text');
SELECT is(pg_temp.error_of($$SELECT * FROM grail.scc_components('ug', NULL::text)$$),
          '42804: pg_grail graph "ug" has uuid keys, not text keys / Write grail.scc_components(''ug'', NULL::uuid): the graph''s keys are of type uuid.',
          'scc_components with the wrong key_type: write NULL::uuid');
SELECT is(pg_temp.error_of($$SELECT * FROM grail.chordless_cycles('deps') LIMIT 1$$),
          '42804: pg_grail graph "deps" has text keys, not integer keys / Write grail.chordless_cycles(''deps'', NULL::text): the graph''s keys are of type text.',
          'chordless_cycles on a text graph: write NULL::text');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('deps', 4, 5)$$),
          '42804: pg_grail graph "deps" has text keys, not integer keys / Write grail.reachable(''deps'', ''4'', ''5''): the graph''s keys are of type text.',
          'integers on a text graph: the same keys as text');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('ug', 4, 5)$$),
          '42804: pg_grail graph "ug" has uuid keys, not integer keys / Write grail.reachable(''ug'', ''<uuid>''::uuid, ''<uuid>''::uuid): the graph''s keys are of type uuid.',
          'integers on a uuid graph: write uuids');
SELECT is(pg_temp.error_of($$SELECT grail.scc_component('deps', '00000000-0000-4000-8000-aaaaaaaaaaaa'::uuid)$$),
          '42804: pg_grail graph "deps" has text keys, not uuid keys / Write grail.scc_component(''deps'', ''00000000-0000-4000-8000-aaaaaaaaaaaa''): the graph''s keys are of type text.',
          'a uuid on a text graph: the same key as text');
SELECT is(pg_temp.error_of($$SELECT * FROM grail.bfs('ig', '00000000-0000-4000-8000-aaaaaaaaaaaa'::uuid)$$),
          '42804: pg_grail graph "ig" has integer keys, not uuid keys / Write grail.bfs(''ig'', <bigint>): the graph''s keys are of type bigint.',
          'a uuid on an integer graph: write an integer');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('ig', ARRAY['00000000-0000-4000-8000-aaaaaaaaaaaa'::uuid], ARRAY[NULL::uuid])$$),
          '42804: pg_grail graph "ig" has integer keys, not uuid keys / Write grail.reachable(''ig'', ''{...}''::bigint[], ''{...}''::bigint[]): the graph''s keys are of type bigint.',
          'uuid arrays on an integer graph');

-- A graph name with quotes is written as an SQL literal in the hint.
CREATE TABLE "odd'edges" (source text, target text);
SELECT lives_ok($$SELECT grail.create_graph('"it''s"', '"odd''edges"')$$, 'a graph whose name has a quote');
SELECT is(pg_temp.error_of($$SELECT * FROM grail.scc_components('"it''s"')$$),
          '42804: pg_grail graph "it''s" has text keys, not integer keys / Write grail.scc_components(''"it''''s"'', NULL::text): the graph''s keys are of type text.',
          'the graph''s name as an SQL literal');

-- A table named where a graph is expected.
SELECT is(pg_temp.error_of($$SELECT grail.reachable('int_edges', 1, 2)$$),
          '42704: pg_grail graph "int_edges" does not exist / "int_edges" is a table, not a graph: pass the name of a graph built over it (SELECT schema, name FROM grail.graphs WHERE relation = ''int_edges''::regclass), or build one with grail.create_graph(''name'', ''int_edges'').',
          'a table given as a graph: the hint says so');
SELECT is(pg_temp.error_of($$SELECT grail.reachable('nothing_here', 1, 2)$$),
          '42704: pg_grail graph "nothing_here" does not exist / The view grail.graphs lists the graphs; grail.create_graph() makes one.',
          'neither a graph nor a table: the usual hint');

SELECT * FROM finish();
ROLLBACK;
