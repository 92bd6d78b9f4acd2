# The event triggers read every graph's stored filter back at the start of every DDL command of the
# database, whoever runs it (and at the end of a DROP, CREATE FUNCTION and the like), and the merge
# worker reads it back before merging. Reading it opens the edge table, so a role that holds a lock
# on its own edge table (LOCK TABLE in an idle transaction) made every other role's CREATE TABLE
# wait for it, and under lock_timeout the check took the timeout for a filter that no longer reads
# back and left the graph stale; a DDL command's transaction then held a lock on every filtered
# edge table until it ended, so that an open migration kept the tables' owners from altering them;
# and the merge worker waited for the lock, stalling merges in every database. Now the checks read
# a filter's columns from the catalog, with no lock on its table, and still refuse what breaks a
# filter while the table is held; the worker skips the graph.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('filter_checks_beside_locks');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 1000
grail.merge_naptime = 1
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE ROLE alice LOGIN;
	CREATE ROLE bob LOGIN;
	GRANT CREATE ON SCHEMA public TO alice, bob;
	SET ROLE alice;
	CREATE TABLE a_edges (source bigint, target bigint, w int);
	INSERT INTO a_edges SELECT i, i + 1, i FROM generate_series(1, 100) i;
	SELECT count(*) FROM (SELECT grail.create_graph('a_g', 'a_edges', filter => 'w > 3')) c;
	RESET ROLE;
	CREATE DATABASE other;
});
$node->safe_psql('other', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE eb (source bigint, target bigint);
	SELECT count(*) FROM (SELECT grail.create_graph('gb', 'eb')) c;
});

my $stale = q{SELECT stale FROM grail.graph WHERE name = 'a_g'};

# alice holds her own edge table.
my $locker = $node->background_psql('postgres', on_error_stop => 0);
$locker->query_safe(q{SET ROLE alice});
$locker->query_safe(q{BEGIN});
$locker->query_safe(q{LOCK TABLE a_edges IN ACCESS EXCLUSIVE MODE});

my ($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SET statement_timeout = '5s';
	CREATE TABLE bob_t (x int);
	CREATE FUNCTION bob_f() RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT 1';
	DROP FUNCTION bob_f();
}, extra_params => [ '-U', 'bob' ]);
is($ret, 0, "another role's DDL does not wait for the lock on alice's edge table");
unlike($stderr, qr/WARNING|ERROR/, 'and says nothing of her graph') or diag($stderr);

($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SET lock_timeout = '100ms';
	CREATE TABLE bob_t2 (x int);
}, extra_params => [ '-U', 'bob' ]);
is($ret, 0, 'nor does it under lock_timeout');
unlike($stderr, qr/no longer reads back/, 'where the lock was taken for a filter that no longer reads back')
  or diag($stderr);
is($node->safe_psql('postgres', $stale), 'f', "and alice's graph stays in step");

# The merge worker leaves her graph, and merges another database's meanwhile.
$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()});
$locker->query_safe(q{ROLLBACK});
$node->safe_psql('postgres', q{
	SELECT count(*) FROM (SELECT grail.refresh_graph('a_g') WHERE (SELECT stale FROM grail.graphs WHERE name = 'a_g')) r;
	INSERT INTO a_edges SELECT i, i + 1, 10 FROM generate_series(200, 1300) i;
}, extra_params => [ '-U', 'alice' ]);
$locker->query_safe(q{BEGIN});
$locker->query_safe(q{LOCK TABLE a_edges IN ACCESS EXCLUSIVE MODE});
my $offset = -s $node->logfile;
$node->safe_psql('postgres', q{ALTER SYSTEM RESET grail.merge_threshold; SELECT pg_reload_conf()});
# Until the worker has met the lock: it left the graph (or waits for the lock).
my $skipped = qr/background merge of graph \d+ skipped: another transaction holds a lock/;
my $deadline = time + $PostgreSQL::Test::Utils::timeout_default;
sleep(1)
  until slurp_file($node->logfile, $offset) =~ $skipped
  || $node->safe_psql('postgres',
	q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'pg_grail merge worker' AND wait_event_type = 'Lock'}) > 0
  || time > $deadline;
like(slurp_file($node->logfile, $offset), $skipped, 'the merge worker leaves the graph whose edge table another transaction holds');
$node->safe_psql('other', q{INSERT INTO eb SELECT i, i + 1 FROM generate_series(1, 1100) i});
ok($node->poll_query_until('other', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'gb'}),
	'and merges a graph of another database meanwhile');
$locker->query_safe(q{ROLLBACK});
ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'a_g'}),
	'with the lock gone, her graph is merged');
is($node->safe_psql('postgres', q{SELECT grail.reachable('a_g', 4::bigint, 101::bigint)}), 't',
	'and answers from the merged build');

# A DDL command's check lets go of the lock it took on her table: a transaction left open after one
# does not keep alice from altering it.
my $migration = $node->background_psql('postgres', on_error_stop => 0);
$migration->query_safe(q{SET ROLE bob});
$migration->query_safe(q{BEGIN});
$migration->query_safe(q{CREATE TABLE bob_t3 (x int)});
($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SET lock_timeout = '2s';
	ALTER TABLE a_edges ADD COLUMN note text;
}, extra_params => [ '-U', 'alice' ]);
is($ret, 0, "another role's open transaction that ran DDL holds no lock on alice's edge table") or diag($stderr);
$migration->query_safe(q{ROLLBACK});
$migration->quit;

# The checks still read the filters of tables another transaction holds: a DROP of what a filter
# uses is refused at once, and so is a RENAME.
$node->safe_psql('postgres', q{
	SET ROLE alice;
	CREATE FUNCTION heavy(w int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT w > 3';
	SELECT grail.drop_graph('a_g');
	SELECT count(*) FROM (SELECT grail.create_graph('a_g', 'a_edges', filter => 'public.heavy(w)')) c;
});
$locker->query_safe(q{BEGIN});
$locker->query_safe(q{LOCK TABLE a_edges IN ACCESS EXCLUSIVE MODE});
($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SET statement_timeout = '5s';
	DROP FUNCTION public.heavy(int);
}, extra_params => [ '-U', 'alice' ]);
like($stderr, qr/cannot drop an object that the filter of pg_grail graph "public\.a_g" uses/,
	'a DROP of what a filter uses is refused while its table is held');
($ret, $stdout, $stderr) = $node->psql('postgres', q{
	SET statement_timeout = '5s';
	ALTER FUNCTION public.heavy(int) RENAME TO light;
}, extra_params => [ '-U', 'alice' ]);
like($stderr, qr/cannot change an object that the filter of pg_grail graph "public\.a_g" uses/,
	'so is a RENAME');
$locker->query_safe(q{ROLLBACK});
is($node->safe_psql('postgres', q{SELECT stale FROM grail.graph WHERE name = 'a_g'}), 'f',
	'and the graph stays in step');

$locker->quit;
$node->stop;
done_testing();
