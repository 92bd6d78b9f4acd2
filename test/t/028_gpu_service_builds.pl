# Builds and merges through the GPU service: with the service running, create_graph, refresh_graph,
# merge_graph, a live graph's rebuild in a snapshot and the background merge send their rows to the
# service and adopt what it built, so that no backend makes a CUDA context. Run with its CPU
# stand-in (grail.gpu_service = cpu_stand_in): here no GPU is usable, so under grail.device = gpu a
# build that succeeds went through the service (a backend's own GPU path would refuse). The
# server's test hook (GRAIL_GPU_SERVER_TEST_HOLD) holds a build after its request frame, before its
# rows are read: a large build's backend is then held in the middle of sending them.
#
# Checked: builds through the service answer as CPU builds of the same rows and as a recursive
# query over them (random graphs with cycles, self-loops, duplicate rows, extreme ids; text and
# uuid keys; the empty graph; ids the graph lacks); the server killed (SIGKILL) in the middle of a
# build's rows: under gpu a clean error, under auto a NOTICE and the CPU's build, and the next build
# works; under auto past grail.gpu_service_wait: the CPU's build with a NOTICE; a cancel in the
# middle of the rows; eight sessions building at once; merges by hand and in the background, and a
# live graph's rebuild in a snapshot, through the service.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use GrailService;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

# grail.device = gpu for every session and the merge worker; the sessions that compute the
# expected answers set cpu.
my $node = GrailService::start_node('gpu_service_builds', qq{
grail.device = gpu
grail.gpu_min_edges = 0
grail.merge_threshold = 1000
grail.merge_naptime = 1
max_connections = 40
});
like($node->safe_psql('postgres', 'SELECT grail.device_info()'), qr/^CPU only: /, 'and no GPU is usable in a backend');

# Random edge tables: integer keys (ids at the ends of bigint, cycles, self-loops, duplicate rows,
# a vertex only in a self-loop), their text and uuid twins, and an empty one.
$node->safe_psql('postgres', q{
	SELECT setseed(0.026);
	CREATE TABLE ids (r int, k int, v bigint);
	INSERT INTO ids SELECT r, k, CASE WHEN k = 0 THEN -9223372036854775808 WHEN k = 1 THEN 9223372036854775807
	                                  ELSE (k * 7919 + r * 104729) % 5000 - 2500 END
	FROM generate_series(1, 6) r, generate_series(0, 10 + 6 * r) k;
	CREATE TABLE picks AS SELECT r, floor(random() * (11 + 6 * r))::int AS a, floor(random() * (11 + 6 * r))::int AS b
	FROM generate_series(1, 6) r, generate_series(1, 8 * r + 10) i;
	UPDATE picks SET a = least(a, b), b = greatest(a, b) WHERE r = 3; -- a DAG
	INSERT INTO picks SELECT r, a, b FROM picks WHERE (a + b) % 5 = 0;  -- duplicate rows
	INSERT INTO picks SELECT r, 10 + 6 * r, 10 + 6 * r FROM generate_series(1, 6) r; -- a self-loop only
	INSERT INTO picks SELECT r, 2, 2 FROM generate_series(1, 6) r;
	CREATE FUNCTION make_tables(r int) RETURNS void LANGUAGE plpgsql AS $$
	BEGIN
		EXECUTE format('CREATE TABLE ei%s AS SELECT va.v AS source, vb.v AS target FROM picks p
		                JOIN ids va ON va.r = p.r AND va.k = p.a JOIN ids vb ON vb.r = p.r AND vb.k = p.b
		                WHERE p.r = %s', r, r);
		EXECUTE format('CREATE TABLE et%s AS SELECT ''k'' || source AS source, ''k'' || target AS target FROM ei%s', r, r);
		EXECUTE format('CREATE TABLE eu%s AS SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM ei%s', r, r);
	END $$;
	SELECT make_tables(r) FROM generate_series(1, 6) r;
	CREATE TABLE ei0 (source bigint, target bigint);
});

# The answers of graph g over table t (keys of type typ): every pair of its keys and two keys it
# lacks, by a batch; its components; its counts. Asked on the CPU: the build is what differs.
sub digest
{
	my ($g, $t, $typ, $missing) = @_;
	return $node->safe_psql('postgres', qq{
		SET grail.device = cpu;
		WITH ids AS (SELECT source AS v FROM $t UNION SELECT target FROM $t UNION VALUES $missing),
		     pairs AS (SELECT a.v AS a, b.v AS b FROM ids a, ids b)
		SELECT md5(array_to_string(grail.reachable('$g', array_agg(a ORDER BY a, b), array_agg(b ORDER BY a, b)), ',', 'null'))
		FROM pairs
		UNION ALL
		SELECT md5(coalesce(string_agg(vertex::text || '/' || component::text, ',' ORDER BY vertex), ''))
		FROM grail.scc_components('$g', NULL::$typ)
		UNION ALL
		SELECT format('%s vertices, %s edges, %s components, %s DAG edges', vertices, edges, components, dag_edges)
		FROM grail.graphs WHERE name = '$g'});
}

# The same pairs answered by a recursive query over the rows.
sub oracle
{
	my ($t, $missing) = @_;
	return $node->safe_psql('postgres', qq{
		WITH RECURSIVE ids AS (SELECT source AS v FROM $t UNION SELECT target FROM $t UNION VALUES $missing),
		     walk(a, b) AS (SELECT v, v FROM ids UNION SELECT w.a, e.target FROM walk w JOIN $t e ON e.source = w.b)
		SELECT md5(array_to_string(array_agg(CASE WHEN x.a IS NULL OR y.v IS NULL THEN NULL
		                                          ELSE EXISTS (SELECT 1 FROM walk w WHERE w.a = x.a AND w.b = y.v) END
		                                     ORDER BY x.a, y.v), ',', 'null'))
		FROM (SELECT v AS a FROM ids) x, ids y});
}

my %kinds = (
	i => [ 'bigint', q{(NULL::bigint), (123456789)} ],
	t => [ 'text', q{(NULL::text), ('nope')} ],
	u => [ 'uuid', q{(NULL::uuid), ('00000000-0000-0000-0000-000000000000'::uuid)} ]);

# 1. Builds through the service equal CPU builds and the recursive query.
for my $r (0 .. 6)
{
	for my $k ($r == 0 ? ('i') : ('i', 't', 'u'))
	{
		my ($typ, $missing) = @{ $kinds{$k} };
		my $t = "e$k$r";
		$node->safe_psql('postgres', qq{SET grail.device = cpu; SELECT grail.create_graph('cpu_$t', '$t')});
		my ($rc, $out, $err) = $node->psql('postgres',
			qq{SET grail.device = gpu; SET client_min_messages = notice; SELECT grail.create_graph('svc_$t', '$t')});
		is($rc, 0, "$t: built under gpu, so through the service");
		is($err, '', "$t: without a notice");
		my $cpu = digest("cpu_$t", $t, $typ, $missing);
		is(digest("svc_$t", $t, $typ, $missing), $cpu, "$t: the service's build answers as the CPU's");
		my ($pairs) = split /\n/, $cpu;
		is($pairs, oracle($t, $missing), "$t: and as a recursive query over the rows") if $r <= 3;
	}
}
# Under auto, past grail.gpu_min_edges, and refresh_graph() the same way.
$node->safe_psql('postgres', q{SET grail.device = auto; SELECT grail.refresh_graph('svc_ei5'), grail.refresh_graph('svc_et5')});
is(digest('svc_ei5', 'ei5', @{ $kinds{i} }), digest('cpu_ei5', 'ei5', @{ $kinds{i} }), 'refresh_graph under auto through the service');
is(digest('svc_et5', 'et5', @{ $kinds{t} }), digest('cpu_et5', 'et5', @{ $kinds{t} }), 'and a text graph');

# A build held in the service: proof that builds go there.
hold_on();
my $held = start_session('held', q{SELECT grail.refresh_graph('svc_ei2')});
ok(waiting('held'), 'a refresh_graph() waits for the service while its build is held there');
hold_off();
$held->{h}->finish;
like($held->{out}, qr/svc_ei2/, 'and ends once the hold ends');
is($held->{err}, '', 'without an error');

# 2. The server killed in the middle of a large build's rows (held after the request frame, so the
# backend cannot send them all): under gpu a clean error, under auto a NOTICE and the CPU's build.
$node->safe_psql('postgres', q{
	CREATE TABLE big AS SELECT g::bigint AS source, (g::bigint * 7919 % 300000) AS target FROM generate_series(1, 400000) g;
	INSERT INTO big SELECT target, source FROM big WHERE source % 1000 = 0;
	CREATE TABLE big2 AS SELECT * FROM big; -- a graph's creation locks its table against another's
	CREATE TABLE bigpairs AS SELECT i, (random() * 310000)::bigint AS a, (random() * 310000)::bigint AS b FROM generate_series(1, 20000) i;
	SET grail.device = cpu;
	SELECT grail.create_graph('big_cpu', 'big');
});
# The big graph's answers: 20,000 random pairs, its components, its counts.
sub big_digest
{
	my ($g) = @_;
	return $node->safe_psql('postgres', qq{
		SET grail.device = cpu;
		SELECT md5(array_to_string(grail.reachable('$g', array_agg(a ORDER BY i), array_agg(b ORDER BY i)), ',')) FROM bigpairs
		UNION ALL
		SELECT md5(string_agg(vertex::text || '/' || component::text, ',' ORDER BY vertex)) FROM grail.scc_components('$g')
		UNION ALL
		SELECT format('%s vertices, %s edges, %s components, %s DAG edges', vertices, edges, components, dag_edges)
		FROM grail.graphs WHERE name = '$g'});
}
my $big_cpu = big_digest('big_cpu');
hold_on();
my $pid = server_pid();
my $gpu = start_session('victim_gpu', 'SET grail.gpu_service_wait = 0', q{SELECT grail.create_graph('big_gpu', 'big')});
my $auto = start_session('victim_auto', 'SET grail.device = auto', 'SET grail.gpu_service_wait = 0',
	q{SELECT grail.create_graph('big_auto', 'big2')});
ok(waiting('victim_gpu'), 'gpu: the backend is held sending its rows');
ok(waiting('victim_auto'), 'auto: the backend is held sending its rows');
ok(kill('KILL', $pid), "SIGKILL sent to the server $pid");
$gpu->{h}->finish;
$auto->{h}->finish;
hold_off();
like($gpu->{err}, qr/ERROR:  pg_grail: the graph build could not run on the GPU: the GPU service failed: /,
	'gpu: a clean error that says why');
like($auto->{err}, qr/NOTICE:  pg_grail: the graph build runs on the CPU: the GPU service failed: /,
	'auto: a NOTICE that says why');
is($node->safe_psql('postgres', q{SELECT string_agg(name, ',' ORDER BY name) FROM grail.graphs WHERE name LIKE 'big%'}),
	'big_auto,big_cpu', 'the gpu build made no graph, the auto build one');
is(big_digest('big_auto'), $big_cpu, 'auto: the CPU\'s build');
isnt(server_pid($pid), $pid, 'the supervisor started another server');
$node->safe_psql('postgres', q{SELECT grail.create_graph('big_gpu', 'big')});
is(big_digest('big_gpu'), $big_cpu, 'the next build goes through the new server, equal to the CPU\'s');

# 3. Under auto, a build the service does not take within grail.gpu_service_wait: the CPU's, with
# a NOTICE; the held request is dropped in the server.
hold_on();
my ($rc, $out, $err) = $node->psql('postgres',
	q{SET grail.device = auto; SET grail.gpu_service_wait = '200ms'; SELECT grail.refresh_graph('big_auto')});
hold_off();
is($rc, 0, 'auto past the wait: built');
like($err, qr/NOTICE:  pg_grail: the graph build runs on the CPU: the GPU service did not answer within grail.gpu_service_wait \(200 ms\)/,
	'with its NOTICE');
is(big_digest('big_auto'), $big_cpu, 'the CPU\'s build');

# 4. A cancel in the middle of the rows (gpu waits past any wait): the statement ends, the graph
# keeps its build, the server serves on.
my $uuid_before = $node->safe_psql('postgres', q{SELECT build_uuid FROM grail.graph WHERE name = 'big_gpu'});
hold_on();
my $patient = start_session('patient', 'SET grail.gpu_service_wait = 50', q{SELECT grail.refresh_graph('big_gpu')});
ok(waiting('patient'), 'a held build under gpu waits past grail.gpu_service_wait');
$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'patient'});
$patient->{h}->finish;
hold_off();
like($patient->{err}, qr/canceling statement due to user request/, 'a cancel ends it');
is($node->safe_psql('postgres', q{SELECT build_uuid FROM grail.graph WHERE name = 'big_gpu'}), $uuid_before,
	'the graph keeps its build');
$node->safe_psql('postgres', q{SELECT grail.refresh_graph('big_gpu')});
is(big_digest('big_gpu'), $big_cpu, 'the next build works');

# 5. Eight sessions building at once, each its own graphs (the same tables as above).
my @many = map {
	my $r = 1 + $_ % 6;
	start_session("many$_", qq{SELECT grail.create_graph('par${_}_ei$r', 'ei$r')},
		qq{SELECT grail.create_graph('par${_}_et$r', 'et$r')})
} 0 .. 7;
$_->{h}->finish for @many;
is(join('', map { $_->{err} } @many), '', 'eight sessions built at once without an error');
for my $i (0 .. 7)
{
	my $r = 1 + $i % 6;
	is(digest("par${i}_ei$r", "ei$r", @{ $kinds{i} }) . digest("par${i}_et$r", "et$r", @{ $kinds{t} }),
		digest("cpu_ei$r", "ei$r", @{ $kinds{i} }) . digest("cpu_et$r", "et$r", @{ $kinds{t} }),
		"session $i: its builds answer as the CPU's");
}

# 6. A live graph: pending inserts and deletes (a rebuild in the snapshot for bfs()), a merge by hand,
# then a background merge held in the service until released.
$node->safe_psql('postgres', q{
	CREATE TABLE lv AS SELECT * FROM ei6;
	SELECT grail.create_graph('lv', 'lv');
	INSERT INTO lv VALUES (9223372036854775807, -9223372036854775808), (77, 78), (78, 77), (5, 5);
	DELETE FROM lv WHERE ctid IN (SELECT ctid FROM lv WHERE source % 3 = 0 LIMIT 5);
});
my $bfs = q{SELECT md5(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex)) FROM grail.bfs('lv', s)};
my $bfs_all = qq{SELECT string_agg(($bfs), ',' ORDER BY s) FROM (SELECT DISTINCT source AS s FROM lv) x};
my $fresh = sub {
	$node->safe_psql('postgres', q{SET grail.device = cpu; SELECT grail.drop_graph('lv_cpu')})
		if $node->safe_psql('postgres', q{SELECT count(*) FROM grail.graphs WHERE name = 'lv_cpu'}) eq '1';
	$node->safe_psql('postgres', q{SET grail.device = cpu; SELECT grail.create_graph('lv_cpu', 'lv', live => false)});
	return $node->safe_psql('postgres', qq{SET grail.device = cpu; SELECT string_agg((SELECT md5(string_agg(format('%s/%s/%s', vertex, depth, parent), ',' ORDER BY depth, vertex)) FROM grail.bfs('lv_cpu', s)), ',' ORDER BY s) FROM (SELECT DISTINCT source AS s FROM lv) x});
};
my $want = $fresh->();
# bfs() over pending changes rebuilds the graph in the snapshot: that build goes to the service
# (held there to see it); the search of a snapshot's private build stays in the backend, so auto.
hold_on();
my $rebuild = start_session('rebuild', 'SET grail.device = auto', 'SET grail.gpu_service_wait = 0', $bfs_all);
ok(waiting('rebuild'), 'a rebuild in the snapshot waits for the service (held there)');
hold_off();
$rebuild->{h}->finish;
is($rebuild->{out}, "$want\n", 'bfs() over pending changes, rebuilt in the snapshot through the service');
is($rebuild->{err}, '', 'without a notice');
like($node->safe_psql('postgres', q{SELECT grail.merge_graph('lv')}), qr/lv/, 'merge_graph() under gpu');
is($node->safe_psql('postgres', q{SELECT pending_changes FROM grail.graphs WHERE name = 'lv'}), '0', 'nothing pending');
is(digest('lv', 'lv', @{ $kinds{i} }), digest('lv_cpu', 'lv', @{ $kinds{i} }), 'the merged build answers as the CPU\'s');

hold_on();
$node->safe_psql('postgres', q{INSERT INTO lv SELECT g, g + 1 FROM generate_series(100000, 101499) g});
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'pg_grail merge worker' AND wait_event_type = 'Extension'}),
	'the background merge waits for the service (held there)');
cmp_ok($node->safe_psql('postgres', q{SELECT pending_changes FROM grail.graphs WHERE name = 'lv'}), '>=', 1500,
	'its changes stay pending meanwhile');
hold_off();
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.graphs WHERE name = 'lv'}),
	'released, the background merge ends');
$want = $fresh->();
is($node->safe_psql('postgres', $bfs_all), $want, 'the background merge\'s build answers as the CPU\'s');
is(digest('lv', 'lv', @{ $kinds{i} }), digest('lv_cpu', 'lv', @{ $kinds{i} }), 'every pair and component too');

like($node->safe_psql('postgres', 'SELECT grail.device_info()'), qr/GPU service: running .*restarts 1\)/,
	'one restart: the kill');
$node->stop;
done_testing();
