-- grail.graphs and grail.activity are security barriers: a function in the caller's WHERE clause
-- (here one that records what it is shown) runs only on the rows the view lets the role see, never
-- before the view's own privilege checks.
BEGIN;
CREATE EXTENSION IF NOT EXISTS pgtap;
CREATE EXTENSION IF NOT EXISTS pg_grail;
SELECT plan(6);

CREATE ROLE grail_leak_spy;
CREATE TABLE leak_secret_edges (source bigint, target bigint);
INSERT INTO leak_secret_edges SELECT i, i + 1 FROM generate_series(1, 1234) i;
SELECT grail.create_graph('leak_secret_graph', 'leak_secret_edges');
INSERT INTO leak_secret_edges VALUES (0, 1);  -- a pending change
CREATE TABLE leak_open_edges (source bigint, target bigint);
INSERT INTO leak_open_edges VALUES (1, 2);
SELECT grail.create_graph('leak_open_graph', 'leak_open_edges');
GRANT SELECT ON leak_open_edges TO grail_leak_spy;

-- What the spy's functions were shown.
CREATE TABLE leak_seen (view text, name text);
GRANT INSERT ON leak_seen TO grail_leak_spy;
CREATE FUNCTION leak(text, text, text, bigint, bigint, bigint, regclass) RETURNS boolean
LANGUAGE plpgsql COST 0.0000001 AS $$
BEGIN
	INSERT INTO leak_seen VALUES ($1, $3);
	RETURN true;
END
$$;

SET ROLE grail_leak_spy;
SELECT is((SELECT count(*) FROM grail.graphs WHERE name = 'leak_secret_graph'), 0::bigint,
          'the spy does not see the secret graph');
SELECT is((SELECT count(*) FROM grail.graphs
           WHERE leak('graphs', schema, name, vertices, edges, pending_changes, relation) AND name LIKE 'leak%'),
          1::bigint, 'the spy sees the open graph through a function');
SELECT is((SELECT count(*) FROM grail.activity
           WHERE leak('activity', schema, graph, NULL, NULL, pending_changes, relation) AND graph LIKE 'leak%'),
          1::bigint, 'and in grail.activity');
RESET ROLE;

SELECT is(ARRAY(SELECT name FROM leak_seen WHERE view = 'graphs' ORDER BY name), '{leak_open_graph}',
          'grail.graphs shows a function in the WHERE clause only the rows the role may see');
SELECT is(ARRAY(SELECT name FROM leak_seen WHERE view = 'activity' ORDER BY name), '{leak_open_graph}',
          'grail.activity too');
SELECT is((SELECT count(*) FROM pg_class WHERE relnamespace = 'grail'::regnamespace AND relkind = 'v'
                                            AND NOT 'security_barrier=true' = ANY (coalesce(reloptions, '{}'))),
          0::bigint, 'every view of the extension is a security barrier');

SELECT * FROM finish();
ROLLBACK;
