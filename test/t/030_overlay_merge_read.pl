# A reader beside writers and background merges of a live graph: two writers commit single-row
# inserts and deletes (rows of the build and rows inserted since, now and then an edge that closes a
# cycle) as fast as they go, the merge worker folds them every few dozen changes, and a reader asks
# every pair in a loop meanwhile: its kept overlay is extended by what was logged since its last
# statement (deletions included), or made again over a new build after a merge. Every answer must
# equal a recursive query over the rows the same statement's snapshot sees. And the reader reads
# almost no image from the catalog after its first: each merge leaves its build's image in the
# shared cache, where the first statement after it maps it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('overlay_merge_read');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 25\ngrail.merge_naptime = 1");
$node->start;
my $n = 20;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 1))::int FROM (SELECT (random() * ($n - 2))::int AS a
		FROM generate_series(1, 40)) x;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	-- Every pair of 0..$n (and one id no row names) in the caller's snapshot: the pairs where
	-- reachable() differs from a closure of the rows.
	CREATE FUNCTION wrong_pairs() RETURNS text LANGUAGE sql AS \$\$
		WITH RECURSIVE r(a, b) AS (SELECT source, target FROM e UNION SELECT r.a, e.target FROM r JOIN e ON e.source = r.b),
		v(x) AS (SELECT generate_series(0, $n) UNION ALL SELECT 9223372036854775807)
		SELECT coalesce(string_agg(format('%s->%s', a.x, b.x), ' '), 'none')
		FROM v a, v b
		WHERE grail.reachable('g', a.x, b.x) IS DISTINCT FROM (a.x = b.x OR EXISTS (SELECT 1 FROM r WHERE r.a = a.x AND r.b = b.x))
	\$\$;
});

# A writer: single-row statements, each committed, for 10 s or more: mostly inserts in id order, some
# deletes of any row, now and then a backward edge (a cycle that a later delete may open again).
my $writes = 250;
my $writer_sql = qq{
	DO \$\$ BEGIN
		FOR i IN 1..$writes LOOP
			IF random() < 0.3 THEN
				DELETE FROM e WHERE ctid = (SELECT ctid FROM e ORDER BY random() LIMIT 1);
			ELSIF random() < 0.05 THEN
				INSERT INTO e VALUES ((random() * $n)::int, (random() * $n)::int);
			ELSE
				INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 1))::int FROM (SELECT (random() * ($n - 2))::int AS a) x;
			END IF;
			COMMIT;
			PERFORM pg_sleep(0.04);
		END LOOP;
	END \$\$};
my $reader = $node->background_psql('postgres');
$reader->query_safe(q{SELECT grail.reachable('g', 1, 2)});
my $merges_before = $node->safe_psql('postgres', q{SELECT background_merge_count FROM grail.graphs WHERE name = 'g'});
my ($loads_before) = $reader->query_safe(q{SELECT loads FROM grail.cache_counters()});

my @writers;
for (1 .. 2)
{
	my ($out, $err) = ('', '');
	push @writers,
	  IPC::Run::start([ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', $writer_sql ],
		'>', \$out, '2>', \$err);
}
my ($checks, $wrong) = (0, 0);
while (grep { $_->pumpable } @writers)
{
	$_->pump_nb for grep { $_->pumpable } @writers; # one may end between the two: pump only those running
	my $result = $reader->query_safe('SELECT wrong_pairs()');
	$checks++;
	if ($result ne 'none')
	{
		$wrong++;
		diag("check $checks: wrong pairs $result");
	}
}
ok($_->finish, 'a writer ran to its end') for @writers;
# The merges of what is still pending, then a last check.
$node->poll_query_until('postgres', q{SELECT count(*) < 25 FROM grail.pending_change});
is($reader->query_safe('SELECT wrong_pairs()'), 'none', 'the last check');
my $merges = $node->safe_psql('postgres', q{SELECT background_merge_count FROM grail.graphs WHERE name = 'g'}) - $merges_before;
cmp_ok($checks, '>', 5, "checks ran beside the writers ($checks)");
cmp_ok($merges, '>=', 3, "background merges ran meanwhile ($merges)");
is($wrong, 0, "no wrong answer in $checks checks of every pair");
# Each merge leaves its image in the cache. On a busy machine a reader may still load one: its
# statement's snapshot names a build that a newer build's first reader (the merge worker's next
# merge, say) has removed as mapped by no backend; the answer is the same, from the catalog.
my $loads = $reader->query_safe(q{SELECT loads FROM grail.cache_counters()}) - $loads_before;
cmp_ok($loads, '<', $merges, "the reader loaded fewer images ($loads) than merges made: they left theirs in the cache");
($loads_before) = $reader->query_safe(q{SELECT loads FROM grail.cache_counters()});

# A merge that rolls back leaves an image that no graph row names; the first reader of the next
# build removes it (an older build's image that no backend maps), and maps that build's image, which
# its merge left, without a load.
$node->safe_psql('postgres', q{ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()});
$node->safe_psql('postgres', q{INSERT INTO e VALUES (1, 2)});
$reader->query_safe(q{BEGIN; SELECT count(*) FROM (SELECT grail.merge_graph('g')) m; ROLLBACK});
# (A delta build's base image stays in the cache while the graph names it as its base.)
my $orphans = q{SELECT count(*) FILTER (WHERE g.id IS NULL) FROM grail.cache_info() c
	LEFT JOIN grail.graph g ON c.build IN (g.build_uuid, g.base_build_uuid)};
is($node->safe_psql('postgres', $orphans), '1', 'a merge rolled back leaves an image no graph names');
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
is($reader->query_safe('SELECT wrong_pairs()'), 'none', 'the build after it answers');
is($node->safe_psql('postgres', $orphans), '0', 'and its first reader removed that image');
is($reader->query_safe(q{SELECT loads FROM grail.cache_counters()}), $loads_before, 'without a load');
$reader->quit;
done_testing();
