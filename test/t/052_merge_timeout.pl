# A graph's owner decides what its background merge runs: its filter's functions, as the owner. One
# worker merges the graphs of every database one after another, so a filter function that slept
# only in the merge worker (it passed create_graph at once) held up every other graph's merges for
# as long as it slept. grail.merge_timeout cancels such a merge: it rolls back, leaves the graph's
# changes pending and its answers exact, says so in the server log, and the worker goes on with the
# next graph, here another role's, and one of another database. The worker takes the smallest
# graphs first, so a large graph whose merges time out no longer holds the others back at all.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('merge_timeout');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 0
grail.merge_naptime = 1
});
$node->start;

is($node->safe_psql('postgres', q{SELECT boot_val || ' ' || unit || ' ' || context FROM pg_settings WHERE name = 'grail.merge_timeout'}),
	'600000 ms sighup', 'grail.merge_timeout: 10min by default, set in postgresql.conf');

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE ROLE mallory LOGIN;
	CREATE ROLE victim LOGIN;
	GRANT CREATE ON SCHEMA public TO mallory, victim;
	SET ROLE mallory;
	-- Passes at once, except in the merge worker, where it sleeps for an hour (the worker's
	-- application_name, which every role may read, unlike its backend_type).
	CREATE FUNCTION public.slow_in_worker(w int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN
		IF (SELECT application_name FROM pg_catalog.pg_stat_activity WHERE pid = pg_catalog.pg_backend_pid())
		   = 'pg_grail merge worker' THEN
			PERFORM pg_catalog.pg_sleep(3600);
		END IF;
		RETURN w > 0;
	END $$;
	CREATE TABLE m_edges (source bigint, target bigint, w int);
	INSERT INTO m_edges SELECT i, i + 1, 1 FROM generate_series(1, 50) i;
	-- Larger than the victim's graph, though created first.
	INSERT INTO m_edges SELECT i, i + 1, 1 FROM generate_series(1001, 1500) i;
	SELECT count(*) FROM (SELECT grail.create_graph('m_g', 'm_edges', filter => 'public.slow_in_worker(w)')) c;
	SET ROLE victim;
	CREATE TABLE v_edges (source bigint, target bigint);
	INSERT INTO v_edges SELECT i, i + 1 FROM generate_series(1, 50) i;
	SELECT count(*) FROM (SELECT grail.create_graph('v_g', 'v_edges')) c;
	RESET ROLE;
	CREATE DATABASE other;
});
$node->safe_psql('other', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE o_edges (source bigint, target bigint);
	SELECT count(*) FROM (SELECT grail.create_graph('o_g', 'o_edges')) c;
});
$node->safe_psql('postgres', q{INSERT INTO m_edges SELECT i, i + 1, 1 FROM generate_series(51, 300) i},
	extra_params => [ '-U', 'mallory' ]);
$node->safe_psql('postgres', q{INSERT INTO v_edges SELECT i, i + 1 FROM generate_series(51, 300) i},
	extra_params => [ '-U', 'victim' ]);

my $offset = -s $node->logfile;
$node->append_conf('postgresql.conf', qq{
grail.merge_threshold = 100
grail.merge_timeout = '6s'
});
$node->reload;

ok($node->poll_query_until('postgres', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'v_g'}),
	"another role's graph is merged though mallory's merge sleeps");
unlike(slurp_file($node->logfile, $offset), qr/cancelled after grail\.merge_timeout/,
	"before mallory's larger graph's merge times out: the smaller graph goes first");
# Written while mallory's merge may still hold the worker.
$node->safe_psql('other', q{INSERT INTO o_edges SELECT i, i + 1 FROM generate_series(1, 300) i});
ok($node->poll_query_until('other', q{SELECT pending_changes = 0 FROM grail.activity WHERE graph = 'o_g'}),
	'so is a graph of another database');
ok($node->wait_for_log(qr/pg_grail background merge of graph \d+ cancelled after grail\.merge_timeout \(6000 ms\)/,
	$offset), 'the server log says which merge was cancelled, and why');
like(slurp_file($node->logfile, $offset), qr/HINT:  Raise grail\.merge_timeout/, 'and what to do');
is($node->safe_psql('postgres', q{SELECT pending_changes FROM grail.activity WHERE graph = 'm_g'}), '250',
	"mallory's changes stay pending");
is($node->safe_psql('postgres', q{SELECT grail.reachable('m_g', 1::bigint, 301::bigint)}), 't',
	'and her graph answers with them');

$node->stop;
done_testing();
