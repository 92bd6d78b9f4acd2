# A Grail Traversal Scan in a subquery of an UPDATE or of a SELECT ... FOR UPDATE that waits for a
# concurrent update of its row: PostgreSQL rechecks the row's new version (EvalPlanQual) and runs
# the subquery again, scan included, and the answer is the one FunctionScan gives
# (grail.traversal_scan = off). Before PostgreSQL 15.15 a recheck asked every scan without a
# relation of its own (scanrelid 0) for its recheck method instead of its next row, so the scan
# must give its rows there too: else the EXISTS found nothing and the UPDATE skipped the row, the
# count was 0.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('traversal_scan_recheck');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e VALUES (1, 2), (2, 3), (3, 4), (4, 5), (5, 1), (2, 6), (7, 7), (8, 9);
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	CREATE TABLE t (id bigint PRIMARY KEY, v int);
});

my $holder = $node->background_psql('postgres');

# Runs $statement in a session of its own while $holder's transaction has updated row 1 of t, and
# returns its output once $holder commits (the statement then rechecks row 1's new version).
sub after_concurrent_update
{
	my ($scan, $statement) = @_;
	$node->safe_psql('postgres', 'TRUNCATE t; INSERT INTO t SELECT g, 0 FROM generate_series(1, 10) g');
	$holder->query_safe('BEGIN; UPDATE t SET v = v + 1 WHERE id = 1');
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', "SET grail.traversal_scan = $scan; $statement" ],
		'>', \$out, '2>', \$err);
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'SET grail.traversal_scan%'})
	  or die 'the statement never waited for the row';
	$holder->query_safe('COMMIT');
	$h->finish;
	die "statement failed: $err" if $err ne '';
	chomp $out;
	return $out;
}

for my $scan ('off', 'on') {
	is(after_concurrent_update($scan,
			q{UPDATE t SET v = v + 10 WHERE EXISTS (SELECT 1 FROM grail.descendants('g', t.id) d WHERE d.vertex = 5)
			  RETURNING id, v}),
		"1|11\n2|10\n3|10\n4|10\n5|10",
		"traversal_scan = $scan: a recheck of the UPDATE's EXISTS over the scan keeps the row");
	is(after_concurrent_update($scan,
			q{SELECT id, v, (SELECT count(*) FROM grail.bfs('g', t.id) b WHERE b.depth > 0) FROM t WHERE id <= 2
			  ORDER BY id FOR UPDATE}),
		"1|1|5\n2|0|5",
		"traversal_scan = $scan: a recheck of SELECT FOR UPDATE counts the scan's rows");
}
ok($node->safe_psql('postgres', q{EXPLAIN (COSTS OFF)
		UPDATE t SET v = v + 10 WHERE EXISTS (SELECT 1 FROM grail.descendants('g', t.id) d WHERE d.vertex = 5)})
	  =~ /Grail Traversal Scan/, 'the UPDATE\'s subquery runs the scan');

$holder->quit;
$node->stop;
done_testing();
