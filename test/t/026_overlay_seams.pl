# The live overlay at the seams of PostgreSQL's transaction machinery: prepared transactions
# (PREPARE TRANSACTION, then COMMIT PREPARED or ROLLBACK PREPARED from another session), more than
# 64 subtransactions (the snapshot's subtransaction cache overflows), an older snapshot imported
# with SET TRANSACTION SNAPSHOT after the reader kept a newer overlay, cursors WITH HOLD, and
# ALTER TABLE of the edge columns between reads. After every step the reader checks every pair:
# reachable() must equal a recursive query over the rows its snapshot sees.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('overlay_seams');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0\nmax_prepared_transactions = 4");
$node->start;
my $n = 12;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e VALUES (0, 1), (1, 2), (3, 4), (5, 6), (7, 8);
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	CREATE FUNCTION wrong_pairs() RETURNS text LANGUAGE sql AS \$\$
		WITH RECURSIVE r(a, b) AS (SELECT source, target FROM e UNION SELECT r.a, e.target FROM r JOIN e ON e.source = r.b),
		v(x) AS (SELECT generate_series(0, $n))
		SELECT coalesce(string_agg(format('%s->%s', a.x, b.x), ' '), 'none')
		FROM v a, v b
		WHERE grail.reachable('g', a.x, b.x) IS DISTINCT FROM (a.x = b.x OR EXISTS (SELECT 1 FROM r WHERE r.a = a.x AND r.b = b.x))
	\$\$;
});

my $reader = $node->background_psql('postgres');
my $writer = $node->background_psql('postgres');

sub check
{
	my ($what) = @_;
	is($reader->query_safe('SELECT wrong_pairs()'), 'none', $what);
}

check('start');

# Prepared transactions: invisible while prepared, then committed or rolled back from elsewhere.
$writer->query_safe('BEGIN');
$writer->query_safe('INSERT INTO e VALUES (2, 3)');
$writer->query_safe(q{PREPARE TRANSACTION 'p1'});
check('a prepared insert is not seen');
$reader->query_safe('INSERT INTO e VALUES (4, 5)');
check('a commit after a prepared transaction');
$reader->query_safe(q{COMMIT PREPARED 'p1'});
check('the prepared insert committed');
$writer->query_safe('BEGIN');
$writer->query_safe('INSERT INTO e VALUES (6, 7)');
$writer->query_safe('DELETE FROM e WHERE source = 0');
$writer->query_safe(q{PREPARE TRANSACTION 'p2'});
check('a second prepared transaction');
$writer->query_safe(q{ROLLBACK PREPARED 'p2'});
check('the prepared transaction rolled back');

# More than 64 subtransactions, each with an insert, some rolled back.
my @sub = ('BEGIN');
for my $i (1 .. 70)
{
	push @sub, "SAVEPOINT s$i";
	push @sub, 'INSERT INTO e VALUES (' . ($i % $n) . ', ' . (($i * 7) % $n) . ')';
	push @sub, "ROLLBACK TO SAVEPOINT s$i" if $i % 3 == 0;
}
$reader->query_safe(join(";\n", @sub));
check('70 subtransactions, in the transaction');
$reader->query_safe('ROLLBACK TO SAVEPOINT s40');
check('rolled back to the 40th of 70 subtransactions');
$reader->query_safe('COMMIT');
check('70 subtransactions committed');
$writer->query_safe(join(";\n", @sub) . ";\nCOMMIT");
check('another session\'s 70 subtransactions committed');

# An older snapshot imported after the reader kept a newer overlay.
$writer->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
my $snapshot = $writer->query_safe('SELECT pg_export_snapshot()');
$reader->query_safe('DELETE FROM e WHERE source = 4');
$reader->query_safe('INSERT INTO e VALUES (8, 9), (9, 10)');
check('after writes newer than the exported snapshot');
$reader->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
$reader->query_safe(qq{SET TRANSACTION SNAPSHOT '$snapshot'});
check('in the older imported snapshot');
$reader->query_safe('COMMIT');
check('back in a new snapshot');
$writer->query_safe('COMMIT');

# A cursor WITH HOLD answers for the snapshot it was declared in.
$reader->query_safe('BEGIN');
$reader->query_safe(q{DECLARE c CURSOR WITH HOLD FOR SELECT wrong_pairs()});
$reader->query_safe('INSERT INTO e VALUES (10, 11)');
$reader->query_safe('COMMIT');
$writer->query_safe('INSERT INTO e VALUES (11, 12)');
check('after a cursor WITH HOLD');
is($reader->query_safe('FETCH c'), 'none', 'the cursor WITH HOLD');
$reader->query_safe('CLOSE c');

# ALTER TABLE of the edge columns while changes are pending: the graph answers right or refuses.
$reader->query_safe('INSERT INTO e VALUES (12, 0)');
check('before the rename');
$writer->query_safe('ALTER TABLE e RENAME COLUMN target TO dst');
$reader->query_safe('INSERT INTO e VALUES (3, 0)');
$reader->query_safe(q{CREATE OR REPLACE FUNCTION wrong_pairs() RETURNS text LANGUAGE sql AS $$
		WITH RECURSIVE r(a, b) AS (SELECT source, dst FROM e UNION SELECT r.a, e.dst FROM r JOIN e ON e.source = r.b),
		v(x) AS (SELECT generate_series(0, } . $n . q{))
		SELECT coalesce(string_agg(format('%s->%s', a.x, b.x), ' '), 'none')
		FROM v a, v b
		WHERE grail.reachable('g', a.x, b.x) IS DISTINCT FROM (a.x = b.x OR EXISTS (SELECT 1 FROM r WHERE r.a = a.x AND r.b = b.x))
	$$});
check('after a rename of the target column');
$writer->query_safe('ALTER TABLE e ADD COLUMN w int');
$writer->query_safe('ALTER TABLE e DROP COLUMN w');
$reader->query_safe('DELETE FROM e WHERE source = 12');
check('after a column added and dropped');
$writer->query_safe('ALTER TABLE e ALTER COLUMN dst TYPE int');
my ($rc, $out, $err) = $node->psql('postgres', 'SELECT wrong_pairs()');
like($err, qr/stale|refresh_graph/, 'a retyped edge column: the graph refuses until rebuilt');
$reader->query_safe(q{SELECT count(*) FROM (SELECT grail.refresh_graph('g')) r});
check('after the rebuild');

$reader->quit;
$writer->quit;
done_testing();
