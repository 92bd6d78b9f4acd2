# Load: N clients ask reachable() on random pairs for a bounded time while another client
# refreshes the graph in a loop, alternating the edge table between the chain 1 -> 2 -> ... -> n
# and the reversed chain (DELETE + INSERT + refresh_graph in one transaction). Each query asks a
# pair and its reverse in one statement: (t,f) is one version, (f,t) the other; (t,t) or (f,f)
# for distinct ids would be a mixed or wrong index. Every answer is checked, by the client.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time);

my $clients = $ENV{GRAIL_LOAD_CLIENTS} // 8;
my $seconds = $ENV{GRAIL_LOAD_SECONDS} // 20;
my $n = $ENV{GRAIL_LOAD_VERTICES} // 100000;   # about 16 MB of index, several 4 MB chunks

my $node = PostgreSQL::Test::Cluster->new('load');
$node->init;
$node->append_conf('postgresql.conf', "max_connections = 50\nshared_buffers = 256MB\n");
$node->start;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE chain (source int, target int);
	INSERT INTO chain SELECT i, i + 1 FROM generate_series(1, $n - 1) i;
	SELECT grail.create_graph('load', 'chain');
	CREATE UNLOGGED TABLE wrong (a bigint, b bigint, f int, r int, form text, at timestamptz DEFAULT clock_timestamp());
});

# The clients: pgbench, two scripts (the scalar and the array form); a wrong answer is recorded
# in the table "wrong" by the script itself (\gset + \if), an error aborts the client.
my $dir = $node->basedir;
my $check = q{\if (:a = :b and (:f != 1 or :r != 1)) or (:a != :b and :f = :r)};
open my $fh, '>', "$dir/scalar.sql" or die;
print $fh <<"SQL";
\\set a random(1, $n)
\\set b random(1, $n)
SELECT grail.reachable('load', :a, :b)::int AS f, grail.reachable('load', :b, :a)::int AS r \\gset
$check
INSERT INTO wrong (a, b, f, r, form) VALUES (:a, :b, :f, :r, 'scalar');
\\endif
SQL
close $fh;
open $fh, '>', "$dir/array.sql" or die;
print $fh <<"SQL";
\\set a random(1, $n)
\\set b random(1, $n)
SELECT x[1]::int AS f, x[2]::int AS r FROM (SELECT grail.reachable('load', ARRAY[:a, :b]::bigint[], ARRAY[:b, :a]::bigint[]) AS x) s \\gset
$check
INSERT INTO wrong (a, b, f, r, form) VALUES (:a, :b, :f, :r, 'array');
\\endif
SQL
close $fh;

my ($bench_out, $bench_err) = ('', '');
my $bench = IPC::Run::start(
	[ 'pgbench', '-n', '-c', $clients, '-j', ($clients < 2 ? $clients : 2), '-T', $seconds,
	  '-f', "$dir/scalar.sql\@1", '-f', "$dir/array.sql\@1", $node->connstr('postgres') ],
	'>', \$bench_out, '2>', \$bench_err);

# The refresher, in one session, until the clients are done.
my $writer = $node->background_psql('postgres', on_error_stop => 0);
my ($refreshes, $refresh_errors, $version) = (0, 0, 0);
my $t0 = time;
my @refresh_ms;
while (time - $t0 < $seconds)
{
	$version = 1 - $version;
	my $pairs = $version ? 'i + 1, i' : 'i, i + 1';
	my $t1 = time;
	my ($out, $failed) = $writer->query(qq{
		BEGIN;
		DELETE FROM chain;
		INSERT INTO chain SELECT $pairs FROM generate_series(1, $n - 1) i;
		SELECT count(*) FROM (SELECT grail.refresh_graph('load')) x;
		COMMIT});
	if ($failed)
	{
		$refresh_errors++;
		diag "refresh error: $writer->{stderr}";
		$writer->{stderr} = '';
		$writer->query('ROLLBACK');
		$writer->{stderr} = '';
	}
	else
	{
		$refreshes++;
		push @refresh_ms, 1000 * (time - $t1);
	}
}
$writer->quit;
$bench->finish;
my $bench_rc = $bench->result(0);

my ($queries) = $bench_out =~ /number of transactions actually processed: (\d+)/;
my ($failed) = $bench_out =~ /number of failed transactions: (\d+)/;
my ($tps) = $bench_out =~ /tps = ([\d.]+)/;
$queries //= 0;
$failed //= 0;
my @aborted = $bench_err =~ /client \d+ aborted/g;
my $errors = $failed + @aborted;
my $wrong = $node->safe_psql('postgres', 'SELECT count(*) FROM wrong');
my $wrong_rows = $node->safe_psql('postgres', 'SELECT * FROM wrong ORDER BY at LIMIT 10');
@refresh_ms = sort { $a <=> $b } @refresh_ms;
my $median = @refresh_ms ? $refresh_ms[ $#refresh_ms / 2 ] : 0;

diag sprintf('load: %d clients for %d s on a %d-vertex chain: %d checked queries (each a pair and its reverse; %.0f/s), '
	  . '%d refreshes (median %.0f ms), %d wrong answers, %d client errors, %d refresh errors',
	$clients, $seconds, $n, $queries, $tps // 0, $refreshes, $median, $wrong, $errors, $refresh_errors);
diag "pgbench stderr: $bench_err" if $bench_err ne '';
diag "wrong answers (first 10):\n$wrong_rows" if $wrong ne '0';

is($bench_rc, 0, 'pgbench finished cleanly');
is($wrong, '0', 'no wrong answer (never a mixed index)');
is($errors, 0, 'no client error');
is($refresh_errors, 0, 'no refresh error');
cmp_ok($queries, '>', 1000, 'clients made queries');
cmp_ok($refreshes, '>=', 10, 'the graph was refreshed many times meanwhile');
ok(!$node->log_contains('terminated by signal|PANIC|TRAP'), 'no crash in the server log');

# The final index matches the last version.
my $expect = $version ? 'f|t' : 't|f';
is($node->safe_psql('postgres', "SELECT grail.reachable('load', 1, $n), grail.reachable('load', $n, 1)"), $expect,
	'final index is the last version');
# Control: the checker does flag a wrong index. With both chains in the table every distinct
# pair answers (t,t), which the scripts must record as wrong.
$node->safe_psql('postgres', qq{
	TRUNCATE wrong;
	INSERT INTO chain SELECT target, source FROM chain;
	SELECT count(*) FROM (SELECT grail.refresh_graph('load')) x});
$node->command_ok([ 'pgbench', '-n', '-c', 1, '-t', 100, '-f', "$dir/scalar.sql", '-f', "$dir/array.sql",
	$node->connstr('postgres') ], 'control run');
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM wrong'), '>=', 95, 'control: the checker flags (t,t) answers');
$node->stop;
done_testing();
