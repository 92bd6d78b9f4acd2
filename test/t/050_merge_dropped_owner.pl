# A graph whose owner role is gone: pg_grail's DROP ROLE check sees the graphs of its own database
# only, so DROP ROLE run in another database drops a role that owns graphs here. The background
# merge worker skips such a graph (it runs merges as their owner), and did so without a word while
# its pending changes grew past grail.merge_threshold; it now says so in the server log at each pass,
# naming the graph and what a superuser can do, and the graph still answers and merges by hand.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('merge_dropped_owner');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 100
grail.merge_naptime = 1
});
$node->start;

$node->safe_psql('postgres', q{CREATE ROLE erin LOGIN; CREATE DATABASE other});
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 50) i;
	GRANT SELECT, UPDATE, TRIGGER ON e TO erin;
	GRANT CREATE ON SCHEMA public TO erin;
	SET ROLE erin;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	RESET ROLE;
	REVOKE ALL ON e FROM erin;
	REVOKE CREATE ON SCHEMA public FROM erin;
});
# From another database, DROP ROLE does not see the graph.
$node->safe_psql('other', q{DROP ROLE erin});
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_roles r JOIN grail.graph g ON g.owner::oid = r.oid}), '0',
	'the graph has lost its owner');

my $offset = -s $node->logfile;
$node->safe_psql('postgres', q{INSERT INTO e SELECT i, i + 1 FROM generate_series(51, 300) i});
ok($node->wait_for_log(qr/WARNING:  pg_grail graph "public\.g" is not merged in the background: its owner \(role oid \d+\) no longer exists/,
	$offset), 'the merge worker says why it does not merge the graph');
like(slurp_file($node->logfile, $offset), qr/HINT:  A superuser can merge it with grail\.merge_graph\(\)/, 'and what to do');
is($node->safe_psql('postgres', q{SELECT grail.reachable('g', 1::bigint, 301::bigint)}), 't',
	'the graph answers meanwhile, from its rows');
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
is($node->safe_psql('postgres', q{SELECT pending_changes FROM grail.graphs WHERE name = 'g'}), '0',
	'a superuser merges it by hand');

done_testing();
