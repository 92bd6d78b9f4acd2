# A schema named grail_internal that exists before pg_grail is installed or updated to 0.7.0: the
# extension keeps its internal functions in a schema of that name, which it creates and makes a
# member of itself. It is refused with the reason and the way out (rename or drop it), not taken
# over: as a member of the extension it would be dropped with it, its other objects with it under
# CASCADE, and pg_dump would stop dumping it. Before, CREATE EXTENSION failed with PostgreSQL's bare
# "schema "grail_internal" already exists" from the middle of the script.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('grail_internal_schema');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;

# A fresh install.
$node->safe_psql('postgres', q{CREATE DATABASE fresh; CREATE DATABASE updated});
$node->safe_psql('fresh', q{CREATE SCHEMA grail_internal; CREATE TABLE grail_internal.mine (x int)});
my ($rc, $out, $err) = $node->psql('fresh', 'CREATE EXTENSION pg_grail');
isnt($rc, 0, 'CREATE EXTENSION fails where a schema grail_internal exists');
like($err, qr/schema "grail_internal" already exists, and pg_grail keeps its internal functions/, 'it says why');
like($err, qr/HINT:\s+Rename that schema/, 'and how to go on');
is($node->safe_psql('fresh', q{SELECT count(*) FROM pg_extension WHERE extname = 'pg_grail'}), '0', 'nothing installed');
is($node->safe_psql('fresh', q{SELECT count(*) FROM grail_internal.mine}), '0', "the user's schema is untouched");
$node->safe_psql('fresh', q{ALTER SCHEMA grail_internal RENAME TO mine_internal; CREATE EXTENSION pg_grail});
is($node->safe_psql('fresh', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_grail'}), '0.7.0',
	'installed once the schema is renamed');

# An update from 0.6.0, which has no such schema of its own.
$node->safe_psql('updated', q{CREATE EXTENSION pg_grail VERSION '0.6.0'; CREATE SCHEMA grail_internal});
($rc, $out, $err) = $node->psql('updated', 'ALTER EXTENSION pg_grail UPDATE');
isnt($rc, 0, 'the update fails where a schema grail_internal exists');
like($err, qr/HINT:\s+Rename that schema/, 'with the same reason and hint');
is($node->safe_psql('updated', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_grail'}), '0.6.0',
	'the extension stays at 0.6.0');
$node->safe_psql('updated', q{DROP SCHEMA grail_internal; ALTER EXTENSION pg_grail UPDATE});
is($node->safe_psql('updated', q{SELECT extversion FROM pg_extension WHERE extname = 'pg_grail'}), '0.7.0',
	'updated once the schema is dropped');

done_testing();
