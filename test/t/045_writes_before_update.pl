# Writes to a graph's table between installing a new pg_grail library and ALTER EXTENSION UPDATE:
# the log trigger reads grail.graph by column name, and the old version's catalog lacks columns of
# the new one. Each write is refused with what queries say (the version, and to run ALTER EXTENSION
# pg_grail UPDATE), SQLSTATE 55000. Before, the first write failed with "catalog table grail.graph has
# no column", and every later one in that backend with "invalid attnum: 0": the failed lookup was
# kept as if it had succeeded.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('writes_before_update');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;

# This library cannot build a graph under 0.6.0's SQL objects, so the table gets a 0.6.0 graph's log
# trigger by hand (a superuser may name grail._log_changes): what a dump restored into 0.6.0, or a
# graph built by the 0.6.0 library, leaves on a table.
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail VERSION '0.6.0';
	CREATE TABLE e (source bigint, target bigint);
	CREATE TRIGGER grail_log_1_insert AFTER INSERT ON e REFERENCING NEW TABLE AS new_rows
		FOR EACH STATEMENT EXECUTE FUNCTION grail._log_changes('1');
});

my $session = $node->background_psql('postgres', on_error_stop => 0);
$session->query_safe('\set VERBOSITY verbose');
for my $attempt ('first', 'second') {
	$session->{stderr} = '';
	$session->query('INSERT INTO e VALUES (1, 2)');
	my $err = $session->{stderr};
	like($err, qr/ERROR:\s+55000: pg_grail's SQL objects in this database are of another version than its installed library/,
		"the $attempt write in a backend says the versions differ");
	like($err, qr/HINT:\s+Run ALTER EXTENSION pg_grail UPDATE/, "and what to run ($attempt write)");
	unlike($err, qr/invalid attnum|has no column/, "no internal error ($attempt write)");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM e'), '0', 'the refused writes wrote nothing');

# Updated in another session: the same backend writes again, its lookup made against 0.7.0's catalog
# (graph 1 does not exist there, so the write is not logged).
$node->safe_psql('postgres', 'ALTER EXTENSION pg_grail UPDATE');
$session->{stderr} = '';
$session->query_safe('INSERT INTO e VALUES (1, 2)');
is($session->{stderr}, '', 'after the update the same backend writes without an error');
is($node->safe_psql('postgres', 'SELECT count(*) FROM e'), '1', 'the write is there');
$session->quit;

done_testing();
