-- Run after the restart, in new backends: the stored index loads and answers as before, and the
-- answers are right (checked against a recursive CTE, not only against themselves).
CREATE EXTENSION IF NOT EXISTS pgtap;
SELECT plan(4);
SELECT is((SELECT stale FROM grail.graphs WHERE name = 'restart'), false, 'the graph survived the restart');
SELECT is((SELECT count(*) FROM restart_expected WHERE grail.reachable('restart', s, t) IS DISTINCT FROM reachable),
          0::bigint, 'reachable() answers as before the restart');
SELECT is((SELECT count(*) FROM restart_expected e
           WHERE e.reachable IS DISTINCT FROM (e.s = e.t OR EXISTS (
               WITH RECURSIVE r(v) AS (SELECT e.s UNION SELECT x.target FROM r JOIN restart_edges x ON x.source = r.v)
               SELECT 1 FROM r WHERE r.v = e.t))),
          0::bigint, 'and the answers equal a recursive CTE''s');
SELECT is((SELECT count(*) FROM grail.scc_components('restart')),
          (SELECT count(*) FROM (SELECT source FROM restart_edges UNION SELECT target FROM restart_edges) v),
          'scc_components() lists every vertex after the restart');
SELECT * FROM finish();
SELECT grail.drop_graph('restart');
DROP TABLE restart_edges, restart_expected;
