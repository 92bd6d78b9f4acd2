# The background merge worker's priority: it runs at grail.merge_worker_nice (the Unix nice value,
# read from /proc while a worker is held in its merge by a row lock), or at the server's own where
# that is already lower; 0 leaves it at the server's. The setting is the server's (reload), 0 to 19.
# The merges it makes answer as the rows do.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'needs /proc' unless -r "/proc/$$/stat";

my $node = PostgreSQL::Test::Cluster->new('merge_worker_nice');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 100
grail.merge_naptime = 1
grail.merge_worker_nice = 7
});
$node->start;

# The nice value of a process (field 19 of /proc/PID/stat; the name in parentheses may hold spaces).
sub nice_of
{
	my ($pid) = @_;
	my $stat = slurp_file("/proc/$pid/stat");
	$stat =~ s/^.*\)\s+//s;
	my @fields = split /\s+/, $stat;
	return $fields[16];
}
my ($postmaster) = split /\n/, slurp_file($node->data_dir . '/postmaster.pid');
my $server_nice = nice_of($postmaster);
sub expected { my ($setting) = @_; return $setting > $server_nice ? $setting : $server_nice; }

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source int, target int);
	INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 900);
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	SELECT grail.alter_graph('g', true);
	-- Mismatches of reachable() against a recursive query over the rows, on n random pairs.
	CREATE FUNCTION mismatches(n int) RETURNS bigint LANGUAGE sql AS $$
		SELECT count(*) FROM (SELECT (random() * 300)::int AS a, (random() * 300)::int AS b FROM generate_series(1, n)) p
		WHERE grail.reachable('g', p.a, p.b) IS DISTINCT FROM EXISTS (
			WITH RECURSIVE r(v) AS (SELECT p.a UNION SELECT e.target FROM e JOIN r ON e.source = r.v)
			SELECT 1 FROM r WHERE r.v = p.b)
	$$;
});

# A background merge held in its last phases by a row lock on the pending changes: the worker's
# nice value read while it waits, then the lock let go and the merge ended.
sub worker_nice
{
	my $write = sub {
		$node->safe_psql('postgres',
			qq{INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, $_[0])});
	};
	my $locker = $node->background_psql('postgres');
	$write->(10); # below the threshold: locked before the merge starts
	$locker->query_safe('BEGIN');
	$locker->query_safe('SELECT count(*) FROM (SELECT 1 FROM grail.pending_change FOR UPDATE) s');
	$write->(150);
	ok($node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM grail.activity WHERE graph = 'g' AND command = 'background merge'
		  AND phase = 'deleting merged changes'}),
		'a background merge waits for the lock');
	my $pid = $node->safe_psql('postgres', q{SELECT pid FROM grail.activity WHERE graph = 'g' AND pid IS NOT NULL});
	my $nice = nice_of($pid);
	$locker->query_safe('COMMIT');
	$locker->quit;
	ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'g'}),
		'the merge ended');
	is($node->safe_psql('postgres', 'SELECT mismatches(300)'), '0', 'the merged graph answers as the rows do');
	return $nice;
}

is($node->safe_psql('postgres', 'SHOW grail.merge_worker_nice'), '7', 'set in postgresql.conf');
is($node->safe_psql('postgres', q{SELECT boot_val || '|' || context FROM pg_settings WHERE name = 'grail.merge_worker_nice'}),
	'0|sighup', 'by default 0, the server\'s priority; set in postgresql.conf (reload)');
is(worker_nice(), expected(7), 'the worker runs at grail.merge_worker_nice');
my $session = $node->background_psql('postgres');
is(nice_of($session->query_safe('SELECT pg_backend_pid()')), $server_nice, 'a backend keeps the server\'s');
$session->quit;

$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.merge_worker_nice = 19; SELECT pg_reload_conf()});
$node->poll_query_until('postgres', q{SELECT current_setting('grail.merge_worker_nice') = '19'});
is(worker_nice(), expected(19), 'a reload: the next worker takes the new value');

$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.merge_worker_nice = 0; SELECT pg_reload_conf()});
$node->poll_query_until('postgres', q{SELECT current_setting('grail.merge_worker_nice') = '0'});
is(worker_nice(), $server_nice, 'at 0 the worker runs at the server\'s priority');

# The server's setting only, 0 to 19.
my ($ret, $out, $err) = $node->psql('postgres', 'SET grail.merge_worker_nice = 3');
like($err, qr/cannot be changed now/, 'a session cannot set it');
($ret, $out, $err) = $node->psql('postgres', 'ALTER SYSTEM SET grail.merge_worker_nice = 20');
like($err, qr/20 is outside the valid range/, 'past 19 is refused');
($ret, $out, $err) = $node->psql('postgres', 'ALTER SYSTEM SET grail.merge_worker_nice = -1');
like($err, qr/-1 is outside the valid range/, 'below 0 is refused');

ok(!$node->log_contains('terminated by signal|PANIC|TRAP|could not set its nice value'), 'nothing failed in the server log');
$node->stop;
done_testing();
