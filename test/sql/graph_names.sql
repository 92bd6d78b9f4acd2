-- Graph names are read like table names, and a part longer than an identifier (63 bytes) is
-- truncated as PostgreSQL truncates one in SQL text: with a NOTICE, at a character boundary.
CREATE TABLE name_edges (source int, target int);
INSERT INTO name_edges VALUES (1, 2);
SELECT regexp_replace(grail.create_graph(repeat('q', 70), 'name_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT name, octet_length(name) FROM grail.graphs WHERE relation = 'name_edges'::regclass;
-- Found by the long name (with the same NOTICE) and by the truncated one.
SELECT grail.reachable(repeat('q', 70), 1, 2);
SELECT grail.reachable(repeat('q', 63), 1, 2);
SELECT grail.drop_graph('public.' || repeat('q', 64));
-- Quoted, multibyte, schema-qualified: each part on its own.
SELECT regexp_replace(grail.create_graph('"' || repeat('é', 40) || '"', 'name_edges'), 'index [0-9.]+ .B, built in [0-9.]+ s', 'index N, built in N s');
SELECT name = repeat('é', 31) AS cut_at_a_character, octet_length(name) FROM grail.graphs WHERE relation = 'name_edges'::regclass;
SELECT grail.drop_graph(repeat('P', 64) || '."' || repeat('é', 40) || '"');
SELECT grail.drop_graph('public."' || repeat('é', 31) || '"');
-- Names that are not names.
SELECT grail.reachable('a.', 1, 2);
SELECT grail.reachable('"a', 1, 2);
SELECT grail.reachable('a b', 1, 2);
SELECT grail.reachable('a.b.c', 1, 2);
SELECT grail.reachable('  ', 1, 2);
SELECT grail.reachable(' "A""B" . c ', 1, 2);
DROP TABLE name_edges;
