# grail.build_threads is any user's to set, but the helper threads a build runs are capped by
# grail.max_build_threads, which only a superuser (or postgresql.conf) sets: an unprivileged role
# cannot raise the cap, and a build asked for 16 helpers runs as many as the cap allows, as its
# DEBUG1 line says; the cap follows postgresql.conf on reload and ALTER ROLE ... SET by a
# superuser, and a capped build answers as the rows say. Unset (-1), a statement's build runs 2
# and a background merge none.
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
is(helpers_of('gdefault', ''), '2', 'unset (-1): a statement\'s build runs 2, as CREATE INDEX gets 2 workers');

$node->append_conf('postgresql.conf', 'grail.max_build_threads = 1');
$node->reload;
is(helpers_of('g1', 'SET grail.build_threads = 16;'), '1', 'postgresql.conf caps at 1: the build runs 1');
is(helpers_of('gdefault1', ''), '1', 'postgresql.conf caps the default too');
$node->safe_psql('postgres', 'ALTER ROLE builder SET grail.max_build_threads = 0');
is(helpers_of('g0', 'SET grail.build_threads = 16;'), '0', 'ALTER ROLE by a superuser caps at 0: no helper');
$node->safe_psql('postgres', 'ALTER ROLE builder SET grail.max_build_threads = 3');
is(helpers_of('g3', 'SET grail.build_threads = 16;'), '3', 'ALTER ROLE by a superuser raises the cap to 3');

is($node->safe_psql('postgres', q{
	SELECT count(*) FROM (VALUES ('g16'), ('g2'), ('gdefault'), ('g1'), ('gdefault1'), ('g0'), ('g3')) g(name), generate_series(1, 5001, 250) a, generate_series(1, 5001, 250) b
	WHERE grail.reachable(g.name, a, b) IS DISTINCT FROM true
	   OR grail.reachable(g.name, 9223372036854775807, -9223372036854775808) IS DISTINCT FROM true
	   OR grail.reachable(g.name, -9223372036854775808, 1) IS DISTINCT FROM false
}, extra_params => ['-U', 'builder']), '0', 'the capped builds answer as the rows say');

# A background merge runs beside the table's readers and writers: no helper unless
# grail.build_threads asks (here for the merge worker's database), whatever a statement's default.
$node->safe_psql('postgres', q{
	CREATE DATABASE merges;
	ALTER DATABASE merges SET log_min_messages = debug1;
	ALTER SYSTEM SET grail.merge_threshold = 100;
	ALTER SYSTEM SET grail.merge_naptime = 1;
	SELECT pg_reload_conf();
});
$node->safe_psql('merges', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 50) i;
	SELECT count(*) FROM (SELECT grail.create_graph('bg', 'e')) c;
});
# The merges of graph bg the log shows, with their helpers.
sub merge_helpers
{
	my @found = slurp_file($node->logfile) =~ /pg_grail build of graph \S*bg: (\d+) helper threads/g;
	return @found;
}
my $before = () = merge_helpers();
$node->safe_psql('merges', q{INSERT INTO e SELECT i, i + 1 FROM generate_series(51, 300) i});
ok($node->poll_query_until('merges', q{SELECT background_merge_count > 0 AND pending_changes = 0 FROM grail.graphs WHERE name = 'bg'}),
	'a background merge stores the writes');
my @helpers = merge_helpers();
# (Each merge the worker ran since, should it have split the rows into more than one.)
my @merges = @helpers[$before .. $#helpers];
ok(@merges && !grep({ $_ ne '0' } @merges), "the background merge ran no helper (a statement's build runs 1 here): @merges");
$node->safe_psql('merges', q{ALTER DATABASE merges SET grail.build_threads = 1});
$before = @helpers;
$node->safe_psql('merges', q{INSERT INTO e SELECT i, i + 1 FROM generate_series(301, 500) i});
ok($node->poll_query_until('merges', q{SELECT background_merge_count > 1 AND pending_changes = 0 FROM grail.graphs WHERE name = 'bg'}),
	'a second background merge');
@helpers = merge_helpers();
@merges = @helpers[$before .. $#helpers];
ok(@merges && !grep({ $_ ne '1' } @merges), "grail.build_threads set for the database: the merge runs 1: @merges");
is($node->safe_psql('merges', q{SELECT grail.reachable('bg', 1::bigint, 501::bigint)}), 't', 'and the graph answers from it');

$node->stop;
done_testing();
