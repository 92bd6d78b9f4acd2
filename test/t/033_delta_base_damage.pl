# A delta build whose base build's stored image is damaged or missing: a reader that must make the
# image (no cached copy) gets a clear error naming the base, never an answer from anything else; a
# merge, by hand or in the background, cannot make a delta from that base either, says so with a
# WARNING and stores a full image of the rows, after which the graph answers as a fresh build. A
# damaged delta (its base sound) is an error for readers and no obstacle to the next merge; a
# damaged full build is replaced by a merge the same way. The shared image cache is off here, so
# that every new session makes the image from the chunks.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('delta_damage');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 0
grail.merge_naptime = 1
grail.shared_cache_size = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE edges (source bigint, target bigint);
	SELECT setseed(0.33);
	INSERT INTO edges SELECT i, i + 1 + (random() * 20)::int FROM generate_series(1, 15000) s,
		LATERAL (SELECT (s % 5000) AS i) x;
	INSERT INTO edges SELECT (random() * 5000)::int, (random() * 5000)::int FROM generate_series(1, 5000);
	INSERT INTO edges VALUES (-9223372036854775808, 1), (5001, 9223372036854775807), (7, 7), (7, 7);
	SELECT grail.create_graph('g', 'edges');
	CREATE TABLE probes AS SELECT (random() * 5100)::bigint AS a, (random() * 5100)::bigint AS b
	FROM generate_series(1, 2000);
});
my $gid = $node->safe_psql('postgres', q{SELECT id FROM grail.graph WHERE name = 'g'});

sub answers {
	my ($graph) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT md5(string_agg(grail.reachable('$graph', a, b)::text, ',' ORDER BY a, b)) FROM probes;
		SELECT md5(string_agg(m, ';' ORDER BY m)) FROM (SELECT string_agg(vertex::text, ',' ORDER BY vertex) m
		       FROM grail.scc_components('$graph') GROUP BY component) c;
		SELECT md5(string_agg(vertex || ':' || depth, ',' ORDER BY vertex)) FROM grail.bfs('$graph', 1, 5);
	});
}

sub fresh_answers {
	$node->safe_psql('postgres', q{
		DROP TABLE IF EXISTS copy;
		SELECT grail.drop_graph('fresh') FROM grail.graphs WHERE name = 'fresh';
		CREATE TABLE copy AS SELECT * FROM edges;
		SELECT grail.create_graph('fresh', 'copy', live => false);
	});
	return answers('fresh');
}

sub state {
	return $node->safe_psql('postgres',
		q{SELECT build, coalesce(base_build, 0), coalesce(delta_changes, 0) FROM grail.graph WHERE name = 'g'});
}

# A new session's read of the graph: ok, or the error it gives.
sub read_error {
	my ($ret, $out, $err) = $node->psql('postgres', q{SELECT grail.reachable('g', 1, 2)});
	return $ret == 0 ? '' : $err;
}

# 1. A delta whose base's first chunk is damaged.
$node->safe_psql('postgres', q{INSERT INTO edges VALUES (4999, 3), (5002, 5003); DELETE FROM edges WHERE source = 10});
$node->safe_psql('postgres', q{SELECT grail.merge_graph('g')});
my ($build, $base, $changes) = split /\|/, state();
cmp_ok($base, '>', 0, "a delta build ($changes changes from build $base)");
my $expected = fresh_answers();
is(answers('g'), $expected, 'the delta build answers as a fresh build');
$node->safe_psql('postgres', qq{
	UPDATE grail.index_chunk SET data = set_byte(data, 5000, get_byte(data, 5000) # 255)
	WHERE graph_id = $gid AND seq = 0});
my $err = read_error();
like($err, qr/pg_grail graph "g" cannot be loaded: its build $build is stored as a delta from build $base, whose stored image cannot be read/,
	'a reader: a clear error naming the damaged base');
like($err, qr/HINT:.*grail\.merge_graph\(\) or grail\.refresh_graph\(\) stores a full image/, 'with a hint');
like($err, qr/DETAIL:.*(checksum|damaged)/, 'and the damage in its detail');
$node->safe_psql('postgres', q{INSERT INTO edges VALUES (3, 4998)});
my ($ret, $out, $merge_err) = $node->psql('postgres', q{SELECT grail.merge_graph('g')});
is($ret, 0, 'merge_graph over the damaged base succeeds');
like($merge_err, qr/WARNING:.*pg_grail graph "g": the stored image of build $base cannot be read, so this merge stores a full image instead of a delta from it/,
	'with a WARNING that says it stores a full image');
my ($build2, $base2) = split /\|/, state();
is($base2, 0, 'a full build now');
cmp_ok($build2, '>', $build, 'a new build');
is($node->safe_psql('postgres', qq{SELECT count(*) FROM grail.index_chunk WHERE graph_id = $gid AND seq < 0}), '0',
	'no delta chunks left');
$expected = fresh_answers();
is(read_error(), '', 'readers load it');
is(answers('g'), $expected, 'and it answers as a fresh build');

# 2. The base's chunks missing, merged in the background.
$node->safe_psql('postgres', q{INSERT INTO edges VALUES (5004, 5005); SELECT grail.merge_graph('g')});
($build, $base) = split /\|/, state();
is($base, $build2, 'a delta from the new full build');
$node->safe_psql('postgres', qq{DELETE FROM grail.index_chunk WHERE graph_id = $gid AND seq >= 0});
like(read_error(), qr/whose stored image cannot be read/, 'missing base chunks: a reader gets the error');
my $log_offset = -s $node->logfile;
$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.merge_threshold = 10; SELECT pg_reload_conf()});
$node->safe_psql('postgres', q{INSERT INTO edges SELECT i, i + 7 FROM generate_series(100, 130) i});
ok($node->wait_for_log(qr/WARNING:.*pg_grail graph "public\.g": the stored image of build $base cannot be read, so this merge stores a full image/, $log_offset),
	'the background merge says it stores a full image');
ok($node->poll_query_until('postgres', qq{SELECT base_build IS NULL AND build > $build FROM grail.graph WHERE name = 'g'}),
	'and stores one');
$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()});
$expected = fresh_answers();
is(answers('g'), $expected, 'which answers as a fresh build');

# 3. A damaged delta, its base sound: an error for readers; the next merge makes a new delta.
$node->safe_psql('postgres', q{INSERT INTO edges VALUES (5006, 1); SELECT grail.merge_graph('g')});
($build, $base) = split /\|/, state();
cmp_ok($base, '>', 0, 'a delta build');
$node->safe_psql('postgres', qq{
	UPDATE grail.index_chunk SET data = set_byte(data, 20, get_byte(data, 20) # 1) WHERE graph_id = $gid AND seq = -1});
like(read_error(), qr/pg_grail graph "g" cannot be loaded: the stored delta of a pg_grail build is damaged/,
	'a damaged delta: a reader gets an error');
($ret, $out, $merge_err) = $node->psql('postgres', q{SELECT grail.merge_graph('g')});
is($ret, 0, 'merge_graph succeeds');
unlike($merge_err, qr/WARNING/, 'without a warning: its base is sound');
my ($build3, $base3) = split /\|/, state();
is($base3, $base, 'a new delta from the same base');
$expected = fresh_answers();
is(answers('g'), $expected, 'which answers as a fresh build');

# 4. A damaged full build: the next merge stores a full image, saying so.
$node->safe_psql('postgres', q{SELECT grail.refresh_graph('g')});
($build) = split /\|/, state();
$node->safe_psql('postgres', qq{
	UPDATE grail.index_chunk SET data = set_byte(data, 100, get_byte(data, 100) # 16) WHERE graph_id = $gid AND seq = 1});
like(read_error(), qr/cannot be loaded/, 'a damaged full build: a reader gets an error');
$node->safe_psql('postgres', q{INSERT INTO edges VALUES (5007, 5008)});
($ret, $out, $merge_err) = $node->psql('postgres', q{SELECT grail.merge_graph('g')});
is($ret, 0, 'merge_graph succeeds');
like($merge_err, qr/the stored image of build $build cannot be read, so this merge stores a full image/, 'saying so');
is((split /\|/, state())[1], '0', 'a full build');
$expected = fresh_answers();
is(answers('g'), $expected, 'which answers as a fresh build');

# 5. A merge whose transaction then rolls back leaves the damaged state as it was (the
# subtransaction that read the base is gone with it).
$node->safe_psql('postgres', q{INSERT INTO edges VALUES (5009, 5010); SELECT grail.merge_graph('g')});
($build, $base) = split /\|/, state();
$node->safe_psql('postgres', qq{DELETE FROM grail.index_chunk WHERE graph_id = $gid AND seq = 0});
($ret, $out, $merge_err) = $node->psql('postgres', q{BEGIN; SELECT grail.merge_graph('g'); ROLLBACK;});
like($merge_err, qr/cannot be read, so this merge stores a full image/, 'a merge in a transaction warns');
is(join('|', (split /\|/, state())[0, 1]), "$build|$base", 'rolled back: the delta build stays');
like(read_error(), qr/whose stored image cannot be read/, 'and readers still get the error');
is($node->safe_psql('postgres', q{SELECT grail.merge_graph('g') IS NOT NULL}), 't', 'merged again');
$expected = fresh_answers();
is(answers('g'), $expected, 'answers as a fresh build');

$node->stop;
done_testing();
