# Logical replication into an edge table with graphs: the apply worker fires row triggers only,
# never the statement triggers that log a live graph's changes or mark another graph stale; the
# graphs' row triggers for the apply (ENABLE REPLICA) must see every applied INSERT, UPDATE and
# DELETE, and the initial copy (which does fire statement triggers) must be logged once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $publisher = PostgreSQL::Test::Cluster->new('publisher');
$publisher->init(allows_streaming => 'logical');
$publisher->start;
my $subscriber = PostgreSQL::Test::Cluster->new('subscriber');
$subscriber->init;
$subscriber->start;

my $schema = q{CREATE TABLE edges (id int PRIMARY KEY, source bigint, target bigint)};
$publisher->safe_psql('postgres', qq{
	$schema;
	INSERT INTO edges SELECT i, i, i + 1 FROM generate_series(1, 50) i;   -- chain 1 -> 51
	CREATE PUBLICATION pub FOR TABLE edges;
});
# On the subscriber: a live graph and a graph that is not live, over the same (empty) table,
# built before the subscription copies the rows in.
$subscriber->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	$schema;
	SELECT grail.create_graph('live_g', 'edges');
	SELECT grail.create_graph('plain_g', 'edges', live => false);
	SELECT grail.create_graph('filtered_g', 'edges', filter => 'id % 3 <> 0');
});
my $connection = $publisher->connstr . ' dbname=postgres';
$subscriber->safe_psql('postgres', qq{CREATE SUBSCRIPTION sub CONNECTION '$connection' PUBLICATION pub});
$subscriber->wait_for_subscription_sync($publisher, 'sub');

# Rows logged for each live graph.
my $pending = q{SELECT coalesce(sum(cardinality(c.source)), 0) FROM grail.pending_change c
	JOIN grail.graph g ON g.id = c.graph_id WHERE g.name = };
my $live_pending = $pending . q{'live_g'};
my $filtered_pending = $pending . q{'filtered_g'};

# What a graph built now over the subscriber's rows answers, against what the live graph answers.
sub check {
	my ($what) = @_;
	my $pairs = q{(SELECT a, b FROM generate_series(1, 60) a, generate_series(1, 60) b) p};
	$subscriber->safe_psql('postgres', q{
		DROP TABLE IF EXISTS fresh_edges;
		CREATE TABLE fresh_edges AS SELECT source, target FROM edges;
		SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'fresh_g';
		SELECT grail.create_graph('fresh_g', 'fresh_edges');
		DROP TABLE IF EXISTS fresh_filtered;
		CREATE TABLE fresh_filtered AS SELECT source, target FROM edges WHERE id % 3 <> 0;
		SELECT grail.drop_graph(name) FROM grail.graphs WHERE name = 'fresh_f';
		SELECT grail.create_graph('fresh_f', 'fresh_filtered');
	});
	is($subscriber->safe_psql('postgres', qq{
		SELECT count(*) FROM $pairs
		WHERE grail.reachable('live_g', a, b) IS DISTINCT FROM grail.reachable('fresh_g', a, b)}),
		'0', "$what: the live graph answers for the replicated rows");
	is($subscriber->safe_psql('postgres', qq{SELECT count(*) FROM $pairs WHERE grail.reachable('live_g', a, b)}),
		$subscriber->safe_psql('postgres', qq{SELECT count(*) FROM $pairs WHERE grail.reachable('fresh_g', a, b)}),
		"$what: as many reachable pairs as a fresh build");
	is($subscriber->safe_psql('postgres', qq{
		SELECT count(*) FROM $pairs
		WHERE grail.reachable('filtered_g', a, b) IS DISTINCT FROM grail.reachable('fresh_f', a, b)}),
		'0', "$what: the filtered live graph answers for the replicated rows its filter keeps");
}

is($subscriber->safe_psql('postgres', $live_pending), '50',
	'the initial copy is logged once (its statement triggers fire, the row triggers leave it to them)');
is($subscriber->safe_psql('postgres', $filtered_pending), '34',
	'the filtered graph logs the 34 copied rows its filter keeps');
check('after the initial copy');
is($subscriber->safe_psql('postgres', q{SELECT stale FROM grail.graphs WHERE name = 'plain_g'}), 't',
	'the graph that is not live is stale after the initial copy');

# Applied changes: INSERT closes a cycle, DELETE cuts the chain, UPDATE moves an edge.
$publisher->safe_psql('postgres', q{
	INSERT INTO edges VALUES (100, 51, 1), (101, 55, 56);
	DELETE FROM edges WHERE id = 25;
	UPDATE edges SET target = 58 WHERE id = 10;
	UPDATE edges SET source = source WHERE id = 11;
	UPDATE edges SET id = 300 WHERE id = 7;   -- out of the filter
	UPDATE edges SET id = 302 WHERE id = 9;   -- into it
});
$publisher->wait_for_catchup('sub');
check('after applied INSERT, DELETE and UPDATE');
is($subscriber->safe_psql('postgres', q{SELECT grail.reachable('live_g', 30, 5), grail.reachable('live_g', 24, 26),
	grail.reachable('live_g', 10, 58), grail.reachable('live_g', 55, 56)}), 't|f|t|t',
	'the applied changes, by hand');

# A merge folds the applied changes in; new applied changes are pending again.
$subscriber->safe_psql('postgres', q{SELECT grail.merge_graph('live_g')});
is($subscriber->safe_psql('postgres', $live_pending), '0', 'merged');
$publisher->safe_psql('postgres', q{DELETE FROM edges WHERE id = 100; INSERT INTO edges VALUES (102, 58, 60)});
$publisher->wait_for_catchup('sub');
check('after a merge and more applied changes');
is($subscriber->safe_psql('postgres', q{SELECT grail.reachable('live_g', 30, 5), grail.reachable('live_g', 10, 60)}),
	'f|t', 'the changes after the merge, by hand');

# An applied TRUNCATE (the apply runs it with its statement triggers).
$publisher->safe_psql('postgres', q{TRUNCATE edges});
$publisher->wait_for_catchup('sub');
check('after an applied TRUNCATE');
is($subscriber->safe_psql('postgres', q{SELECT grail.reachable('live_g', 1, 2)}), 'f', 'nothing left after TRUNCATE');

# Writes in a session with session_replication_role = replica (not the apply) are logged by the
# statement triggers only: once.
$subscriber->safe_psql('postgres', q{
	SELECT grail.merge_graph('live_g');
	SET session_replication_role = replica;
	INSERT INTO edges VALUES (200, 1, 2), (201, 2, 3);
});
is($subscriber->safe_psql('postgres', $live_pending), '2',
	'a replica-role session\'s rows are logged once');
check('after writes in a replica-role session');

$subscriber->stop;
$publisher->stop;
done_testing();
