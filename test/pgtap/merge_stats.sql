-- Merges you can watch: grail.graphs' last_merge, merge_count, last_background_merge and
-- background_merge_count move with each grail.merge_graph() (and nothing else: create, refresh,
-- a merge rolled back, a merge that fails), per graph, as the build's own catalog write; the
-- columns follow the view's privilege rules; grail.log_merge_min_duration's definition and who may
-- set it. Background merges, the log line, a restart and grail.activity's progress are in
-- test/t/020_merge_watch.pl (they need pg_grail preloaded and a second session).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(37);
SET client_min_messages = warning;

CREATE TABLE ms_e (source bigint, target bigint);
INSERT INTO ms_e VALUES (1, 2), (2, 3), (3, 1), (-9223372036854775808, 9223372036854775807), (5, 5), (5, 5);
CREATE TABLE ms_other (source text, target text);
INSERT INTO ms_other VALUES ('a', 'b');
SELECT grail.create_graph('ms_g', 'ms_e', live => true) IS NOT NULL;
SELECT grail.create_graph('ms_h', 'ms_other', live => true) IS NOT NULL;

CREATE FUNCTION ms_stats(g text) RETURNS TABLE (last_merge timestamptz, merge_count bigint,
                                              last_background_merge timestamptz, background_merge_count bigint)
LANGUAGE sql AS $$
	SELECT last_merge, merge_count, last_background_merge, background_merge_count FROM grail.graphs WHERE name = g
$$;

-- 1. A new graph: never merged.
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 0::bigint, 'a new graph: merge_count 0');
SELECT is((SELECT background_merge_count FROM ms_stats('ms_g')), 0::bigint, 'a new graph: background_merge_count 0');
SELECT ok((SELECT last_merge IS NULL FROM ms_stats('ms_g')), 'a new graph: last_merge NULL');
SELECT ok((SELECT last_background_merge IS NULL FROM ms_stats('ms_g')), 'a new graph: last_background_merge NULL');
SELECT is((SELECT array_agg(column_name::text ORDER BY ordinal_position) FROM information_schema.columns
           WHERE table_schema = 'grail' AND table_name = 'graphs'
             AND ordinal_position > (SELECT ordinal_position FROM information_schema.columns
                                     WHERE table_schema = 'grail' AND table_name = 'graphs' AND column_name = 'pending_changes')),
          ARRAY['last_merge', 'merge_count', 'last_background_merge', 'background_merge_count', 'filter', 'build',
                'base_build', 'delta_changes', 'delta_bytes'],
          'the view has the merge columns after pending_changes (then the filter and the build, base and delta, added after them)');

-- 2. A merge by hand counts once, with its time; the background columns stay.
INSERT INTO ms_e VALUES (3, 4), (4, 5);
DELETE FROM ms_e WHERE source = 5;
CREATE TEMP TABLE ms_clock AS SELECT clock_timestamp() AS before;
SELECT grail.merge_graph('ms_g') IS NOT NULL;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 1::bigint, 'merge_graph(): merge_count 1');
SELECT ok((SELECT last_merge BETWEEN (SELECT before FROM ms_clock) AND clock_timestamp() FROM ms_stats('ms_g')),
          'merge_graph(): last_merge is when it ran (not the transaction''s start)');
SELECT is((SELECT background_merge_count FROM ms_stats('ms_g')), 0::bigint, 'merge_graph(): background_merge_count stays 0');
SELECT ok((SELECT last_background_merge IS NULL FROM ms_stats('ms_g')), 'merge_graph(): last_background_merge stays NULL');
SELECT is((SELECT pending_changes FROM grail.graphs WHERE name = 'ms_g'), 0::bigint, 'the merge folded the pending changes');
SELECT is(grail.reachable('ms_g', 1, 4), true, 'the merged graph answers with the new rows');
SELECT is((SELECT merge_count FROM ms_stats('ms_h')), 0::bigint, 'another graph''s count does not move');

-- 3. A second merge, even with nothing pending, counts again; its time moves forward.
UPDATE ms_clock SET before = (SELECT last_merge FROM ms_stats('ms_g'));
SELECT grail.merge_graph('ms_g') IS NOT NULL;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 2::bigint, 'a second merge_graph(): merge_count 2');
SELECT ok((SELECT last_merge > (SELECT before FROM ms_clock) FROM ms_stats('ms_g')), 'a second merge_graph(): last_merge moves forward');

-- 4. Builds that are not merges leave the counts: refresh_graph(), alter_graph(), a rebuild.
UPDATE ms_clock SET before = (SELECT last_merge FROM ms_stats('ms_g'));
INSERT INTO ms_e VALUES (7, 8);
SELECT grail.refresh_graph('ms_g') IS NOT NULL;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 2::bigint, 'refresh_graph() is no merge: merge_count stays');
SELECT is((SELECT last_merge FROM ms_stats('ms_g')), (SELECT before FROM ms_clock), 'refresh_graph(): last_merge stays');
SELECT grail.alter_graph('ms_g', false);
SELECT grail.alter_graph('ms_g', true);
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 2::bigint, 'alter_graph(): merge_count stays');

-- 5. A merge rolled back (a savepoint) counts nothing: the count is the build's own catalog write.
SAVEPOINT before_merge;
INSERT INTO ms_e VALUES (8, 9);
SELECT grail.merge_graph('ms_g') IS NOT NULL;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 3::bigint, 'inside the savepoint: merge_count 3');
ROLLBACK TO SAVEPOINT before_merge;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 2::bigint, 'the merge rolled back: merge_count back to 2');
SELECT is((SELECT last_merge FROM ms_stats('ms_g')), (SELECT before FROM ms_clock), 'the merge rolled back: last_merge back');

-- 6. A merge that fails (a NULL endpoint in a graph without skip_nulls) counts nothing.
SAVEPOINT before_null;
INSERT INTO ms_e VALUES (NULL, 1);
SELECT throws_ok($$SELECT grail.merge_graph('ms_g')$$, '23502', NULL, 'a merge over a NULL endpoint fails');
ROLLBACK TO SAVEPOINT before_null;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 2::bigint, 'a failed merge: merge_count stays');

-- 7. A merge of a graph that is not live still is a merge by hand.
SELECT grail.alter_graph('ms_h', false);
SELECT grail.merge_graph('ms_h') IS NOT NULL;
SELECT is((SELECT merge_count FROM ms_stats('ms_h')), 1::bigint, 'merge_graph() of a graph that is not live counts');

-- 8. Errors leave the counts: an unknown graph, NULL, a non-owner.
SELECT throws_ok($$SELECT grail.merge_graph('ms_nope')$$, '42704', NULL, 'merge_graph() of an unknown graph: an error');
SELECT ok(grail.merge_graph(NULL) IS NULL, 'merge_graph(NULL) is NULL (strict)');
CREATE ROLE ms_reader;
GRANT USAGE ON SCHEMA public TO ms_reader;
SET ROLE ms_reader;
SELECT throws_ok($$SELECT grail.merge_graph('ms_g')$$, '42501', NULL, 'merge_graph() by a non-owner: an error');
-- A role that may not read the edge columns does not see the graph, nor its merges.
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'ms_g'), 0::bigint, 'no SELECT on the edge table: the row is hidden');
RESET ROLE;
GRANT SELECT ON ms_e TO ms_reader;
SET ROLE ms_reader;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 2::bigint, 'with SELECT: the counts are seen');
RESET ROLE;
SELECT is((SELECT merge_count FROM grail.graph WHERE name = 'ms_g'), 2::bigint, 'the catalog row holds the count');

-- 9. Dropped and re-created under the same name: a new graph, counted from 0.
SELECT grail.drop_graph('ms_g');
SELECT grail.create_graph('ms_g', 'ms_e', live => true) IS NOT NULL;
SELECT is((SELECT merge_count FROM ms_stats('ms_g')), 0::bigint, 'a graph re-created under the name starts from 0');

-- 10. grail.log_merge_min_duration: defined like log_autovacuum_min_duration, set by superusers.
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'grail.log_merge_min_duration'), '600000', 'default: 10min');
SELECT is((SELECT unit FROM pg_settings WHERE name = 'grail.log_merge_min_duration'), 'ms', 'unit: ms');
SELECT is((SELECT min_val FROM pg_settings WHERE name = 'grail.log_merge_min_duration'), '-1', 'minimum -1 (off)');
SELECT is((SELECT context FROM pg_settings WHERE name = 'grail.log_merge_min_duration'), 'superuser', 'context: superuser');
SET grail.log_merge_min_duration = '2s';
SELECT is(current_setting('grail.log_merge_min_duration'), '2s', 'a superuser may set it');
SELECT throws_ok($$SET grail.log_merge_min_duration = -2$$, '22023', NULL, 'below -1: refused');
SET ROLE ms_reader;
SELECT throws_ok($$SET grail.log_merge_min_duration = 0$$, '42501', NULL, 'another role may not set it');
RESET ROLE;

SELECT * FROM finish();
ROLLBACK;
