# Background merges: with pg_grail preloaded, a worker merges a live graph once its
# pending changes reach grail.merge_threshold, without blocking readers or writers, as the graph's
# owner; grail.activity shows the merge (and a merge_graph() by hand) in progress to those allowed
# to see it; a merge that fails, is cancelled, is terminated or is killed (kill -9, crash recovery)
# leaves the previous build and every pending change; nothing merges
# with the threshold at 0; a restart finds the graphs that passed it; a server without a free
# background worker slot says so and keeps the changes pending; changes of a prepared transaction
# count once COMMIT PREPARED commits them; a merge waits for no other transaction's lock on a
# graph's row or tables, so that such a transaction cannot stall merges in other databases.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('merge_worker');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 1000
grail.merge_naptime = 1
max_connections = 30
max_prepared_transactions = 2
restart_after_crash = on
});
$node->start;

ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pg_grail merge launcher'}),
	'the merge launcher runs');

# The edge table belongs to one role, the graph to another, who may read and watch the table.
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE ROLE towner LOGIN;
	CREATE ROLE gowner LOGIN;
	CREATE ROLE outsider LOGIN;
	CREATE ROLE monitor LOGIN IN ROLE pg_read_all_stats;
	GRANT CREATE ON SCHEMA public TO towner, gowner;
	SET ROLE towner;
	CREATE TABLE e (source int, target int);
	INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 900);
	GRANT SELECT, UPDATE, TRIGGER ON e TO gowner;
	SET ROLE gowner;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	SELECT grail.alter_graph('g', true);
	RESET ROLE;
	CREATE UNLOGGED TABLE wrong (a int, b int, at timestamptz DEFAULT clock_timestamp());
	-- Mismatches of reachable() against a recursive query over the rows, on n random pairs.
	CREATE FUNCTION mismatches(n int) RETURNS bigint LANGUAGE sql AS $$
		SELECT count(*) FROM (SELECT (random() * 300)::int AS a, (random() * 300)::int AS b FROM generate_series(1, n)) p
		WHERE grail.reachable('g', p.a, p.b) IS DISTINCT FROM EXISTS (
			WITH RECURSIVE r(v) AS (SELECT p.a UNION SELECT e.target FROM e JOIN r ON e.source = r.v)
			SELECT 1 FROM r WHERE r.v = p.b)
	$$;
	-- The build's rows plus the net pending changes must be the table's rows: nothing lost or
	-- merged twice.
	CREATE FUNCTION in_step() RETURNS boolean LANGUAGE sql AS $$
		SELECT g.input_rows + COALESCE((SELECT sum(p.change * cardinality(p.source)) FROM grail.pending_change p WHERE p.graph_id = g.id), 0)
		       = (SELECT count(*) FROM e)
		FROM grail.graph g WHERE g.name = 'g'
	$$;
});

sub build { $node->safe_psql('postgres', q{SELECT build_uuid FROM grail.graph WHERE name = 'g'}) }
sub pending { $node->safe_psql('postgres', q{SELECT pending_changes FROM grail.activity WHERE graph = 'g'}) }
sub write_rows
{
	my ($n) = @_;
	$node->safe_psql('postgres', qq{INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, $n)});
}

# 1. Below the threshold nothing merges.
my $build0 = build();
write_rows(400);
sleep 3;
is(pending(), 400, 'below the threshold: the changes stay pending');
is(build(), $build0, 'and the build stays');

# 2. Past it, the worker merges while readers check every answer and a writer keeps writing.
my $dir = $node->basedir;
open my $fh, '>', "$dir/reader.sql" or die;
print $fh <<'SQL';
\set a random(0, 300)
\set b random(0, 300)
SELECT grail.reachable('g', :a, :b) = EXISTS (WITH RECURSIVE r(v) AS (SELECT :a UNION SELECT e.target FROM e JOIN r ON e.source = r.v) SELECT 1 FROM r WHERE r.v = :b) AS ok \gset
\if :ok
\else
INSERT INTO wrong (a, b) VALUES (:a, :b);
\endif
SQL
close $fh;
open $fh, '>', "$dir/writer.sql" or die;
print $fh <<'SQL';
INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 5);
DELETE FROM e WHERE ctid = (SELECT ctid FROM e ORDER BY random() LIMIT 1);
SQL
close $fh;
my ($out, $err) = ('', '');
my $bench = IPC::Run::start(
	[ 'pgbench', '-n', '-c', 3, '-j', 2, '-T', 8, '-f', "$dir/reader.sql\@4", '-f', "$dir/writer.sql\@1",
	  $node->connstr('postgres') ],
	'>', \$out, '2>', \$err);
sleep 1;
write_rows(700);
ok($node->poll_query_until('postgres', qq{SELECT build_uuid <> '$build0' FROM grail.graph WHERE name = 'g'}),
	'past the threshold: the worker merged (new build)');
$bench->finish;
is($bench->result(0), 0, 'readers and writers ran without an error during the merge') or diag $err;
like($out, qr/number of failed transactions: 0/, 'pgbench counted no failed transaction');
is($node->safe_psql('postgres', 'SELECT count(*) FROM wrong'), 0, 'readers saw no wrong answer');
# (The writers may have passed the threshold again meanwhile: the next merge takes those.)
ok($node->poll_query_until('postgres', q{SELECT pending_changes < 1000 FROM grail.activity WHERE graph = 'g'}),
	'the pending changes dropped below the threshold (the rest written after the merge read)');
is($node->safe_psql('postgres', 'SELECT in_step()'), 't', 'the build and the pending changes add up to the table');
is($node->safe_psql('postgres', 'SELECT mismatches(400)'), 0, 'answers equal a recomputation after the merge');
like($node->safe_psql('postgres', q{SELECT owner FROM grail.graphs WHERE name = 'g'}), qr/gowner/, 'the graph keeps its owner');

# 3. A merge in progress, held at its last step by a lock on the pending changes it must delete.
sub hold_merge
{
	my ($locker) = @_;
	$node->safe_psql('postgres', q{SELECT grail.merge_graph('g')});
	write_rows(10);
	$locker->query_safe('BEGIN');
	$locker->query_safe('SELECT count(*) FROM (SELECT 1 FROM grail.pending_change FOR UPDATE) s');
	write_rows(1000);
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM grail.activity WHERE graph = 'g' AND command = 'background merge' AND phase = 'deleting merged changes'})
	  or die 'no merge in progress';
}
my $locker = $node->background_psql('postgres');
hold_merge($locker);
my $build1 = build();
my $pending1 = pending();
is($pending1, 1010, 'a merge in progress: the changes are still pending');
is($node->safe_psql('postgres', q{SELECT relation, live, done, total, unit, elapsed >= '0' FROM grail.activity WHERE graph = 'g'}),
	"e|t|0|$pending1|changes|t", 'grail.activity shows the merge with its table, the changes it deletes and elapsed time');
my $pid = $node->safe_psql('postgres', q{SELECT pid FROM grail.activity WHERE graph = 'g'});
is($node->safe_psql('postgres', qq{SELECT backend_type FROM pg_stat_activity WHERE pid = $pid}), 'pg_grail merge worker',
	'it runs in a merge worker');
is($node->safe_psql('postgres', q{SET ROLE outsider; SELECT count(*) FROM grail.activity}), 0,
	'a role that may not read the edge table sees neither the graph nor its merge');
is($node->safe_psql('postgres', q{SET ROLE monitor; SELECT count(*) FROM grail.activity WHERE pid IS NOT NULL}), 1,
	'pg_read_all_stats sees the merge');
is($node->safe_psql('postgres', q{SET ROLE gowner; SELECT command FROM grail.activity WHERE pid IS NOT NULL}), 'background merge',
	'so does a role that may read the edge columns');
is($node->safe_psql('postgres', 'SELECT mismatches(200)'), 0, 'readers answer right during the merge');
$node->safe_psql('postgres', 'INSERT INTO e VALUES (1, 2)');
is(pending(), $pending1 + 1, 'writers are not blocked by the merge');

# Cancelled: the transaction rolls back, the build and every pending change stay.
my $log_offset = -s $node->logfile;
$node->safe_psql('postgres', qq{SELECT pg_cancel_backend($pid)});
# (The launcher starts the next worker for the write above; it waits on the lock in turn.)
ok($node->poll_query_until('postgres', qq{SELECT count(*) = 0 FROM grail.activity WHERE pid = $pid}), 'the cancelled merge ended');
is(build(), $build1, 'a cancelled merge leaves the previous build');
is(pending(), $pending1 + 1, 'and every pending change');
is($node->safe_psql('postgres', 'SELECT in_step()'), 't', 'which still add up to the table');
is($node->safe_psql('postgres', 'SELECT mismatches(200)'), 0, 'answers stay right');
ok($node->wait_for_log(qr/canceling statement due to user request(?:.*\n){1,4}?\s*background merge of pg_grail graph/, $log_offset),
	'the log names the cancelled merge');

# Terminated (SIGTERM): the worker exits cleanly, the launcher stays, nothing is lost.
write_rows(1);
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM grail.activity WHERE graph = 'g' AND phase = 'deleting merged changes'}), 'the next merge runs');
$pid = $node->safe_psql('postgres', q{SELECT pid FROM grail.activity WHERE graph = 'g'});
$log_offset = -s $node->logfile;
$node->safe_psql('postgres', qq{SELECT pg_terminate_backend($pid)});
ok($node->poll_query_until('postgres', qq{SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $pid}), 'the terminated worker exited');
ok($node->wait_for_log(qr/terminating background worker "pg_grail merge worker/, $log_offset), 'on SIGTERM');
is(build(), $build1, 'a terminated merge leaves the previous build');
is(pending(), $pending1 + 2, 'and every pending change');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_grail merge launcher'}), 1,
	'the launcher still runs');
# The launcher started the next worker for the write above, which waits on the lock in turn.
$locker->query_safe('COMMIT');
$locker->quit;
ok($node->poll_query_until('postgres', qq{SELECT build_uuid <> '$build1' FROM grail.graph WHERE name = 'g'}),
	'with the lock gone, the waiting merge completes');
cmp_ok(pending(), '<', 1000, 'and took in the pending changes its snapshot saw');
is($node->safe_psql('postgres', 'SELECT in_step()'), 't', 'in step with the table');
is($node->safe_psql('postgres', 'SELECT mismatches(300)'), 0, 'answers equal a recomputation');

# merge_graph() by hand shows in grail.activity too (held the same way, below the threshold).
$node->safe_psql('postgres', q{SELECT grail.merge_graph('g')});
write_rows(10);
$locker = $node->background_psql('postgres');
$locker->query_safe('BEGIN');
$locker->query_safe('SELECT count(*) FROM (SELECT 1 FROM grail.pending_change FOR UPDATE) s');
my $merger = $node->background_psql('postgres');
$merger->query_until(qr/merging/, q{\echo merging
SELECT count(*) FROM (SELECT grail.merge_graph('g')) m;
});
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM grail.activity WHERE graph = 'g' AND command = 'merge_graph' AND phase = 'deleting merged changes'}),
	'grail.activity shows a merge_graph() in progress');
$locker->query_safe('COMMIT');
$locker->quit;
$merger->quit;
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g'}),
	'it completes once the lock is gone');

# kill -9 of a merging worker: crash recovery; the merge is rolled back, nothing is lost, and the
# launcher, started again, merges the graph without a new write.
$locker = $node->background_psql('postgres', on_error_stop => 0);
hold_merge($locker);
$pid = $node->safe_psql('postgres', q{SELECT pid FROM grail.activity WHERE graph = 'g'});
$log_offset = -s $node->logfile;
kill 'KILL', $pid;
ok($node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset), 'kill -9 of the merge worker: crash recovery');
ok($node->poll_query_until('postgres', 'SELECT in_step()'), 'after recovery: the build and the pending changes add up');
eval { $locker->quit };
ok($node->poll_query_until('postgres', q{SELECT pending_changes < 1000 FROM grail.activity WHERE graph = 'g'}),
	'and the restarted launcher merges the graph');
is($node->safe_psql('postgres', 'SELECT in_step()'), 't', 'the merge added up');
is($node->safe_psql('postgres', 'SELECT mismatches(200)'), 0, 'answers equal a recomputation');

# 4. The merge runs with the owner's rights: an owner who may no longer read the table gets no
# merge (the worker is a superuser, but does not lend that to the owner).
$node->safe_psql('postgres', 'REVOKE SELECT ON e FROM gowner');
my $build2 = build();
$log_offset = -s $node->logfile;
write_rows(1000);
ok($node->wait_for_log(qr/permission denied for column "source" of table "e"\n(?:[^\n]*\n){0,2}?[^\n]*CONTEXT:  background merge of pg_grail graph/, $log_offset),
	'a merge that the owner has no right to fails');
is(build(), $build2, 'a failed merge leaves the previous build');
is(pending(), 1000, 'and every pending change');
$node->safe_psql('postgres', 'GRANT SELECT ON e TO gowner');
write_rows(1);
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g'}),
	'with the right back, the next write leads to a merge');

# 5. grail.merge_threshold = 0: never in the background; merge_graph() still merges by hand.
$node->safe_psql('postgres', 'ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()');
my $build3 = build();
write_rows(1500);
sleep 3;
is(pending(), 1500, 'threshold 0: no background merge');
is(build(), $build3, 'the build stays');

# Turned back on, the launcher looks at every database: the graph is merged without a new write.
$node->safe_psql('postgres', 'ALTER SYSTEM RESET grail.merge_threshold; SELECT pg_reload_conf()');
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g'}),
	'threshold back: graphs past it are merged without a new write');

# 6. At its start, the launcher looks at every database: a restart finds the graph past the threshold.
$node->safe_psql('postgres', 'ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()');
write_rows(1100);
sleep 2;
is(pending(), 1100, 'threshold 0 again: the changes stay pending');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET grail.merge_threshold');
$node->restart;
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g'}),
	'after a restart, graphs past the threshold are merged without a new write');
is($node->safe_psql('postgres', 'SELECT mismatches(300)'), 0, 'answers equal a recomputation');

# 7. No free background worker slot: the launcher says so, the changes stay pending and answer.
$node->append_conf('postgresql.conf', "max_worker_processes = 1\nmax_logical_replication_workers = 0\nmax_parallel_workers = 0\n");
$log_offset = -s $node->logfile;
$node->restart;
write_rows(1200);
ok($node->wait_for_log(qr/could not start a merge worker: no background worker slot is free/, $log_offset),
	'without a free slot the launcher logs it');
is(pending(), 1200, 'and the changes stay pending');
is($node->safe_psql('postgres', 'SELECT mismatches(200)'), 0, 'answering right');

# 8. Two-phase commit: the changes count when COMMIT PREPARED commits them, in whichever session.
$node->append_conf('postgresql.conf', "max_worker_processes = 8\n");
$node->restart;
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g'}),
	'with worker slots again, the graph is merged');
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 1200);
	PREPARE TRANSACTION 'rolled_back';
	BEGIN;
	INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 1200);
	PREPARE TRANSACTION 'committed';
	ROLLBACK PREPARED 'rolled_back';
});
# (Changes counted at PREPARE would wake a worker that finds nothing it can see: it has ended by
# the time the changes are committed, and nothing else looks at the database.)
sleep 2;
is(pending(), 0, 'prepared changes are not pending before their commit');
my $build4 = build();
$node->safe_psql('postgres', q{COMMIT PREPARED 'committed'});
ok($node->poll_query_until('postgres', qq{SELECT build_uuid <> '$build4' FROM grail.graph WHERE name = 'g'}),
	'COMMIT PREPARED counts the changes: past the threshold, the graph is merged');
is(pending(), 0, 'and the merge took them in');
is($node->safe_psql('postgres', 'SELECT in_step()'), 't', 'in step with the table');

# 9. A graph that a transaction drops (holding its row, and through DROP TRIGGER its table): the
# merge does not wait for the transaction, leaves the graph with no error, and comes back later.
$node->safe_psql('postgres', 'ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()');
write_rows(1100);
my $dropper = $node->background_psql('postgres');
$dropper->query_safe('BEGIN');
$dropper->query_safe(q{SELECT grail.drop_graph('g')});
$log_offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM RESET grail.merge_threshold; SELECT pg_reload_conf()');
ok($node->wait_for_log(qr/background merge of graph \d+ skipped: another transaction holds a lock/, $log_offset),
	'a merge leaves the graph that a transaction drops, without waiting for it');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'pg_grail merge worker'}),
	'the worker ends while the drop is in progress');
$dropper->query_safe('COMMIT');
$dropper->quit;
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/ERROR/, 'without an error');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.pending_change}), 0, 'the dropped graph left no pending change');

# 10. Graphs whose row or table another transaction holds do not stall merges elsewhere: one whose
# owner left a merge_graph() idle in its transaction, one whose table a transaction holds in ACCESS
# EXCLUSIVE mode. Once this database's worker has met them, a graph of another database passes the
# threshold and is merged (one worker runs at a time); the two are merged once the locks are gone.
# (Their changes are written with merges off, so that none is merged before the locks are taken.)
$node->safe_psql('postgres', 'ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()');
$node->safe_psql('postgres', q{
	CREATE TABLE ea (source int, target int);
	CREATE TABLE ex (source int, target int);
	SELECT count(*) FROM (SELECT grail.create_graph('ga', 'ea'), grail.create_graph('gx', 'ex')) c;
	INSERT INTO ea SELECT i, i + 1 FROM generate_series(1, 1100) i;
	INSERT INTO ex SELECT i, i + 1 FROM generate_series(1, 1100) i;
	CREATE DATABASE other;
});
$node->safe_psql('other', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE eb (source int, target int);
	SELECT count(*) FROM (SELECT grail.create_graph('gb', 'eb')) c;
});
sub pending_of
{
	my ($database, $graph) = @_;
	return $node->safe_psql($database, qq{SELECT pending_changes FROM grail.activity WHERE graph = '$graph'});
}
my $idle_merger = $node->background_psql('postgres');
$idle_merger->query_safe('BEGIN');
$idle_merger->query_safe(q{SELECT count(*) FROM (SELECT grail.merge_graph('ga')) m});
my $table_locker = $node->background_psql('postgres');
$table_locker->query_safe('BEGIN');
$table_locker->query_safe('LOCK TABLE ex IN ACCESS EXCLUSIVE MODE');
$log_offset = -s $node->logfile;
$node->safe_psql('postgres', 'ALTER SYSTEM RESET grail.merge_threshold; SELECT pg_reload_conf()');
# Until this database's worker has met the locks: it left both graphs (or waits for one).
my $skipped = qr/background merge of graph \d+ skipped: another transaction holds a lock(?:.*\n)*.*background merge of graph \d+ skipped/;
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
usleep(100_000)
  until slurp_file($node->logfile, $log_offset) =~ $skipped
  || $node->safe_psql('postgres',
	q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_grail merge worker' AND wait_event_type = 'Lock'}) > 0
  || time > $deadline;
$node->safe_psql('other', q{INSERT INTO eb SELECT i, i + 1 FROM generate_series(1, 1100) i});
ok($node->poll_query_until('other', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'gb'}),
	'a graph of another database is merged while those locks are held');
like(slurp_file($node->logfile, $log_offset), $skipped, 'the merge left both graphs that other transactions hold');
is(pending_of('postgres', 'ga'), 1100, 'the graph whose row is held keeps its changes pending');
is(pending_of('postgres', 'gx'), 1100, 'so does the graph whose table is held');
is($node->safe_psql('postgres', q{SELECT grail.reachable('ga', 1, 1101)}), 't', 'and they answer with them');
$idle_merger->query_safe('ROLLBACK');
$idle_merger->quit;
$table_locker->query_safe('ROLLBACK');
$table_locker->quit;
$node->safe_psql('postgres', q{INSERT INTO ea VALUES (0, 1); INSERT INTO ex VALUES (0, 1)});
ok($node->poll_query_until('postgres',
	q{SELECT bool_and(pending_changes = 0) FROM grail.activity WHERE graph IN ('ga', 'gx')}),
	'with the locks gone, both are merged');
is($node->safe_psql('postgres', q{SELECT grail.reachable('gx', 0, 1101)}), 't', 'and answer from the merged build');

$node->stop;
done_testing();
