# Load, in two parts.
# 1. N clients ask reachable() on random pairs for a bounded time while another client refreshes
#    the graph in a loop, alternating the edge table between the chain 1 -> 2 -> ... -> n and the
#    reversed chain (DELETE + INSERT + refresh_graph in one transaction; the graph is not live, so
#    the writes are not logged). Each query asks a pair and its reverse in one statement: (t,f) is
#    one version, (f,t) the other; (t,t) or (f,f) for distinct ids would be a mixed or wrong index.
# 2. A live graph under writes: writers insert and delete edges (some rolled back) while readers
#    ask reachable() (both forms) and scc_component() and check each answer against a recursive
#    query over the rows in the same statement (so the same snapshot), and merges run, by hand
#    and by the background worker. 0 wrong answers, 0 errors.
# Every answer is checked, by the client.
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
$node->append_conf('postgresql.conf', "max_connections = 50\nshared_buffers = 256MB\n"
	  . "shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 200\ngrail.merge_naptime = 1\n");
$node->start;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE chain (source int, target int);
	INSERT INTO chain SELECT i, i + 1 FROM generate_series(1, $n - 1) i;
	SELECT grail.create_graph('load', 'chain', live => false);
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
# Floors that only prove the run checked something: the counts (printed above) depend on the
# machine's speed and load, and a busy machine must not fail this test.
cmp_ok($queries, '>', 0, 'clients made queries');
cmp_ok($refreshes, '>=', 2, 'the graph was refreshed meanwhile');
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

# 2. A live graph under writes. 2,000 islands of ten vertices (island c: 10c .. 10c + 9), each a
# chain at first; a write changes one island, a query asks about one, so that the recursive query
# that checks it stays small.
my $islands = 2000;
$node->safe_psql('postgres', qq{
	TRUNCATE wrong;
	CREATE TABLE islands (source bigint, target bigint);
	CREATE INDEX ON islands (source);
	CREATE INDEX ON islands (target);
	INSERT INTO islands SELECT c * 10 + i, c * 10 + i + 1 FROM generate_series(0, $islands - 1) c, generate_series(0, 8) i;
	SELECT count(*) FROM (SELECT grail.create_graph('islands', 'islands')) x;
});
is($node->safe_psql('postgres', q{SELECT live FROM grail.graphs WHERE name = 'islands'}), 't', 'the graph is live');

# Writers: an edge forward (the island stays a DAG: the overlay answers) or backward (it may close
# a cycle: the backend rebuilds from the rows), a row deleted (which may split a cycle), or both
# in a transaction that rolls back (never seen).
open $fh, '>', "$dir/write.sql" or die;
print $fh <<"SQL";
\\set c random(0, $islands - 1)
\\set i random(0, 9)
\\set j random(0, 9)
\\set op random(1, 10)
\\if :op <= 4
INSERT INTO islands VALUES (:c * 10 + least(:i, :j), :c * 10 + greatest(:i, :j));
\\elif :op <= 8
DELETE FROM islands WHERE ctid IN (SELECT ctid FROM islands WHERE source = :c * 10 + :i LIMIT 1);
\\elif :op = 9
INSERT INTO islands VALUES (:c * 10 + greatest(:i, :j), :c * 10 + least(:i, :j));
\\else
BEGIN;
INSERT INTO islands VALUES (:c * 10 + :j, :c * 10 + :i);
DELETE FROM islands WHERE source = :c * 10 + :i;
ROLLBACK;
\\endif
SQL
close $fh;
# Readers: the graph's answer and the rows' answer in one statement, so in one snapshot.
my $reach_cte = q{(WITH RECURSIVE r(v) AS (SELECT :a::bigint UNION SELECT e.target FROM islands e JOIN r ON e.source = r.v)
	SELECT count(*) FROM r WHERE v = :b)::int};
my $pick = "\\set c random(0, $islands - 1)\n\\set a :c * 10 + random(0, 9)\n\\set b :c * 10 + random(0, 9)\n";
my $flag = "\\if :f != :o\nINSERT INTO wrong (a, b, f, r, form) VALUES (:a, :b, :f, :o, '%s');\n\\endif\n";
my %readers = (
	live_scalar => "SELECT grail.reachable('islands', :a, :b)::int AS f, $reach_cte AS o \\gset\n",
	live_array => "SELECT (grail.reachable('islands', ARRAY[:a]::bigint[], ARRAY[:b]::bigint[]))[1]::int AS f, "
	  . "$reach_cte AS o \\gset\n",
	live_scc => "SELECT grail.scc_component('islands', :a) AS f, (WITH RECURSIVE "
	  . "fw(v) AS (SELECT :a::bigint UNION SELECT e.target FROM islands e JOIN fw ON e.source = fw.v), "
	  . "bw(v) AS (SELECT :a::bigint UNION SELECT e.source FROM islands e JOIN bw ON e.target = bw.v) "
	  . "SELECT min(v) FROM fw WHERE v IN (SELECT v FROM bw)) AS o \\gset\n");
for my $form (sort keys %readers)
{
	open $fh, '>', "$dir/$form.sql" or die;
	print $fh $pick, $readers{$form}, sprintf($flag, $form);
	close $fh;
}
my @read_files = map { ('-f', "$dir/$_.sql") } sort keys %readers;

my $builds_before = $node->safe_psql('postgres', q{SELECT build FROM grail.graph WHERE name = 'islands'});
my ($write_out, $write_err, $read_out, $read_err) = ('', '', '', '');
my $writers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', 2, '-j', 1, '-T', $seconds, '-f', "$dir/write.sql", $node->connstr('postgres') ],
	'>', \$write_out, '2>', \$write_err);
my $readers = IPC::Run::start(
	[ 'pgbench', '-n', '-c', $clients, '-j', ($clients < 2 ? $clients : 2), '-T', $seconds, @read_files,
	  $node->connstr('postgres') ],
	'>', \$read_out, '2>', \$read_err);
# Merges by hand, every second, while the background worker merges past 200 pending changes.
my $merger = $node->background_psql('postgres', on_error_stop => 0);
my ($merges, $merge_errors) = (0, 0);
$t0 = time;
while (time - $t0 < $seconds)
{
	my ($out, $failed) = $merger->query(q{SELECT count(*) FROM (SELECT grail.merge_graph('islands')) x});
	if ($failed)
	{
		$merge_errors++;
		diag "merge error: $merger->{stderr}";
		$merger->{stderr} = '';
	}
	else
	{
		$merges++;
	}
	sleep 1;
}
$merger->quit;
$writers->finish;
$readers->finish;
my $builds = $node->safe_psql('postgres', q{SELECT build FROM grail.graph WHERE name = 'islands'}) - $builds_before;

sub pgbench_summary
{
	my ($out, $err) = @_;
	my ($done) = $out =~ /number of transactions actually processed: (\d+)/;
	my ($failed) = $out =~ /number of failed transactions: (\d+)/;
	my @aborted = $err =~ /client \d+ aborted/g;
	return ($done // 0, ($failed // 0) + @aborted);
}
my ($reads, $read_errors) = pgbench_summary($read_out, $read_err);
my ($writes, $write_errors) = pgbench_summary($write_out, $write_err);
$wrong = $node->safe_psql('postgres', 'SELECT count(*) FROM wrong');
$wrong_rows = $node->safe_psql('postgres', 'SELECT * FROM wrong ORDER BY at LIMIT 10');
diag sprintf('live: %d readers and 2 writers for %d s on %d islands: %d checked queries, %d writes, '
	  . '%d merges by hand and %d in the background, %d wrong answers, %d reader errors, %d writer errors',
	$clients, $seconds, $islands, $reads, $writes, $merges, $builds - $merges, $wrong, $read_errors, $write_errors);
diag "readers' stderr: $read_err" if $read_err ne '';
diag "writers' stderr: $write_err" if $write_err ne '';
diag "wrong answers (first 10):\n$wrong_rows" if $wrong ne '0';
is($wrong, '0', 'live: no wrong answer under writes and merges');
is($read_errors, 0, 'live: no reader error');
is($write_errors, 0, 'live: no writer error');
is($merge_errors, 0, 'live: no merge error');
# Floors that only prove the run checked something: the counts (printed above) depend on the
# machine's speed and load, and a busy machine must not fail this test.
cmp_ok($reads, '>', 0, 'live: readers made queries');
cmp_ok($writes, '>', 0, 'live: writers wrote');
cmp_ok($merges, '>=', 2, 'live: merged by hand meanwhile');
cmp_ok($builds - $merges, '>=', 1, 'live: merged in the background meanwhile');
# The graph after it all answers as a build of the rows.
$node->safe_psql('postgres', q{
	CREATE TABLE islands_now AS SELECT * FROM islands;
	SELECT count(*) FROM (SELECT grail.create_graph('islands_now', 'islands_now')) x;
});
is($node->safe_psql('postgres', qq{
	SELECT count(*) FROM generate_series(0, $islands - 1) c, generate_series(0, 9) i, generate_series(0, 9) j
	WHERE grail.reachable('islands', c * 10 + i, c * 10 + j) <> grail.reachable('islands_now', c * 10 + i, c * 10 + j)}),
	'0', 'live: every pair answers as a fresh build of the rows');
ok(!$node->log_contains('terminated by signal|PANIC|TRAP'), 'live: no crash in the server log');

# Control: the checker flags answers from an old build. Not live, with stale_policy = warn, the
# graph answers from its last build while writes change the rows.
$node->safe_psql('postgres', q{
	SELECT grail.alter_graph('islands', false);
	SELECT count(*) FROM (SELECT grail.refresh_graph('islands')) x;
});
$node->command_ok([ 'pgbench', '-n', '-c', 1, '-t', 1000, '-f', "$dir/write.sql", $node->connstr('postgres') ],
	'control: writes');
{
	local $ENV{PGOPTIONS} = '-c grail.stale_policy=warn -c client_min_messages=error';
	$node->command_ok([ 'pgbench', '-n', '-c', 1, '-t', 1000, @read_files, $node->connstr('postgres') ],
		'control: reads from the old build');
}
cmp_ok($node->safe_psql('postgres', 'SELECT count(*) FROM wrong'), '>=', 1,
	'control: the checker flags answers that miss the writes');
$node->stop;
done_testing();
