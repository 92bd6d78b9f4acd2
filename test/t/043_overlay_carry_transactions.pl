# Readers' overlays of a live graph across merges, where transactions other than plain commits meet
# them: the reader's own writes and a savepoint rolled back across a merge; a prepared writer (its
# rows in progress for the reader and for the merge) committed or rolled back after merges; a
# prepared merge committed or rolled back; a merge in the reader's own subtransaction, rolled back
# or released; a REPEATABLE READ reader across three merges. Each step asks every pair and compares
# reachable() with a recursive query over the rows the same statement's snapshot sees, whether the
# overlay was carried, extended or made again (carries happen among them: open_graph.cpp,
# carries_across). Three rounds of random edges, cycles and self-loops among them.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('overlay_carry_transactions');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0\nmax_prepared_transactions = 10");
$node->start;
my $n = 20;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 1))::int FROM (SELECT (random() * ($n - 2))::int AS a
		FROM generate_series(1, 30)) x;
	INSERT INTO e SELECT 1000 + 2 * i, 1001 + 2 * i FROM generate_series(1, 1000) i;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	CREATE FUNCTION wrong_pairs() RETURNS text LANGUAGE sql AS \$\$
		WITH RECURSIVE r(a, b) AS (SELECT source, target FROM e WHERE source <= $n UNION SELECT r.a, e.target FROM r JOIN e ON e.source = r.b),
		v(x) AS (SELECT generate_series(0, $n) UNION ALL SELECT 9223372036854775807)
		SELECT coalesce(string_agg(format('%s->%s', a.x, b.x), ' '), 'none')
		FROM v a, v b
		WHERE grail.reachable('g', a.x, b.x) IS DISTINCT FROM (a.x = b.x OR EXISTS (SELECT 1 FROM r WHERE r.a = a.x AND r.b = b.x))
	\$\$;
});
my $carried = 0;
# An edge between any two of 0..$n: cycles and self-loops among them.
sub edge { my $a = int(rand($n)); return sprintf('(%d, %d)', $a, int(rand($n))); }
# One check by session $s: every pair exact; counts the statements whose overlay was carried.
sub check
{
	my ($s, $label) = @_;
	my $out = $s->query('SELECT wrong_pairs()');
	my $how = join(' | ', $s->{stderr} =~ /overlay of graph \d+: ([^,]+(?:, extended)?)/g);
	$s->{stderr} = '';
	$carried++ if $how =~ /carried across build/;
	is($out, 'none', "$label: every pair exact ($how)");
}
my $reader = $node->background_psql('postgres');
$reader->query_safe('SET client_min_messages = debug1');
my $other = $node->background_psql('postgres');
my $sql = sub { $node->safe_psql('postgres', $_[0]) };
my $merge = q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m};
for my $round (1 .. 3) {
	# A. reader's own writes and savepoints across a merge
	$sql->('INSERT INTO e VALUES ' . edge());
	check($reader, "A$round start");
	$reader->query('BEGIN; INSERT INTO e VALUES ' . edge()); $reader->{stderr} = '';
	check($reader, "A$round own write");
	$reader->query('SAVEPOINT s; INSERT INTO e VALUES ' . edge() . ', ' . edge()); $reader->{stderr} = '';
	check($reader, "A$round own write in savepoint");
	$sql->($merge);
	check($reader, "A$round after merge");
	$reader->query('ROLLBACK TO s'); $reader->{stderr} = '';
	check($reader, "A$round after rollback to savepoint");
	$sql->('INSERT INTO e VALUES ' . edge());
	$sql->($merge);
	check($reader, "A$round after commit+merge");
	$reader->query('COMMIT'); $reader->{stderr} = '';
	check($reader, "A$round after commit");
	$sql->($merge);
	check($reader, "A$round after merge 2");
	# B. prepared writer across merges
	$other->query_safe('BEGIN; INSERT INTO e VALUES ' . edge() . ', ' . edge() . q{; PREPARE TRANSACTION 'w'});
	check($reader, "B$round prepared writer");
	$sql->($merge);
	check($reader, "B$round merge beside prepared writer");
	$sql->(q{COMMIT PREPARED 'w'});
	check($reader, "B$round after commit prepared");
	$sql->($merge);
	check($reader, "B$round merge after commit prepared");
	$other->query_safe('BEGIN; DELETE FROM e WHERE ctid = (SELECT min(ctid) FROM e WHERE source <= 20); INSERT INTO e VALUES ' . edge() . q{; PREPARE TRANSACTION 'w2'});
	check($reader, "B$round prepared deleter");
	$sql->($merge);
	check($reader, "B$round merge beside it");
	$sql->(q{ROLLBACK PREPARED 'w2'});
	check($reader, "B$round after rollback prepared");
	# C. prepared merge
	$sql->('INSERT INTO e VALUES ' . edge());
	check($reader, "C$round before prepared merge");
	$other->query_safe(qq{BEGIN; $merge; PREPARE TRANSACTION 'm'});
	check($reader, "C$round merge prepared");
	$sql->('INSERT INTO e VALUES ' . edge());
	check($reader, "C$round write beside prepared merge");
	$sql->(q{COMMIT PREPARED 'm'});
	check($reader, "C$round after commit prepared merge");
	$sql->('INSERT INTO e VALUES ' . edge());
	$other->query_safe(qq{BEGIN; $merge; PREPARE TRANSACTION 'm2'});
	check($reader, "C$round merge prepared 2");
	$sql->(q{ROLLBACK PREPARED 'm2'});
	check($reader, "C$round after rollback prepared merge");
	$sql->($merge);
	check($reader, "C$round after a merge");
	# D. merge in the reader's own subtransaction, rolled back
	$sql->('INSERT INTO e VALUES ' . edge());
	check($reader, "D$round before");
	$reader->query("BEGIN; SAVEPOINT a; $merge"); $reader->{stderr} = '';
	check($reader, "D$round own merge in savepoint");
	$reader->query('ROLLBACK TO a'); $reader->{stderr} = '';
	check($reader, "D$round own merge rolled back");
	$sql->('INSERT INTO e VALUES ' . edge());
	check($reader, "D$round a commit after");
	$reader->query("SAVEPOINT b; $merge; RELEASE b"); $reader->{stderr} = '';
	check($reader, "D$round own merge released");
	$reader->query('INSERT INTO e VALUES ' . edge()); $reader->{stderr} = '';
	check($reader, "D$round own write after own merge");
	$reader->query('ROLLBACK'); $reader->{stderr} = '';
	check($reader, "D$round all rolled back");
	$sql->($merge);
	check($reader, "D$round after merge");
	# E. repeatable read across merges
	$reader->query('BEGIN ISOLATION LEVEL REPEATABLE READ'); $reader->{stderr} = '';
	check($reader, "E$round RR first");
	for my $k (1 .. 3) { $sql->('INSERT INTO e VALUES ' . edge()); $sql->($merge); check($reader, "E$round RR after merge $k"); }
	$reader->query('COMMIT'); $reader->{stderr} = '';
	check($reader, "E$round after RR");
}
ok($carried > 0, "some overlays were carried across merges ($carried)");

$reader->quit;
$other->quit;
$node->stop;
done_testing();
