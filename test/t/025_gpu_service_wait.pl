# The GPU service serves its connections at once, and a backend under grail.device = auto waits
# for it at most grail.gpu_service_wait. Run with its CPU stand-in (grail.gpu_service =
# cpu_stand_in) and the server's test hook (GRAIL_GPU_SERVER_TEST_HOLD: a reachability request
# waits in the server while that file exists), so that one request can be held while others are
# sent: the others are answered first (order, not timing, is asserted), a batch under auto past the
# wait gets a NOTICE and the CPU's answers, under gpu it waits on until the hold ends or a cancel
# comes, sessions that hang up in the middle leave the server serving, and 16 sessions at once get
# the CPU's answers.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use GrailService;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = GrailService::start_node('gpu_service_wait', qq{
max_connections = 40
});

# Random graphs with cycles, self-loops, duplicate edges, extreme ids and isolated ids in the
# pairs; a text-keyed twin.
$node->safe_psql('postgres', q{
	SELECT setseed(0.25);
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT (random() * 2000)::bigint, (random() * 2000)::bigint FROM generate_series(1, 5000);
	INSERT INTO e SELECT v, v FROM generate_series(1, 2000, 89) v;
	INSERT INTO e SELECT source, target FROM e WHERE source % 40 = 0;
	INSERT INTO e VALUES (-9223372036854775808, 1), (1, 9223372036854775807), (9223372036854775807, -9223372036854775808);
	CREATE TABLE et AS SELECT 'k' || source AS source, 'k' || target AS target FROM e;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e'), grail.create_graph('gt', 'et')) c;
	-- Batches go to the service only with the pairs the backend's labels leave to a search: pairs a
	-- few steps apart along a long path graph (and its text twin) need one.
	CREATE TABLE path AS SELECT g AS source, g + 2 AS target FROM generate_series(1, 60000) g
	                     UNION ALL SELECT g, g + 3 FROM generate_series(1, 60000, 3) g;
	CREATE TABLE patht AS SELECT 'k' || source AS source, 'k' || target AS target FROM path;
	SELECT count(*) FROM (SELECT grail.create_graph('gp', 'path'), grail.create_graph('gpt', 'patht')) c;
	CREATE TABLE pairs AS SELECT (i * 7919 % 60000)::bigint AS a, (i * 7919 % 60000 + i % 61)::bigint AS b FROM generate_series(1, 3000) i;
	INSERT INTO pairs VALUES (NULL, 1), (1, NULL), (-9223372036854775808, 9223372036854775807), (5, 5), (99999, 99999);
});

my $batch = q{SELECT md5(array_to_string(grail.reachable('gp', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null')) FROM pairs};
my $batch_text = q{SELECT md5(array_to_string(grail.reachable('gpt', array_agg('k' || a ORDER BY a, b), array_agg('k' || b ORDER BY a, b)), ',', 'null')) FROM pairs};
my $traversals = q{
	SELECT s, d, (SELECT md5(coalesce(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex), ''))
	              FROM grail.bfs('g', s, NULL, d))
	FROM unnest(array[1, 2, 17, 500, -9223372036854775808, 9223372036854775807, 123456]::bigint[]) s,
	     unnest(array['out', 'in']) d ORDER BY 1, 2;
	SELECT s, (SELECT md5(coalesce(string_agg(format('%s/%s', vertex, depth), ',' ORDER BY depth, vertex), '')) FROM grail.ancestors('gt', s, 3))
	FROM unnest(array['k1', 'k2', 'k17', 'nope']) s ORDER BY 1;
};
my $on_cpu = q{SET grail.device = cpu;};
my $cpu_batch = $node->safe_psql('postgres', "$on_cpu $batch");
my $cpu_batch_text = $node->safe_psql('postgres', "$on_cpu $batch_text");
my $cpu_traversals = $node->safe_psql('postgres', "$on_cpu $traversals");

sub requests
{
	return $node->safe_psql('postgres', q{SELECT coalesce(sum(requests), 0) FROM grail.gpu_service_images()});
}

# 1. A held batch delays no other session's request.
hold_on();
my $held = start_session('held', 'SET grail.device = gpu', 'SET grail.gpu_min_edges = 0', $batch);
ok(waiting('held'), 'a batch is held in the service');
my $before = requests();
is($node->safe_psql('postgres', "SET grail.device = gpu; SET grail.gpu_min_edges = 0; $traversals"), $cpu_traversals,
	'meanwhile another session\'s traversals are answered, equal to the CPU\'s');
cmp_ok(requests() - $before, '>=', 12, 'by the service');
ok(waiting('held'), 'and the held batch still waits');

# 2. Under auto past grail.gpu_service_wait: a NOTICE and the CPU's answers; the held one goes on.
my ($ret, $out, $err) = $node->psql('postgres',
	"SET grail.device = auto; SET grail.gpu_min_edges = 0; SET grail.gpu_service_wait = '200ms'; $batch");
is($out, $cpu_batch, 'auto past the wait: the CPU\'s answers');
like($err, qr/NOTICE:  pg_grail: the reachability searches runs on the CPU: the GPU service did not answer within grail.gpu_service_wait \(200 ms\)/,
	'auto past the wait: a NOTICE says why');
($ret, $out, $err) = $node->psql('postgres',
	"SET grail.device = auto; SET grail.gpu_min_edges = 0; SET grail.gpu_service_wait = 1; $batch_text");
is($out, $cpu_batch_text, 'text keys, auto past a 1 ms wait: the CPU\'s answers');
like($err, qr/did not answer within grail\.gpu_service_wait \(1 ms\)/, 'with its NOTICE');
ok(waiting('held'), 'the held batch still waits');

# 3. Under gpu the wait does not apply: the session waits past it, until a cancel.
my $patient = start_session('patient', 'SET grail.device = gpu', 'SET grail.gpu_min_edges = 0',
	'SET grail.gpu_service_wait = 50', $batch);
ok(waiting('patient'), 'under gpu, a batch waits');
usleep(500_000);
ok(waiting('patient'), 'and still waits past grail.gpu_service_wait');
$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'patient'});
$patient->{h}->finish;
like($patient->{err}, qr/canceling statement due to user request/, 'a cancel ends it');

# 4. Sessions that hang up in the middle (terminated while held): the server serves on.
my @gone = map { start_session("gone$_", 'SET grail.device = gpu', 'SET grail.gpu_min_edges = 0', $batch) } 1 .. 6;
ok(waiting("gone$_"), "session gone$_ is held") for 1 .. 6;
$node->safe_psql('postgres', q{SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'gone%'});
$_->{h}->finish for @gone;
is($node->safe_psql('postgres', "SET grail.device = gpu; SET grail.gpu_min_edges = 0; $traversals"), $cpu_traversals,
	'after the hang-ups, the service answers');

# The hold ends: the first batch is answered, by the service, with the CPU's answers.
hold_off();
$held->{h}->finish;
chomp($held->{out});
is($held->{out}, $cpu_batch, 'the held batch is answered once released, as the CPU answers');
is($held->{err}, '', 'without a notice or an error');
like($node->safe_psql('postgres', 'SELECT grail.device_info()'), qr/restarts 0\)/, 'no server restarted');

# 5. The reversed edges of ancestors() are made by the service, not in the backend: a graph's image
# grows in the service by them (the stand-in counts its host copies) at its first search upstream.
$node->safe_psql('postgres', q{CREATE TABLE e3 AS SELECT g AS source, g + 1 AS target FROM generate_series(1, 5000) g;
	SELECT count(*) FROM (SELECT grail.create_graph('g3', 'e3')) c});
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM grail.descendants('g3', 1)}), '5001', 'descendants through the service');
my $image = q{SELECT device_bytes - host_bytes FROM grail.gpu_service_images() i JOIN grail.graph g ON g.id = i.graph_id WHERE g.name = 'g3'};
is($node->safe_psql('postgres', $image), '0', 'the image holds no reversed edges yet');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*), max(depth) FROM grail.ancestors('g3', 5001)}), '5001|5000',
	'ancestors through the service');
cmp_ok($node->safe_psql('postgres', $image), '>', 0, 'the service made the reversed edges');

# 6. 16 sessions at once, batches and traversals on two graphs, each answer checked against the
# CPU's in the statement (a wrong one divides by zero and fails its transaction).
$node->safe_psql('postgres', qq{SET grail.device = cpu; CREATE TABLE expected AS SELECT '$cpu_batch'::text AS batch,
	'$cpu_batch_text'::text AS batch_text, (SELECT count(*) FROM grail.bfs('g', 1)) AS bfs_rows,
	(SELECT count(*) FROM grail.ancestors('gt', 'k17')) AS anc_rows});
my $script = $node->basedir . '/many.sql';
open(my $s, '>', $script) or die;
print $s qq{SET grail.device = gpu;
SET grail.gpu_min_edges = 0;
SELECT 1 / (($batch) = batch)::int FROM expected;
SELECT 1 / (($batch_text) = batch_text)::int FROM expected;
SELECT 1 / ((SELECT count(*) FROM grail.bfs('g', 1)) = bfs_rows)::int FROM expected;
SELECT 1 / ((SELECT count(*) FROM grail.ancestors('gt', 'k17')) = anc_rows)::int FROM expected;
};
close($s);
$before = requests();
$node->command_ok([ 'pgbench', '-n', '-c', '16', '-j', '4', '-t', '8', '-f', $script, '-d', $node->connstr('postgres') ],
	'16 sessions at once: every answer equal to the CPU\'s');
cmp_ok(requests() - $before, '>=', 16 * 8 * 4, 'every request went to the service');
like($node->safe_psql('postgres', 'SELECT grail.device_info()'), qr/GPU service: running .*restarts 0\)/, 'the server still runs, never restarted');

$node->stop;
done_testing();
