# A REPEATABLE READ transaction reads grail.graph in its snapshot but the edge table in the catalog
# as it is now: after another session dropped the graph's edge table (which drops the graph) and
# made a new table and graph of the same names, the old row still names the dropped table. Each
# function must give a clear, retryable error then, not an internal "cache lookup failed".
# Likewise the edge columns are found by name in the catalog as it is now: a rename that committed
# after the snapshot (the graph's row follows it) must not make the reader read another column.
# And the graph's triggers are checked on the family as it is now: a new, empty partition created
# after the snapshot leaves the reader answering, a partition detached with its rows gives a
# retryable error.
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

# The edge table's family changed after the snapshot.
for my $case ([ 'CREATE TABLE mp_2 PARTITION OF mp FOR VALUES IN (2)', 1 ],
	[ 'ALTER TABLE mp DETACH PARTITION mp_9', 0 ])
{
	my ($ddl, $answers) = @$case;
	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS mp, mp_9;
		CREATE TABLE mp (k int, s bigint, t bigint) PARTITION BY LIST (k);
		CREATE TABLE mp_1 PARTITION OF mp FOR VALUES IN (1);
		CREATE TABLE mp_9 PARTITION OF mp FOR VALUES IN (9);
		INSERT INTO mp VALUES (1, 1, 2), (9, 2, 3);
		SELECT grail.create_graph('mp_live', 'mp', 's', 't');
		SELECT grail.create_graph('mp_still', 'mp', 's', 't', live => false);
	});
	my %reader;
	for my $graph ('mp_live', 'mp_still')
	{
		$reader{$graph} = $node->background_psql('postgres', on_error_stop => 0);
		$reader{$graph}->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1});
	}
	$node->safe_psql('postgres', $ddl);
	for my $graph ('mp_live', 'mp_still')
	{
		my $reader = $reader{$graph};
		my $answer = $reader->query(qq{SELECT grail.reachable('$graph', 1, 3)});
		my $stderr = $reader->{stderr};
		$reader->{stderr} = '';
		$reader->query_safe('ROLLBACK');
		$reader->quit;
		if ($answers)
		{
			is($answer, 't', "$graph, after $ddl: the reader answers");
			is($stderr, '', "$graph, after $ddl: no error");
		}
		else
		{
			like($stderr, qr/could not serialize|changed after this transaction's snapshot/,
				"$graph, after $ddl: a retryable error");
		}
	}
}

# Edge columns renamed after the snapshot: s to s_old, then another column u to s. A change is
# pending, so bfs and scc_components read the rows in the snapshot (the build has only 1 -> 2 -> 3).
for my $swap (0, 1)
{
	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS rn;
		CREATE TABLE rn (s bigint, t bigint, u bigint);
		INSERT INTO rn VALUES (1, 2, 100), (2, 3, 200);
		SELECT grail.create_graph('rng', 'rn', 's', 't');
		INSERT INTO rn VALUES (3, 4, 300);
	});
	my $what = $swap ? 'renamed and another column named as it was' : 'renamed';
	my $reader = $node->background_psql('postgres', on_error_stop => 0);
	$reader->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1});
	$node->safe_psql('postgres', q{ALTER TABLE rn RENAME COLUMN s TO s_old});
	$node->safe_psql('postgres', q{ALTER TABLE rn RENAME COLUMN u TO s}) if $swap;
	is($reader->query(q{SELECT string_agg(vertex::text, ',' ORDER BY vertex) FROM grail.bfs('rng', 1)}), '1,2,3,4',
		"source column $what after the snapshot: bfs reads the graph's column");
	is($reader->query(q{SELECT string_agg(vertex::text, ',' ORDER BY vertex) FROM grail.scc_components('rng')}),
		'1,2,3,4', "source column $what after the snapshot: scc_components reads the graph's column");
	is($reader->query(q{SELECT grail.reachable('rng', 1, 4)}), 't',
		"source column $what after the snapshot: reachable answers");
	is($reader->{stderr}, '', "source column $what after the snapshot: no error");
	$reader->{stderr} = '';
	$reader->query_safe('COMMIT');
	$reader->quit;
}

$node->stop;
done_testing();
