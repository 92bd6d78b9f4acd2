# A cancel or statement timeout that arrives while the planner's support function estimates from a
# graph (it loads the graph's build for that) is the user's: the statement is cancelled, not
# planned on as if nothing happened. A new backend's first plan over a graph that no backend has
# opened yet writes its image from the catalog, which takes far longer than the 1 ms timeout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('planner_cancel');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'\n");
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e AS
		SELECT (random() * 300000)::bigint AS source, (random() * 300000)::bigint AS target
		FROM generate_series(1, 1000000);
});
for my $graph ('g1', 'g2')
{
	$node->safe_psql('postgres', qq{SELECT count(*) FROM (SELECT grail.create_graph('$graph', 'e')) c});
	my ($rc, $out, $err) = $node->psql('postgres',
		"SET statement_timeout = '1ms'; EXPLAIN SELECT * FROM grail.scc_components('$graph')");
	isnt($rc, 0, "$graph: EXPLAIN under a 1 ms statement timeout fails");
	like($err, qr/canceling statement due to statement timeout/, "$graph: with the timeout's error");
}
is($node->safe_psql('postgres', q{SELECT count(*) > 0 FROM grail.scc_components('g1')}), 't',
	'the graph answers afterwards');
ok(!$node->log_contains('terminated by signal|PANIC|TRAP'), 'no crash in the server log');
done_testing();
