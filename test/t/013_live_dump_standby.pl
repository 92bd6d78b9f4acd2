# Live graphs with pending changes across pg_dump / pg_restore and on a hot standby: a restored
# database answers for its rows before and after a merge, and keeps logging; a standby answers
# for the rows it has replayed while the primary writes and merges.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('live_primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 99) i;   -- chain 1 -> 100
	SELECT grail.create_graph('g', 'e');
	CREATE TABLE k (source text, target text);
	INSERT INTO k VALUES ('a', 'b'), ('b', 'c');
	SELECT grail.create_graph('kg', 'k');
	-- Pending changes: the chain cut at 50, a cycle 100 -> 1 closed, a new vertex.
	DELETE FROM e WHERE source = 50;
	INSERT INTO e VALUES (100, 1), (7, 1000);
	INSERT INTO k VALUES ('c', 'a'), ('c', 'new');
	DELETE FROM k WHERE source = 'a';
});

# Every answer of g and kg against a graph built now from the same rows.
my $check = q{
	DO $$
	BEGIN
		PERFORM grail.drop_graph(name) FROM grail.graphs WHERE name IN ('e_fresh', 'k_fresh');
		DROP TABLE IF EXISTS e_copy, k_copy;
		CREATE TABLE e_copy AS SELECT * FROM e;
		CREATE TABLE k_copy AS SELECT * FROM k;
		PERFORM grail.create_graph('e_fresh', 'e_copy');
		PERFORM grail.create_graph('k_fresh', 'k_copy');
	END $$;
	SELECT (SELECT count(*) FROM generate_series(1, 101) a, (VALUES (1), (49), (50), (51), (100), (1000)) b(b)
	        WHERE grail.reachable('g', a, b) IS DISTINCT FROM grail.reachable('e_fresh', a, b))
	     + (SELECT count(*) FROM (VALUES ('a'), ('b'), ('c'), ('new'), ('x')) a(a), (VALUES ('a'), ('b'), ('c'), ('new')) b(b)
	        WHERE grail.reachable('kg', a, b) IS DISTINCT FROM grail.reachable('k_fresh', a, b))
	     + (SELECT count(*) FROM (SELECT * FROM grail.scc_components('g') EXCEPT SELECT * FROM grail.scc_components('e_fresh')) x)
	     + (SELECT count(*) FROM (SELECT * FROM grail.bfs('g', 51) EXCEPT SELECT * FROM grail.bfs('e_fresh', 51)) x);
};
my $answers = q{SELECT grail.reachable('g', 1, 49), grail.reachable('g', 1, 51), grail.reachable('g', 51, 49),
	grail.reachable('g', 7, 1000), grail.reachable('kg', 'c', 'b'), grail.reachable('kg', 'b', 'new'),
	grail.reachable('kg', 'a', 'b')};
my $expected = 't|f|t|t|f|t|f';
my $pending = q{SELECT string_agg(name || ':' || pending_changes, ',' ORDER BY name) FROM grail.graphs WHERE name IN ('g', 'kg')};
is($primary->safe_psql('postgres', $answers), $expected, 'the primary answers for its rows with changes pending');
my $pending_before = $primary->safe_psql('postgres', $pending);
like($pending_before, qr/^g:[1-9]\d*,kg:[1-9]\d*$/, 'changes are pending');

# A hot standby replays the writes and the pending rows alike.
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('live_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', $answers), $expected, 'the standby answers as the primary, changes pending');
my $session = $standby->background_psql('postgres');
is($session->query_safe($answers), $expected, 'a standby session (its overlay now cached)');

# The primary writes and merges; the standby follows.
$primary->safe_psql('postgres', q{INSERT INTO e VALUES (50, 51); DELETE FROM k WHERE source = 'c' AND target = 'a'});
$primary->wait_for_catchup($standby, 'replay');
my $after = 't|t|t|t|f|t|f';
is($primary->safe_psql('postgres', $answers), $after, 'the primary answers for a new write');
is($session->query_safe($answers), $after, 'the standby session sees it (a new set of changes)');
$primary->safe_psql('postgres', q{SELECT grail.merge_graph('g'); SELECT grail.merge_graph('kg')});
$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', $pending), 'g:0,kg:0', 'the standby sees the merge: nothing pending');
is($session->query_safe($answers), $after, 'and answers as before it');
$session->quit;
$standby->stop;

# pg_dump / pg_restore with changes pending, into a database of the same cluster.
$primary->safe_psql('postgres', q{DELETE FROM e WHERE source = 50; INSERT INTO k VALUES ('b', 'a')});
my $before_dump = $primary->safe_psql('postgres', $answers);
my $pending_dumped = $primary->safe_psql('postgres', $pending);
like($pending_dumped, qr/^g:[1-9]\d*,kg:[1-9]\d*$/, 'changes pending at the dump');
my $dump = $primary->basedir . '/live.dump';
$primary->command_ok(['pg_dump', '-Fc', '-f', $dump, '-d', $primary->connstr('postgres')], 'pg_dump');
$primary->safe_psql('postgres', 'CREATE DATABASE restored');
$primary->command_ok(['pg_restore', '-d', $primary->connstr('restored'), $dump], 'pg_restore');
is($primary->safe_psql('restored', $pending), $pending_dumped, 'the restored graphs have the same changes pending');
is($primary->safe_psql('restored', $answers), $before_dump, 'and answer as the source did');
is($primary->safe_psql('restored', $check), '0', 'every answer as a fresh build of the restored rows');
is($primary->safe_psql('restored', q{SELECT stale FROM grail.graphs WHERE name = 'g'}), 'f', 'not stale after the restore');
$primary->safe_psql('restored', q{INSERT INTO e VALUES (50, 51), (1000, 7)});
is($primary->safe_psql('restored', $check), '0', 'the restored triggers log new writes');
$primary->safe_psql('restored', q{SELECT grail.merge_graph('g'); SELECT grail.merge_graph('kg')});
is($primary->safe_psql('restored', $pending), 'g:0,kg:0', 'a merge in the restored database takes everything in');
is($primary->safe_psql('restored', $check), '0', 'and answers as before it');
is($primary->safe_psql('postgres', $check), '0', 'the source, untouched, still answers for its rows');

$primary->stop;
done_testing();
