# A build's rows written once, where the GPU service reads them: with the service running (its CPU
# stand-in), a create_graph of integer keys reads its rows straight into the rows file that the
# service maps (the DEBUG1 line says "sealed where the read wrote them"), whatever room the
# planner's estimate gave it (none for a table never analyzed, too little for one that grew since,
# too much for one that shrank); where the policy then takes the CPU (too few rows under auto), the
# rows come back from the file. A build cancelled in the middle of its read leaves no descriptor and
# no mapping in its backend.
use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;
use GrailService;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = GrailService::start_node('gpu_service_rows_file', qq{
grail.device = gpu
grail.gpu_min_edges = 0
});

# A graph's answers, asked on the CPU (the build is what differs): its counts, its components and
# 5,000 pairs.
sub digest
{
	my ($g) = @_;
	return $node->safe_psql('postgres', qq{
		SET grail.device = cpu;
		SELECT format('%s vertices, %s edges, %s components, %s DAG edges', vertices, edges, components, dag_edges)
		FROM grail.graphs WHERE name = '$g'
		UNION ALL
		SELECT md5(string_agg(vertex::text || '/' || component::text, ',' ORDER BY vertex)) FROM grail.scc_components('$g')
		UNION ALL
		SELECT md5(array_to_string(grail.reachable('$g', array_agg(a ORDER BY i), array_agg(b ORDER BY i)), ','))
		FROM pairs});
}

# Builds $t as cpu_$g on the CPU and svc_$g under $device at DEBUG1 ($g: $t unless given); returns
# the build's messages.
sub build_both
{
	my ($t, $device, $g) = @_;
	$g //= $t;
	$node->safe_psql('postgres', qq{SET grail.device = cpu; SELECT grail.create_graph('cpu_$g', '$t')});
	my ($rc, $out, $err) = $node->psql('postgres',
		qq{SET grail.device = $device; SET client_min_messages = debug1; SELECT grail.create_graph('svc_$g', '$t')});
	is($rc, 0, "$t: built under $device");
	is(digest("svc_$g"), digest("cpu_$g"), "$t: the build answers as the CPU's");
	return $err;
}

$node->safe_psql('postgres', q{
	SELECT setseed(0.038);
	CREATE TABLE pairs AS SELECT i, (random() * 250000)::bigint - 1000 AS a, (random() * 250000)::bigint - 1000 AS b
	FROM generate_series(1, 5000) i;
	-- Never analyzed, and no estimate: the rows file grows from its first room.
	CREATE TABLE unplanned (source bigint, target bigint) WITH (autovacuum_enabled = false);
	INSERT INTO unplanned SELECT g, (g * 7919) % 200000 FROM generate_series(1, 200000) g;
	INSERT INTO unplanned VALUES (-9223372036854775808, 9223372036854775807), (9223372036854775807, -9223372036854775808),
		(5, 5), (5, 5), (6, 7), (6, 7);
	-- Analyzed at 1,000 rows, then grown to 250,000: an estimate far too small.
	CREATE TABLE grown (source bigint, target bigint) WITH (autovacuum_enabled = false);
	INSERT INTO grown SELECT g, g % 997 FROM generate_series(1, 1000) g;
	ANALYZE grown;
	INSERT INTO grown SELECT g, (g::bigint * 104729) % 250000 FROM generate_series(1001, 250000) g;
	-- Analyzed at 250,000 rows, then shrunk to 3,000: an estimate far too large.
	CREATE TABLE shrunk (source int, target int) WITH (autovacuum_enabled = false);
	INSERT INTO shrunk SELECT g, (g * 31) % 250000 FROM generate_series(1, 250000) g;
	ANALYZE shrunk;
	DELETE FROM shrunk WHERE source > 3000;
});
is($node->safe_psql('postgres', q{SELECT string_agg(relname || ':' || reltuples, ',' ORDER BY relname) FROM pg_class
	WHERE relname IN ('unplanned', 'grown', 'shrunk')}), 'grown:1000,shrunk:250000,unplanned:-1',
	'the planner\'s estimates: none, too small, too large');

for my $t ('unplanned', 'grown', 'shrunk')
{
	my $err = build_both($t, 'gpu');
	like($err, qr/rows built by the GPU service: the rows there [0-9.]+ ms \(sealed where the read wrote them\)/,
		"$t: its rows went to the service in the file the read wrote");
}

# Under auto below grail.gpu_min_edges the policy takes the CPU after the read: the rows come back
# from the file (no NOTICE: nothing failed). Then a graph with NULL endpoints skipped: the file
# holds only the rows with both.
$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.gpu_min_edges = 100000000; SELECT pg_reload_conf()});
my $err = build_both('grown', 'auto', 'grown_auto');
unlike($err, qr/built by the GPU service/, 'under auto, too few rows for the GPU: not built by the service');
unlike($err, qr/NOTICE/, 'and without a notice');
$node->safe_psql('postgres', q{ALTER SYSTEM RESET grail.gpu_min_edges; SELECT pg_reload_conf()});
$node->safe_psql('postgres', q{
	CREATE TABLE holes AS SELECT CASE WHEN g % 10 = 0 THEN NULL ELSE g END AS source, (g * 13) % 5000 AS target
	FROM generate_series(1, 50000) g;
	SET grail.device = cpu;
	SELECT grail.create_graph('cpu_holes', 'holes', skip_nulls => true);
	SET grail.device = gpu;
	SELECT grail.create_graph('svc_holes', 'holes', skip_nulls => true);
});
is(digest('svc_holes'), digest('cpu_holes'), 'rows with NULL endpoints skipped: the service\'s build is the CPU\'s');
is($node->safe_psql('postgres', q{SELECT input_rows || '/' || null_rows FROM grail.graph WHERE name = 'svc_holes'}),
	'50000/5000', 'and its rows and NULL rows counted');

# Builds cancelled in the middle of their read (a statement timeout), in one session: its backend's
# descriptors and mappings, counted before and after, are as they were.
$node->safe_psql('postgres', q{
	CREATE TABLE huge AS SELECT g::bigint AS source, (g::bigint * 7919) % 3000000 AS target FROM generate_series(1, 3000000) g;
	ANALYZE huge;
});
my ($rc, $out);
($rc, $out, $err) = $node->psql('postgres', q{
	SET grail.device = gpu;
	-- (warmed: the first build loads what later ones reuse)
	SELECT grail.create_graph('warm', 'grown');
	SELECT 'before', count(*) FROM pg_ls_dir('/proc/self/fd')
	UNION ALL SELECT 'before-maps', count(*) FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\n');
	SET statement_timeout = '150ms';
	SELECT grail.create_graph('cut1', 'huge');
	SET statement_timeout = '400ms';
	SELECT grail.create_graph('cut2', 'huge');
	SET statement_timeout = '700ms';
	SELECT grail.create_graph('cut3', 'huge');
	RESET statement_timeout;
	SELECT 'after', count(*) FROM pg_ls_dir('/proc/self/fd')
	UNION ALL SELECT 'after-maps', count(*) FROM regexp_split_to_table(pg_read_file('/proc/self/maps'), E'\n');
}, on_error_stop => 0);
my %count = $out =~ /^(before|after|before-maps|after-maps)\|(\d+)$/mg;
like($err, qr/canceling statement due to statement timeout/, 'builds cancelled in their read');
ok(defined $count{before} && defined $count{after}, 'descriptors counted before and after');
is($count{after}, $count{before}, 'no descriptor left behind');
is($count{'after-maps'}, $count{'before-maps'}, 'no mapping left behind');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.graphs WHERE name LIKE 'cut%'}), '0', 'and no graph made');

$node->stop;
done_testing();
