# alter_graph(g, live => false) while a transaction that wrote into a partition of the edge table
# directly is open: the writer holds no lock on the edge table that conflicts with alter_graph's
# on it, so alter_graph must lock the partitions too and wait; otherwise the write ends up only in
# the change log, which a graph that is not live ignores, and the graph answers without it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('alter_graph_family');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE lp (k int, s bigint, t bigint) PARTITION BY LIST (k);
	CREATE TABLE lp1 PARTITION OF lp FOR VALUES IN (1);
	CREATE TABLE lp2 PARTITION OF lp FOR VALUES IN (2) PARTITION BY LIST (k);
	CREATE TABLE lp2a PARTITION OF lp2 FOR VALUES IN (2);
	INSERT INTO lp VALUES (1, 1, 2);
	SELECT grail.create_graph('lpg', 'lp', 's', 't');
});

# Starts $sql in its own psql (application_name $app); returns a handle for finish_bg.
sub start_bg
{
	my ($app, $sql) = @_;
	my %bg = (in => '', out => '', err => '');
	$bg{h} = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1',
		  '-d', $node->connstr('postgres') . " application_name=$app", '-c', $sql ],
		'<', \$bg{in}, '>', \$bg{out}, '2>', \$bg{err});
	return \%bg;
}
sub finish_bg
{
	my ($bg) = @_;
	$bg->{h}->finish;
	return ($bg->{h}->result(0), $bg->{out}, $bg->{err});
}
# Waits until the session $app waits for a lock; returns the lock type ('' after 60 s).
sub wait_blocked
{
	my ($app) = @_;
	my $deadline = time + 60;
	while (time < $deadline)
	{
		my $w = $node->safe_psql('postgres', qq{
			SELECT wait_event FROM pg_stat_activity WHERE application_name = '$app' AND wait_event_type = 'Lock'});
		return $w if $w ne '';
		usleep(20_000);
	}
	return '';
}

# A partition written directly, and one of a sub-partitioned partition.
for my $case ([ 'lp1', 1, 2, 3 ], [ 'lp2a', 2, 3, 4 ])
{
	my ($partition, $k, $s, $t) = @$case;
	my $writer = $node->background_psql('postgres');
	$writer->query_safe(qq{BEGIN; INSERT INTO $partition VALUES ($k, $s, $t)});
	my $alter = start_bg("alter_$partition", q{SELECT grail.alter_graph('lpg', false)});
	is(wait_blocked("alter_$partition"), 'relation', "alter_graph waits for the writer of $partition");
	$writer->query_safe('COMMIT');
	$writer->quit;
	my ($rc, $out, $err) = finish_bg($alter);
	is($rc, 0, 'then alter_graph succeeds');
	is($node->safe_psql('postgres', q{SELECT live, stale FROM grail.graphs WHERE name = 'lpg'}), 'f|t',
		'the graph is no longer live, and stale: the write came after its build');
	my ($ret, $qout, $qerr) = $node->psql('postgres', qq{SELECT grail.reachable('lpg', 1, $t)});
	like($qerr, qr/pg_grail graph "lpg" is stale/, 'a query refuses rather than answer without the write');
	$node->safe_psql('postgres', q{SELECT grail.refresh_graph('lpg')});
	is($node->safe_psql('postgres', qq{SELECT grail.reachable('lpg', 1, $t)}), 't', 'after a refresh it answers with the write');
	$node->safe_psql('postgres', q{SELECT grail.alter_graph('lpg', true)});
}

$node->stop;
done_testing();
