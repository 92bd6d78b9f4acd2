# kill -9 of a backend in the middle of create_graph and of refresh_graph: after crash recovery
# the previous index (or no graph) is intact and answers correctly.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time usleep);

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
# The preload shows a build's phase in grail.activity, which says when to kill it.
$node->append_conf('postgresql.conf', "restart_after_crash = on\nmax_wal_size = 2GB\nshared_preload_libraries = 'pg_grail'\n");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION pg_grail');

# A small graph with known answers: chain 1 -> ... -> 100, plus the cycle 200 -> 201 -> 202 -> 200.
$node->safe_psql('postgres', q{
	CREATE TABLE small (source int, target int);
	INSERT INTO small SELECT i, i + 1 FROM generate_series(1, 99) i;
	INSERT INTO small VALUES (200, 201), (201, 202), (202, 200);
	SELECT grail.create_graph('small', 'small');
});
# A big one: 5M random edges over 1M vertices, and the graph "big" first built on a chain only (not
# live, so that the writes make it stale and no background merge rebuilds it between the crashes).
$node->safe_psql('postgres', q{
	CREATE TABLE big (source int, target int);
	INSERT INTO big SELECT i, i + 1 FROM generate_series(1, 999) i;
	SELECT grail.create_graph('big', 'big', live => false);
});
my $big_before = $node->safe_psql('postgres',
	q{SELECT build, built_at, vertices, edges, index_bytes FROM grail.graph WHERE name = 'big'});
my $t0 = time;
$node->safe_psql('postgres', q{
	SELECT setseed(0.42);
	INSERT INTO big SELECT 2000 + (random() * 1000000)::int, 2000 + (random() * 1000000)::int
	FROM generate_series(1, 5000000);
	CREATE TABLE big2 AS SELECT * FROM big;
});
note sprintf('5M edges written in %.1f s', time - $t0);

# What must answer after each crash; "big" is stale (its table changed), so it answers from its
# previous build under stale_policy = warn, and refuses under the default.
sub check_intact
{
	my ($what) = @_;
	my $small = $node->safe_psql('postgres', q{
		SELECT grail.reachable('small', 1, 100), grail.reachable('small', 100, 1),
		       grail.reachable('small', 201, 200), grail.reachable('small', 1, 200),
		       grail.reachable('small', ARRAY[5, 200, 7]::bigint[], ARRAY[50, 202, 3]::bigint[]),
		       (SELECT string_agg(DISTINCT component::text, ',') FROM grail.scc_components('small') WHERE vertex >= 200),
		       (SELECT max(depth) FROM grail.bfs('small', 1))});
	is($small, 't|f|t|f|{t,t,f}|200|99', "$what: graph small answers correctly");
	# The same answers from a recursive CTE over the table.
	my $cte = $node->safe_psql('postgres', q{
		WITH RECURSIVE r(v) AS (SELECT 1 UNION SELECT s.target FROM small s JOIN r ON s.source = r.v)
		SELECT bool_or(v = 100), bool_or(v = 200) FROM r});
	is($cte, 't|f', "$what: recursive CTE agrees");
	is($node->safe_psql('postgres', q{SELECT build, built_at, vertices, edges, index_bytes FROM grail.graph WHERE name = 'big'}),
		$big_before, "$what: big keeps its previous build");
	my $big = $node->safe_psql('postgres', q{
		SET grail.stale_policy = warn;
		SELECT grail.reachable('big', 1, 1000), grail.reachable('big', 1000, 1), grail.reachable('big', 500, 2500)});
	is($big, 't|f|f', "$what: big answers from its previous build");
	my ($ret, $out, $err) = $node->psql('postgres', q{SELECT grail.reachable('big', 1, 1000)});
	like($err, qr/is stale/, "$what: big is still stale");
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM grail.index_chunk c WHERE NOT EXISTS (SELECT FROM grail.graph g WHERE g.id = c.graph_id)}),
		'0', "$what: no orphan index chunks");
}

# Runs $sql in a backend, kills that backend with SIGKILL once grail.activity shows its build in
# one of @phases (a phase, not a time: on a busy machine a delay measured before can outlast the
# build), and waits for crash recovery; checks the statement did not finish first.
sub kill_during
{
	my ($what, $sql, @phases) = @_;
	my $phases = join(', ', map { "'$_'" } @phases);
	my ($in, $out, $err) = ('', '', '');
	my $log_offset = -s $node->logfile;
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') . ' application_name=victim', '-c', $sql ],
		'<', \$in, '>', \$out, '2>', \$err);
	my $pid;
	my $deadline = time + 60;
	while (time < $deadline)
	{
		$pid = $node->safe_psql('postgres', qq{
			SELECT s.pid FROM pg_stat_activity s JOIN grail.activity a ON a.pid = s.pid
			WHERE s.application_name = 'victim' AND s.state = 'active' AND a.phase IN ($phases)});
		last if $pid ne '';
		usleep(20_000);
	}
	ok($pid, "$what: backend $pid running the call, in $phases");
	ok(kill('KILL', $pid), "$what: SIGKILL sent");
	$h->finish;
	isnt($h->result(0), 0, "$what: the call did not complete");
	like($err, qr/server closed the connection|terminated abnormally|connection to server was lost/, "$what: client saw the crash");
	# The client sees its connection close before the postmaster has seen the death: a query in
	# between would still reach the old server, one after it the recovery.
	ok($node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset),
		"$what: postmaster saw the crash");
	$node->poll_query_until('postgres', 'SELECT true') or die "server did not recover";
	ok($node->log_contains("was terminated by signal 9", $log_offset), "$what: postmaster saw the crash and recovered");
}

check_intact('before the crashes');

# Once while reading the table, once late in the build (labelling or writing the index).
kill_during('create_graph', q{SELECT grail.create_graph('big2', 'big2')}, 'reading rows');
check_intact('after a crash in create_graph');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.graphs WHERE name = 'big2'}), '0',
	'after a crash in create_graph: no graph big2');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_trigger WHERE tgrelid = 'big2'::regclass}), '0',
	'after a crash in create_graph: no staleness trigger left on big2');

kill_during('refresh_graph', q{SELECT grail.refresh_graph('big')}, 'labels', 'storing the index');
check_intact('after a crash in refresh_graph');

# The graphs still work: big2 can be created now, and a refresh of big answers the new edges.
$node->safe_psql('postgres', q{DELETE FROM big WHERE source >= 2000; SELECT grail.refresh_graph('big')});
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 1, 1000), grail.reachable('big', 1000, 1), stale FROM grail.graphs WHERE name = 'big'}),
	't|f|f', 'refresh after the crashes works');

$node->stop;
done_testing();
