# pg_dump -Fc of a database with graphs, pg_restore into a fresh cluster and into a fresh database
# of the same cluster: the graphs answer without any command, staleness triggers still work, and
# a stale graph stays stale.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $src = PostgreSQL::Test::Cluster->new('dump_source');
$src->init;
$src->start;
my $dst = PostgreSQL::Test::Cluster->new('restore_target');
$dst->init;
$dst->start;

# Roles are cluster-wide, not in a dump (pg_dumpall --globals-only carries them): the graph owner
# must exist in the target cluster.
$_->safe_psql('postgres', 'CREATE ROLE alice LOGIN') for ($src, $dst);

$src->safe_psql('postgres', 'CREATE DATABASE app');
$src->safe_psql('app', q{
	CREATE EXTENSION pg_grail;
	CREATE SCHEMA "My Schema";
	GRANT ALL ON SCHEMA "My Schema" TO alice;
	GRANT CREATE ON SCHEMA public TO alice;
	SET ROLE alice;
	-- deps: chain 1 -> ... -> 50 and the cycle 100 -> 101 -> 102 -> 100, owned by alice.
	CREATE TABLE "My Schema"."Deps" ("from" bigint, "to" int);
	INSERT INTO "My Schema"."Deps" SELECT i, i + 1 FROM generate_series(1, 49) i;
	INSERT INTO "My Schema"."Deps" VALUES (100, 101), (101, 102), (102, 100), (50, 100);
	SELECT grail.create_graph('deps', '"My Schema"."Deps"', 'from', 'to', live => false);
	RESET ROLE;
	-- other: a table created before deps was dropped and re-created, so OIDs and graph ids differ
	-- between the clusters; its graph is stale at dump time. (deps and other are not live, so that
	-- writes make them stale; 013_live_dump_standby.pl dumps live graphs with pending changes.)
	CREATE TABLE filler (a int);
	CREATE TABLE other (source int, target int);
	INSERT INTO other VALUES (1, 2), (2, 3);
	SELECT grail.create_graph('other', 'other', live => false);
	SELECT grail.create_graph('gone', 'other');
	SELECT grail.drop_graph('gone');
	INSERT INTO other VALUES (3, 4);
	-- shifted: a column dropped before the edge columns, so a restore numbers them differently.
	CREATE TABLE shifted (a int, b int, src int, dst int);
	ALTER TABLE shifted DROP COLUMN a;
	INSERT INTO shifted VALUES (100, 1, 2), (200, 2, 3);
	SELECT grail.create_graph('shifted', 'shifted', 'src', 'dst');
});

my $queries = q{
	SELECT grail.reachable('deps', 1, 102), grail.reachable('deps', 102, 1), grail.reachable('deps', 101, 100),
	       grail.reachable('deps', ARRAY[1, 50, 7]::bigint[], ARRAY[50, 1, 7]::bigint[]),
	       grail.scc_component('deps', 102),
	       (SELECT count(*) FROM grail.scc_components('deps')),
	       (SELECT max(depth) FROM grail.bfs('deps', 1));
};
my $expected = 't|f|t|{t,f,t}|100|53|52';
is($src->safe_psql('app', $queries), $expected, 'source answers');
my $graphs_query = q{SELECT name, relation, source_column, target_column, vertices, edges, stale, owner FROM grail.graphs ORDER BY name};
my $graphs = $src->safe_psql('app', $graphs_query);
like($graphs, qr/^deps\|"My Schema"\."Deps"\|from\|to\|53\|53\|f\|alice\nother\|other\|source\|target\|3\|2\|t\|\w+\nshifted\|shifted\|src\|dst\|3\|2\|f\|\w+$/, 'source catalog');

my $dump = $src->basedir . '/app.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-d', $src->connstr('app'), '-f', $dump ], 'pg_dump -Fc');

# Into a fresh database of the same cluster, and into a fresh cluster.
$src->safe_psql('postgres', 'CREATE DATABASE copy');
$dst->safe_psql('postgres', q{CREATE TABLE shift (a int); CREATE DATABASE app; CREATE DATABASE plain});
my $plain = $src->basedir . '/app.sql';
$src->command_ok([ 'pg_dump', '-d', $src->connstr('app'), '-f', $plain ], 'pg_dump (plain SQL)');
for my $target ([ $src, 'copy', 'same cluster' ], [ $dst, 'app', 'fresh cluster' ], [ $dst, 'plain', 'plain dump, psql' ])
{
	my ($node, $db, $where) = @$target;
	if ($db eq 'plain')
	{
		$node->command_ok([ 'psql', '-Xq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr($db), '-f', $plain ], "$where: restore");
	}
	else
	{
		$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr($db), $dump ], "$where: pg_restore");
	}
	# A new session, no command run: the graphs answer.
	is($node->safe_psql($db, $queries), $expected, "$where: deps answers after restore");
	is($node->safe_psql($db, $queries . ' SET ROLE alice; ' . $queries), "$expected\n$expected", "$where: its owner can query it");
	is($node->safe_psql($db, $graphs_query), $graphs, "$where: catalog as before (relation, columns, owner, stale)");
	is($node->safe_psql($db, q{SELECT count(*) FROM grail.graph g WHERE g.relid::oid NOT IN (SELECT oid FROM pg_class)}),
		'0', "$where: relid points at this database's tables");
	is($node->safe_psql($db, q{SELECT grail.reachable('shifted', 1, 3), grail.reachable('shifted', 100, 200),
		(SELECT source_column || '->' || target_column FROM grail.graphs WHERE name = 'shifted')}),
		't|f|src->dst', "$where: a graph over renumbered columns binds them by name");
	is($node->safe_psql($db, q{SELECT count(*) FROM (SELECT grail.refresh_graph('shifted')) r;
		SELECT grail.reachable('shifted', 1, 3), grail.reachable('shifted', 100, 200)}), "1\nt|f",
		"$where: and rebuilds from those columns");
	my ($ret, $out, $err) = $node->psql($db, q{SELECT grail.reachable('other', 1, 3)});
	like($err, qr/graph "other" is stale/, "$where: the stale graph is still stale");
	# The staleness trigger still fires.
	$node->safe_psql($db, q{INSERT INTO "My Schema"."Deps" VALUES (102, 1)});
	($ret, $out, $err) = $node->psql($db, q{SELECT grail.reachable('deps', 102, 1)});
	like($err, qr/graph "deps" is stale/, "$where: a write marks deps stale");
	# Refresh (as the owner) and the new answers; refresh of the stale one too.
	is($node->safe_psql($db, q{
		SET ROLE alice; SELECT count(*) FROM (SELECT grail.refresh_graph('deps')) r;
		RESET ROLE; SELECT count(*) FROM (SELECT grail.refresh_graph('other')) r;
		SELECT grail.reachable('deps', 102, 1), grail.scc_component('deps', 7), grail.reachable('other', 1, 4)}),
		"1\n1\nt|1|t", "$where: refresh after restore works");
	# New graphs get ids that do not collide with the restored ones.
	is($node->safe_psql($db, q{
		CREATE TABLE newer (source int, target int); INSERT INTO newer VALUES (5, 6);
		SELECT count(*) FROM (SELECT grail.create_graph('newer', 'newer')) c;
		SELECT grail.reachable('newer', 5, 6), count(DISTINCT id) FROM grail.graph}), "1\nt|4", "$where: a new graph after restore");
	my $drop = $node->safe_psql($db, q{DROP TABLE other; SELECT count(*) FROM grail.graph WHERE name = 'other'});
	is($drop, '0', "$where: DROP TABLE still drops its graph (event trigger)");
}

# A database owner who is no superuser can dump the database (pg_dump reads the extension's
# catalog tables and sequences, which pg_database_owner may read); a superuser restores it.
$src->safe_psql('postgres', q{CREATE ROLE dbo LOGIN; CREATE DATABASE owned OWNER dbo; CREATE DATABASE owned_copy});
$src->safe_psql('owned', q{CREATE EXTENSION pg_grail});
$src->safe_psql('owned', q{
	SET ROLE dbo;
	CREATE TABLE e (source int, target int);
	INSERT INTO e VALUES (1, 2), (2, 3);
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
});
my $owned_dump = $src->basedir . '/owned.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-d', $src->connstr('owned') . ' user=dbo', '-f', $owned_dump ],
	'pg_dump by the database owner');
$src->command_ok([ 'pg_restore', '--exit-on-error', '-d', $src->connstr('owned_copy'), $owned_dump ],
	'its dump restores');
is($src->safe_psql('owned_copy', q{SELECT grail.reachable('g', 1, 3), grail.reachable('g', 3, 1)}), 't|f',
	'and its graph answers');

# The source is untouched by all this.
is($src->safe_psql('app', $queries), $expected, 'source still answers');

$src->stop;
$dst->stop;
done_testing();
