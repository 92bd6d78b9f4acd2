# Merges you can watch, as autovacuum is watched: grail.graphs' merge counts and times move with a
# merge by hand and a background merge and survive a restart; grail.log_merge_min_duration logs
# each merge with the graph, the pending changes it folded, the rows it read, the index image bytes
# it wrote and its duration (and nothing at -1, or under a larger threshold); grail.activity's done
# is filled in every phase of a build and a merge, seen from a second session (the merge held at
# its last steps by row locks; a larger build sampled as it runs).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('merge_watch');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.merge_threshold = 1000
grail.merge_naptime = 1
grail.log_merge_min_duration = 0
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 900);
	INSERT INTO e VALUES (-9223372036854775808, 9223372036854775807), (5, 5), (5, 5);
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e', live => true)) c;
});

sub stats
{
	$node->safe_psql('postgres',
		q{SELECT merge_count, background_merge_count, last_merge IS NOT NULL, last_background_merge IS NOT NULL
		  FROM grail.graphs WHERE name = 'g'});
}
sub one { $node->safe_psql('postgres', $_[0]) }

is(stats(), '0|0|f|f', 'a new graph: no merge yet');
my $offset = -s $node->logfile;
one(q{SELECT grail.refresh_graph('g')});
ok(!$node->log_contains('pg_grail (merge_graph|background merge) of graph', $offset), 'a refresh is no merge: no line');

# 1. A merge by hand: counted, timed, logged with its numbers.
one(q{INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 30)});
one(q{DELETE FROM e WHERE ctid IN (SELECT ctid FROM e WHERE source BETWEEN 0 AND 300 LIMIT 7)});
my $pending = one(q{SELECT pending_changes FROM grail.graphs WHERE name = 'g'});
is($pending, 37, '37 edge changes pending');
$offset = -s $node->logfile;
one(q{SELECT grail.merge_graph('g')});
is(stats(), '1|0|t|f', 'merge_graph(): merge_count 1, last_merge set, no background merge');
my ($rows, $bytes) = split /\|/, one(q{SELECT input_rows, index_bytes FROM grail.graph WHERE name = 'g'});
is($rows, one('SELECT count(*) FROM e'), 'the merge read every row');
ok($node->wait_for_log(
	qr/LOG:  pg_grail merge_graph of graph "public\.g": 37 pending changes folded, $rows rows read, $bytes index image bytes written, [0-9.]+ s/,
	$offset), 'the log line names the graph, the changes folded, the rows read, the bytes written and the duration');

# 2. A background merge: counted apart, logged. Waited for by polling, no timing.
my $before = one(q{SELECT last_merge FROM grail.graphs WHERE name = 'g'});
$offset = -s $node->logfile;
one(q{INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 1200)});
ok($node->poll_query_until('postgres', q{SELECT background_merge_count = 1 FROM grail.graphs WHERE name = 'g'}),
	'the background merge is counted');
is(stats(), '1|1|t|t', 'background_merge_count 1, last_background_merge set; merge_count stays 1');
is(one(q{SELECT last_merge FROM grail.graphs WHERE name = 'g'}), $before, 'last_merge (by hand) stays');
ok(one(q{SELECT last_background_merge > last_merge FROM grail.graphs WHERE name = 'g'}) eq 't', 'the background merge came later');
($rows, $bytes) = split /\|/, one(q{SELECT input_rows, index_bytes FROM grail.graph WHERE name = 'g'});
ok($node->wait_for_log(
	qr/LOG:  pg_grail background merge of graph "public\.g": 1200 pending changes folded, $rows rows read, $bytes index image bytes written, [0-9.]+ s/,
	$offset), 'the background merge is logged with its numbers');

# 3. The counts and times survive a restart (they are in the catalog row, not shared memory).
my $saved = one(q{SELECT merge_count, background_merge_count, last_merge, last_background_merge FROM grail.graphs WHERE name = 'g'});
$node->restart;
is(one(q{SELECT merge_count, background_merge_count, last_merge, last_background_merge FROM grail.graphs WHERE name = 'g'}),
	$saved, 'a restart keeps the counts and times');
# ... and after a crash (immediate stop): they were committed with the build.
$node->stop('immediate');
$node->start;
is(one(q{SELECT merge_count, background_merge_count, last_merge, last_background_merge FROM grail.graphs WHERE name = 'g'}),
	$saved, 'crash recovery keeps them too');

# 4. The threshold: -1 logs nothing, a large one nothing for a short merge; counts still move.
$offset = -s $node->logfile;
one(q{SET grail.log_merge_min_duration = -1; SELECT grail.merge_graph('g')});
one(q{SET grail.log_merge_min_duration = '1h'; SELECT grail.merge_graph('g')});
is(stats(), '3|1|t|t', 'two more merges by hand counted');
one(q{SET grail.log_merge_min_duration = 0; SELECT grail.merge_graph('g')});
ok($node->wait_for_log(qr/pg_grail merge_graph of graph "public\.g": 0 pending changes folded/, $offset),
	'at 0 a merge with nothing pending is logged');
my $lines = () = slurp_file($node->logfile, $offset) =~ /pg_grail merge_graph of graph/g;
is($lines, 1, 'at -1 and at 1h the short merges were not logged');

# A merge is logged when its transaction commits: not when it rolls back, nor when a savepoint
# before it is rolled back to; a released savepoint's merge is logged at the commit.
$offset = -s $node->logfile;
one(q{SET grail.log_merge_min_duration = 0; BEGIN; SELECT grail.merge_graph('g'); ROLLBACK});
one(q{SET grail.log_merge_min_duration = 0; BEGIN; SAVEPOINT s; SELECT grail.merge_graph('g'); ROLLBACK TO s; COMMIT});
one(q{SET grail.log_merge_min_duration = 0; BEGIN; SAVEPOINT s; SAVEPOINT t; SELECT grail.merge_graph('g'); RELEASE t; ROLLBACK TO s; COMMIT});
one(q{SELECT pg_sleep(0.2)}); # the rolled-back merges would have written their lines by now
my $logged = () = slurp_file($node->logfile, $offset) =~ /pg_grail merge_graph of graph/g;
is($logged, 0, 'merges rolled back, wholly or to a savepoint, are not logged');
one(q{SET grail.log_merge_min_duration = 0; BEGIN; SAVEPOINT s; SELECT grail.merge_graph('g'); RELEASE s; SELECT 1; COMMIT});
ok($node->wait_for_log(qr/pg_grail merge_graph of graph "public\.g"/, $offset), 'a released savepoint\'s merge is logged at the commit');
$logged = () = slurp_file($node->logfile, $offset) =~ /pg_grail merge_graph of graph/g;
is($logged, 1, 'once');

# 5. grail.activity fills done in the merge's last phases, held by row locks from other sessions:
# the pending changes it must delete, then the index chunks it must replace.
one(q{INSERT INTO e SELECT (random() * 300)::int, (random() * 300)::int FROM generate_series(1, 20)});
my $lock_changes = $node->background_psql('postgres');
my $lock_chunks = $node->background_psql('postgres');
$lock_changes->query_safe('BEGIN');
$lock_changes->query_safe('SELECT count(*) FROM (SELECT 1 FROM grail.pending_change FOR UPDATE) s');
$lock_chunks->query_safe('BEGIN');
$lock_chunks->query_safe('SELECT count(*) FROM (SELECT 1 FROM grail.index_chunk FOR UPDATE) s');
my $merger = $node->background_psql('postgres');
$merger->query_until(qr/merging/, q{\echo merging
SELECT count(*) FROM (SELECT grail.merge_graph('g')) m;
});
ok($node->poll_query_until('postgres',
	q{SELECT count(*) = 1 FROM grail.activity WHERE graph = 'g' AND phase = 'deleting merged changes'}),
	'the merge waits to delete the pending changes');
is(one(q{SELECT command, done, total, unit FROM grail.activity WHERE graph = 'g'}), 'merge_graph|0|20|changes',
	'deleting: done 0 of the 20 changes');
$lock_changes->query_safe('COMMIT');
ok($node->poll_query_until('postgres',
	q{SELECT done = 20 FROM grail.activity WHERE graph = 'g' AND phase = 'deleting merged changes'}),
	'deleted: done reaches the total while it waits to replace the index');
$lock_chunks->query_safe('COMMIT');
$merger->query_safe('SELECT 1');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 0 FROM grail.activity WHERE pid IS NOT NULL}), 'the merge ended');
is(stats(), '6|1|t|t', 'and was counted (the merges rolled back were not)');
$lock_changes->quit;
$lock_chunks->quit;
$merger->quit;

# 6. Every phase of a larger build, sampled from a second session while it runs: done is never
# NULL, and never past a known total. The sampler runs first and stops once the merge after it ended.
one(q{
	CREATE TABLE big (source bigint, target bigint);
	INSERT INTO big SELECT (random() * 200000)::int, (random() * 200000)::int FROM generate_series(1, 600000);
	ANALYZE big;
	CREATE TABLE samples (phase text, done bigint, total bigint, unit text);
	CREATE PROCEDURE sample() LANGUAGE plpgsql AS $$
	DECLARE n int;
	BEGIN
		-- Until the build and the merge after it have ended (each statement sees the latest commits).
		FOR i IN 1 .. 100000000 LOOP
			INSERT INTO samples SELECT a.phase, a.done, a.total, a.unit FROM grail.activity a
			WHERE a.graph = 'bigg' AND a.pid IS NOT NULL;
			GET DIAGNOSTICS n = ROW_COUNT;
			EXIT WHEN n = 0 AND EXISTS (SELECT 1 FROM grail.graph WHERE name = 'bigg' AND merge_count >= 1);
		END LOOP;
	END $$;
});
my $sampler = $node->background_psql('postgres');
$sampler->query_until(qr/sampling/, q{\echo sampling
CALL sample();
});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM pg_stat_activity WHERE query LIKE 'CALL sample()%'}),
	'the sampler runs');
one(q{SELECT count(*) FROM (SELECT grail.create_graph('bigg', 'big', live => true)) c});
one(q{INSERT INTO big SELECT (random() * 200000)::int, (random() * 200000)::int FROM generate_series(1, 500)});
one(q{SELECT grail.merge_graph('bigg')});
$sampler->query_safe('SELECT 1');
$sampler->quit;
cmp_ok(one('SELECT count(*) FROM samples'), '>', 0, 'the sampler saw the build');
is(one('SELECT count(*) FROM samples WHERE done IS NULL'), 0, 'done is filled in every phase sampled');
is(one('SELECT count(*) FROM samples WHERE total >= 0 AND done > total AND phase <> $$reading rows$$'), 0,
	'done never passes a known total (reading rows: the total is the planner estimate)');
is(one(q{SELECT count(*) FROM samples WHERE phase IN ('components', 'labels') AND done NOT IN (0, total)}), 0,
	"the engine's steps: 0 until they return, then their total");
diag(one(q{SELECT string_agg(phase || ' ' || n, ', ') FROM (SELECT phase, count(*) n FROM samples GROUP BY phase) s}));

ok(!$node->log_contains('terminated by signal|PANIC|TRAP'), 'no crash in the server log');
done_testing();
