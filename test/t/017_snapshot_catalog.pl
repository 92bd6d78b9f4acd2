# A REPEATABLE READ transaction reads grail.graph in its snapshot but the edge table in the catalog
# as it is now: after another session dropped the graph's edge table (which drops the graph) and
# made a new table and graph of the same names, the old row still names the dropped table. Each
# function must give a clear, retryable error then, not an internal "cache lookup failed".
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('snapshot_catalog');
$node->init;
$node->start;
$node->safe_psql('postgres', q{CREATE EXTENSION pg_grail});

my $recreate = q{
	DROP TABLE IF EXISTS rr;
	CREATE TABLE rr (s bigint, t bigint);
	INSERT INTO rr VALUES (1, 2), (2, 3);
	SELECT grail.create_graph('rrg', 'rr', 's', 't');
};
$node->safe_psql('postgres', $recreate);

for my $call (q{SELECT grail.reachable('rrg', 1, 3)},
	q{SELECT grail.reachable('rrg', ARRAY[1]::bigint[], ARRAY[3]::bigint[])},
	q{SELECT count(*) FROM grail.bfs('rrg', 1)},
	q{SELECT count(*) FROM grail.scc_components('rrg')},
	q{SELECT grail.merge_graph('rrg')},
	q{SELECT grail.refresh_graph('rrg')},
	q{SELECT grail.alter_graph('rrg', false)})
{
	my $reader = $node->background_psql('postgres', on_error_stop => 0);
	$reader->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1});
	$node->safe_psql('postgres', $recreate);
	$reader->query($call);
	my $stderr = $reader->{stderr};
	$reader->{stderr} = '';
	$reader->query_safe('ROLLBACK');
	$reader->quit;
	unlike($stderr, qr/cache lookup failed/, "$call: no internal error");
	like($stderr, qr/could not serialize|was dropped after this transaction's snapshot/,
		"$call: a retryable error");
}
is($node->safe_psql('postgres', q{SELECT grail.reachable('rrg', 1, 3)}), 't', 'the new graph answers');

$node->stop;
done_testing();
