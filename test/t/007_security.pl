# Security checks that need more than one session or a fresh backend (the rest is in
# test/pgtap/security.sql): a role with only SELECT on a table cannot make the owner's writers
# wait, and DROP ROLE refuses a role that owns graphs in a session that never called pg_grail.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);

my $node = PostgreSQL::Test::Cluster->new('security');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE ROLE app_owner LOGIN;
	CREATE ROLE reader LOGIN;
	CREATE SCHEMA app AUTHORIZATION app_owner;
	CREATE SCHEMA reader AUTHORIZATION reader;
	SET ROLE app_owner;
	CREATE TABLE app.e (source int, target int);
	INSERT INTO app.e VALUES (1, 2);
	GRANT USAGE ON SCHEMA app TO reader;
	GRANT SELECT ON app.e TO reader;
});

# 1. The owner writes in an open transaction. A create_graph by a role with only SELECT is refused
# at once: it neither takes nor queues for the SHARE lock (a queued request would make every later
# writer of the table wait behind it).
my $writer = $node->background_psql('postgres');
$writer->query_safe(q{SET ROLE app_owner; BEGIN; INSERT INTO app.e VALUES (2, 3)});
my $start = time;
my ($ret, $out, $err) = $node->psql('postgres',
	q{SET lock_timeout = '10s'; SET ROLE reader; SELECT grail.create_graph('reader.g', 'app.e')},
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
like($err, qr/42501: permission denied to build a pg_grail graph over table "e"/, 'SELECT alone cannot build');
cmp_ok(time - $start, '<', 5, 'refused at once, without waiting for the writer');
$writer->query_safe('COMMIT');
$writer->quit;

# 2. DROP ROLE in a new session, where no pg_grail function ran yet (the preloaded library's hook
# runs in every backend).
$node->safe_psql('postgres', q{
	SET ROLE app_owner;
	GRANT TRIGGER, UPDATE ON app.e TO reader;
	RESET ROLE;
	SET ROLE reader;
	SELECT count(*) FROM (SELECT grail.create_graph('reader.g', 'app.e')) c;
});
($ret, $out, $err) = $node->psql('postgres', 'DROP ROLE reader');
like($err, qr/role cannot be dropped because it owns pg_grail graphs.*\n.*reader\.g/,
	'DROP ROLE refuses a role that owns a graph, and names it');
is($node->safe_psql('postgres', q{SELECT grail.reachable('reader.g', 1, 3)}), 't', 'the graph is intact');
$node->safe_psql('postgres', 'DROP OWNED BY reader; DROP ROLE reader');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.graph}), '0', 'DROP OWNED dropped it');
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_trigger WHERE tgrelid = 'app.e'::regclass}), '0',
	'with its staleness trigger');

$node->stop;
done_testing();
