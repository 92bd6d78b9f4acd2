# Memory that runs out in pg_grail before its limits do (a backend whose address space is capped,
# with prlimit, a little above what it maps already): the error names the graph, what was being
# made and the limit that did not stop it, rather than a bare "out of memory in pg_grail"; the
# backend goes on.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

plan skip_all => 'needs prlimit and /proc' unless -x '/usr/bin/prlimit' && -r "/proc/$$/status";

my $node = PostgreSQL::Test::Cluster->new('out_of_memory_names');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1000000 FROM generate_series(1, 1000000) i;
	SELECT count(*) FROM (SELECT grail.create_graph('big', 'e')) c;
	INSERT INTO e VALUES (1, 2);
});

my $session = $node->background_psql('postgres', on_error_stop => 0);
my $pid = $session->query_safe('SELECT pg_backend_pid()');
my ($size) = slurp_file("/proc/$pid/status") =~ /VmSize:\s+(\d+) kB/;
my $cap = ($size + 32 * 1024) * 1024; # 32 MB more than the backend maps now
system_or_bail('prlimit', "--pid=$pid", "--as=$cap:$cap");

# The snapshot's rebuild of a million edges needs far more than 32 MB.
my $out = $session->query(q{SELECT count(*) FROM grail.descendants('big', 1::bigint)});
my $err = $session->{stderr};
like($err, qr/out of memory in pg_grail while [a-z ]+ of graph "big"/, 'the error names the phase and the graph');
like($err, qr/HINT:.*grail\.(build|backend)_memory_limit \(\d+ MB\)/, 'and the limit');
$session->{stderr} = '';
is($session->query_safe('SELECT 1'), '1', 'the backend goes on');
$session->quit;
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.descendants('big', 1::bigint)}),
	$node->safe_psql('postgres', q{
		WITH RECURSIVE r(v) AS (SELECT 1::bigint UNION SELECT e.target FROM r JOIN e ON e.source = r.v)
		SELECT count(*) FROM r}),
	'another backend answers as the rows do');
ok(!$node->log_contains('terminated by signal|PANIC|TRAP'), 'nothing crashed');

$node->stop;
done_testing();
