# Batched reachable() through the GPU service's component searches: the backend decides the pairs
# its ids and labels can (most of them), and sends only the undecided ones, as components of the
# build's DAG, for the service to search (it decides nothing again). Run with the CPU stand-in
# (grail.gpu_service = cpu_stand_in); under grail.device = gpu every undecided pair goes to it.
#
# Checked: the answers equal a recursive query over the rows and the CPU's, on graphs whose labels
# leave many pairs to a search (near-DAGs with cycles, self-loops, duplicate rows, extreme ids;
# text and uuid keys; NULLs, unknown keys, an empty batch); the DEBUG1 line reports the search
# apart from the deciding; a graph rebuilt between calls; the server killed (SIGKILL) in the
# middle of a search: under gpu a clean error, under auto a NOTICE and the CPU's answers, the next
# batch through the service again; a cancel in the middle of a search.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use GrailService;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = GrailService::start_node('gpu_service_search', qq{
grail.gpu_min_edges = 0
});

# A near-DAG (edges mostly forward) with a few cycles, self-loops, duplicate rows and extreme ids,
# indexed with one label traversal: many pairs are left to a search. Its text and uuid twins.
$node->safe_psql('postgres', q{
	SELECT setseed(0.31);
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT s, s + 1 + (random() * 40)::bigint FROM (SELECT (random() * 2000)::bigint AS s FROM generate_series(1, 5000)) x;
	INSERT INTO e SELECT v + 30, v FROM generate_series(100, 2000, 173) v;
	INSERT INTO e SELECT v, v FROM generate_series(1, 2000, 97) v;
	INSERT INTO e SELECT source, target FROM e WHERE source % 50 = 0;
	INSERT INTO e VALUES (-9223372036854775808, 1), (2040, 9223372036854775807), (9223372036854775807, -9223372036854775808);
	CREATE TABLE et AS SELECT 'k' || source AS source, 'k' || target AS target FROM e;
	CREATE TABLE eu AS SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM e;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e', labels => 1), grail.create_graph('gt', 'et', labels => 1),
		grail.create_graph('gu', 'eu', labels => 1)) c;
	CREATE TABLE pairs AS SELECT (random() * 2100)::bigint AS a, (random() * 2100)::bigint AS b FROM generate_series(1, 3000);
	INSERT INTO pairs SELECT s, s + k FROM generate_series(1, 2000, 37) s, generate_series(1, 300, 7) k;
	INSERT INTO pairs VALUES (NULL, 1), (1, NULL), (NULL, NULL), (-9223372036854775808, 9223372036854775807),
		(9223372036854775807, 5), (5, 5), (99999, 99999), (99999, 1), (1, 99999), (2100, 1);
	CREATE TABLE sources AS SELECT DISTINCT a FROM pairs WHERE a IS NOT NULL;
	-- The oracle: what each source reaches over the rows (itself included).
	CREATE TABLE reach AS WITH RECURSIVE r(s, v) AS (
		SELECT a, a FROM sources UNION SELECT r.s, e.target FROM r JOIN e ON e.source = r.v)
	SELECT s, v FROM r;
	CREATE TABLE expected AS SELECT p.a, p.b, CASE WHEN p.a IS NULL OR p.b IS NULL THEN NULL
		ELSE r.s IS NOT NULL END AS r FROM pairs p LEFT JOIN reach r ON r.s = p.a AND r.v = p.b;
});

# The answers of one batch (all pairs in one array, a fixed order) as text, under a device setting,
# with the session's messages.
sub batch
{
	my ($device, $graph, $key) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', qq{
		SET grail.device = $device;
		SET client_min_messages = debug1;
		SELECT array_to_string(grail.reachable('$graph', array_agg($key(a) ORDER BY a, b), array_agg($key(b) ORDER BY a, b)), ',', 'null') FROM pairs;
	}, stdout => \$out, stderr => \$err, on_error_die => 1);
	return ($out, $err);
}
my $expected = $node->safe_psql('postgres', q{SELECT array_to_string(array_agg(r ORDER BY a, b), ',', 'null') FROM expected});
$expected =~ s/true/t/g;
$expected =~ s/false/f/g;

$node->safe_psql('postgres', q{CREATE FUNCTION md5_uuid(bigint) RETURNS uuid LANGUAGE sql IMMUTABLE AS 'SELECT md5($1::text)::uuid'});
for my $graph ('g', 'gt', 'gu')
{
	my $key = $graph eq 'gt' ? q{'k' || } : $graph eq 'gu' ? 'md5_uuid' : '';
	my ($cpu) = batch('cpu', $graph, $key);
	is($cpu, $expected, "$graph: the CPU's batch equals the recursive query");
	my ($gpu, $messages) = batch('gpu', $graph, $key);
	is($gpu, $expected, "$graph: through the service's searches, the same answers");
	my ($searched, $total) = $messages =~ /grail\.reachable: (\d+) of (\d+) pairs searched by the GPU service: deciding here [0-9.]+ ms, the search [0-9.]+ ms, the request [0-9.]+ ms/;
	ok(defined $searched && $searched > 0 && $searched < $total,
		"$graph: the service searched only the undecided pairs, reported apart (" . ($searched // 'none') . ' of ' . ($total // '?') . ')');
	my ($auto) = batch('auto', $graph, $key);
	is($auto, $expected, "$graph: under auto, the same answers");
}

# An empty batch and a batch of unknown keys never reach the service, and answer.
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT grail.reachable('g', '{}'::bigint[], '{}'::bigint[])}), '{}', 'an empty batch');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT grail.reachable('g', array[99999, 5, NULL]::bigint[], array[99999, 99998, 5]::bigint[])}),
	'{t,f,NULL}', 'unknown keys and NULLs');

# The graph rebuilt between calls in one session: the next batch names the new image and answers
# for the new rows.
my $session = $node->background_psql('postgres');
$session->query_safe('SET grail.device = gpu');
my $first = $session->query_safe(q{SELECT array_to_string(grail.reachable('g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null') FROM pairs});
is($first, $expected, 'a session: the first batch');
$node->safe_psql('postgres', q{SELECT grail.alter_graph('g', false); INSERT INTO e VALUES (2100, 1); SELECT count(*) FROM (SELECT grail.refresh_graph('g')) r});
my $after = $node->safe_psql('postgres', q{SET grail.device = cpu; SELECT array_to_string(grail.reachable('g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null') FROM pairs});
isnt($after, $expected, 'the rebuild changed answers');
is($session->query_safe(q{SELECT array_to_string(grail.reachable('g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null') FROM pairs}),
	$after, 'the same session after the rebuild: the new build\'s answers');
$session->quit;

# A live graph with pending inserts and deletes (committed, and in the writer's own transaction):
# the pairs whose source reaches no changed edge go through the service, the others the overlay
# answers; every answer equals a recursive query over the rows the snapshot sees.
$node->safe_psql('postgres', q{
	SELECT setseed(0.47);
	CREATE TABLE el (source bigint, target bigint);
	INSERT INTO el SELECT s, s + 1 + (random() * 40)::bigint FROM (SELECT 3 + (random() * 2000)::bigint AS s FROM generate_series(1, 5000)) x;
	INSERT INTO el SELECT v + 30, v FROM generate_series(100, 2000, 173) v;
	INSERT INTO el SELECT v, v FROM generate_series(1, 2000, 97) v;
	INSERT INTO el VALUES (0, 1), (1, 2), (2, 3), (0, 5), (-9223372036854775808, 9223372036854775807);
	SELECT count(*) FROM (SELECT grail.create_graph('lg', 'el', labels => 1)) c;
	CREATE TABLE lpairs AS SELECT (random() * 2100)::bigint AS a, (random() * 2100)::bigint AS b FROM generate_series(1, 3000);
	INSERT INTO lpairs SELECT s, t FROM generate_series(0, 6) s, generate_series(0, 2100, 50) t;
	INSERT INTO lpairs VALUES (99990, 5), (99990, 1900), (2, 99991), (1, 99990), (99991, 99991), (NULL, 3),
		(-9223372036854775808, 9223372036854775807), (9223372036854775807, -9223372036854775808);
});
sub live_batch
{
	my ($changes, $graph_device) = @_;
	my ($out, $err) = ('', '');
	$node->psql('postgres', qq{
		BEGIN;
		$changes
		CREATE TEMP TABLE lsources AS SELECT DISTINCT a FROM lpairs WHERE a IS NOT NULL;
		CREATE TEMP TABLE lreach AS WITH RECURSIVE r(s, v) AS (
			SELECT a, a FROM lsources UNION SELECT r.s, el.target FROM r JOIN el ON el.source = r.v)
		SELECT s, v FROM r;
		SELECT array_to_string(array_agg(CASE WHEN p.a IS NULL OR p.b IS NULL THEN NULL
			ELSE r.s IS NOT NULL END ORDER BY p.a, p.b), ',', 'null') FROM lpairs p LEFT JOIN lreach r ON r.s = p.a AND r.v = p.b;
		SET LOCAL grail.device = cpu;
		SELECT array_to_string(grail.reachable('lg', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null') FROM lpairs;
		SET LOCAL grail.device = $graph_device;
		SET LOCAL client_min_messages = debug1;
		SELECT array_to_string(grail.reachable('lg', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null') FROM lpairs;
		ROLLBACK;
	}, stdout => \$out, stderr => \$err, on_error_die => 1);
	my ($oracle, $cpu, $service) = split /\n/, $out;
	$oracle =~ s/true/t/g;
	$oracle =~ s/false/f/g;
	return ($oracle, $cpu, $service, $err);
}
my @live = (
	[ 'no changes', '' ],
	[ 'uncommitted inserts and a delete', q{INSERT INTO el VALUES (2, 1900), (99990, 5), (1, 99991); DELETE FROM el WHERE source = 0 AND target = 5;} ],
);
$node->safe_psql('postgres', q{INSERT INTO el VALUES (1, 1700), (99992, 4); DELETE FROM el WHERE source = 2 AND target = 3});
push @live, [ 'committed changes', '' ], [ 'committed and uncommitted', q{INSERT INTO el VALUES (3, 2000); DELETE FROM el WHERE source = 1 AND target = 1700;} ];
for my $case (@live)
{
	my ($name, $changes) = @$case;
	for my $device ('gpu', 'auto')
	{
		my ($oracle, $cpu, $service, $messages) = live_batch($changes, $device);
		is($cpu, $oracle, "live, $name: the CPU's batch equals the recursive query");
		is($service, $oracle, "live, $name, $device: through the service, the same");
		if ($device eq 'gpu')
		{
			my ($searched) = $messages =~ /grail\.reachable: (\d+) of \d+ pairs searched by the GPU service/;
			ok(defined $searched && $searched > 0, "live, $name: pairs the changes cannot reach searched by the service (" . ($searched // 'none') . ')');
		}
	}
}

# Each pair eight times: under auto a batch goes to the service only with at least 256 pairs its
# labels leave to a search, and the labels decide all but a few hundred of these pairs.
my $batch_sql = q{SELECT md5(array_to_string(grail.reachable('g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null')) FROM pairs, generate_series(1, 8)};
my $want = $node->safe_psql('postgres', "SET grail.device = cpu; $batch_sql");

# The server killed while it holds a search: under gpu a clean error, under auto the CPU's answers
# with a NOTICE; the next batch goes through the service again.
for my $device ('gpu', 'auto')
{
	my $pid = server_pid();
	hold_on();
	my $victim = start_session("victim_$device", "SET grail.device = $device", 'SET grail.gpu_service_wait = 0', $batch_sql);
	ok(waiting("victim_$device"), "$device: the batch waits for the service's search");
	ok(kill('KILL', $pid), "$device: SIGKILL sent to the server");
	$victim->{h}->finish;
	my ($out, $err) = ($victim->{out}, $victim->{err});
	hold_off();
	chomp $out;
	if ($device eq 'gpu')
	{
		like($err, qr/reachable\(\) could not run on the GPU: the GPU service failed/, 'gpu: a clean error that says why');
		is($out, '', 'gpu: no answer');
	}
	else
	{
		like($err, qr/NOTICE:.*the reachability searches.*CPU/s, 'auto: a NOTICE');
		is($out, $want, 'auto: the CPU\'s answers');
	}
	isnt(server_pid($pid), $pid, "$device: the supervisor started another server");
	my ($answer, $messages) = batch('gpu', 'g', '');
	is($answer, $after, "$device: the next batch answers");
	like($messages, qr/pairs searched by the GPU service/, "$device: through the service again");
}

# A cancel while the service holds the search: the statement is cancelled, the next batch answers.
{
	hold_on();
	my $victim = start_session('victim_cancel', 'SET grail.device = gpu', $batch_sql);
	ok(waiting('victim_cancel'), 'cancel: the batch waits for the service');
	$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim_cancel'});
	$victim->{h}->finish;
	my ($out, $err) = ($victim->{out}, $victim->{err});
	hold_off();
	like($err, qr/canceling statement due to user request/, 'cancel: the statement is cancelled');
	is($node->safe_psql('postgres', "SET grail.device = gpu; $batch_sql"), $want, 'cancel: the next batch answers');
}

done_testing();
