# Concurrent sessions: two create_graph of one name (one waits, the other gets a clean "already
# exists"), two refresh_graph at once (one waits, both succeed, the final index is right), and
# queries during a refresh answer from the index their snapshot sees.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('concurrency');
$node->init;
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source int, target int);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 99) i;   -- chain 1 -> ... -> 100
});

# Starts $sql in its own psql (application_name $app); returns a handle for finish_bg.
sub start_bg
{
	my ($app, $sql) = @_;
	my %bg = (in => '', out => '', err => '');
	$bg{h} = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-v', 'VERBOSITY=verbose',
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
# Waits until the session $app waits for a lock; returns the lock type.
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
my $summary = qr/^graph "c": 100 vertices/;

# 1. Two create_graph of the same name: the second waits for the first's transaction.
my $a = $node->background_psql('postgres');
$a->query_safe(q{BEGIN; SELECT count(*) FROM (SELECT grail.create_graph('c', 'e')) x});
my $b = start_bg('creator_b', q{SELECT grail.create_graph('c', 'e')});
my $lock = wait_blocked('creator_b');
is($lock, 'advisory', 'second create_graph waits on the per-name advisory lock');
$a->query_safe('COMMIT');
my ($rc, $out, $err) = finish_bg($b);
is($rc, 1, 'second create_graph fails');
like($err, qr/ERROR:  42710: pg_grail graph "c" already exists/, 'with a clean "already exists" (42710)');
unlike($err, qr/duplicate key|XX\d\d\d/, 'not a unique violation or an internal error');

# The same, when the first rolls back: the second then creates the graph.
$a->query_safe(q{BEGIN; SELECT count(*) FROM (SELECT grail.create_graph('c2', 'e')) x});
$b = start_bg('creator_b2', q{SELECT grail.create_graph('c2', 'e')});
is(wait_blocked('creator_b2'), 'advisory', 'second create_graph waits');
$a->query_safe('ROLLBACK');
($rc, $out, $err) = finish_bg($b);
is($rc, 0, 'after a rollback of the first, the second creates the graph');
like($out, qr/^graph "c2": 100 vertices/, 'summary of the second');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.graph WHERE name = 'c2';
	SELECT count(*) FROM pg_trigger WHERE tgrelid = 'e'::regclass AND NOT tgisinternal}), "1\n10",
	'one catalog row for c2, five triggers per graph (insert, delete, update, truncate; apply)');
$node->safe_psql('postgres', q{SELECT grail.drop_graph('c2')});

# 2. Two refreshes at once: one waits, both succeed, the final index is right.
my $build0 = $node->safe_psql('postgres', q{SELECT build FROM grail.graph WHERE name = 'c'});
$a->query_safe(q{BEGIN; SELECT count(*) FROM (SELECT grail.refresh_graph('c')) x});
$b = start_bg('refresher_b', q{SELECT grail.refresh_graph('c')});
ok(wait_blocked('refresher_b'), 'second refresh waits');
$a->query_safe('COMMIT');
($rc, $out, $err) = finish_bg($b);
is($rc, 0, 'second refresh succeeds');
like($out, $summary, 'second refresh summary');
is($node->safe_psql('postgres', q{SELECT g.build = s.last_value, s.last_value >= } . $build0 . q{ + 2 FROM grail.graph g, grail.build_seq s WHERE g.name = 'c'}),
	't|t', 'two new builds, the last one stored');

# With the edges changed in the first transaction: the second refresh sees them after the wait.
$a->query_safe(q{BEGIN; DELETE FROM e; INSERT INTO e SELECT i + 1, i FROM generate_series(1, 99) i;
	SELECT count(*) FROM (SELECT grail.refresh_graph('c')) x});
$b = start_bg('refresher_b2', q{SELECT grail.refresh_graph('c')});
ok(wait_blocked('refresher_b2'), 'second refresh waits for the writer');
$a->query_safe('COMMIT');
($rc, $out, $err) = finish_bg($b);
is($rc, 0, 'second refresh succeeds after the writer commits');
is($node->safe_psql('postgres', q{SELECT grail.reachable('c', 100, 1), grail.reachable('c', 1, 100), stale FROM grail.graphs}),
	't|f|f', 'final index is the reversed chain, not stale');

# 3. Queries during a refresh answer from the index their snapshot sees.
my $q = q{SELECT grail.reachable('c', 1, 100), grail.reachable('c', 100, 1)};
my $rc_session = $node->background_psql('postgres');   # read committed, index cached
is($rc_session->query_safe($q), 'f|t', 'reader: reversed chain');
my $rr_session = $node->background_psql('postgres');   # repeatable read, index cached
is($rr_session->query_safe("BEGIN ISOLATION LEVEL REPEATABLE READ; $q"), 'f|t', 'repeatable-read reader: reversed chain');
my $rr_cold = $node->background_psql('postgres');      # repeatable read, snapshot taken, nothing loaded
$rr_cold->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM e});

my $writer = $node->background_psql('postgres');
$writer->query_safe(q{BEGIN; DELETE FROM e; INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 99) i;
	SELECT count(*) FROM (SELECT grail.refresh_graph('c')) x});
my $t0 = time;
is($rc_session->query_safe($q), 'f|t', 'reader during an uncommitted refresh: old index, not blocked');
ok(time - $t0 < 5, 'reader not blocked by the refresh');
is($writer->query_safe($q), 't|f', 'the refreshing transaction sees its own new index');
$writer->query_safe('COMMIT');
is($rc_session->query_safe($q), 't|f', 'read-committed reader sees the new index after the commit');
is($rr_session->query_safe($q), 'f|t', 'repeatable-read reader keeps its snapshot\'s (cached) index');
is($rr_cold->query_safe($q), 'f|t', 'repeatable-read reader loading now reads its snapshot\'s index');
is($rr_session->query_safe("COMMIT; $q"), 't|f', 'after its commit: new index');
is($rr_cold->query_safe("COMMIT; $q"), 't|f', 'after its commit: new index (cold session)');
$_->quit for ($a, $rc_session, $rr_session, $rr_cold, $writer);

# 4. A plpgsql loop keeps its call site for the whole transaction; under READ COMMITTED each
# iteration sees other sessions' commits, so a commit that makes the graph stale between two
# iterations must make the second refuse (or answer from the new rows), not answer from the old.
$node->safe_psql('postgres', q{
	CREATE TABLE loop_e (source int, target int); INSERT INTO loop_e VALUES (1, 2);
	SELECT count(*) FROM (SELECT grail.create_graph('loop', 'loop_e')) c;
	CREATE TABLE loop_go (go boolean);
	CREATE FUNCTION loop_answers() RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		seen text := '';
	BEGIN
		FOR i IN 1..2 LOOP
			IF i = 2 THEN
				WHILE NOT EXISTS (SELECT 1 FROM loop_go) LOOP PERFORM pg_sleep(0.02); END LOOP;
			END IF;
			-- No exception block: its subtransaction alone would make the call site check again.
			seen := seen || i || ':' || grail.reachable('loop', 1, 3) || ' ';
		END LOOP;
		RETURN seen;
	END $$;
});
my $looper = start_bg('looper', q{SELECT loop_answers()});
usleep(300_000);
$node->safe_psql('postgres', q{INSERT INTO loop_e VALUES (2, 3); INSERT INTO loop_go VALUES (true)});
($rc, $out, $err) = finish_bg($looper);
ok($out =~ /^1:false 2:true $/ || $err =~ /graph "loop" is stale/,
	'a plpgsql loop sees another session\'s commit between iterations (refuses or answers from it)')
  or diag("out: $out\nerr: $err");

ok(!$node->log_contains('terminated by signal|PANIC|TRAP'), 'no crash in the server log');
$node->stop;
done_testing();
