# Graphs over plain views through pg_dump and pg_restore into a fresh cluster: the graph rows come
# back naming the restored views (a view's graph stores no build, so there is no image to carry
# and nothing keyed by oids), and every statement reads the restored view as its own role: a join
# of two tables, and a security_invoker view over a table with row-level security that gives two
# roles two graphs through one graph name. Writes after the restore are seen at once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $src = PostgreSQL::Test::Cluster->new('view_source');
$src->init;
$src->start;
my $dst = PostgreSQL::Test::Cluster->new('view_target');
$dst->init;
$dst->start;

# Roles are the cluster's, not the dump's.
my $roles = q{CREATE ROLE va; CREATE ROLE vb;};
$src->safe_psql('postgres', $roles . 'CREATE DATABASE app');
$dst->safe_psql('postgres', $roles . 'CREATE DATABASE app');
$src->safe_psql('app', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE filler (a int);
	CREATE TABLE node (id bigint PRIMARY KEY, name text);
	CREATE TABLE link (src bigint, dst bigint, kind text);
	INSERT INTO node SELECT i, 'n' || i FROM generate_series(1, 6) i;
	INSERT INTO link VALUES (1, 2, 'prod'), (2, 3, 'prod'), (3, 1, 'dev'), (3, 4, 'prod'), (5, 6, 'prod');
	CREATE VIEW named AS SELECT a.name AS source, b.name AS target
		FROM link l JOIN node a ON a.id = l.src JOIN node b ON b.id = l.dst WHERE l.kind = 'prod';
	SELECT grail.create_graph('named', 'named');
	CREATE TABLE owned (source int, target int, owner name);
	INSERT INTO owned VALUES (1, 2, 'va'), (2, 3, 'vb'), (3, 4, 'va');
	ALTER TABLE owned ENABLE ROW LEVEL SECURITY;
	CREATE POLICY own ON owned USING (owner = current_user);
	GRANT SELECT ON owned TO va, vb;
	CREATE VIEW mine WITH (security_invoker = true) AS SELECT source, target FROM owned;
	GRANT SELECT ON mine TO va, vb;
	GRANT USAGE ON SCHEMA grail TO va, vb;
	SELECT grail.create_graph('mine', 'mine');
	DROP TABLE filler;
});

my $queries = q{
	SELECT grail.reachable('named', 'n1'::text, 'n4'::text), grail.reachable('named', 'n4'::text, 'n1'::text),
	       (SELECT count(*) FROM grail.descendants('named', 'n1'::text)),
	       (SELECT (relation::text, live, vertices IS NULL)::text FROM grail.graphs WHERE name = 'named');
	SET ROLE va;
	SELECT grail.reachable('mine', 1, 2), grail.reachable('mine', 2, 3), grail.reachable('mine', 3, 4);
	RESET ROLE;
	SET ROLE vb;
	SELECT grail.reachable('mine', 1, 2), grail.reachable('mine', 2, 3), grail.reachable('mine', 3, 4);
	RESET ROLE;
};
my $expected = "t|f|4|(named,f,t)\nt|f|t\nf|t|f";
is($src->safe_psql('app', $queries), $expected, 'source answers, per role');

my $dump = $src->basedir . '/app.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-d', $src->connstr('app'), '-f', $dump ], 'pg_dump -Fc');
$dst->command_ok([ 'pg_restore', '--exit-on-error', '-d', $dst->connstr('app'), $dump ], 'pg_restore into a fresh cluster');
is($dst->safe_psql('app', $queries), $expected, 'the restored view graphs answer as before, per role');
isnt($dst->safe_psql('app', q{SELECT 'named'::regclass::oid}), $src->safe_psql('app', q{SELECT 'named'::regclass::oid}),
	'the view has another oid here');
is($dst->safe_psql('app', q{
	INSERT INTO link VALUES (4, 5, 'prod');
	SELECT grail.reachable('named', 'n1'::text, 'n6'::text), (SELECT count(*) FROM grail.index_chunk)}),
	't|0', 'a write after the restore is read by the next statement; no image stored');

$src->stop;
$dst->stop;
done_testing();
