# A hot standby's reader of a live graph reads only the log rows written since its last statement
# (pending_changes.hpp): a standby's snapshot lists the primary's transactions in progress among
# its subxip, and a row of a transaction that was in progress at the reader's last statement and
# commits after a younger one is read at the next. Without it, the row of the older transaction
# would count as seen and never be read.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $primary = PostgreSQL::Test::Cluster->new('log_since_primary');
$primary->init(allows_streaming => 1);
$primary->start;
$primary->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE e (source bigint, target bigint);
	INSERT INTO e SELECT i, i + 1 FROM generate_series(1, 99) i WHERE i % 10 <> 0;   -- chains 1..10, 11..20, ...
	SELECT grail.create_graph('g', 'e');
	SELECT grail.alter_graph('g', true);
	INSERT INTO e VALUES (30, 31);   -- one change pending
});
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('log_since_standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->start;
$primary->wait_for_catchup($standby, 'replay');

# reachable() across the chains' ends: 10 -> 11, 20 -> 21, 30 -> 31.
my $answers = q{SELECT grail.reachable('g', 1, 20), grail.reachable('g', 11, 30), grail.reachable('g', 21, 40)};
my $reader = $standby->background_psql('postgres');
is($reader->query_safe($answers), 'f|f|t', 'the standby reader sees the pending 30 -> 31 (its overlay now kept)');

# An older transaction writes and stays open; a younger one commits.
my $older = $primary->background_psql('postgres');
$older->query_safe('BEGIN');
$older->query_safe('INSERT INTO e VALUES (10, 11)');
$primary->safe_psql('postgres', 'INSERT INTO e VALUES (20, 21)');
$primary->wait_for_catchup($standby, 'replay');
is($reader->query_safe($answers), 'f|t|t', 'the younger commit is seen, the open older write is not');
$older->query_safe('COMMIT');
$older->quit;
$primary->wait_for_catchup($standby, 'replay');
is($reader->query_safe($answers), 't|t|t', 'the older transaction commits: its row is read');
is($standby->safe_psql('postgres', $answers), 't|t|t', 'as a new session reads it');
$reader->quit;

$standby->stop;
$primary->stop;
done_testing();
