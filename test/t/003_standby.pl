# A hot standby made with pg_basebackup answers from the replicated index, and sees a refresh
# done on the primary.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE edges (source bigint, target bigint);
	-- chain 1 -> ... -> 1000, cycles 2000 -> 2001 -> 2002 -> 2000 and -5 <-> 9223372036854775807.
	INSERT INTO edges SELECT i, i + 1 FROM generate_series(1, 999) i;
	INSERT INTO edges VALUES (2000, 2001), (2001, 2002), (2002, 2000), (-5, 9223372036854775807), (9223372036854775807, -5);
	SELECT grail.create_graph('g', 'edges');
});

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()'), 't', 'standby is in recovery');

my $q = q{
	SELECT grail.reachable('g', 1, 1000), grail.reachable('g', 1000, 1), grail.reachable('g', 2002, 2001),
	       grail.reachable('g', -5, 9223372036854775807), grail.reachable('g', 1, 2000),
	       grail.reachable('g', ARRAY[10, 1000]::bigint[], ARRAY[20, 10]::bigint[]),
	       (SELECT string_agg(vertex || ':' || component, ',' ORDER BY vertex) FROM grail.scc_components('g')
	        WHERE vertex < 1 OR vertex > 1000 OR vertex = 3),
	       grail.scc_component('g', 2001), (SELECT count(*) FROM grail.bfs('g', 500))
};
my $before = 't|f|t|t|f|{t,f}|-5:-5,3:3,2000:2000,2001:2000,2002:2000,9223372036854775807:-5|2000|501';
is($primary->safe_psql('postgres', $q), $before, 'primary answers');
is($standby->safe_psql('postgres', $q), $before, 'standby answers reachable(), scc_components() from the replicated index');
# A standby session that keeps its cached index across the refresh below.
my $session = $standby->background_psql('postgres');
is($session->query_safe($q), $before, 'standby session answers (index now cached in it)');

# Refresh on the primary: the chain closes into one cycle; the standby sees the new build.
$primary->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO edges VALUES (1000, 1), (1, 2000);
	SELECT grail.refresh_graph('g');
	COMMIT;
});
$primary->wait_for_catchup($standby, 'replay');
my $after = 't|t|t|t|t|{t,t}|-5:-5,3:1,2000:2000,2001:2000,2002:2000,9223372036854775807:-5|2000|1003';
is($primary->safe_psql('postgres', $q), $after, 'primary answers after refresh');
is($standby->safe_psql('postgres', $q), $after, 'standby sees the refresh');
is($session->query_safe($q), $after, 'standby session with the old index cached sees the refresh');
$session->quit;

# A write without a refresh: the graph is live, so the standby answers for it as the primary does.
$primary->safe_psql('postgres', q{DELETE FROM edges WHERE source = 1000});
$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', q{SELECT grail.reachable('g', 1000, 1), grail.reachable('g', 1, 2000)}), 'f|t',
	'standby answers for a write not yet merged');
# No longer live with that change pending: the graph is stale, on the standby too.
$primary->safe_psql('postgres', q{SELECT grail.alter_graph('g', live => false)});
$primary->wait_for_catchup($standby, 'replay');
my ($ret, $out, $err) = $standby->psql('postgres', q{SELECT grail.reachable('g', 1000, 1)});
like($err, qr/graph "g" is stale/, 'standby refuses the stale graph');
is($standby->safe_psql('postgres', q{SET grail.stale_policy = warn; SELECT grail.reachable('g', 1000, 1)}), 't',
	'standby answers from the last build under stale_policy = warn');

# Builds need a writable database: on the standby they fail cleanly.
($ret, $out, $err) = $standby->psql('postgres', q{SELECT grail.refresh_graph('g')});
like($err, qr/ERROR:.*(read-only|recovery)/, 'refresh on the standby is a clean error');
is($standby->safe_psql('postgres', 'SELECT 1'), '1', 'standby still up');

$primary->safe_psql('postgres', q{SELECT grail.refresh_graph('g')});
$primary->wait_for_catchup($standby, 'replay');
is($standby->safe_psql('postgres', q{SELECT grail.reachable('g', 1000, 1), grail.reachable('g', 1, 2002)}), 'f|t',
	'standby sees the second refresh');

$standby->stop;
$primary->stop;
done_testing();
