# Graphs with a filter through pg_dump and pg_restore, into a fresh database of the same cluster and
# into a fresh cluster: the stored filter (SQL text, as PostgreSQL deparses it, with its columns by
# name) reads back the same where the restored columns are numbered differently (a column dropped
# before them) and the function it calls has another oid; a live graph's pending changes (an
# UPDATE across the filter among them) come along; writes after the restore are logged through the
# filter; a refresh and a merge read the rows it passes; a renamed filter column is followed after
# the restore as before it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $src = PostgreSQL::Test::Cluster->new('filter_source');
$src->init;
$src->start;
my $dst = PostgreSQL::Test::Cluster->new('filter_target');
$dst->init;
$dst->start;

$src->safe_psql('postgres', 'CREATE DATABASE app');
$src->safe_psql('app', q{
	CREATE EXTENSION pg_grail;
	-- Objects made and dropped first, so that the restored function and table get other oids.
	CREATE FUNCTION filler_f() RETURNS int LANGUAGE sql AS 'SELECT 1';
	CREATE TABLE filler (a int);
	CREATE SCHEMA fx;
	CREATE FUNCTION fx.is_prod(text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$ SELECT $1 = 'prod' $$;
	-- A dropped column before the others: a restore numbers them differently.
	CREATE TABLE deps (gone int, source bigint, target bigint, kind text, weight int);
	ALTER TABLE deps DROP COLUMN gone;
	INSERT INTO deps VALUES (1, 2, 'prod', 1), (2, 3, 'dev', 1), (3, 4, 'prod', 1), (4, 5, NULL, 1), (5, 6, 'prod', 0);
	SELECT grail.create_graph('prod', 'deps', filter => 'fx.is_prod(kind) AND weight > 0');
	SELECT grail.create_graph('frozen', 'deps', live => false, filter => 'kind IS NOT NULL');
	-- Pending changes of the live graph: 2 -> 3 moves into the filter, 3 -> 4 out of it.
	UPDATE deps SET kind = CASE kind WHEN 'dev' THEN 'prod' ELSE 'dev' END WHERE source IN (2, 3);
	-- A filter column renamed before the dump.
	ALTER TABLE deps RENAME COLUMN weight TO w;
});

my $queries = q{
	SELECT grail.reachable('prod', 1, 3), grail.reachable('prod', 1, 4), grail.reachable('prod', 5, 6),
	       (SELECT count(*) FROM grail.descendants('prod', 1)),
	       (SELECT filter FROM grail.graphs WHERE name = 'prod'),
	       (SELECT pending_changes FROM grail.graphs WHERE name = 'prod'),
	       (SELECT filter FROM grail.graphs WHERE name = 'frozen');
};
my $expected = q{t|f|f|3|(fx.is_prod(kind) AND (w > 0))|2|(kind IS NOT NULL)};
is($src->safe_psql('app', $queries), $expected, 'source answers');

my $dump = $src->basedir . '/app.dump';
$src->command_ok([ 'pg_dump', '-Fc', '-d', $src->connstr('app'), '-f', $dump ], 'pg_dump -Fc');
$src->safe_psql('postgres', 'CREATE DATABASE copy');
$dst->safe_psql('postgres', 'CREATE DATABASE app');
$dst->safe_psql('app', q{CREATE FUNCTION other_f() RETURNS int LANGUAGE sql AS 'SELECT 2'; CREATE TABLE other (a int)});
for my $target ([ $src, 'copy', 'same cluster' ], [ $dst, 'app', 'fresh cluster' ])
{
	my ($node, $db, $where) = @$target;
	$node->command_ok([ 'pg_restore', '--exit-on-error', '-d', $node->connstr($db), $dump ], "$where: pg_restore");
	is($node->safe_psql($db, $queries), $expected, "$where: the filtered graphs answer as before");
	isnt($node->safe_psql($db, q{SELECT attnum FROM pg_attribute WHERE attrelid = 'deps'::regclass AND attname = 'kind'}),
		$src->safe_psql('app', q{SELECT attnum FROM pg_attribute WHERE attrelid = 'deps'::regclass AND attname = 'kind'}),
		"$where: the filter's column has another number here") if $db eq 'app';
	# Writes after the restore go through the filter.
	is($node->safe_psql($db, q{
		INSERT INTO deps VALUES (6, 7, 'dev', 1), (4, 8, 'prod', 1);
		UPDATE deps SET w = 1 WHERE source = 5;
		SELECT grail.reachable('prod', 1, 7), grail.reachable('prod', 4, 8), grail.reachable('prod', 5, 6),
		       (SELECT pending_changes FROM grail.graphs WHERE name = 'prod')}),
		'f|t|t|4', "$where: writes after the restore are logged through the filter");
	is($node->safe_psql($db, q{
		SELECT count(*) FROM (SELECT grail.merge_graph('prod')) m;
		SELECT grail.reachable('prod', 1, 3), grail.reachable('prod', 4, 8), grail.reachable('prod', 5, 6),
		       (SELECT (edges, pending_changes)::text FROM grail.graphs WHERE name = 'prod')}),
		"1\nt|t|t|(4,0)", "$where: a merge reads the rows the filter passes");
	is($node->safe_psql($db, q{
		SELECT stale FROM grail.graphs WHERE name = 'frozen';
		SELECT count(*) FROM (SELECT grail.refresh_graph('frozen')) r;
		SELECT grail.reachable('frozen', 1, 8), grail.reachable('frozen', 3, 5), edges FROM grail.graphs WHERE name = 'frozen'}),
		"t\n1\nt|f|6", "$where: the graph that is not live went stale, and its refresh reads the filter");
	is($node->safe_psql($db, q{
		ALTER TABLE deps RENAME COLUMN kind TO k;
		INSERT INTO deps VALUES (8, 9, 'prod', 1);
		SELECT filter, grail.reachable('prod', 4, 9) FROM grail.graphs WHERE name = 'prod'}),
		'(fx.is_prod(k) AND (w > 0))|t', "$where: a rename after the restore is followed");
}

is($src->safe_psql('app', $queries), $expected, 'the source is untouched');
$src->stop;
$dst->stop;
done_testing();
