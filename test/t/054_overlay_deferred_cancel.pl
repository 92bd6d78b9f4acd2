# A live graph's overlay cancelled part-way through its deferred widening, from SQL. A reader
# keeps its overlay while a writer commits batches of up to 1,000 new edges between components:
# the next statement's extension leaves most of them on the overlay's list of edges whose widening
# waits (per-row reads sweep them), and an array-form read widens them all first (settle). That read
# runs under a statement_timeout of 1 to 20 ms, so that the cancel lands before, inside or after the
# widening; a cancel inside it leaves the kept overlay not intact and the next statement makes a new
# one. After each round the reader's answers, per row (a sweep with edges deferred), by the array
# form and by the Grail Reachability Filter, must equal a graph built fresh from the same rows.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('overlay_deferred_cancel');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0");
$node->start;

# 50 clusters of 1,000 vertices, edges inside a cluster going to higher ids; new edges go between
# clusters in the order of a random permutation of them, so that they never close a cycle, and a
# new edge's widening reaches the ancestors of its tail in its cluster and in the clusters before.
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	SELECT setseed(0.54);
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT v, (v / 1000) * 1000 + least(999, v % 1000 + 1 + floor(random() * 40)::int)
		FROM generate_series(0, 49999) v, generate_series(1, 3) r WHERE v % 1000 <> 999;
	CREATE TABLE cluster_order AS SELECT c, row_number() OVER (ORDER BY random()) AS place FROM generate_series(0, 49) c;
	CREATE FUNCTION cross_edges(n int) RETURNS TABLE (s bigint, t bigint) LANGUAGE sql VOLATILE AS $$
		SELECT (CASE WHEN o1.place < o2.place THEN c1 ELSE c2 END) * 1000 + floor(random() * 1000)::bigint,
		       (CASE WHEN o1.place < o2.place THEN c2 ELSE c1 END) * 1000 + floor(random() * 1000)::bigint
		FROM (SELECT floor(random() * 50)::int c1, floor(random() * 50)::int c2 FROM generate_series(1, n)) q
		JOIN cluster_order o1 ON o1.c = q.c1 JOIN cluster_order o2 ON o2.c = q.c2 WHERE q.c1 <> q.c2
	$$;
	-- Pairs: uniform ones, and ones across the clusters' order, which new edges make reachable.
	CREATE TABLE pairs (a bigint, b bigint);
	INSERT INTO pairs SELECT floor(random() * 50000), floor(random() * 50000) FROM generate_series(1, 1000);
	INSERT INTO pairs SELECT s, t FROM cross_edges(1000);
	ANALYZE pairs;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	SELECT count(*) FROM (SELECT grail.create_graph('fresh', 'e', live => false)) c;
	-- Pairs answered otherwise than by the fresh build: per row (no filter over a subquery), by
	-- the array form, by the filter.
	CREATE FUNCTION wrong_answers() RETURNS text LANGUAGE plpgsql AS $$
	DECLARE per_row bigint; by_array bigint; by_filter bigint;
	BEGIN
		SELECT count(*) INTO per_row FROM (SELECT a, b FROM pairs OFFSET 0) p
			WHERE grail.reachable('g', a, b) IS DISTINCT FROM grail.reachable('fresh', a, b);
		SELECT count(*) INTO by_array FROM (SELECT array_agg(a) a, array_agg(b) b FROM pairs) p,
			unnest(grail.reachable('g', p.a, p.b), grail.reachable('fresh', p.a, p.b)) u(x, y) WHERE x IS DISTINCT FROM y;
		SELECT count(*) INTO by_filter FROM
			((SELECT a, b FROM pairs WHERE grail.reachable('g', a, b)
			  EXCEPT ALL SELECT a, b FROM pairs WHERE grail.reachable('fresh', a, b))
			 UNION ALL
			 (SELECT a, b FROM pairs WHERE grail.reachable('fresh', a, b)
			  EXCEPT ALL SELECT a, b FROM pairs WHERE grail.reachable('g', a, b))) d;
		RETURN format('per row %s, array %s, filter %s', per_row, by_array, by_filter);
	END $$;
	-- Per row alone: a statement that leaves edges deferred for the next.
	CREATE FUNCTION wrong_per_row() RETURNS bigint LANGUAGE sql AS $$
		SELECT count(*) FROM (SELECT a, b FROM pairs OFFSET 0) p
		WHERE grail.reachable('g', a, b) IS DISTINCT FROM grail.reachable('fresh', a, b)
	$$;
});
like($node->safe_psql('postgres', q{EXPLAIN SELECT a FROM pairs WHERE grail.reachable('g', a, b)}),
	qr/Grail Reachability Filter/, 'the filter is planned over pairs');

my $reader = $node->background_psql('postgres', on_error_stop => 0);
$node->safe_psql('postgres', 'INSERT INTO e SELECT * FROM cross_edges(10)');
$reader->query_safe(q{SELECT grail.reachable('g', 1, 2)});

my $none = 'per row 0, array 0, filter 0';
my ($cancelled, $remade) = (0, 0);
for my $round (1 .. 16)
{
	# A batch the reader's per-row reads take in and sweep while its widening waits.
	my $batch = 300 + ($round * 211) % 700;
	$node->safe_psql('postgres', "SELECT setseed($round / 64.0); INSERT INTO e SELECT * FROM cross_edges($batch)");
	$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('fresh')) r});
	is($reader->query_safe('SELECT wrong_per_row()'), '0', "round $round: per row with $batch new edges deferred");
	# Another, widened all at once by an array-form read that a statement_timeout cancels.
	$node->safe_psql('postgres', "SELECT setseed(-$round / 64.0); INSERT INTO e SELECT * FROM cross_edges($batch)");
	$reader->query_safe("SELECT grail.reachable('g', $_ * 997 % 50000, $_ * 7919 % 50000)") for 1 .. 3;
	my $timeout = 1 + ($round * 7) % 20;
	$reader->{stderr} = '';
	$reader->query(qq{
		SET client_min_messages = debug1;
		SET statement_timeout = $timeout;
		SELECT count(*) FROM (SELECT array_agg(a) a, array_agg(b) b FROM pairs) p, unnest(grail.reachable('g', p.a, p.b)) u
			WHERE u AND pg_sleep(0.03) IS NOT NULL;
		RESET statement_timeout;
		SELECT grail.reachable('g', 1, 2);
		RESET client_min_messages});
	$cancelled++ if $reader->{stderr} =~ /canceling statement due to statement timeout/;
	$remade++ if $reader->{stderr} =~ /pg_grail overlay of graph \d+: made again/;
	$reader->{stderr} = '';
	$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('fresh')) r});
	is($reader->query_safe('SELECT wrong_answers()'), $none,
		"round $round (statement_timeout $timeout ms): answers exact after the cancelled read");
}
cmp_ok($cancelled, '>', 0, 'some array-form reads were cancelled');
note "cancelled $cancelled reads; the overlay was made again after $remade";

# Pending rows deleted (their edges taken back) and more written: still exact.
$node->safe_psql('postgres', q{
	SELECT setseed(0.5);
	DELETE FROM e WHERE ctid IN (SELECT ctid FROM e ORDER BY ctid DESC LIMIT 200);
	INSERT INTO e SELECT * FROM cross_edges(500)});
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('fresh')) r});
is($reader->query_safe('SELECT wrong_answers()'), $none, 'exact after deletions of pending rows');

$reader->quit;
$node->stop;
done_testing();
