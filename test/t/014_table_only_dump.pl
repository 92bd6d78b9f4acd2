# A table-only dump (pg_dump -t) carries the table's pg_grail triggers, which name their graph by
# id. Restored into another database where an unrelated graph has that id, they must leave that
# graph alone: a write to the restored table is neither logged into it nor makes it stale, and
# each trigger warns that it is none of that graph's, with a hint to drop it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('table_only_dump');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;

$node->safe_psql('postgres', 'CREATE DATABASE src; CREATE DATABASE dst');
# The first graph of each database gets id 1: tsrc's live graph in src, other's (live) and
# other_fixed's (not live, id 2) in dst; tsrc's second graph (id 2) is not live.
$node->safe_psql('src', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE tsrc_parent (source bigint, target bigint);
	CREATE TABLE tsrc () INHERITS (tsrc_parent);
	INSERT INTO tsrc VALUES (1, 2);
	SELECT grail.create_graph('g', 'tsrc');
	SELECT grail.create_graph('g_fixed', 'tsrc', live => false);
});
$node->safe_psql('dst', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE other (source bigint, target bigint);
	INSERT INTO other VALUES (10, 20);
	SELECT grail.create_graph('o', 'other');
	SELECT grail.create_graph('o_fixed', 'other', live => false);
});
is($node->safe_psql('dst', q{SELECT string_agg(id || ':' || name, ',' ORDER BY id) FROM grail.graph}),
	'1:o,2:o_fixed', 'the graphs of dst have the ids of those of src');

my $dump = $node->basedir . '/tsrc.sql';
$node->command_ok([ 'pg_dump', '-t', 'tsrc', '-t', 'tsrc_parent', '-d', $node->connstr('src'), '-f', $dump ],
	'pg_dump -t of the edge table and its parent');
$node->command_ok([ 'psql', '-Xq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('dst'), '-f', $dump ],
	'restored into dst');
like($node->safe_psql('dst', q{SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE tgrelid IN ('tsrc'::regclass, 'tsrc_parent'::regclass)}),
	qr/grail_log_1_insert.*grail_stale_1/, 'the dump brought the graphs\' triggers');

my ($ret, $out, $err) = $node->psql('dst', q{INSERT INTO tsrc VALUES (100, 999), (20, 30)});
is($ret, 0, 'a write to the restored table succeeds');
like($err, qr/WARNING:  pg_grail trigger "grail_log_1_insert" on table "tsrc" ignores this write: the table is not in the inheritance family of graph "o" \(id 1\)/,
	'the log trigger warns, naming itself, its table and the graph');
like($err, qr/HINT:  Drop the trigger: DROP TRIGGER grail_log_1_insert ON public.tsrc;/, 'with a hint to drop it');
like($err, qr/trigger "grail_log_2_insert" on table "tsrc" .* graph "o_fixed" \(id 2\)/,
	'so does the trigger of the other graph');
($ret, $out, $err) = $node->psql('dst', q{UPDATE tsrc_parent SET target = 31 WHERE source = 20});
is($ret, 0, 'a write through the restored parent succeeds');
like($err, qr/WARNING:  pg_grail trigger "grail_stale_1" on table "tsrc_parent" ignores this write/,
	'the staleness trigger warns too');

is($node->safe_psql('dst', q{SELECT grail.reachable('o', 100, 999), grail.reachable('o', 10, 30), grail.reachable('o_fixed', 10, 20)}),
	'f|f|t', 'the unrelated graphs answer from their own table');
is($node->safe_psql('dst', q{SELECT string_agg(name || ':' || stale || ':' || pending_changes, ',' ORDER BY name) FROM grail.graphs}),
	'o:false:0,o_fixed:false:0', 'neither is stale nor has pending changes');
$node->safe_psql('dst', q{INSERT INTO other VALUES (20, 30)});
is($node->safe_psql('dst', q{SELECT grail.reachable('o', 10, 30), (SELECT stale FROM grail.graphs WHERE name = 'o_fixed')}),
	't|t', 'their own triggers still work');

$node->stop;
done_testing();
