# The GPU service (docs/architecture.md, The GPU service), run with its CPU stand-in
# (grail.gpu_service = cpu_stand_in) so that it runs without a GPU: bfs(), descendants(),
# ancestors() and reachable(g, a[], b[]) sent to it answer as grail.device = cpu does; a server
# killed with SIGKILL in the middle of a request gives the backend a clean error (gpu) or a NOTICE
# and the CPU's answer (auto), its session and the others go on, the postmaster does not restart,
# and the supervisor starts the server again; a memory limit below one image evicts and still
# answers; without the preload (or with the service off) nothing changes and device_info() says why.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('gpu_service');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.gpu_service = cpu_stand_in
});
$node->start;

$node->safe_psql('postgres', q{CREATE EXTENSION pg_grail});
ok($node->poll_query_until('postgres', q{SELECT grail.device_info() LIKE '%GPU service: running (server pid %, executor cpu stand-in, restarts 0)%'}),
	'device_info() shows the service running with the stand-in');

# Random graphs with cycles, self-loops, duplicate edges, extreme ids; their text-keyed twin; and a
# long path (a big bfs answer, many chunks).
$node->safe_psql('postgres', q{
	SELECT setseed(0.26);
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT (random() * 3000)::bigint, (random() * 3000)::bigint FROM generate_series(1, 9000);
	INSERT INTO e SELECT v, v FROM generate_series(1, 3000, 97) v;
	INSERT INTO e SELECT source, target FROM e WHERE source % 50 = 0;
	INSERT INTO e VALUES (-9223372036854775808, 1), (1, 9223372036854775807), (9223372036854775807, -9223372036854775808);
	CREATE TABLE et AS SELECT 'k' || source AS source, 'k' || target AS target FROM e;
	CREATE TABLE path (source bigint, target bigint);
	INSERT INTO path SELECT g, g + 1 FROM generate_series(1, 300000) g;
	INSERT INTO path SELECT g, g + 2 FROM generate_series(1, 300000) g;
	INSERT INTO path SELECT g, g + 3 FROM generate_series(1, 300000, 3) g;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e'), grail.create_graph('gt', 'et'),
		grail.create_graph('big', 'path')) c;
	CREATE TABLE pairs AS SELECT (random() * 3100)::bigint AS a, (random() * 3100)::bigint AS b FROM generate_series(1, 2000);
	INSERT INTO pairs VALUES (NULL, 1), (1, NULL), (-9223372036854775808, 9223372036854775807), (5, 5), (99999, 99999);
});

# Every answer of the traversals and of a reachable() batch, as text, under a device setting.
sub answers
{
	my ($device) = @_;
	return $node->safe_psql('postgres', qq{
		SET grail.device = $device;
		SET grail.gpu_min_edges = 0;
		SELECT s, d, (SELECT md5(coalesce(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex), ''))
		              FROM grail.bfs('g', s, NULL, d))
		FROM unnest(array[1, 2, 17, 500, 2999, -9223372036854775808, 9223372036854775807, 123456]::bigint[]) s,
		     unnest(array['out', 'in']) d ORDER BY 1, 2;
		SELECT s, (SELECT md5(coalesce(string_agg(format('%s/%s', vertex, depth), ',' ORDER BY depth, vertex), '')) FROM grail.descendants('g', s, 3)),
		          (SELECT md5(coalesce(string_agg(format('%s/%s', vertex, depth), ',' ORDER BY depth, vertex), '')) FROM grail.ancestors('g', s))
		FROM unnest(array[1, 2, 17, 500]::bigint[]) s ORDER BY 1;
		SELECT s, (SELECT md5(coalesce(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex), ''))
		           FROM grail.bfs('gt', s, 4))
		FROM unnest(array['k1', 'k2', 'k17', 'nope']) s ORDER BY 1;
		SELECT count(*), sum(depth), sum(parent) FROM grail.bfs('big', 1);
		SELECT md5(array_to_string(grail.reachable('g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null')) FROM pairs;
		SELECT md5(array_to_string(grail.reachable('gt', array_agg('k' || a ORDER BY a, b), array_agg('k' || b ORDER BY a, b)), ',', 'null')) FROM pairs;
		SELECT md5(string_agg(format('%s/%s', vertex, component), ',' ORDER BY vertex)) FROM grail.scc_components('g');
		-- Pairs on the long path graph that the labels leave to a search: only those go to the service.
		SELECT md5(array_to_string(grail.reachable('big', array_agg(i * 7919 % 300000), array_agg(i * 7919 % 300000 + i % 61)), ','))
		FROM generate_series(1, 5000) i;
	});
}

my $cpu = answers('cpu');
my $big_count = $node->safe_psql('postgres', q{SELECT count(*) FROM grail.bfs('big', 1)});
my $requests_before = $node->safe_psql('postgres', q{SELECT coalesce(sum(requests), 0) FROM grail.gpu_service_images()});
is(answers('gpu'), $cpu, 'under gpu, through the service: the answers of grail.device = cpu');
my $requests_gpu = $node->safe_psql('postgres', q{SELECT coalesce(sum(requests), 0) FROM grail.gpu_service_images()});
# The traversals, and the one batch with pairs left to a search (the others' pairs are all decided
# in the backend, by the labels).
cmp_ok($requests_gpu - $requests_before, '>=', 27, 'the service answered them');
is(answers('auto'), $cpu, 'under auto, through the service: the same answers');
cmp_ok($node->safe_psql('postgres', q{SELECT coalesce(sum(requests), 0) FROM grail.gpu_service_images()}) - $requests_gpu,
	'>=', 20, 'the service answered those too');
is($node->safe_psql('postgres', q{SELECT count(*), bool_and(host_bytes > 0 AND device_bytes >= host_bytes AND requests > 0 AND last_used <= now())
	FROM grail.gpu_service_images() i JOIN grail.graph g ON g.id = i.graph_id AND g.build_uuid = i.build_uuid}),
	'3|t', 'gpu_service_images() lists the three resident builds');

# Another database's graphs go to the same service; each database sees only its own images.
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', q{CREATE EXTENSION pg_grail; CREATE TABLE e AS SELECT g AS source, g + 1 AS target FROM generate_series(1, 100) g;
	SELECT count(*) FROM (SELECT grail.create_graph('o', 'e')) c});
is($node->safe_psql('other', q{SET grail.device = gpu; SELECT count(*) FROM grail.bfs('o', 1)}), '101', 'another database: through the service');
is($node->safe_psql('other', 'SELECT count(*) FROM grail.gpu_service_images()'), '1', 'another database sees its one image');
is($node->safe_psql('postgres', 'SELECT count(*) FROM grail.gpu_service_images()'), '3', 'and this one its three');

# A live graph's snapshot rebuild (pending changes) is no shared image: it keeps the local path, and
# answers from the rows the snapshot sees.
$node->safe_psql('postgres', q{CREATE TABLE e2 AS SELECT * FROM e; SELECT count(*) FROM (SELECT grail.create_graph('lg', 'e2')) c;
	SELECT grail.alter_graph('lg', true); INSERT INTO e2 VALUES (2999, -5), (-5, 77777)});
is($node->safe_psql('postgres', q{SET grail.device = auto; SET grail.gpu_min_edges = 0; SELECT string_agg(vertex::text, ',' ORDER BY depth, vertex) FROM grail.descendants('lg', -5)}),
	'-5,77777', 'a live graph with pending changes answers from its rows');
is($node->safe_psql('postgres', q{SET grail.device = auto; SET grail.gpu_min_edges = 0; SELECT grail.reachable('lg', array[2999, 1, -5]::bigint[], array[77777, 77777, 2999]::bigint[])}),
	'{t,' . $node->safe_psql('postgres', q{SELECT grail.reachable('g', 1, 2999)}) . ',f}',
	'a batch over pending changes answers from its rows');

# Kill the server in the middle of a request: it is stopped first, so that the request is surely in
# flight (sent, unanswered) when SIGKILL comes.
my $start_time = $node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()');
my $bystander = $node->background_psql('postgres');
my $bystander_pid = $bystander->query_safe('SELECT pg_backend_pid()');

sub server_pid
{
	my $pid;
	$node->poll_query_until('postgres', q{SELECT grail.device_info() LIKE '%GPU service: running%'})
		or die 'the service does not run';
	($pid) = $node->safe_psql('postgres', 'SELECT grail.device_info()') =~ /server pid (\d+)/;
	return $pid;
}

sub kill_mid_request
{
	my ($what, $device) = @_;
	my $pid = server_pid();
	ok(kill('STOP', $pid), "$what: server $pid stopped");
	# Each -c its own statement: a failed one leaves the session and the next ones.
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres') . ' application_name=victim',
		  '-c', "SET grail.device = $device", '-c', 'SET grail.gpu_min_edges = 0', '-c', 'SET grail.gpu_service_wait = 0',
		  '-c', 'SELECT pg_backend_pid()',
		  '-c', q{SELECT count(*), sum(depth) FROM grail.bfs('big', 1)}, '-c', 'SELECT pg_backend_pid()',
		  '-c', q{SELECT count(*) FROM grail.bfs('big', 1)} ],
		'<', \$in, '>', \$out, '2>', \$err);
	ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'victim' AND wait_event_type = 'Extension'}),
		"$what: the backend waits for the service");
	ok(kill('KILL', $pid), "$what: SIGKILL sent to the server");
	$h->finish;
	return ($h->result(0), $out, $err, $pid);
}

my ($rc, $out, $err, $killed) = kill_mid_request('gpu', 'gpu');
like($err, qr/ERROR:  pg_grail: bfs\(\) could not run on the GPU: the GPU service failed: /, 'gpu: a clean error saying why');
unlike($err, qr/server closed the connection|terminated abnormally/, 'gpu: the backend did not crash');
my @lines = split /\n/, $out;
is(scalar(@lines), 3, 'gpu: the bfs failed alone') or diag($out);
is($lines[0], $lines[1], 'gpu: the session went on');
is($lines[2], $big_count, 'gpu: its next request worked once the server was back');

my $pid2 = server_pid();
isnt($pid2, $killed, 'the supervisor started a new server');
like($node->safe_psql('postgres', 'SELECT grail.device_info()'), qr/restarts 1\)/, 'device_info() counts the restart');

($rc, $out, $err, $killed) = kill_mid_request('auto', 'auto');
is($rc, 0, 'auto: the statements succeeded');
like($err, qr/NOTICE:  pg_grail: bfs\(\) runs on the CPU: the GPU service failed: /, 'auto: a NOTICE says the CPU answered');
my $expected = $node->safe_psql('postgres', q{SET grail.device = cpu; SELECT count(*), sum(depth) FROM grail.bfs('big', 1)});
@lines = split /\n/, $out;
is_deeply([ @lines[1, 3] ], [ $expected, $big_count ], 'auto: the CPU answer, then the service again') or diag($out);
is($lines[0], $lines[2], 'auto: one session');

is($bystander->query_safe('SELECT pg_backend_pid()'), $bystander_pid, 'another session was untouched');
is($node->safe_psql('postgres', 'SELECT pg_postmaster_start_time()'), $start_time, 'the postmaster did not restart');
server_pid();
is(answers('gpu'), $cpu, 'after the restarts, the service answers as the CPU does');
$bystander->quit;

# A cancel closes the connection; the server drops the request and serves the next.
{
	my $pid = server_pid();
	kill('STOP', $pid);
	my ($in, $o, $e) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres') . ' application_name=canceller', '-c',
		  q{SET grail.device = gpu; SET grail.gpu_min_edges = 0; SELECT count(*) FROM grail.bfs('big', 1)} ],
		'<', \$in, '>', \$o, '2>', \$e);
	$node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'canceller' AND wait_event_type = 'Extension'});
	$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'canceller'});
	$h->finish;
	like($e, qr/canceling statement due to user request/, 'a cancel ends the wait for the service');
	kill('CONT', $pid);
	is($node->safe_psql('postgres', q{SET grail.device = gpu; SET grail.gpu_min_edges = 0; SELECT count(*) FROM grail.bfs('big', 1)}),
		$big_count, 'the same server answers the next request');
	is(server_pid(), $pid, 'without a restart');
}

# A memory limit below one image: each request still answers, nothing stays resident.
$node->append_conf('postgresql.conf', "grail.gpu_memory_limit = 1\n");
$node->restart;
server_pid();
is(answers('gpu'), $cpu, 'with a memory limit below one image: the same answers');
is($node->safe_psql('postgres', q{SELECT coalesce(sum(device_bytes), 0) <= 1048576 FROM grail.gpu_service_images()}), 't',
	'and what stays resident is within the limit');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.gpu_service_images() i JOIN grail.graph g ON g.id = i.graph_id WHERE g.name = 'big'}), '0',
	'the graph larger than the limit was evicted after its answer');

# The service off.
$node->adjust_conf('postgresql.conf', 'grail.gpu_memory_limit', undef);
$node->adjust_conf('postgresql.conf', 'grail.gpu_service', 'off');
$node->restart;
ok($node->poll_query_until('postgres', q{SELECT grail.device_info() LIKE '%GPU service: off: grail.gpu_service is off'}),
	'device_info() says the service is off');
is(answers('cpu'), $cpu, 'with the service off: the CPU answers');

# Without the preload: as before, and device_info() says why there is no service.
$node->adjust_conf('postgresql.conf', 'grail.gpu_service', undef);
$node->adjust_conf('postgresql.conf', 'shared_preload_libraries', "''");
$node->restart;
like($node->safe_psql('postgres', 'SELECT grail.device_info()'),
	qr/^CPU only: .*; GPU service: not running: pg_grail is not in shared_preload_libraries$/, 'device_info() says why there is no service');
my ($ret, $stdout, $stderr) = $node->psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM grail.bfs('big', 1)});
like($stderr, qr/grail.device is gpu, but no GPU is usable/, 'without the service, gpu without a GPU is the error it was');
is($node->safe_psql('postgres', 'SELECT count(*) FROM grail.gpu_service_images()'), '0', 'gpu_service_images() is empty');
is(answers('auto'), $cpu, 'and auto answers on the CPU');

$node->stop;
done_testing();
