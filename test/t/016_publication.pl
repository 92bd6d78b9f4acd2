# A publication FOR ALL TABLES on a server with wal_level = logical publishes the extension's
# catalog tables too: background merges, which delete the merged rows of grail.pending_change,
# still run (a published table without a replica identity refuses deletes).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('publication');
$node->init(allows_streaming => 'logical');
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 100
grail.merge_naptime = 1
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE PUBLICATION everything FOR ALL TABLES;
	CREATE TABLE e (source int, target int);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 50) i;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
});
my $build0 = $node->safe_psql('postgres', q{SELECT build_uuid FROM grail.graph WHERE name = 'g'});

$node->safe_psql('postgres', q{INSERT INTO e SELECT i, i + 1 FROM generate_series(51, 250) i});
ok($node->poll_query_until('postgres', qq{SELECT build_uuid <> '$build0' FROM grail.graph WHERE name = 'g'}),
	'a background merge ran');
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.graphs WHERE name = 'g'}),
	'and deleted the changes it merged');
is($node->safe_psql('postgres', q{SELECT grail.reachable('g', 1, 251)}), 't', 'the merged graph answers');

$node->safe_psql('postgres', q{INSERT INTO e VALUES (251, 252)});
is($node->psql('postgres', q{SELECT grail.merge_graph('g')}), 0, 'merge_graph');
is($node->psql('postgres', q{SELECT grail.refresh_graph('g')}), 0, 'refresh_graph');
$node->safe_psql('postgres', q{INSERT INTO e VALUES (252, 253)});
is($node->psql('postgres', 'DROP TABLE e'), 0, 'DROP TABLE of the edge table with changes pending');
is($node->safe_psql('postgres', 'SELECT count(*) FROM grail.graph'), 0, 'its graph went with it');

$node->stop;
done_testing();
