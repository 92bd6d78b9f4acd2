# A reader's overlay of a live graph carried across a build (open_graph.cpp, carries_across): where
# every transaction the build's snapshot counted as ended the reader's last snapshot counted as
# ended too, the build deleted only log rows that the overlay holds, and the overlay, extended by
# the rows logged since, answers for the new build. Each case asks every pair and compares
# reachable() with a recursive query over the rows the same statement's snapshot sees, and reads
# the reader's DEBUG1 line (how it came by its overlay): carried where the rule allows it (so that a
# carry that never runs fails here), not carried where the build took in a row the reader had not
# seen (a commit between the reader's statement and the build's snapshot, the build's own
# transaction's rows, a filter changed), exact either way. Then a background merge under a steady
# writer with a checker, and a standby's reader.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('overlay_carry');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0\ngrail.merge_naptime = 1");
$node->start;
my $n = 20;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 1))::int FROM (SELECT (random() * ($n - 2))::int AS a
		FROM generate_series(1, 30)) x;
	-- Pairs of ids past 0..$n, which no write joins to them: they make each build read some rows
	-- (a merge long enough for a checker's statement to run while it runs).
	INSERT INTO e SELECT 1000 + 2 * i, 1001 + 2 * i FROM generate_series(1, 100000) i;
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e')) c;
	CREATE FUNCTION wrong_pairs() RETURNS text LANGUAGE sql AS \$\$
		WITH RECURSIVE r(a, b) AS (SELECT source, target FROM e WHERE source <= $n UNION SELECT r.a, e.target FROM r JOIN e ON e.source = r.b),
		v(x) AS (SELECT generate_series(0, $n) UNION ALL SELECT 9223372036854775807)
		SELECT coalesce(string_agg(format('%s->%s', a.x, b.x), ' '), 'none')
		FROM v a, v b
		WHERE grail.reachable('g', a.x, b.x) IS DISTINCT FROM (a.x = b.x OR EXISTS (SELECT 1 FROM r WHERE r.a = a.x AND r.b = b.x))
	\$\$;
});

# An edge that adds no cycle (a forward one), or one that may (any pair).
sub forward_edge { my $a = int(rand($n - 2)); return sprintf('(%d, %d)', $a, $a + 1 + int(rand($n - $a - 1))); }

# One check by session $s: every pair exact, and how its overlay came (its DEBUG1 line).
sub check
{
	my ($s, $label, $carried) = @_;
	my $out = $s->query('SELECT wrong_pairs()');
	my $how = join(' | ', $s->{stderr} =~ /overlay of graph \d+: ([^,]+(?:, extended)?)/g);
	$s->{stderr} = '';
	is($out, 'none', "$label: every pair exact");
	if (defined $carried)
	{
		if ($carried) { like($how, qr/carried across build/, "$label: the overlay was carried ($how)"); }
		else { unlike($how, qr/carried across build/, "$label: the overlay was not carried ($how)"); }
	}
	return $how;
}

my $reader = $node->background_psql('postgres');
$reader->query_safe('SET client_min_messages = debug1');
my $sql = sub { $node->safe_psql('postgres', $_[0]) };

$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'first read');

# A merge by hand after the reader's statement, with no commit between: the build took in only rows
# the reader saw. A row written after it is read since, as if no build had run.
my $before = $sql->(q{SELECT build || ' ' || build_uuid FROM grail.graph WHERE name = 'g'});
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'merge_graph between statements', 1);
# explain_graph names the build that answers: the one the carried overlay is over, its number with
# its uuid (not the catalog's newer number beside the older uuid).
is($reader->query(q{SELECT build || ' ' || build_uuid FROM grail.explain_graph('g') WHERE function = 'reachable(graph, a, b)'}),
	$before, 'explain_graph names the build the carried overlay is over');
$reader->{stderr} = '';
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'the carried overlay extended again');
$sql->('DELETE FROM e WHERE ctid = (SELECT min(ctid) FROM e)');
check($reader, 'a deletion after a carry');

# A refresh of a live graph records no snapshot: it reads the rows again where they may make other
# edges than the build and the log say (a filter's function replaced, 042). Not carried.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before refresh_graph');
$sql->(q{SELECT count(*) FROM (SELECT grail.refresh_graph('g')) m});
is($sql->(q{SELECT build_xmax IS NULL AND build_running IS NULL FROM grail.graph WHERE name = 'g'}), 't',
	'a refresh records no snapshot');
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'refresh_graph between statements', 0);

# A commit between the reader's statement and the merge's snapshot: the merge took in a row the
# reader never saw. Not carried.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before a commit and a merge');
$sql->('INSERT INTO e VALUES ' . forward_edge());
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
check($reader, 'a commit the reader had not seen, then a merge', 0);
is($sql->(q{SELECT build_xmax IS NOT NULL FROM grail.graph WHERE name = 'g'}), 't', 'the merge recorded its snapshot');

# A merge in a transaction that wrote an edge first: its snapshot sees its own row, which the
# build deletes and no other snapshot saw. It records no snapshot; not carried.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before a merge after its own write');
$sql->('BEGIN; INSERT INTO e VALUES ' . forward_edge() . q{; SELECT count(*) FROM (SELECT grail.merge_graph('g')) m; COMMIT});
is($sql->(q{SELECT build_xmax IS NULL AND build_running IS NULL FROM grail.graph WHERE name = 'g'}), 't',
	'a merge after its own write records no snapshot');
check($reader, 'a merge after its own write', 0);

# A writer whose transaction stays open across the merge and commits after it: its row was in
# progress for the reader and for the merge, so the merge left it in the log, and the carried
# overlay reads it when it commits.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before an open writer');
my $open = $node->background_psql('postgres');
$open->query_safe('BEGIN; INSERT INTO e VALUES (0, ' . ($n - 1) . ')');
check($reader, 'an open writer');
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
check($reader, 'a merge beside the open writer', 1);
$open->query_safe('COMMIT');
is($reader->query(q{SELECT grail.reachable('g', 0, } . ($n - 1) . ')'), 't', 'the open writer\'s edge, committed after the merge');
$reader->{stderr} = '';
check($reader, 'after the open writer\'s commit');

# A writer that commits between the merge's snapshot and the merge's commit (a REPEATABLE READ
# merge takes its snapshot at its transaction's first statement): the merge does not take the row
# in; the reader sees it before the merge commits and still holds it after.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before a slow merge');
my $merger = $node->background_psql('postgres');
$merger->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT 1');
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'a commit after the merge\'s snapshot');
$merger->query_safe(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
check($reader, 'the merge not committed yet');
$merger->query_safe('COMMIT');
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'a merge that did not take in a row the reader saw', 1);
is($sql->(q{SELECT count(*) FROM grail.pending_change}), '2', 'that row is still in the log, beside the last one');

# A merge whose transaction had an id before its snapshot (a merge locks the graph's row first;
# here txid_current()) while a younger transaction commits: the merge's own id is below its
# snapshot's xmax and not among its snapshot's transactions in progress, and a reader's statement
# while the merge runs counts it as in progress. Carried: the build deleted none of its rows.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before a merge with an older id');
$merger->query_safe('BEGIN; SELECT txid_current()');
$sql->('INSERT INTO e VALUES ' . forward_edge());
$merger->query_safe(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
check($reader, 'a merge with an older id, not committed yet');
$merger->query_safe('COMMIT');
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'a merge whose own id was below its snapshot\'s xmax', 1);

# The filter changed (by a superuser's UPDATE: a filter no row fails, so that the rows stay the
# edges) and a merge in the same transaction, whose snapshot the reader's covers: the build reads
# the rows otherwise than the log did. Not carried.
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'before a filter changed');
$sql->(q{BEGIN; UPDATE grail.graph SET filter = '(source IS NOT NULL)', filter_columns = '{source}' WHERE name = 'g';
	SELECT count(*) FROM (SELECT grail.merge_graph('g')) m; COMMIT});
is($sql->(q{SELECT build_xmax IS NOT NULL FROM grail.graph WHERE name = 'g'}), 't', 'that merge recorded its snapshot');
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'a merge under another filter', 0);
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'the filter kept');
$sql->(q{BEGIN; UPDATE grail.graph SET filter = NULL, filter_columns = '{}' WHERE name = 'g';
	SELECT count(*) FROM (SELECT grail.merge_graph('g')) m; COMMIT});
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'the filter taken away again', 0);

# An overlay that holds more than a quarter of what an overlay takes (65,536 + a quarter of the
# build's ~100,000 edges) is not carried: the new build's overlay is made afresh, small, and
# carried across the next build again.
$sql->('INSERT INTO e SELECT 500000 + 2 * i, 500001 + 2 * i FROM generate_series(1, 23000) i');
check($reader, 'an overlay of 23,000 inserted edges');
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'a large overlay at a merge', 0);
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
$sql->('INSERT INTO e VALUES ' . forward_edge());
check($reader, 'the small overlay made then, at the next merge', 1);

# A background merge under a steady writer, a checker beside it: carried overlays among its
# statements, no wrong answer.
$sql->(q{ALTER SYSTEM SET grail.merge_threshold = 20; SELECT pg_reload_conf()});
my $writes = 250;
my ($out, $err) = ('', '');
my $writer = IPC::Run::start(
	[ 'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c', qq{
	DO \$\$ BEGIN
		FOR i IN 1..$writes LOOP
			IF random() < 0.2 THEN
				DELETE FROM e WHERE ctid = (SELECT ctid FROM e ORDER BY random() LIMIT 1);
			ELSE
				INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 1))::int FROM (SELECT (random() * ($n - 2))::int AS a) x;
			END IF;
			COMMIT;
			PERFORM pg_sleep(0.03);
		END LOOP;
	END \$\$} ], '>', \$out, '2>', \$err);
my $merges_before = $sql->(q{SELECT background_merge_count FROM grail.graphs WHERE name = 'g'});
my ($checks, $wrong, $carries) = (0, 0, 0);
while ($writer->pumpable)
{
	$writer->pump_nb;
	my $result = $reader->query('SELECT wrong_pairs()');
	$carries++ if $reader->{stderr} =~ /carried across build/;
	$reader->{stderr} = '';
	$checks++;
	if ($result ne 'none') { $wrong++; diag("check $checks: wrong pairs $result"); }
}
ok($writer->finish, 'the writer ran to its end');
my $merges = $sql->(q{SELECT background_merge_count FROM grail.graphs WHERE name = 'g'}) - $merges_before;
cmp_ok($merges, '>=', 3, "background merges ran beside the checker ($merges)");
is($wrong, 0, "no wrong answer in $checks checks of every pair");
cmp_ok($carries, '>', 0, "the checker's overlay was carried across background merges ($carries times)");
$sql->(q{ALTER SYSTEM SET grail.merge_threshold = 0; SELECT pg_reload_conf()});

# A standby's reader: the build's snapshot and the standby's are the primary's transactions.
$node->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('overlay_carry_standby');
$standby->init_from_backup($node, 'base', has_streaming => 1);
$standby->start;
$sql->('INSERT INTO e VALUES ' . forward_edge());
$node->wait_for_catchup($standby, 'replay');
my $standby_reader = $standby->background_psql('postgres');
$standby_reader->query_safe('SET client_min_messages = debug1');
check($standby_reader, 'the standby\'s first read');
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
$sql->('INSERT INTO e VALUES ' . forward_edge());
$node->wait_for_catchup($standby, 'replay');
check($standby_reader, 'the standby after a merge', 1);
# A writer open on the primary across a merge, committed after it.
$open->query_safe('BEGIN; INSERT INTO e VALUES ' . forward_edge());
$node->wait_for_catchup($standby, 'replay');
check($standby_reader, 'the standby beside an open writer');
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
$open->query_safe('COMMIT');
$node->wait_for_catchup($standby, 'replay');
check($standby_reader, 'the standby after the open writer\'s commit');
$sql->('INSERT INTO e VALUES ' . forward_edge());
$node->wait_for_catchup($standby, 'replay');
check($standby_reader, 'the standby later');

$standby_reader->quit;
$open->quit;
$merger->quit;
$reader->quit;
$standby->stop;
$node->stop;
done_testing();
