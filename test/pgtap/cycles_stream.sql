-- chordless_cycles() as a stream: rows fetched one at a time from a cursor are the same cycles as
-- the whole set (first batches of one cycle, growing), and while the stream is open grail.activity
-- shows the search (command chordless_cycles, start vertices done of the graph's vertices), gone
-- once the cursor is closed or the transaction rolled back to before it.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(13);

-- 39 squares (4i .. 4i + 3) and a cycle of 30 vertices hanging off vertex 0: 40 chordless cycles.
-- (Not a chain of squares sharing vertices: the search would expand its 2^39 chordless paths.)
CREATE TABLE cs_edges (s bigint, t bigint);
INSERT INTO cs_edges
SELECT 4 * i + k, 4 * i + (k + 1) % 4 FROM generate_series(0, 38) i, generate_series(0, 3) k
UNION ALL SELECT 1000 + i, 1000 + (i + 1) % 30 FROM generate_series(0, 29) i
UNION ALL SELECT 0, 1000;
SELECT grail.create_graph('cs', 'cs_edges', 's', 't');
CREATE TABLE cs_all AS SELECT c FROM grail.chordless_cycles('cs') c;
SELECT is((SELECT count(*) FROM cs_all), 40::bigint, 'the graph has its 39 squares and the long cycle');

-- One row at a time from a cursor (in the select list: a stream, not materialised): the same
-- cycles, each once.
DECLARE cs_cursor CURSOR FOR SELECT grail.chordless_cycles('cs') AS c;
CREATE TABLE cs_fetched (c bigint[]);
DO $$
DECLARE
	r record;
	c refcursor := 'cs_cursor';
BEGIN
	FOR k IN 1..3 LOOP
		FETCH c INTO r;
		INSERT INTO cs_fetched VALUES (r.c);
	END LOOP;
END
$$;
SELECT is((SELECT count(*) FROM cs_fetched WHERE c IS NOT NULL), 3::bigint, 'three rows fetched one by one');
SELECT is((SELECT count(*) FROM cs_fetched f WHERE NOT EXISTS (SELECT 1 FROM cs_all a WHERE a.c = f.c)), 0::bigint,
          'each a cycle of the whole set');

-- The open stream in grail.activity (with pg_grail preloaded).
SELECT CASE WHEN current_setting('shared_preload_libraries') ~ '\mpg_grail\M' THEN
	collect_tap(
		is((SELECT count(*) FROM grail.activity WHERE graph = 'cs' AND command = 'chordless_cycles'), 1::bigint,
		   'grail.activity shows the open search'),
		is((SELECT (phase, unit, total) FROM grail.activity WHERE graph = 'cs' AND command = 'chordless_cycles')::text,
		   '("searching for cycles","start vertices",' || (SELECT count(*) FROM (SELECT s FROM cs_edges UNION SELECT t FROM cs_edges) v) || ')',
		   'its phase, unit and total: the graph''s vertices'),
		ok((SELECT done BETWEEN 0 AND total FROM grail.activity WHERE graph = 'cs' AND command = 'chordless_cycles'),
		   'start vertices done within the total'),
		is((SELECT pid FROM grail.activity WHERE graph = 'cs' AND command = 'chordless_cycles'), pg_backend_pid(),
		   'shown as this backend''s'))
ELSE skip('grail.activity shows progress only with pg_grail in shared_preload_libraries', 4) END;

-- A build in the same backend while the stream is open: its phases must not overwrite the
-- search's row (one slot per backend; the build shows nothing).
SELECT grail.create_graph('cs_other', 'cs_edges', 's', 't');
SELECT CASE WHEN current_setting('shared_preload_libraries') ~ '\mpg_grail\M' THEN
	is((SELECT (graph, command, phase, unit) FROM grail.activity WHERE pid = pg_backend_pid())::text,
	   '(cs,chordless_cycles,"searching for cycles","start vertices")',
	   'a build beside the open stream leaves the search''s row as it was')
ELSE skip('grail.activity shows progress only with pg_grail in shared_preload_libraries', 1) END;

-- The rest of the rows, then the stream ends and its slot is free.
DO $$
DECLARE
	r record;
	c refcursor := 'cs_cursor';
BEGIN
	LOOP
		FETCH c INTO r;
		EXIT WHEN NOT FOUND;
		INSERT INTO cs_fetched VALUES (r.c);
	END LOOP;
END
$$;
SELECT is((SELECT count(*) FROM cs_fetched), (SELECT count(*) FROM cs_all), 'every cycle fetched');
SELECT is((SELECT count(*) FROM (SELECT c FROM cs_fetched EXCEPT SELECT c FROM cs_all) x), 0::bigint,
          'and only the whole set''s');
CLOSE cs_cursor;
SELECT is((SELECT count(*) FROM grail.activity WHERE command = 'chordless_cycles'), 0::bigint,
          'closed: grail.activity shows no search');

-- LIMIT 1 on a graph whose cycles come late in the search still returns at once (a batch of one).
SELECT is((SELECT cardinality(grail.chordless_cycles('cs', min_length => 30)) LIMIT 1), 30,
          'LIMIT 1 with a length range: the one long cycle');
SELECT is((SELECT count(*) FROM grail.activity WHERE command = 'chordless_cycles'), 0::bigint,
          'after a LIMIT: no search shown');

SELECT * FROM finish();
ROLLBACK;
