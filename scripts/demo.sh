#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: installs what is missing, builds and installs
# pg_grail, starts a throwaway PostgreSQL cluster, builds a sample graph from an edge table and
# queries it. The cluster keeps running afterwards (scripts/cluster.sh stop ends it).
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

scripts/install-deps.sh
make -j "$(nproc)" >/dev/null
$sudo make install >/dev/null
eval "$(scripts/cluster.sh start)"
echo "cluster: PGHOST=$PGHOST PGPORT=$PGPORT (scripts/cluster.sh env prints the settings)"

psql -X -v ON_ERROR_STOP=1 <<'SQL'
\set QUIET on
SET client_min_messages = warning;
DROP EXTENSION IF EXISTS pg_grail CASCADE;
DROP TABLE IF EXISTS package_deps;
CREATE EXTENSION pg_grail;

-- A dependency graph: package -> the package it depends on. 1 -> 2 -> 3 -> 1 is a cycle, and
-- 100,000 random dependencies of packages 10..20009 on later ones make it big enough to time.
CREATE TABLE package_deps (package bigint, depends_on bigint);
INSERT INTO package_deps VALUES (1, 2), (2, 3), (3, 1), (3, 4), (4, 5), (6, 4);
SELECT setseed(0.5) \gset
INSERT INTO package_deps
SELECT p, p + 1 + floor(random() * 300) FROM (SELECT 10 + floor(random() * 20000) AS p FROM generate_series(1, 100000)) r;
\set QUIET off
\echo
\echo '-- build the index'
SELECT grail.create_graph('deps', 'package_deps', 'package', 'depends_on');
SELECT name, vertices, edges, components, dag_edges, build_ms, index_bytes FROM grail.graphs;
\echo '-- does 1 depend on 5 (through 2, 3, 4)? does 5 depend on 1? does 6 depend on 1?'
SELECT grail.reachable('deps', 1, 5) AS "1 -> 5", grail.reachable('deps', 5, 1) AS "5 -> 1",
       grail.reachable('deps', 6, 1) AS "6 -> 1";
\echo '-- many pairs in one call'
SELECT grail.reachable('deps', ARRAY[1, 2, 6, 10, 20009], ARRAY[4, 1, 5, 20009, 10]);
\echo '-- strongly connected components with more than one package (component = smallest id)'
SELECT component, count(*) AS packages FROM grail.scc_components('deps')
GROUP BY component HAVING count(*) > 1 ORDER BY packages DESC, component LIMIT 5;
\echo '-- what package 1 depends on, level by level'
SELECT * FROM grail.bfs('deps', 1);
\echo '-- 100,000 random reachability questions in one statement'
\timing on
SELECT count(*) FILTER (WHERE grail.reachable('deps', s, t)) AS reachable_pairs, count(*) AS pairs
FROM (SELECT 10 + floor(random() * 20000)::bigint s, 10 + floor(random() * 20000)::bigint t
      FROM generate_series(1, 100000)) p;
\echo '-- the same with a recursive CTE, for 3 of those pairs'
SELECT s, t, EXISTS (WITH RECURSIVE r(v) AS (SELECT s UNION SELECT d.depends_on FROM r JOIN package_deps d ON d.package = r.v)
                     SELECT 1 FROM r WHERE v = t) AS reachable
FROM (VALUES (1000::bigint, 9000::bigint), (5000, 5400), (100, 20000)) p(s, t);
SELECT s, t, grail.reachable('deps', s, t) FROM (VALUES (1000::bigint, 9000::bigint), (5000, 5400), (100, 20000)) p(s, t);
SQL
