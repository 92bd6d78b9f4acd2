-- Merges that find their delta in the rows they read (grail::diff_rows against the base build's
-- edges) instead of building the rows and diffing two builds: after every merge of random write
-- sequences (inserts and deletes that join and split cycles, self-loops, duplicate rows, all rows of
-- a vertex deleted, vertices new and gone, extreme ids), on bigint, text and uuid keys, every pair of
-- vertices (and a key no row names) answers reachable() as the closure of the rows, the components
-- are mutual reachability, and the graph is a delta build from the last full build while the change
-- is small, a full image past it. grail.graphs shows the build, its base, the delta's changes and
-- bytes. A change of the key columns' type between builds (the rows' keys of another kind than the
-- base's) stores a full image.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SET client_min_messages = warning;
SELECT plan(33);

-- Key i of a kind, as text: bigint (two extreme ids among them), text ('' among them, and a key
-- with a byte past ASCII), uuid (the largest among them).
CREATE FUNCTION pg_temp.key(i int, kind text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE kind
		WHEN 'bigint' THEN CASE i WHEN 0 THEN '-9223372036854775808' WHEN 1 THEN '9223372036854775807'
		                          ELSE (i::bigint * 7919 - 1000)::text END
		WHEN 'text' THEN CASE i WHEN 0 THEN '' WHEN 1 THEN 'é' ELSE 'v' || i END
		ELSE CASE i WHEN 0 THEN 'ffffffff-ffff-ffff-ffff-ffffffffffff'
		            ELSE '00000000-0000-0000-0000-' || lpad(to_hex(i::bigint * 40503), 12, '0') END
	END
$$;

-- Rows of answers of graph g that differ from the closure of the rows of tbl (keys of type kind):
-- reachable() for every pair of vertices and a key no row names, components against mutual
-- reachability, and every vertex of the rows in scc_components() and no other.
CREATE FUNCTION pg_temp.wrong(g text, tbl text, kind text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
	m bigint;
	unknown text := pg_temp.key(100000, kind);
BEGIN
	EXECUTE format($q$
		WITH RECURSIVE v(v) AS (SELECT source FROM %1$s UNION SELECT target FROM %1$s UNION SELECT %3$L::%4$s),
		r(a, b) AS (SELECT v, v FROM v UNION SELECT r.a, e.target FROM r JOIN %1$s e ON e.source = r.b)
		SELECT count(*) FROM v x CROSS JOIN v y LEFT JOIN r ON r.a = x.v AND r.b = y.v
		WHERE grail.reachable(%2$L, x.v, y.v) IS DISTINCT FROM (r.a IS NOT NULL)
	$q$, tbl, g, unknown, kind) INTO n;
	EXECUTE format($q$
		WITH RECURSIVE r(a, b) AS (SELECT source, source FROM %1$s UNION SELECT target, target FROM %1$s
		                           UNION SELECT r.a, e.target FROM r JOIN %1$s e ON e.source = r.b),
		mutual AS (SELECT f.a, f.b FROM r f JOIN r b ON b.a = f.b AND b.b = f.a),
		c AS (SELECT vertex, component FROM grail.scc_components(%2$L, NULL::%3$s)),
		together AS (SELECT x.vertex AS a, y.vertex AS b FROM c x JOIN c y ON x.component = y.component)
		SELECT count(*) FROM mutual m FULL JOIN together t ON m.a = t.a AND m.b = t.b WHERE m.a IS NULL OR t.a IS NULL
	$q$, tbl, g, kind) INTO m;
	n := n + m;
	EXECUTE format($q$
		SELECT count(*) FROM (SELECT source FROM %1$s UNION SELECT target FROM %1$s) v(v)
		FULL JOIN grail.scc_components(%2$L, NULL::%3$s) c ON c.vertex = v.v WHERE v.v IS NULL OR c.vertex IS NULL
	$q$, tbl, g, kind) INTO m;
	RETURN n + m;
END $$;

-- One write sequence on tbl: some rows deleted (one of two duplicates, or all rows of a vertex),
-- some inserted (new vertices, self-loops, duplicates, back edges that close cycles).
CREATE FUNCTION pg_temp.writes(tbl text, kind text, vertices int, big boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	a int;
	b int;
BEGIN
	IF random() < 0.3 THEN
		a := (random() * vertices)::int;
		EXECUTE format('DELETE FROM %s WHERE source = $1::%2$s OR target = $1::%2$s', tbl, kind)
			USING pg_temp.key(a, kind);
	END IF;
	EXECUTE format('DELETE FROM %s WHERE ctid IN (SELECT ctid FROM %1$s ORDER BY random() LIMIT %s)', tbl,
	               (random() * CASE WHEN big THEN 60 ELSE 3 END)::int);
	FOR i IN 1 .. (random() * CASE WHEN big THEN 80 ELSE 6 END)::int LOOP
		a := (random() * (vertices + 4))::int;
		b := CASE WHEN random() < 0.15 THEN a ELSE (random() * (vertices + 4))::int END;
		EXECUTE format('INSERT INTO %s VALUES ($1::%2$s, $2::%2$s)', tbl, kind)
			USING pg_temp.key(a, kind), pg_temp.key(b, kind);
		IF random() < 0.1 THEN
			EXECUTE format('INSERT INTO %s VALUES ($1::%2$s, $2::%2$s)', tbl, kind)
				USING pg_temp.key(a, kind), pg_temp.key(b, kind);
		END IF;
	END LOOP;
END $$;

-- rounds merges of random write sequences on a new graph of kind: the wrong answers in all, the
-- merges stored as deltas, and those stored as full images.
CREATE FUNCTION pg_temp.rounds(kind text, rounds int, OUT wrong bigint, OUT deltas int, OUT fulls int,
                               OUT wrong_base int) LANGUAGE plpgsql AS $$
DECLARE
	tbl text := 'mr_' || kind;
	full_build bigint;
	r record;
BEGIN
	wrong := 0; deltas := 0; fulls := 0; wrong_base := 0;
	EXECUTE format('CREATE TABLE %s (source %s, target %2$s)', tbl, kind);
	FOR i IN 1 .. 70 LOOP
		EXECUTE format('INSERT INTO %s VALUES ($1::%2$s, $2::%2$s)', tbl, kind)
			USING pg_temp.key((random() * 30)::int, kind), pg_temp.key((random() * 30)::int, kind);
	END LOOP;
	PERFORM grail.create_graph(tbl, tbl::regclass);
	SELECT build INTO full_build FROM grail.graph WHERE name = tbl;
	FOR i IN 1 .. rounds LOOP
		PERFORM pg_temp.writes(tbl, kind, 30 + i, i % 4 = 0);
		PERFORM grail.merge_graph(tbl);
		SELECT build, base_build INTO r FROM grail.graph WHERE name = tbl;
		IF r.base_build IS NULL THEN
			fulls := fulls + 1;
			full_build := r.build;
		ELSE
			deltas := deltas + 1;
			-- always from the last full build: deltas never chain
			IF r.base_build <> full_build THEN
				wrong_base := wrong_base + 1;
			END IF;
		END IF;
		wrong := wrong + pg_temp.wrong(tbl, tbl, kind);
	END LOOP;
END $$;

SELECT setseed(0.28);
SELECT * INTO TEMP mr_bigint_result FROM pg_temp.rounds('bigint', 10);
SELECT is(wrong, 0::bigint, 'bigint keys: every answer after 10 merges of random writes is the rows'' closure') FROM mr_bigint_result;
SELECT ok(deltas >= 5, 'bigint keys: most merges stored as deltas (' || deltas || ')') FROM mr_bigint_result;
SELECT ok(fulls >= 1, 'bigint keys: a large change stored as a full image (' || fulls || ')') FROM mr_bigint_result;
SELECT is(wrong_base, 0, 'bigint keys: every delta from the last full build') FROM mr_bigint_result;

SELECT * INTO TEMP mr_text_result FROM pg_temp.rounds('text', 8);
SELECT is(wrong, 0::bigint, 'text keys: every answer after 8 merges of random writes is the rows'' closure') FROM mr_text_result;
SELECT ok(deltas >= 4, 'text keys: most merges stored as deltas (' || deltas || ')') FROM mr_text_result;
SELECT is(wrong_base, 0, 'text keys: every delta from the last full build') FROM mr_text_result;

SELECT * INTO TEMP mr_uuid_result FROM pg_temp.rounds('uuid', 8);
SELECT is(wrong, 0::bigint, 'uuid keys: every answer after 8 merges of random writes is the rows'' closure') FROM mr_uuid_result;
SELECT ok(deltas >= 4, 'uuid keys: most merges stored as deltas (' || deltas || ')') FROM mr_uuid_result;
SELECT is(wrong_base, 0, 'uuid keys: every delta from the last full build') FROM mr_uuid_result;

-- grail.graphs: the build, its base and its delta.
CREATE TABLE mr_v (source bigint, target bigint);
INSERT INTO mr_v SELECT i, i + 1 FROM generate_series(1, 40) i;
SELECT grail.create_graph('mr_vg', 'mr_v') IS NOT NULL AS made \gset
SELECT is((SELECT (base_build, delta_changes, delta_bytes) IS NULL AND build > 0 FROM grail.graphs WHERE name = 'mr_vg'),
          true, 'grail.graphs: a full build has a build number and no base or delta');
SELECT build AS mr_b0 FROM grail.graphs WHERE name = 'mr_vg' \gset
INSERT INTO mr_v VALUES (40, 1), (7, 7), (200, 201);
DELETE FROM mr_v WHERE source = 20;
SELECT lives_ok($$SELECT grail.merge_graph('mr_vg')$$, 'a merge of a few changes');
SELECT is((SELECT base_build FROM grail.graphs WHERE name = 'mr_vg'), :mr_b0::bigint, 'grail.graphs: base_build');
-- (40, 1) new; (20, 21) gone; 200 and 201 new, (200, 201) new; (7, 7) only a vertex that was there
SELECT is((SELECT delta_changes FROM grail.graphs WHERE name = 'mr_vg'), 5::bigint, 'grail.graphs: delta_changes counts edges and vertices');
SELECT ok((SELECT delta_bytes > 0 AND delta_bytes < index_bytes / 4 FROM grail.graphs WHERE name = 'mr_vg'),
          'grail.graphs: delta_bytes, a small share of the image');
SELECT is((SELECT build FROM grail.graphs WHERE name = 'mr_vg'), (SELECT build FROM grail.graph WHERE name = 'mr_vg'),
          'grail.graphs: build is the catalog''s');
SELECT is(pg_temp.wrong('mr_vg', 'mr_v', 'bigint'), 0::bigint, 'answers after it');
-- Nothing pending: the same delta again, from the same base (deltas never chain).
SELECT lives_ok($$SELECT grail.merge_graph('mr_vg')$$, 'a merge of nothing pending');
SELECT is((SELECT base_build || '/' || delta_changes FROM grail.graphs WHERE name = 'mr_vg'), :mr_b0 || '/5',
          'a merge of nothing pending: the same changes from the same base');
SELECT is(pg_temp.wrong('mr_vg', 'mr_v', 'bigint'), 0::bigint, 'answers after it');
SELECT lives_ok($$SELECT grail.refresh_graph('mr_vg')$$, 'refresh_graph');
SELECT is((SELECT (base_build, delta_changes, delta_bytes) IS NULL FROM grail.graphs WHERE name = 'mr_vg'), true,
          'grail.graphs: no base or delta after refresh_graph');

-- Every row deleted: a delta to the empty graph; then rows again.
DELETE FROM mr_v;
SELECT lives_ok($$SELECT grail.merge_graph('mr_vg')$$, 'a merge to the empty graph');
SELECT is(pg_temp.wrong('mr_vg', 'mr_v', 'bigint'), 0::bigint, 'the empty graph answers');
INSERT INTO mr_v VALUES (1, 2), (2, 1);
SELECT lives_ok($$SELECT grail.merge_graph('mr_vg')$$, 'a merge from the empty graph');
SELECT is(pg_temp.wrong('mr_vg', 'mr_v', 'bigint'), 0::bigint, 'answers');

-- The key columns' type changed between builds (the graph goes stale): merge_graph rebuilds it as a
-- full image over text keys.
CREATE TABLE mr_k (source bigint, target bigint);
INSERT INTO mr_k SELECT i, i + 1 FROM generate_series(1, 30) i;
SELECT grail.create_graph('mr_kg', 'mr_k') IS NOT NULL AS made \gset
ALTER TABLE mr_k ALTER COLUMN source TYPE text, ALTER COLUMN target TYPE text;
INSERT INTO mr_k VALUES ('31', '1');
SELECT lives_ok($$SELECT grail.merge_graph('mr_kg')$$, 'merge after the key columns became text');
SELECT is((SELECT base_build FROM grail.graphs WHERE name = 'mr_kg'), NULL::bigint, 'a full image: keys of another kind');
SELECT is(pg_temp.wrong('mr_kg', 'mr_k', 'text'), 0::bigint, 'text keys answer');
INSERT INTO mr_k VALUES ('5', '5');
DELETE FROM mr_k WHERE source = '10';
SELECT lives_ok($$SELECT grail.merge_graph('mr_kg')$$, 'then a merge of a few changes');
SELECT ok((SELECT base_build IS NOT NULL FROM grail.graphs WHERE name = 'mr_kg'), 'a delta from the text build');
SELECT is(pg_temp.wrong('mr_kg', 'mr_k', 'text'), 0::bigint, 'answers');

-- NULL and unknown graph names.
SELECT is(grail.merge_graph(NULL), NULL, 'merge_graph(NULL) is NULL');

SELECT * FROM finish();
ROLLBACK;
