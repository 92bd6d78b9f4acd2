# A database made read-only by default (ALTER DATABASE ... SET default_transaction_read_only = on,
# as for a maintenance window or a reporting copy) still takes the writes of sessions that turn it
# off for themselves, and a live graph logs them. The background merge worker took the database's
# setting: every merge failed with "cannot execute SELECT FOR UPDATE in a read-only transaction" at
# each grail.merge_naptime, and the pending changes only grew. Now the worker's transactions are
# read-write, as its merges must be.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('merge_read_only_default');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 100
grail.merge_naptime = 1
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE DATABASE ro;
	ALTER DATABASE ro SET default_transaction_read_only = on;
});
$node->safe_psql('ro', q{
	SET default_transaction_read_only = off;
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 50) i;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
});
is($node->safe_psql('ro', q{SHOW default_transaction_read_only}), 'on', 'the database is read-only by default');

# Past the threshold: the worker merges the graph.
$node->safe_psql('ro', q{SET default_transaction_read_only = off;
	INSERT INTO e SELECT i, i + 1 FROM generate_series(51, 300) i});
ok($node->poll_query_until('ro', q{SELECT background_merge_count > 0 AND pending_changes = 0 FROM grail.graphs WHERE name = 'g'}),
	'a background merge stores the writes');
is($node->safe_psql('ro', q{SELECT edges FROM grail.graphs WHERE name = 'g'}), '300', 'with every edge');
is($node->safe_psql('ro', q{SELECT grail.reachable('g', 1::bigint, 301::bigint)}), 't', 'and the graph answers from it');
unlike(slurp_file($node->logfile), qr/read-only transaction/, 'no merge failed for the read-only default');

done_testing();
