-- Live graphs keyed by text, varchar, uuid, integer and smallint columns: random rounds
-- of writes with merges, every function against test/pgtap/live_oracle.psql's oracle (keys compared
-- byte for byte, "smallest" in byte order). Text keys include the empty string, keys that differ
-- only in case, in Unicode normalization (NFC 'é' against NFD 'e' + U+0301) or in spacing, and a
-- column with a nondeterministic (case-insensitive) ICU collation, under which SQL calls 'a' and
-- 'A' equal while pg_grail keeps them two vertices, as documented (skipped without ICU).
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(766);
\ir live_oracle.psql
SET client_min_messages = warning;
SELECT setseed(0.3183);

-- Text keys.
CREATE TABLE lt_pool (k text);
INSERT INTO lt_pool VALUES (''), ('a'), ('A'), ('b'), ('B'), ('é'), (U&'e\0301'), ('e'), ('a b'), (' a'), ('a '), ('ab'), ('Z'),
       ('zz'), ('pkg-1'), ('pkg-10'), (repeat('x', 300)), ('it''s'), ('back\slash'), ('日本');
CREATE TABLE lt (source text, target text);
INSERT INTO lt SELECT (SELECT k FROM lt_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM lt_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 24) i;
INSERT INTO lt VALUES ('a', 'A'), ('A', 'a'), ('', ''), ('', 'é'), ('é', U&'e\0301'), (U&'e\0301', ''), ('e', 'é'), ('e', 'é');
SELECT grail.create_graph('ltg', 'lt');
SELECT grail.alter_graph('ltg', true);
SELECT pg_temp.live_base('ltg', 'lt');
-- 16 rounds, a merge every 4: 16 * 13 + 4 * 2 = 216.
SELECT * FROM pg_temp.live_rounds('ltg', 'lt', 'text', 'absent key', 'lt_pool', ARRAY['lt']::regclass[],
                                  ARRAY['insert', 'insert_select', 'dup', 'delete', 'update', 'noop_update', 'swap', 'truncate',
                                        'join_scc', 'split_scc', 'cte', 'merge'], 16, 4);
-- Explicit: case, normalization, the empty string, COPY.
DELETE FROM lt WHERE source IN ('a', 'A', '', 'é', U&'e\0301') OR target IN ('a', 'A', '', 'é', U&'e\0301');
INSERT INTO lt VALUES ('a', 'A'), ('A', 'a'), ('é', U&'e\0301');
SELECT is(ARRAY[grail.scc_component('ltg', 'a'), grail.scc_component('ltg', 'A')], ARRAY['A', 'A'],
          'keys that differ only in case: two vertices, one component, named by the smaller in byte order');
SELECT is(ARRAY[grail.reachable('ltg', 'é', U&'e\0301'), grail.reachable('ltg', U&'e\0301', 'é')], ARRAY[true, false],
          'NFC and NFD forms of é are two vertices');
COPY lt (source, target) FROM STDIN;
	a
a	
	
\.
SELECT is(ARRAY[grail.scc_component('ltg', ''), grail.scc_component('ltg', 'a')], ARRAY['', ''],
          'COPY FROM STDIN of edges to and from the empty string: one component with a and A');
SELECT is((SELECT array_agg(vertex) FROM grail.bfs('ltg', '', 1)), ARRAY['', 'a'], 'bfs from the empty string with max_depth 1');
SELECT is(coalesce(string_agg(fn || ': ' || mismatches, ', ') FILTER (WHERE mismatches <> 0), 'exact'), 'exact',
          'every function agrees with the oracle after the explicit writes')
FROM pg_temp.live_verify('ltg', 'lt', 'text', 'absent key');
SELECT grail.merge_graph('ltg');
SELECT pg_temp.live_base('ltg', 'lt');
SELECT is(coalesce(string_agg(fn || ': ' || mismatches, ', ') FILTER (WHERE mismatches <> 0), 'exact'), 'exact', 'and after a merge')
FROM pg_temp.live_verify('ltg', 'lt', 'text', 'absent key');

-- varchar keys (compared as text): 6 rounds, a merge every 3: 6 * 13 + 2 * 2 = 82.
CREATE TABLE lv (source varchar(400), target varchar(400));
INSERT INTO lv SELECT source, target FROM lt;
SELECT grail.create_graph('lvg', 'lv');
SELECT grail.alter_graph('lvg', true);
SELECT pg_temp.live_base('lvg', 'lv');
SELECT * FROM pg_temp.live_rounds('lvg', 'lv', 'text', '', 'lt_pool', ARRAY['lv']::regclass[],
                                  ARRAY['insert', 'delete', 'update', 'swap', 'join_scc', 'split_scc', 'merge'], 6, 3);

-- A case-insensitive collation: SQL finds 'a' = 'A', pg_grail compares bytes (two vertices).
SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collprovider = 'i') AS lk_icu \gset
\if :lk_icu
CREATE COLLATION lk_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE lc (source text COLLATE lk_ci, target text COLLATE lk_ci);
INSERT INTO lc VALUES ('a', 'b'), ('B', 'A'), ('A', 'c'), ('c', 'a');
SELECT is((SELECT count(DISTINCT source) FROM lc), 3::bigint, 'under the collation, a and A are one value (four sources, three values)');
SELECT grail.create_graph('lcg', 'lc');
SELECT grail.alter_graph('lcg', true);
SELECT pg_temp.live_base('lcg', 'lc');
SELECT is(ARRAY[grail.reachable('lcg', 'a', 'A'), grail.reachable('lcg', 'A', 'a')], ARRAY[false, true],
          'pg_grail keeps a and A apart, byte for byte');
-- 8 rounds, a merge every 4: 8 * 13 + 2 * 2 = 108.
SELECT * FROM pg_temp.live_rounds('lcg', 'lc', 'text', 'absent', 'lt_pool', ARRAY['lc']::regclass[],
                                  ARRAY['insert', 'delete', 'update', 'noop_update', 'swap', 'join_scc', 'split_scc', 'cte'], 8, 4);
\else
SELECT skip('no ICU collations in this server', 110);
\endif

-- uuid keys, the smallest and largest uuid among them: 12 rounds, a merge every 4: 12 * 13 + 3 * 2 = 162.
CREATE TABLE lu_pool (k uuid);
INSERT INTO lu_pool VALUES ('00000000-0000-0000-0000-000000000000'), ('ffffffff-ffff-ffff-ffff-ffffffffffff');
INSERT INTO lu_pool SELECT md5('v' || i)::uuid FROM generate_series(1, 12) i;
CREATE TABLE lu (source uuid, target uuid);
INSERT INTO lu SELECT (SELECT k FROM lu_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM lu_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 24) i;
SELECT grail.create_graph('lug', 'lu');
SELECT grail.alter_graph('lug', true);
SELECT pg_temp.live_base('lug', 'lu');
SELECT * FROM pg_temp.live_rounds('lug', 'lu', 'uuid', '12345678-1234-1234-1234-123456789abc', 'lu_pool', ARRAY['lu']::regclass[],
                                  ARRAY['insert', 'insert_select', 'dup', 'delete', 'update', 'noop_update', 'swap', 'truncate',
                                        'join_scc', 'split_scc', 'cte', 'merge'], 12, 4);

-- integer columns, ids at the limits of int4: 8 rounds, a merge every 4: 8 * 13 + 2 * 2 = 108.
CREATE TABLE li4_pool (k integer);
INSERT INTO li4_pool VALUES (-2147483648), (2147483647), (-1), (0), (1), (2), (3), (5), (8), (13), (-13), (100);
CREATE TABLE li4 (source integer, target integer);
INSERT INTO li4 SELECT (SELECT k FROM li4_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM li4_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 20) i;
SELECT grail.create_graph('li4g', 'li4');
SELECT grail.alter_graph('li4g', true);
SELECT pg_temp.live_base('li4g', 'li4');
SELECT * FROM pg_temp.live_rounds('li4g', 'li4', 'bigint', '77777', 'li4_pool', ARRAY['li4']::regclass[],
                                  ARRAY['insert', 'dup', 'delete', 'update', 'swap', 'truncate', 'join_scc', 'split_scc', 'cte', 'merge'], 8, 4);

-- smallint columns: 6 rounds, a merge every 3: 6 * 13 + 2 * 2 = 82.
CREATE TABLE li2_pool (k smallint);
INSERT INTO li2_pool VALUES (-32768), (32767), (0), (1), (2), (3), (-7), (9);
CREATE TABLE li2 (source smallint, target smallint);
INSERT INTO li2 SELECT (SELECT k FROM li2_pool ORDER BY random() + i * 0 LIMIT 1), (SELECT k FROM li2_pool ORDER BY random() + i * 0 LIMIT 1)
FROM generate_series(1, 14) i;
SELECT grail.create_graph('li2g', 'li2');
SELECT grail.alter_graph('li2g', true);
SELECT pg_temp.live_base('li2g', 'li2');
SELECT * FROM pg_temp.live_rounds('li2g', 'li2', 'bigint', '-8', 'li2_pool', ARRAY['li2']::regclass[],
                                  ARRAY['insert', 'delete', 'update', 'swap', 'join_scc', 'split_scc', 'merge'], 6, 3);

SELECT * FROM finish();
ROLLBACK;
