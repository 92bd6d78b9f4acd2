# Chordless cycles through the GPU service, with its CPU stand-in (grail.gpu_service = cpu_stand_in):
# under grail.device = gpu (and auto) chordless_cycles() and chordless_cycle_counts() go to the
# service, which streams the cycles as it finds them; the backend opens no engine of its own.
#
# Checked: the cycles and counts equal a recursive query over the rows (induced paths closed into
# cycles) and the CPU's, on a graph with cycles, self-loops, duplicate rows, isolated vertices and
# extreme ids, its text and uuid twins, length ranges, a graph of self-loops only, NULL arguments;
# the service's request counter moves; a LIMIT and a closed cursor end the request in the server
# (its connection threads go back to none) while a cursor left open keeps one; the server killed
# (SIGKILL) before the first cycle: under gpu a clean error, under auto a NOTICE and the CPU's rows;
# killed in the middle of the rows: an error under either (rows returned are not taken back); a
# cancel; the next call through the service again after each.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use GrailService;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = GrailService::start_node('gpu_service_chordless', qq{
grail.gpu_min_edges = 0
});

# A small random graph (induced paths stay few enough for the recursive query), with self-loops,
# duplicate rows, both directions, a vertex with a self-loop only, a triangle through both extreme
# ids; its text and uuid twins; a graph of self-loops only; K200,200 (396 million chordless
# 4-cycles, more than any test could list, found one after the other).
$node->safe_psql('postgres', q{
	SELECT setseed(0.35);
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT a, b FROM (SELECT (random() * 18)::bigint AS a, (random() * 18)::bigint AS b FROM generate_series(1, 34)) x;
	INSERT INTO e SELECT target, source FROM e WHERE source % 4 = 0;
	INSERT INTO e SELECT source, target FROM e WHERE target % 5 = 0;
	INSERT INTO e VALUES (3, 3), (40, 40), (-9223372036854775808, 1), (1, 9223372036854775807),
		(9223372036854775807, -9223372036854775808), (9223372036854775807, 9223372036854775807);
	CREATE TABLE et AS SELECT 'k' || source AS source, 'k' || target AS target FROM e;
	CREATE TABLE eu AS SELECT md5(source::text)::uuid AS source, md5(target::text)::uuid AS target FROM e;
	CREATE TABLE loops (source bigint, target bigint);
	INSERT INTO loops VALUES (1, 1), (2, 2), (2, 2);
	CREATE TABLE kb (source bigint, target bigint);
	INSERT INTO kb SELECT a, 1000 + b FROM generate_series(1, 200) a, generate_series(1, 200) b;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e'), grail.create_graph('gt', 'et'),
		grail.create_graph('gu', 'eu'), grail.create_graph('gl', 'loops'), grail.create_graph('kb', 'kb')) c;
	CREATE FUNCTION md5_uuid(bigint) RETURNS uuid LANGUAGE sql IMMUTABLE AS 'SELECT md5($1::text)::uuid';
	-- The oracle: the undirected simple view, then induced paths from each vertex through larger
	-- ones only (a vertex may join a path when it is adjacent to no vertex of it but the last; one
	-- adjacent to the first too closes a cycle), each cycle once (its second vertex below its last).
	CREATE TABLE u AS SELECT DISTINCT a, b FROM (SELECT source AS a, target AS b FROM e UNION ALL SELECT target, source FROM e) x WHERE a <> b;
	CREATE TABLE oracle AS WITH RECURSIVE p(path, last, closed) AS (
		SELECT ARRAY[a], a, false FROM (SELECT DISTINCT a FROM u) s
		UNION ALL
		SELECT p.path || u.b, u.b, cardinality(p.path) >= 2 AND EXISTS (SELECT 1 FROM u x WHERE x.a = u.b AND x.b = p.path[1])
		FROM p JOIN u ON u.a = p.last
		WHERE NOT p.closed AND u.b > p.path[1] AND u.b <> ALL (p.path)
			AND NOT EXISTS (SELECT 1 FROM u y WHERE y.a = u.b AND y.b = ANY (p.path[2:cardinality(p.path) - 1])))
	SELECT path AS cycle FROM p WHERE closed AND path[2] < path[cardinality(path)];
});
my $cycles = $node->safe_psql('postgres', q{SELECT count(*) FROM oracle});
ok($cycles > 5, "the graph has chordless cycles ($cycles)");
ok($node->safe_psql('postgres', q{SELECT count(*) FROM oracle WHERE -9223372036854775808 = ANY (cycle) AND 9223372036854775807 = ANY (cycle)}) == 1,
	'one of them through both extreme ids');

# Rows as text: bigint cycles as they come (ids in canonical order), text and uuid ones as their
# sorted vertex sets (a chordless cycle is its vertex set), all sorted.
sub rows_of
{
	my ($device, $sql, $sorted) = @_;
	my $row = $sorted ? q{(SELECT array_agg(x ORDER BY x) FROM unnest(c) x)::text} : 'c::text';
	my ($out, $err) = ('', '');
	$node->psql('postgres', qq{
		SET grail.device = $device;
		SELECT string_agg($row, ';' ORDER BY $row) FROM ($sql) r(c);
	}, stdout => \$out, stderr => \$err, on_error_die => 1);
	return ($out, $err);
}
sub oracle_rows
{
	my ($map, $where, $sorted) = @_;
	my $row = $sorted ? "(SELECT array_agg($map(x) ORDER BY $map(x)) FROM unnest(cycle) x)" : 'cycle';
	return $node->safe_psql('postgres', qq{
		SELECT string_agg(c::text, ';' ORDER BY c::text) FROM (SELECT $row AS c FROM oracle WHERE $where) r});
}
sub service_requests
{
	return $node->safe_psql('postgres', q{SELECT coalesce(sum(requests), 0) FROM grail.gpu_service_images()});
}

my $expected = $node->safe_psql('postgres', q{SELECT string_agg(cycle::text, ';' ORDER BY cycle::text) FROM oracle});
for my $case (['g', '', 'chordless_cycles(\'g\')'], ['gt', q{'k' || }, q{chordless_cycles('gt', NULL::text)}],
	['gu', 'md5_uuid', q{chordless_cycles('gu', NULL::uuid)}])
{
	my ($graph, $map, $call) = @$case;
	my $sorted = $graph ne 'g';
	my $want = oracle_rows($map, 'true', $sorted);
	my ($cpu) = rows_of('cpu', "SELECT grail.$call", $sorted);
	is($cpu, $want, "$graph: the CPU's cycles equal the recursive query");
	my $before = service_requests();
	my ($gpu) = rows_of('gpu', "SELECT grail.$call", $sorted);
	is($gpu, $want, "$graph: through the service, the same cycles");
	cmp_ok(service_requests(), '>', $before, "$graph: the service answered");
	my ($auto) = rows_of('auto', "SELECT grail.$call", $sorted);
	is($auto, $want, "$graph: under auto, the same");
	# Lengths 4 to 5.
	my $ranged = $call =~ s/\)$/, 4, 5)/r;
	my ($range) = rows_of('gpu', "SELECT grail.$ranged", $sorted);
	is($range, oracle_rows($map, 'cardinality(cycle) BETWEEN 4 AND 5', $sorted), "$graph: lengths 4 to 5 through the service");
	# Counts (any key type).
	$before = service_requests();
	is($node->safe_psql('postgres', qq{SET grail.device = gpu; SELECT string_agg(length || ':' || cycles, ',' ORDER BY length) FROM grail.chordless_cycle_counts('$graph')}),
		$node->safe_psql('postgres', q{SELECT string_agg(l || ':' || n, ',' ORDER BY l) FROM (SELECT cardinality(cycle) l, count(*) n FROM oracle GROUP BY 1) x}),
		"$graph: the counts through the service");
	cmp_ok(service_requests(), '>', $before, "$graph: the service counted them");
}
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT string_agg(length || ':' || cycles, ',' ORDER BY length) FROM grail.chordless_cycle_counts('g', 4)}),
	$node->safe_psql('postgres', q{SELECT string_agg(l || ':' || n, ',' ORDER BY l) FROM (SELECT cardinality(cycle) l, count(*) n FROM oracle WHERE cardinality(cycle) <= 4 GROUP BY 1) x}),
	'counts to length 4 through the service');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles('gl')) c}), '0',
	'a graph of self-loops only: no cycle');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM grail.chordless_cycle_counts('gl')}), '0',
	'a graph of self-loops only: no counts');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles(NULL)) c}), '0', 'a NULL graph: no rows');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles('g', NULL::int)) c}), '0', 'a NULL min_length: no rows');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles('g', 3, NULL::int)) c}), $cycles, 'a NULL max_length: no limit');
my ($out, $err) = ('', '');
$node->psql('postgres', q{SET grail.device = gpu; SELECT grail.chordless_cycles('g', 2)}, stdout => \$out, stderr => \$err);
like($err, qr/min_length must be at least 3/, 'min_length 2: refused before any request');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles('g', 3, 2147483647)) c}), $cycles,
	'the largest max_length: every cycle');
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles('g', 2147483647)) c}), '0',
	'the largest min_length: none');
# A role that may not read the edge columns gets the same error as on the CPU, before any request.
$node->safe_psql('postgres', q{CREATE ROLE reader LOGIN; GRANT USAGE ON SCHEMA grail TO reader});
my $before_denied = service_requests();
$node->psql('postgres', q{SET ROLE reader; SET grail.device = gpu; SELECT grail.chordless_cycles('g')}, stdout => \$out, stderr => \$err);
like($err, qr/permission denied for column "source" of table "e"/, 'no SELECT on the edge columns: refused');
is(service_requests(), $before_denied, 'no request reached the service');

# The server's connection threads (its main thread aside): a request being answered holds one.
sub threads
{
	my $pid = server_pid();
	open(my $f, '<', "/proc/$pid/status") or die "no status of $pid: $!";
	my ($n) = join('', <$f>) =~ /^Threads:\s+(\d+)/m;
	close($f);
	return $n;
}
sub threads_become
{
	my ($want) = @_;
	for (1 .. 500)
	{
		return 1 if threads() == $want;
		select(undef, undef, undef, 0.02);
	}
	return 0;
}
my $idle = threads();

# A LIMIT in the select list: the rows come as the enumeration finds them, and the request ends in
# the server when the statement stops asking.
is($node->safe_psql('postgres', q{SET grail.device = gpu; SELECT count(*) FROM (SELECT grail.chordless_cycles('kb') LIMIT 7) c}), '7',
	'LIMIT 7 on K200,200: seven cycles');
ok(threads_become($idle), 'after the LIMIT, the request has ended in the server');
my $first = q{SELECT string_agg(c::text, ';') FROM (SELECT grail.chordless_cycles('kb') LIMIT 3000) r(c)};
my $first_cpu = $node->safe_psql('postgres', "SET grail.device = cpu; $first");
like($first_cpu, qr/^\{1,1199,200,1200\};/, 'the CPU\'s first cycles, in canonical form');
is($node->safe_psql('postgres', "SET grail.device = gpu; $first"), $first_cpu, 'the first 3,000 cycles through the service: the same, in the same order');
ok(threads_become($idle), 'after them, the request has ended in the server');

# A cursor: one request held open while the cursor is, ended when it closes.
my $session = $node->background_psql('postgres');
$session->query_safe(q{SET grail.device = gpu});
$session->query_safe(q{BEGIN});
$session->query_safe(q{DECLARE c CURSOR FOR SELECT grail.chordless_cycles('kb')});
my $fetched = $session->query_safe(q{FETCH 3 FROM c});
is(scalar(split /\n/, $fetched), 3, 'a cursor: three cycles');
ok(threads_become($idle + 1), 'the open cursor holds its request in the server');
$session->query_safe(q{FETCH 1000 FROM c});
ok(threads_become($idle + 1), 'still one request after more rows');
$session->query_safe(q{CLOSE c});
ok(threads_become($idle), 'closing the cursor ends the request');
$session->query_safe(q{COMMIT});

# The server killed in the middle of a cursor's rows: the next fetch that needs the service errs,
# under gpu and auto alike (the rows already returned cannot be taken back), and the next call goes
# to the restarted server.
$session->quit;
$session = $node->background_psql('postgres', on_error_stop => 0);
for my $device ('gpu', 'auto')
{
	my $pid = server_pid();
	$session->query_safe(qq{SET grail.device = $device});
	$session->query_safe(q{BEGIN});
	$session->query_safe(q{DECLARE k CURSOR FOR SELECT grail.chordless_cycles('kb')});
	$session->query_safe(q{FETCH 3 FROM k});
	ok(kill('KILL', $pid), "$device: SIGKILL sent to the server in the middle of the rows");
	$session->query(q{FETCH ALL FROM k});
	my $stderr = $session->{stderr} // '';
	like($stderr, qr/chordless_cycles\(\) could not go on on the GPU after \d+ cycles: the GPU service failed/,
		"$device: a clean error in the middle of the rows");
	$session->query(q{ROLLBACK});
	$session->{stderr} = '';
	isnt(server_pid($pid), $pid, "$device: the supervisor started another server");
	my $before = service_requests();
	my ($again) = rows_of('gpu', q{SELECT grail.chordless_cycles('g')}, 0);
	is($again, $expected, "$device: the next call answers");
	cmp_ok(service_requests(), '>', $before, "$device: through the service again");
}
$session->quit;

my $cycles_sql = q{SELECT string_agg(c::text, ';' ORDER BY c::text) FROM (SELECT grail.chordless_cycles('g')) r(c)};

# The server killed before the first cycle (it holds the request): under gpu a clean error, under
# auto a NOTICE and the CPU's cycles.
for my $device ('gpu', 'auto')
{
	my $pid = server_pid();
	hold_on();
	my $victim = start_session("victim_$device", "SET grail.device = $device", 'SET grail.gpu_service_wait = 0', $cycles_sql);
	ok(waiting("victim_$device"), "$device: the call waits for the service's first cycle");
	ok(kill('KILL', $pid), "$device: SIGKILL sent to the server");
	$victim->{h}->finish;
	my ($out, $err) = ($victim->{out}, $victim->{err});
	hold_off();
	chomp $out;
	if ($device eq 'gpu')
	{
		like($err, qr/chordless_cycles\(\) could not run on the GPU: the GPU service failed/, 'gpu: a clean error that says why');
		is($out, '', 'gpu: no rows');
	}
	else
	{
		like($err, qr/NOTICE:.*chordless_cycles\(\).*CPU/s, 'auto: a NOTICE');
		is($out, $expected, 'auto: the CPU\'s cycles');
	}
	isnt(server_pid($pid), $pid, "$device: the supervisor started another server");
}

# A cancel while the service holds the request: the statement is cancelled, the next call answers.
{
	hold_on();
	my $victim = start_session('victim_cancel', 'SET grail.device = gpu', $cycles_sql);
	ok(waiting('victim_cancel'), 'cancel: the call waits for the service');
	$node->safe_psql('postgres', q{SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE application_name = 'victim_cancel'});
	$victim->{h}->finish;
	my ($out, $err) = ($victim->{out}, $victim->{err});
	ok(threads_become($idle), 'cancel: the request ended in the server');
	hold_off();
	like($err, qr/canceling statement due to user request/, 'cancel: the statement is cancelled');
	is($node->safe_psql('postgres', "SET grail.device = gpu; $cycles_sql"), $expected, 'cancel: the next call answers');
}

done_testing();
