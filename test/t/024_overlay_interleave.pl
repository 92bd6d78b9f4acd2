# The incremental overlay of a live graph under interleaved sessions: a reader that keeps the
# overlay of the changes its last statement saw and extends it with what was logged since, and two
# writers whose transactions commit out of order, roll back, or roll back to savepoints, with the
# reader's own writes, savepoints and REPEATABLE READ snapshots among them, so that a snapshot's
# pending set is now and then not a superset of the one the reader kept (then it must read the log
# whole), and edges deleted or closing cycles send it the other ways. After every step the reader
# checks every pair of vertices: reachable() must equal a recursive query over the rows its
# snapshot sees. Seeded; GRAIL_OVERLAY_STEPS and GRAIL_OVERLAY_SEED change the run.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $steps = $ENV{GRAIL_OVERLAY_STEPS} // 400;
my $seed = $ENV{GRAIL_OVERLAY_SEED} // 20261126;
srand($seed);

my $node = PostgreSQL::Test::Cluster->new('overlay_interleave');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0");
$node->start;
my $n = 14;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	-- A DAG in id order, so that inserted edges in that order extend the overlay.
	INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 1))::int FROM (SELECT (random() * ($n - 2))::int AS a
		FROM generate_series(1, 18)) x;
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

my $reader = $node->background_psql('postgres');
my @writers = ($node->background_psql('postgres'), $node->background_psql('postgres'));
my @open = (0, 0);    # whether writer k has a transaction open

sub forward_edge
{
	my $a = int(rand($n - 1));
	my $b = $a + 1 + int(rand($n - 1 - $a));
	return "($a, $b)";
}

sub some_edge
{
	return rand() < 0.8 ? forward_edge() : '(' . int(rand($n + 1)) . ', ' . int(rand($n + 1)) . ')';
}

my ($checks, $wrong) = (0, 0);
my @lines;

sub check
{
	my ($what) = @_;
	my $result = $reader->query_safe('SELECT wrong_pairs()');
	$checks++;
	if ($result ne 'none')
	{
		$wrong++;
		diag("step $what: wrong pairs $result");
	}
}

for my $step (1 .. $steps)
{
	my $k = int(rand(2));
	my $w = $writers[$k];
	my $r = rand();
	if ($r < 0.35)
	{
		# A writer's statement, in its open transaction or a new one.
		unless ($open[$k])
		{
			$w->query_safe('BEGIN');
			$open[$k] = 1;
		}
		$w->query_safe('INSERT INTO e VALUES ' . join(', ', map { some_edge() } 1 .. 1 + int(rand(2))));
		# A row the other writer deleted in its open transaction is skipped: waiting for its lock
		# would wait for a COMMIT that this script sends only after the DELETE returns.
		$w->query_safe('DELETE FROM e WHERE ctid = (SELECT ctid FROM e ORDER BY random() LIMIT 1 FOR UPDATE SKIP LOCKED)')
		  if rand() < 0.1;
	}
	elsif ($r < 0.55)
	{
		# A writer ends its transaction: committed (maybe after the other one's, out of order) or not.
		if ($open[$k])
		{
			$w->query_safe(rand() < 0.75 ? 'COMMIT' : 'ROLLBACK');
			$open[$k] = 0;
		}
	}
	elsif ($r < 0.7)
	{
		# The reader's own writes in a transaction, a savepoint rolled back between checks.
		$reader->query_safe('BEGIN');
		$reader->query_safe('INSERT INTO e VALUES ' . forward_edge());
		check("$step own write");
		$reader->query_safe('SAVEPOINT s');
		$reader->query_safe('INSERT INTO e VALUES ' . forward_edge() . ', ' . forward_edge());
		check("$step in savepoint");
		$reader->query_safe('ROLLBACK TO SAVEPOINT s');
		check("$step savepoint rolled back");
		$reader->query_safe(rand() < 0.5 ? 'COMMIT' : 'ROLLBACK');
	}
	elsif ($r < 0.8)
	{
		# A REPEATABLE READ snapshot held while a writer commits: it keeps seeing the older set.
		$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
		check("$step repeatable read");
		if ($open[$k])
		{
			$w->query_safe('COMMIT');
			$open[$k] = 0;
		}
		else
		{
			$w->query_safe('INSERT INTO e VALUES ' . forward_edge());
		}
		check("$step repeatable read, after a commit");
		$reader->query_safe('COMMIT');
	}
	elsif ($r < 0.83 && !$open[0] && !$open[1])
	{
		# A merge (which would wait for an open writer's lock).
		$reader->query_safe(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
	}
	check($step);
}
for my $k (0, 1)
{
	$writers[$k]->query_safe('COMMIT') if $open[$k];
}
check('end');
$reader->quit;
$_->quit for @writers;

cmp_ok($checks, '>', $steps, 'checks ran');
is($wrong, 0, "no wrong answer in $checks checks of every pair");
done_testing();
