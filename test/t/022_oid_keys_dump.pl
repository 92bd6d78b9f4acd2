# Graphs keyed by oids across pg_dump and a restore into another cluster, where the same roles and
# tables get other oids. A table's regrole and regclass columns dump as names and restore with the
# new oids; the stored index of a graph over them holds the old ones, so it must never answer
# (not even under grail.stale_policy = warn) until it is rebuilt, and then it answers for the new
# oids. A graph over pg_auth_members is read in each statement's snapshot: it answers at once, for
# the target cluster's memberships.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $src = PostgreSQL::Test::Cluster->new('oid_source');
$src->init;
$src->start;
my $dst = PostgreSQL::Test::Cluster->new('oid_target');
$dst->init;
$dst->start;

# The target makes other roles and tables first, so that every oid the source used differs.
$dst->safe_psql('postgres', q{
	CREATE ROLE filler1; CREATE ROLE filler2; CREATE ROLE filler3;
	CREATE TABLE filler (a int); CREATE TABLE filler2 (a int);
});
my $roles = q{
	CREATE ROLE ka; CREATE ROLE kb; CREATE ROLE kc; CREATE ROLE kd;
	GRANT kb TO ka; GRANT kc TO kb;
};
$src->safe_psql('postgres', $roles);
$src->safe_psql('postgres', 'CREATE DATABASE app');
$src->safe_psql('app', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE members (source regrole, target regrole);
	INSERT INTO members VALUES ('ka', 'kb'), ('kb', 'kc'), ('kd', 'ka');
	SELECT grail.create_graph('members', 'members');
	CREATE TABLE t1 (a int); CREATE TABLE t2 (a int); CREATE TABLE t3 (a int);
	CREATE TABLE rels (source regclass, target regclass);
	INSERT INTO rels VALUES ('t1', 't2'), ('t2', 't3');
	SELECT grail.create_graph('rels', 'rels', live => false);
	SELECT grail.create_graph('roles', 'pg_catalog.pg_auth_members', 'member', 'roleid');
});
my $queries = q{
	SELECT grail.reachable('members', 'kd', 'kc'), grail.reachable('members', 'kc', 'kd'),
	       (SELECT string_agg(vertex, ',' ORDER BY depth) FROM grail.descendants('members', 'kd')),
	       grail.reachable('rels', 't1', 't3'), grail.path('rels', 't1'::regclass, 't3'::regclass)::text,
	       grail.reachable('roles', 'ka', 'kc')};
my $expected = 't|f|kd,ka,kb,kc|t|{t1,t2,t3}|t';
is($src->safe_psql('app', $queries), $expected, 'the source answers');

my $dump = $src->basedir . '/app.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-d', $src->connstr('app'), '-f', $dump ], 'pg_dump');
$dst->safe_psql('postgres', $roles);
$dst->safe_psql('postgres', 'CREATE DATABASE app');
$dst->command_ok([ 'pg_restore', '--exit-on-error', '-d', $dst->connstr('app'), $dump ], 'pg_restore');

my $oids = q{SELECT string_agg(oid::text, ',' ORDER BY rolname) FROM pg_roles WHERE rolname IN ('ka', 'kb', 'kc', 'kd')};
isnt($dst->safe_psql('app', $oids), $src->safe_psql('app', $oids), 'the roles have other oids in the target');
my $toids = q{SELECT string_agg(oid::text, ',' ORDER BY relname) FROM pg_class WHERE relname IN ('t1', 't2', 't3')};
isnt($dst->safe_psql('app', $toids), $src->safe_psql('app', $toids), 'and so have the tables');

# The catalog graph answers at once: it reads pg_auth_members in each statement.
is($dst->safe_psql('app', q{SELECT grail.reachable('roles', 'ka', 'kc'), grail.reachable('roles', 'kc', 'ka')}), 't|f',
	"the graph over pg_auth_members answers for the target's memberships");

# The restored builds hold the source's oids: they refuse to answer, under either stale policy.
for my $q (q{SELECT grail.reachable('members', 'kd', 'kc')}, q{SELECT * FROM grail.bfs('members', 'kd'::regrole)},
	q{SELECT grail.reachable('rels', 't1', 't3')}, q{SET grail.stale_policy = warn; SELECT grail.reachable('members', 'kd', 'kc')})
{
	my ($ret, $out, $err) = $dst->psql('app', $q);
	isnt($ret, 0, "restored build refuses: $q");
	like($err, qr/its build was made before a restore or in another database/, "with the reason: $q");
}
# Rebuilt, they answer for the new oids, as the source did for its own.
$dst->safe_psql('app', q{SELECT grail.merge_graph('members'); SELECT grail.refresh_graph('rels')});
is($dst->safe_psql('app', $queries), $expected, 'rebuilt, the graphs answer as the source did');
is($dst->safe_psql('app', q{SELECT string_agg(vertex::oid::text, ',' ORDER BY vertex::oid) FROM grail.bfs('members', 'kd'::regrole)}),
	$dst->safe_psql('app', q{SELECT string_agg(oid::text, ',' ORDER BY oid) FROM pg_roles WHERE rolname IN ('ka', 'kb', 'kc', 'kd')}),
	"with the target's oids");

# A restore into a new database of the same cluster: the tables are new (other oids), the roles
# are the same; the regclass graph refuses, the regrole one too (it cannot tell which oids moved).
$src->safe_psql('postgres', 'CREATE DATABASE app2');
$src->command_ok([ 'pg_restore', '--exit-on-error', '-d', $src->connstr('app2'), $dump ], 'pg_restore into the same cluster');
my ($ret, $out, $err) = $src->psql('app2', q{SELECT grail.reachable('rels', 't1', 't3')});
like($err, qr/its build was made before a restore or in another database/, 'a regclass graph restored into another database refuses');
$src->safe_psql('app2', q{SELECT grail.refresh_graph('rels')});
is($src->safe_psql('app2', q{SELECT grail.reachable('rels', 't1', 't3'), grail.reachable('rels', 't3', 't1')}), 't|f',
	'and answers once rebuilt');
# A copy made with CREATE DATABASE ... TEMPLATE holds the same objects under the same oids, but
# cannot be told from such a restore: its oid-keyed graphs refuse too, and the README's query
# (Limits) rebuilds them all; the catalog graph answers at once.
$src->safe_psql('postgres', 'CREATE DATABASE app_copy TEMPLATE app');
($ret, $out, $err) = $src->psql('app_copy', q{SELECT grail.reachable('members', 'ka', 'kc')});
like($err, qr/its build was made before a restore or in another database/, 'a template copy: the regrole graph refuses');
is($src->safe_psql('app_copy', q{SELECT string_agg(g.name, ',' ORDER BY g.name)
	FROM (SELECT g.schema, g.name, grail.refresh_graph(pg_catalog.format('%I.%I', g.schema, g.name))
	      FROM grail.graphs g
	      JOIN pg_catalog.pg_attribute a ON a.attrelid = g.relation AND a.attname = g.source_column
	      WHERE a.atttypid = 'oid'::regtype OR a.atttypid::regtype::text LIKE 'reg%') g}),
	'members,rels,roles', "the README's query rebuilds the copy's oid-keyed graphs");
is($src->safe_psql('app_copy', $queries), $expected, 'and the copy answers as the source');
# The source itself is untouched by all this.
is($src->safe_psql('app', $queries), $expected, 'the source still answers');

done_testing();
