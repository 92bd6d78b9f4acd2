# DROP EXTENSION pg_grail CASCADE while a background merge runs: the merge worker takes a lock on
# the extension before its snapshot and any of pg_grail's tables, so the DROP waits for the merge
# (no 40P01 deadlock between the two), and the worker, finding the extension gone at its next
# graph, stops without an error per graph it had queued.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('drop_extension_merge');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 100
grail.merge_naptime = 1
deadlock_timeout = 100ms
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e1 (source int, target int);
	CREATE TABLE e2 (source int, target int);
	CREATE TABLE e3 (source int, target int);
	INSERT INTO e1 SELECT i, i + 1 FROM generate_series(1, 300) i;
	INSERT INTO e2 SELECT i, i + 1 FROM generate_series(1, 300) i;
	INSERT INTO e3 SELECT i, i + 1 FROM generate_series(1, 300) i;
	SELECT count(*) FROM (SELECT grail.create_graph('g1', 'e1'), grail.create_graph('g2', 'e2'),
	                             grail.create_graph('g3', 'e3')) c;
});
my $log_offset = -s $node->logfile;

# Pending changes below the threshold, locked by a session, then more: the worker queues the three
# graphs and is held in the first merge by the lock.
$node->safe_psql('postgres', q{
	INSERT INTO e1 VALUES (1000, 1001); INSERT INTO e2 VALUES (1000, 1001); INSERT INTO e3 VALUES (1000, 1001);
});
my $locker = $node->background_psql('postgres');
$locker->query_safe('BEGIN');
$locker->query_safe('SELECT count(*) FROM (SELECT 1 FROM grail.pending_change FOR UPDATE) s');
$node->safe_psql('postgres', q{
	INSERT INTO e1 SELECT i, i + 1 FROM generate_series(2000, 2200) i;
	INSERT INTO e2 SELECT i, i + 1 FROM generate_series(2000, 2200) i;
	INSERT INTO e3 SELECT i, i + 1 FROM generate_series(2000, 2200) i;
});
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM grail.activity WHERE command = 'background merge' AND phase = 'deleting merged changes'}),
	'a background merge waits for the lock');

# The DROP, in its own session, waits for the merge's transaction.
my $dropper = $node->background_psql('postgres', on_error_stop => 0);
$dropper->query_until(qr/dropping/, "\\echo dropping\nDROP EXTENSION pg_grail CASCADE;\n");
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE 'DROP EXTENSION%' AND wait_event_type = 'Lock'}),
	'the DROP waits');
$locker->query_safe('COMMIT');
$locker->quit;
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_extension WHERE extname = 'pg_grail'}),
	'the DROP went through after the merge');
$dropper->quit;
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'pg_grail merge worker'
	  OR application_name = 'pg_grail merge worker'}),
	'the merge worker ended');
sleep(2); # a launcher's round: a worker it starts for the database finds nothing to do

ok(!$node->log_contains('deadlock detected', $log_offset), 'no deadlock');
ok(!$node->log_contains('extension "pg_grail" does not exist', $log_offset),
	'the worker stopped without an error per queued graph');
ok(!$node->log_contains('terminated by signal|PANIC|TRAP', $log_offset), 'nothing crashed');

# The extension made again: background merges work as before.
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	SELECT count(*) FROM (SELECT grail.create_graph('g1', 'e1')) c;
	INSERT INTO e1 SELECT i, i + 1 FROM generate_series(3000, 3200) i;
});
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g1'}),
	'a merge after CREATE EXTENSION');
is($node->safe_psql('postgres', q{SELECT grail.reachable('g1', 3000, 3201)}), 't', 'and the graph answers');

$node->stop;
done_testing();
