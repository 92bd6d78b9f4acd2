# grail.build_threads is any user's to set, but the helper threads a build runs are capped by
# grail.max_build_threads, which only a superuser (or postgresql.conf) sets: an unprivileged role
# cannot raise the cap, and a build asked for 16 helpers runs as many as the cap allows, as its
# DEBUG1 line says; the cap follows postgresql.conf on reload and ALTER ROLE ... SET by a
# superuser, and a capped build answers as the rows say.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('build_threads_cap');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE ROLE builder LOGIN;
	GRANT CREATE ON SCHEMA public TO builder;
});
$node->safe_psql('postgres', q{
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 5000) i;
	INSERT INTO e VALUES (5001, 1), (7, 7), (9223372036854775807, -9223372036854775808);
}, extra_params => ['-U', 'builder']);

is($node->safe_psql('postgres', q{SELECT boot_val || ' ' || context FROM pg_settings WHERE name = 'grail.max_build_threads'}),
	'4 superuser', 'grail.max_build_threads: 4 by default, a superuser setting');

# The helpers a build of graph $graph by builder ran on, from its DEBUG1 line, with $sets before it.
sub helpers_of
{
	my ($graph, $sets) = @_;
	my ($stdout, $stderr);
	$node->psql('postgres',
		"$sets SET client_min_messages = debug1; SELECT count(*) FROM (SELECT grail.create_graph('$graph', 'e')) c;",
		stdout => \$stdout, stderr => \$stderr, extra_params => ['-U', 'builder']);
	return $stderr =~ /pg_grail build of graph \S*$graph: (\d+) helper threads/ ? $1 : "no line: $stderr";
}

my ($rc, $stdout, $stderr) = $node->psql('postgres', 'SET grail.max_build_threads = 16',
	extra_params => ['-U', 'builder']);
like($stderr, qr/permission denied to set parameter "grail.max_build_threads"/,
	'an unprivileged role cannot raise grail.max_build_threads');
is(helpers_of('g16', 'SET grail.build_threads = 16;'), '4', 'builder asks for 16 helpers: the build runs 4');
is(helpers_of('g2', 'SET grail.build_threads = 2;'), '2', 'under the cap: the helpers asked for');

$node->append_conf('postgresql.conf', 'grail.max_build_threads = 1');
$node->reload;
is(helpers_of('g1', 'SET grail.build_threads = 16;'), '1', 'postgresql.conf caps at 1: the build runs 1');
$node->safe_psql('postgres', 'ALTER ROLE builder SET grail.max_build_threads = 0');
is(helpers_of('g0', 'SET grail.build_threads = 16;'), '0', 'ALTER ROLE by a superuser caps at 0: no helper');
$node->safe_psql('postgres', 'ALTER ROLE builder SET grail.max_build_threads = 3');
is(helpers_of('g3', 'SET grail.build_threads = 16;'), '3', 'ALTER ROLE by a superuser raises the cap to 3');

is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (VALUES ('g16'), ('g2'), ('g1'), ('g0'), ('g3')) g(name), generate_series(1, 5001, 250) a, generate_series(1, 5001, 250) b
	WHERE grail.reachable(g.name, a, b) IS DISTINCT FROM true
	   OR grail.reachable(g.name, 9223372036854775807, -9223372036854775808) IS DISTINCT FROM true
	   OR grail.reachable(g.name, -9223372036854775808, 1) IS DISTINCT FROM false
}, extra_params => ['-U', 'builder']), '0', 'the capped builds answer as the rows say');

$node->stop;
done_testing();
