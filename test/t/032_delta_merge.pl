# Merges that write in proportion to the change: on a 200k-edge live graph, a merge that folds one
# new edge writes under 1% of the image's bytes of WAL, and one that folds 1% of the edges changed
# under 10% (it stores the change beside its base build: a delta build). After each, the graph
# answers as a fresh build over a copy of the rows, on the primary, on a hot standby (which makes
# the image from the replicated base and delta), and after a restart (the image cache emptied).
# kill -9 of a backend in the middle of a delta merge (written, not committed) leaves the last
# build and its pending changes answering exactly; a large change is stored as a full image again.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('delta_primary');
$primary->init(allows_streaming => 1);
# wal_keep_size: the standby loses its stream at the kill -9 below and reconnects seconds later;
# without it the primary's checkpoints (recovery, restart, the full build's WAL) had removed the
# segment it asks for, and it never caught up again.
$primary->append_conf('postgresql.conf', "restart_after_crash = on\nmax_wal_size = 2GB\nwal_keep_size = 1GB\n");
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE edges (source bigint, target bigint);
	SELECT setseed(0.31);
	-- 200k edges over 50k vertices: forward edges, some back edges (cycles), duplicates, extreme ids.
	INSERT INTO edges SELECT i, i + 1 + (random() * 40)::int FROM generate_series(1, 150000) s, LATERAL (SELECT (s % 50000) AS i) x;
	INSERT INTO edges SELECT (random() * 50000)::int, (random() * 50000)::int FROM generate_series(1, 50000);
	INSERT INTO edges VALUES (-9223372036854775808, 1), (50001, 9223372036854775807), (7, 7);
	SELECT grail.create_graph('g', 'edges');
	CREATE TABLE probes AS SELECT (random() * 50100)::bigint AS a, (random() * 50100)::bigint AS b
	FROM generate_series(1, 3000);
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('delta_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;

# What a graph answers: reachable() over the probe pairs, its components (as the sets of vertices
# that share one), bfs() from a few sources: one line to compare.
sub answers {
	my ($node, $graph) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT md5(string_agg(grail.reachable('$graph', a, b)::text, ',' ORDER BY a, b)) FROM probes;
		SELECT md5(string_agg(m, ';' ORDER BY m)) FROM (SELECT string_agg(vertex::text, ',' ORDER BY vertex) m
		       FROM grail.scc_components('$graph') GROUP BY component) c;
		SELECT md5(string_agg(vertex || ':' || depth, ',' ORDER BY vertex)) FROM grail.bfs('$graph', 1, 6);
		SELECT md5(string_agg(vertex || ':' || depth, ',' ORDER BY vertex)) FROM grail.bfs('$graph', -9223372036854775808);
		SELECT count(*) FROM grail.descendants('$graph', 25000::bigint);
	});
}

# A fresh build of the rows the table holds now.
sub fresh_answers {
	$primary->safe_psql('postgres', q{
		DROP TABLE IF EXISTS copy;
		SELECT grail.drop_graph('fresh') FROM grail.graphs WHERE name = 'fresh';
		CREATE TABLE copy AS SELECT * FROM edges;
		SELECT grail.create_graph('fresh', 'copy', live => false);
	});
	return answers($primary, 'fresh');
}

sub merge_wal {
	my $lsn = $primary->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
	$primary->safe_psql('postgres', q{SELECT grail.merge_graph('g')});
	return $primary->safe_psql('postgres', qq{SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn')});
}

my ($image, $full_build) = split /\|/, $primary->safe_psql('postgres',
	q{SELECT index_bytes, build FROM grail.graph WHERE name = 'g'});
cmp_ok($image, '>', 2_000_000, "the image is large ($image bytes)");

# The build's first reader sets the hint bits of its chunk rows, which (with wal_log_hints, as
# here, or data checksums) writes their pages to the WAL once, whatever merges follow: read it
# before measuring what merges write.
answers($primary, 'g');

# One new edge.
$primary->safe_psql('postgres', q{INSERT INTO edges VALUES (49999, 3)});
my $wal = merge_wal();
diag("merge of 1 edge: $wal bytes of WAL, image $image bytes");
cmp_ok($wal, '<', $image / 100, 'a merge of one edge writes under 1% of the image in WAL');
is($primary->safe_psql('postgres', q{SELECT base_build, delta_changes FROM grail.graph WHERE name = 'g'}),
	"$full_build|1", 'stored as a delta of one change from the full build');
my $expected = fresh_answers();
is(answers($primary, 'g'), $expected, 'the primary answers as a fresh build');
$primary->wait_for_catchup($standby, 'replay');
is(answers($standby, 'g'), $expected, 'the standby answers as a fresh build');

# 1% of the edges changed: 1,000 rows deleted (some of them duplicates), 1,000 inserted.
$primary->safe_psql('postgres', q{
	SELECT setseed(0.5);
	DELETE FROM edges WHERE ctid IN (SELECT ctid FROM edges ORDER BY random() LIMIT 1000);
	INSERT INTO edges SELECT (random() * 52000)::int, (random() * 52000)::int FROM generate_series(1, 1000);
});
$wal = merge_wal();
diag("merge of 2000 changed rows: $wal bytes of WAL, image $image bytes");
cmp_ok($wal, '<', $image / 10, 'a merge of 1% of the edges changed writes under 10% of the image in WAL');
is($primary->safe_psql('postgres', q{SELECT base_build FROM grail.graph WHERE name = 'g'}), $full_build,
	'still a delta from the same base (deltas do not chain)');
$expected = fresh_answers();
is(answers($primary, 'g'), $expected, 'the primary answers as a fresh build after the second delta');
$primary->wait_for_catchup($standby, 'replay');
is(answers($standby, 'g'), $expected, 'so does the standby');

# After a restart the image cache is empty: the image is made from the base and the delta.
$primary->restart;
is(answers($primary, 'g'), $expected, 'after a restart');
$standby->restart;
is(answers($standby, 'g'), $expected, 'the standby after a restart');

# kill -9 of the backend in the middle of a delta merge (its rows written, not committed).
$primary->safe_psql('postgres', q{INSERT INTO edges VALUES (3, 49998), (52001, 52002)});
my $session = $primary->background_psql('postgres', on_error_stop => 0);
my $pid = $session->query_safe('SELECT pg_backend_pid()');
$session->query_safe(q{BEGIN; SELECT grail.merge_graph('g')});
my $log_offset = -s $primary->logfile;
kill 'KILL', $pid;
$session->quit;
# Until the postmaster has seen the death, a new connection still reaches the old server.
$primary->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset);
$primary->poll_query_until('postgres', 'SELECT true') or die 'primary did not come back';
$expected = fresh_answers();
is(answers($primary, 'g'), $expected, 'after kill -9 mid-merge: the last build and the pending changes');
is($primary->safe_psql('postgres', q{SELECT grail.merge_graph('g') IS NOT NULL}), 't', 'merges again');
is(answers($primary, 'g'), $expected, 'and answers the same');
$primary->restart;
is(answers($primary, 'g'), $expected, 'and after a restart');

# A large change (10% of the edges) is stored as a full image again (compaction).
$primary->safe_psql('postgres', q{
	INSERT INTO edges SELECT (random() * 60000)::int, (random() * 60000)::int FROM generate_series(1, 20000);
});
$wal = merge_wal();
is($primary->safe_psql('postgres', q{SELECT base_build IS NULL AND delta_bytes IS NULL FROM grail.graph WHERE name = 'g'}),
	't', 'a large change is a full build');
is($primary->safe_psql('postgres', q{SELECT count(*) FROM grail.index_chunk c JOIN grail.graph g ON g.id = c.graph_id
	WHERE g.name = 'g' AND c.seq < 0}), '0', 'no delta chunks left');
$expected = fresh_answers();
is(answers($primary, 'g'), $expected, 'the full build answers as a fresh one');
$primary->wait_for_catchup($standby, 'replay');
is(answers($standby, 'g'), $expected, 'so does the standby');

# Drop: every chunk goes, base and delta.
$primary->safe_psql('postgres', q{INSERT INTO edges VALUES (1, 60001); SELECT grail.merge_graph('g')});
is($primary->safe_psql('postgres', q{SELECT base_build IS NOT NULL FROM grail.graph WHERE name = 'g'}), 't',
	'a delta again');
$primary->safe_psql('postgres', q{SELECT grail.drop_graph('g')});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM grail.index_chunk c WHERE NOT EXISTS
	(SELECT 1 FROM grail.graph g WHERE g.id = c.graph_id)}), '0', 'drop_graph leaves no chunk');

$standby->stop;
$primary->stop;
done_testing();
