-- grail.explain_graph(): which build, image, overlay and device answer a graph's functions in the
-- statement's snapshot. Checked against the catalog (build number, uuid, built_at), against
-- counts made in SQL from the rows a build read and the rows the snapshot sees (the overlay's
-- inserted and deleted edges, the pending changes), and against what the functions do (a device
-- of 'none' under grail.device = gpu is an error of bfs() too; answers equal the rows' answers).
-- Static, live (inserts, deletes, duplicates, self-loops, a TRUNCATE, a statement whose writes
-- are not logged yet), text and uuid keys, extreme ids, the empty graph, errors, privileges.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(57);
SELECT setseed(0.2711);

SELECT function_returns('grail', 'explain_graph', ARRAY['text'], 'setof record');
SELECT is_strict('grail', 'explain_graph', ARRAY['text']);
SELECT volatility_is('grail', 'explain_graph', ARRAY['text'], 'volatile');
SELECT isnt(obj_description('grail.explain_graph(text)'::regprocedure, 'pg_proc'), NULL, 'explain_graph has a comment');

-- A graph that is not live, with extreme ids, a cycle, a duplicate and a self-loop.
CREATE TABLE eg_static (source bigint, target bigint);
INSERT INTO eg_static VALUES (-9223372036854775808, 9223372036854775807), (9223372036854775807, 1), (1, -9223372036854775808),
                             (1, 2), (1, 2), (2, 2), (2, 3);
SELECT lives_ok($$SELECT grail.create_graph('eg_static', 'eg_static', live => false)$$, 'static graph built');
SET LOCAL grail.device = cpu;
SELECT results_eq($$SELECT function FROM grail.explain_graph('eg_static')$$,
                  ARRAY['reachable(graph, a, b)', 'reachable(graph, a[], b[])', 'bfs, descendants, ancestors',
                        'bfs(..., direction => ''both'')', 'path, find_cycle', 'scc_components, scc_component',
                        'chordless_cycles, chordless_cycle_counts'], 'one row per group of functions');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_static') e, grail.graph g
           WHERE g.name = 'eg_static' AND e.build = g.build AND e.build_uuid = g.build_uuid AND e.built_at = g.built_at
             AND e.answers_from = 'build' AND e.image_format = 8 AND e.pending_changes IS NULL
             AND e.overlay_inserted IS NULL AND e.overlay_deleted IS NULL),
          7::bigint, 'a static graph: every function answers from its last build, as the catalog names it');
SELECT is((SELECT array_agg(DISTINCT image) FROM grail.explain_graph('eg_static')),
          ARRAY[CASE WHEN (SELECT mode FROM grail.cache_counters()) = 'shared' THEN 'shared cache' ELSE 'private copy' END],
          'the image is where the cache settings put it');
SELECT is((SELECT array_agg(DISTINCT device || ': ' || device_detail) FROM grail.explain_graph('eg_static')
           WHERE function NOT IN ('reachable(graph, a, b)', 'bfs(..., direction => ''both'')', 'path, find_cycle',
                                  'scc_components, scc_component')),
          ARRAY['cpu: grail.device = cpu'], 'grail.device = cpu: every function on the cpu');
SET LOCAL grail.device = auto;
SELECT is((SELECT device_detail FROM grail.explain_graph('eg_static') WHERE function = 'bfs, descendants, ancestors'),
          'grail.device = auto: 5 edges, fewer than grail.gpu_min_edges (2000000)',
          'auto: a small graph on the cpu, and why (self-loop and duplicate not counted)');
SET LOCAL grail.gpu_min_edges = 0;
SELECT is((SELECT device_detail FROM grail.explain_graph('eg_static') WHERE function = 'bfs, descendants, ancestors'),
          'grail.device = auto: an average out-degree below 2 (the CPU wins on thin graphs)',
          'auto: a thin graph on the cpu, and why');
RESET grail.gpu_min_edges;

-- Under gpu, the device it names is the one bfs() uses: 'none' exactly when bfs() fails for want of a GPU.
SET LOCAL grail.device = gpu;
CREATE FUNCTION pg_temp.bfs_fails(g text) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	PERFORM count(*) FROM grail.bfs(g, 1::bigint);
	RETURN false;
EXCEPTION WHEN OTHERS THEN
	RETURN true;
END $$;
SELECT is((SELECT device = 'none' FROM grail.explain_graph('eg_static') WHERE function = 'bfs, descendants, ancestors'),
          pg_temp.bfs_fails('eg_static'), 'grail.device = gpu: device none exactly when bfs() cannot run');
SELECT ok((SELECT bool_and(device IN ('none', 'gpu service', 'gpu in this backend')) FROM grail.explain_graph('eg_static')
           WHERE function IN ('bfs, descendants, ancestors', 'chordless_cycles, chordless_cycle_counts')),
          'grail.device = gpu: the traversals name a GPU or none');
SELECT is((SELECT device FROM grail.explain_graph('eg_static') WHERE function = 'chordless_cycles, chordless_cycle_counts'),
          (SELECT device FROM grail.explain_graph('eg_static') WHERE function = 'bfs, descendants, ancestors'),
          'chordless cycles go where bfs goes (the GPU service where it runs)');
SET LOCAL grail.device = cpu;
-- A graph with pending changes is answered from a rebuild of the rows the snapshot sees, made on
-- the device the setting picks: under gpu without a usable GPU every function fails for want of
-- one, and explain_graph(), which makes what they would, fails as they do: exactly when bfs()
-- does, with bfs()'s SQLSTATE and message (the hint to SET grail.device = auto), not another.
CREATE TABLE eg_pending (source bigint, target bigint);
INSERT INTO eg_pending VALUES (1, 2), (2, 3);
SELECT grail.create_graph('eg_pending', 'eg_pending');
INSERT INTO eg_pending VALUES (3, 1);
CREATE FUNCTION pg_temp.error_of(sql text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SET LOCAL grail.device = gpu;
SELECT is(pg_temp.error_of($$SELECT count(*) FROM grail.explain_graph('eg_pending')$$),
          pg_temp.error_of($$SELECT count(*) FROM grail.bfs('eg_pending', 1)$$),
          'grail.device = gpu, pending changes: explain_graph() fails exactly when bfs() does, with its error');
SET LOCAL grail.device = cpu;

-- A live graph: the oracle counts the overlay's edges from the rows the build read and the rows now.
CREATE TABLE eg_live (source bigint, target bigint);
INSERT INTO eg_live SELECT (random() * 30)::int, (random() * 30)::int FROM generate_series(1, 60);
-- A chain outside the random part, with a duplicated edge: deletes there split no component.
INSERT INTO eg_live VALUES (200, 201), (201, 202), (201, 202), (202, 203);
SELECT lives_ok($$SELECT grail.create_graph('eg_live', 'eg_live')$$, 'live graph built');
CREATE TEMP TABLE eg_built AS SELECT DISTINCT source, target FROM eg_live WHERE source <> target;
CREATE FUNCTION pg_temp.overlay_oracle(OUT inserted bigint, OUT deleted bigint) LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM (SELECT DISTINCT source, target FROM eg_live WHERE source <> target
	                              EXCEPT SELECT source, target FROM eg_built) i),
	       (SELECT count(*) FROM (SELECT source, target FROM eg_built
	                              EXCEPT SELECT source, target FROM eg_live) d)
$$;
SELECT is((SELECT array_agg(DISTINCT answers_from) FROM grail.explain_graph('eg_live')), ARRAY['build'],
          'a live graph without pending changes: the build');
SELECT is((SELECT pending_changes FROM grail.explain_graph('eg_live') LIMIT 1), 0::bigint, 'no pending changes');

-- Inserts: new edges, a duplicate of an edge the build has, a self-loop (edges of no overlay).
INSERT INTO eg_live VALUES (100, 101), (101, 102), (100, 101), (102, 102);
INSERT INTO eg_live SELECT source, target FROM eg_built LIMIT 1;
SELECT is((SELECT answers_from FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a, b)'),
          'build and overlay', 'inserts: reachable() answers from the build and the overlay');
SELECT is((SELECT (overlay_inserted, overlay_deleted) FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a, b)'),
          (SELECT (inserted, deleted) FROM pg_temp.overlay_oracle()), 'inserts: the overlay''s edges equal the rows''');
SELECT is((SELECT pending_changes FROM grail.explain_graph('eg_live') LIMIT 1),
          (SELECT pending_changes FROM grail.graphs WHERE name = 'eg_live'), 'pending changes as grail.graphs counts them');
SELECT is((SELECT pending_changes FROM grail.explain_graph('eg_live') LIMIT 1), 5::bigint, 'five edge rows pending');
SELECT is((SELECT (answers_from, image, image_format) FROM grail.explain_graph('eg_live') WHERE function = 'path, find_cycle'),
          ('snapshot rebuild'::text, 'memory of this backend'::text, NULL::int),
          'the other functions answer from the snapshot''s rebuild, in this backend''s memory');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_live') e JOIN grail.graph g ON g.name = 'eg_live'
           WHERE e.build = g.build AND e.build_uuid = g.build_uuid),
          7::bigint, 'every row names the build the changes are pending over');
SELECT is((SELECT device_detail FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a[], b[])'),
          'the overlay of the pending changes answers every pair on the CPU', 'a batch over an overlay runs on the cpu');
-- The answers are those of the rows the snapshot sees.
SELECT ok(grail.reachable('eg_live', 100, 102), 'the overlay''s edges answer');
SELECT is(grail.path('eg_live', 100, 102), ARRAY[100, 101, 102]::bigint[], 'the rebuild''s edges answer');

-- Deletes, of an edge with one row and of one row of a duplicated edge.
DELETE FROM eg_live WHERE source = 202;
DELETE FROM eg_live WHERE ctid = (SELECT min(ctid) FROM eg_live WHERE source = 201);
SELECT is((SELECT (overlay_inserted, overlay_deleted) FROM grail.explain_graph('eg_live')
           WHERE function = 'reachable(graph, a, b)' AND answers_from = 'build and overlay'),
          (SELECT (inserted, deleted) FROM pg_temp.overlay_oracle()),
          'inserts and deletes: the overlay''s edges equal the rows''');
SELECT is((SELECT overlay_deleted FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a, b)'),
          1::bigint, 'one edge deleted (one row of the duplicate deletes no edge)');

-- Random rounds: the overlay (where it takes the changes) counts what the rows say.
CREATE FUNCTION pg_temp.rounds(n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	wrong bigint := 0;
	e record;
	o record;
BEGIN
	FOR i IN 1..n LOOP
		INSERT INTO eg_live SELECT (random() * 40)::int, (random() * 40)::int FROM generate_series(1, (random() * 4)::int);
		DELETE FROM eg_live WHERE ctid IN (SELECT ctid FROM eg_live ORDER BY random() LIMIT (random() * 3)::int);
		SELECT * INTO e FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a, b)';
		SELECT * INTO o FROM pg_temp.overlay_oracle();
		IF e.answers_from = 'build and overlay' AND (e.overlay_inserted, e.overlay_deleted) IS DISTINCT FROM (o.inserted, o.deleted) THEN
			wrong := wrong + 1;
		ELSIF e.answers_from NOT IN ('build and overlay', 'snapshot rebuild') THEN
			wrong := wrong + 1;
		ELSIF e.answers_from = 'snapshot rebuild' AND (e.overlay_inserted IS NOT NULL OR e.image_format IS NOT NULL) THEN
			wrong := wrong + 1;
		END IF;
	END LOOP;
	RETURN wrong;
END $$;
SELECT is(pg_temp.rounds(15), 0::bigint, 'random rounds of inserts and deletes: the overlay''s counts are the rows''');

-- A TRUNCATE: the overlay declines, everything answers from a rebuild.
TRUNCATE eg_live;
INSERT INTO eg_live VALUES (1, 2);
SELECT is((SELECT array_agg(DISTINCT answers_from) FROM grail.explain_graph('eg_live')), ARRAY['snapshot rebuild'],
          'after a TRUNCATE every function answers from a rebuild');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_live') WHERE overlay_inserted IS NOT NULL), 0::bigint,
          'no overlay counts without an overlay');
-- A merge folds the changes into a new build.
SELECT lives_ok($$SELECT grail.merge_graph('eg_live')$$, 'merged');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_live') e JOIN grail.graph g ON g.name = 'eg_live'
           WHERE e.answers_from = 'build' AND e.build = g.build AND e.pending_changes = 0 AND e.image_format = 8),
          7::bigint, 'after a merge: the new build, nothing pending');

-- A statement whose own writes are not logged yet: the rows are read.
CREATE TEMP TABLE eg_seen (answers_from text);
CREATE FUNCTION pg_temp.eg_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO eg_seen SELECT answers_from FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a, b)';
	RETURN NULL;
END $$;
CREATE TRIGGER eg_seen AFTER INSERT ON eg_live FOR EACH ROW EXECUTE FUNCTION pg_temp.eg_seen();
INSERT INTO eg_live VALUES (7, 8);
SELECT is((SELECT array_agg(answers_from) FROM eg_seen), ARRAY['rows read'],
          'inside the writing statement (its changes not logged yet): the rows are read');
DROP TRIGGER eg_seen ON eg_live;
SELECT is((SELECT answers_from FROM grail.explain_graph('eg_live') WHERE function = 'reachable(graph, a, b)'),
          'build and overlay', 'after it: the overlay');

-- Text and uuid keys, the empty graph.
CREATE TABLE eg_text (source text, target text);
INSERT INTO eg_text VALUES ('a', 'b'), ('b', 'a'), ('', 'é');
SELECT lives_ok($$SELECT grail.create_graph('eg_text', 'eg_text')$$, 'text graph built');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_text') WHERE answers_from = 'build'), 7::bigint, 'text keys');
INSERT INTO eg_text VALUES ('z', 'a');
SELECT is((SELECT (answers_from, overlay_inserted, overlay_deleted) FROM grail.explain_graph('eg_text')
           WHERE function = 'reachable(graph, a, b)'),
          ('build and overlay'::text, 1::bigint, 0::bigint), 'text keys: an inserted edge with a new key');
CREATE TABLE eg_uuid (source uuid, target uuid);
INSERT INTO eg_uuid VALUES ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002');
SELECT lives_ok($$SELECT grail.create_graph('eg_uuid', 'eg_uuid')$$, 'uuid graph built');
DELETE FROM eg_uuid;
SELECT is((SELECT (answers_from, overlay_inserted, overlay_deleted) FROM grail.explain_graph('eg_uuid')
           WHERE function = 'reachable(graph, a, b)'),
          ('build and overlay'::text, 0::bigint, 1::bigint), 'uuid keys: a deleted edge');
CREATE TABLE eg_empty (source bigint, target bigint);
SELECT lives_ok($$SELECT grail.create_graph('eg_empty', 'eg_empty')$$, 'empty graph built');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_empty') WHERE answers_from = 'build' AND image_format = 8),
          7::bigint, 'the empty graph');

-- NULL, unknown names, a name of a table, a dropped graph, no privileges.
SELECT is((SELECT count(*) FROM grail.explain_graph(NULL)), 0::bigint, 'NULL: no rows');
SELECT throws_ok($$SELECT * FROM grail.explain_graph('eg_nothing')$$, '42704', NULL, 'an unknown graph');
SELECT throws_ok($$SELECT * FROM grail.explain_graph('')$$, NULL, NULL, 'an empty name');
SELECT throws_ok($$SELECT * FROM grail.explain_graph('a.b.c.d')$$, NULL, NULL, 'a malformed name');
CREATE TABLE eg_drop (source bigint, target bigint);
INSERT INTO eg_drop VALUES (1, 2);
SELECT lives_ok($$SELECT grail.create_graph('eg_drop', 'eg_drop')$$, 'graph to drop built');
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_drop')), 7::bigint, 'before the drop');
SELECT lives_ok($$SELECT grail.drop_graph('eg_drop')$$, 'dropped');
SELECT throws_ok($$SELECT * FROM grail.explain_graph('eg_drop')$$, '42704', NULL, 'a dropped graph');
CREATE ROLE eg_nobody;
GRANT USAGE ON SCHEMA public TO eg_nobody;
SET LOCAL ROLE eg_nobody;
SELECT throws_ok($$SELECT * FROM grail.explain_graph('eg_static')$$, '42501', NULL,
                 'no privilege on the edge table: refused as the functions refuse');
RESET ROLE;
GRANT SELECT ON eg_static TO eg_nobody;
SET LOCAL ROLE eg_nobody;
SELECT is((SELECT count(*) FROM grail.explain_graph('eg_static')), 7::bigint, 'with SELECT on the edge table');
RESET ROLE;
-- A stale graph: refused as the functions refuse it.
INSERT INTO eg_static VALUES (5, 6);
SELECT throws_ok($$SELECT * FROM grail.explain_graph('eg_static')$$, '55000', NULL, 'a stale graph');
SELECT throws_ok($$SELECT grail.reachable('eg_static', 1, 2)$$, '55000', NULL, 'as reachable() refuses it');
-- Inside another function's statement, with the snapshot of each call (plpgsql).
CREATE FUNCTION pg_temp.eg_twice() RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	r text[];
BEGIN
	r := ARRAY[(SELECT answers_from FROM grail.explain_graph('eg_uuid') WHERE function = 'reachable(graph, a, b)')];
	INSERT INTO eg_uuid VALUES ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000002');
	r := r || (SELECT answers_from FROM grail.explain_graph('eg_uuid') WHERE function = 'reachable(graph, a, b)');
	RETURN r;
END $$;
SELECT is(pg_temp.eg_twice(), ARRAY['build and overlay', 'build and overlay'], 'each statement''s own snapshot');
SELECT is((SELECT (overlay_inserted, overlay_deleted) FROM grail.explain_graph('eg_uuid') WHERE function = 'reachable(graph, a, b)'),
          (0::bigint, 0::bigint), 'a delete and its re-insert net to nothing');

SELECT * FROM finish();
ROLLBACK;
