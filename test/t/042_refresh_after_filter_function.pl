# refresh_graph after CREATE OR REPLACE of a function a graph's filter calls (the README's remedy:
# the replacement is not noticed until a refresh) answers by the new function in every session,
# also in a reader that held an overlay over the older build: a refresh records no build snapshot,
# so that no overlay of the older build, whose edges the old function chose, is carried across it.
# Every pair of a reader kept across the replacement and the refresh is compared with a recursive
# query over the rows the new function passes; the same across a merge after another replacement.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('refresh_filter_function');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'\ngrail.merge_threshold = 0");
$node->start;
my $n = 24;
$node->safe_psql('postgres', qq{
	CREATE EXTENSION pg_grail;
	CREATE FUNCTION public.keep(bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT a, a + 1 + (random() * ($n - a - 2))::int
		FROM (SELECT $n / 2 + (random() * ($n / 2 - 2))::int AS a FROM generate_series(1, 40)) x;
	INSERT INTO e SELECT i, i + 1 FROM generate_series(0, $n - 1) i;
	-- (the random edges leave from the upper half: the lower half is the chain alone, whose cuts
	-- the assertions below name)
	SELECT count(*) FROM (SELECT grail.create_graph('g', 'e', filter => 'public.keep(source)')) c;
	CREATE FUNCTION wrong_pairs() RETURNS text LANGUAGE sql AS \$\$
		WITH RECURSIVE f AS (SELECT * FROM e WHERE public.keep(source)),
		r(a, b) AS (SELECT source, target FROM f UNION SELECT r.a, f.target FROM r JOIN f ON f.source = r.b),
		v(x) AS (SELECT generate_series(0, $n))
		SELECT coalesce(string_agg(format('%s->%s', a.x, b.x), ' '), 'none')
		FROM v a, v b
		WHERE grail.reachable('g', a.x, b.x) IS DISTINCT FROM (a.x = b.x OR EXISTS (SELECT 1 FROM r WHERE r.a = a.x AND r.b = b.x))
	\$\$;
});
my $sql = sub { $node->safe_psql('postgres', $_[0]) };
my $reader = $node->background_psql('postgres');
$reader->query_safe('SET client_min_messages = debug1');

# One check by the reader: every pair exact, and how its overlay came (its DEBUG1 line).
sub check
{
	my ($label) = @_;
	my $out = $reader->query('SELECT wrong_pairs()');
	my $how = join(' | ', $reader->{stderr} =~ /overlay of graph \d+: ([^,]+)/g);
	$reader->{stderr} = '';
	is($out, 'none', "$label: every pair exact");
	return $how;
}

$sql->("INSERT INTO e VALUES (3, 7)");
check('an overlay over the first build');
# Each third vertex's edges out leave the graph: the chain 0 -> 1 -> ... is cut at 1, 4, 7, ...
$sql->(q{CREATE OR REPLACE FUNCTION public.keep(bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 % 3 <> 1'});
$reader->query(q{SELECT grail.reachable('g', 0, 1)});
$reader->{stderr} = '';
$sql->(q{SELECT count(*) FROM (SELECT grail.refresh_graph('g')) m});
my $how = check('the reader after the refresh');
unlike($how, qr/carried/, "the reader's overlay was not carried across the refresh ($how)");
is($reader->query(q{SELECT grail.reachable('g', 0, 2)}), 'f', 'the reader: 0 no longer reaches 2 (1 -> 2 left)');
$reader->{stderr} = '';
is($sql->(q{SELECT grail.reachable('g', 0, 2)}), 'f', 'a new session: 0 no longer reaches 2');

# A merge reads the rows through the filter's functions as they are now, as a refresh does: the
# function replaced again, then a merge between the reader's statements with no commit between:
# not carried (a graph with a filter never is), every pair by the newest function.
$sql->("INSERT INTO e VALUES (2, 9)");
check('an overlay over the refresh');
$sql->(q{CREATE OR REPLACE FUNCTION public.keep(bigint) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 % 3 <> 2'});
$reader->query(q{SELECT grail.reachable('g', 0, 1)});
$reader->{stderr} = '';
$sql->(q{SELECT count(*) FROM (SELECT grail.merge_graph('g')) m});
$sql->("INSERT INTO e VALUES (5, 12)");
unlike(check('the reader after a merge'), qr/carried/, 'a merge of a filtered graph carries no overlay');
is($reader->query(q{SELECT grail.reachable('g', 1, 3)}), 'f', 'the reader: 1 no longer reaches 3 (2 -> 3 left)');
$reader->{stderr} = '';

$reader->quit;
$node->stop;
done_testing();
