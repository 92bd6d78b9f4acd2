# What another role's DDL does to a graph's filter, and what it learns of it. A filter may read a
# field of a column whose type is another role's table's row type, (c).f: that role's ALTER TABLE
# ... RENAME or DROP COLUMN of f went through, and every write to the edge table then failed in its
# trigger; it is now refused, as a change of a function the filter uses is. And a filter broken
# unseen (event triggers disabled meanwhile) makes its graph stale when the next DDL command that a
# filter check can refuse starts (a DROP TABLE: a table's row type is a dropped object), whoever runs
# it: the WARNING that names the graph and shows its filter went to that command's role, one that
# may not read the filter's columns; it now goes to the graph's owner only.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('filter_checks_other_roles');
$node->init;
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE ROLE alice LOGIN;
	CREATE ROLE bob LOGIN;
	CREATE ROLE carol LOGIN;
	GRANT CREATE ON SCHEMA public TO alice, bob, carol;
	SET ROLE bob;
	CREATE TABLE bob_row (f int, note text);
	SET ROLE alice;
	CREATE TABLE ce (source bigint, target bigint, c public.bob_row);
	INSERT INTO ce VALUES (1, 2, ROW(5, 'x')), (2, 3, ROW(1, 'y'));
	SELECT count(*) FROM (SELECT grail.create_graph('ceg', 'ce', filter => '(c).f > 3')) g;
});

my ($ret, $stdout, $stderr) = $node->psql('postgres', q{ALTER TABLE bob_row RENAME COLUMN f TO g},
	extra_params => [ '-U', 'bob' ]);
like($stderr, qr/cannot change an object that the filter of pg_grail graph "public\.ceg" uses/,
	"a RENAME of the column of bob's row type that alice's filter reads is refused");
($ret, $stdout, $stderr) = $node->psql('postgres', q{ALTER TABLE bob_row DROP COLUMN f},
	extra_params => [ '-U', 'bob' ]);
like($stderr, qr/cannot change an object that the filter of pg_grail graph "public\.ceg" uses/, 'so is a DROP COLUMN');
($ret, $stdout, $stderr) = $node->psql('postgres', q{ALTER TABLE bob_row RENAME COLUMN note TO remark},
	extra_params => [ '-U', 'bob' ]);
is($ret, 0, 'a column the filter does not read may be renamed');
($ret, $stdout, $stderr) = $node->psql('postgres', q{INSERT INTO ce VALUES (3, 4, ROW(7, 'z'))},
	extra_params => [ '-U', 'alice' ]);
is($ret, 0, "alice's writes go on") or diag($stderr);
($ret, $stdout, $stderr) = $node->psql('postgres', q{SELECT grail.reachable('ceg', 1::bigint, 2::bigint)::text || ' '
	|| grail.reachable('ceg', 3::bigint, 4::bigint)::text || ' ' || grail.reachable('ceg', 2::bigint, 3::bigint)::text});
is($stdout, 'true true false', 'and her graph answers through its filter') or diag($stderr);

# Broken unseen: a superuser renames the column with the event triggers disabled.
sub break_unseen
{
	my ($n) = @_;
	$node->safe_psql('postgres', qq{
		SET client_min_messages = error;
		SET ROLE bob;
		CREATE TABLE bob_row$n (f int);
		SET ROLE alice;
		CREATE TABLE ce$n (source bigint, target bigint, c public.bob_row$n);
		INSERT INTO ce$n VALUES (1, 2, ROW(5));
		SELECT count(*) FROM (SELECT grail.create_graph('ceg$n', 'ce$n', filter => '(c).f > 3')) g;
		RESET ROLE;
		ALTER EVENT TRIGGER grail_on_alter_table DISABLE;
		ALTER EVENT TRIGGER grail_on_ddl_start DISABLE;
		ALTER TABLE bob_row$n RENAME COLUMN f TO g;
		ALTER EVENT TRIGGER grail_on_alter_table ENABLE ALWAYS;
		ALTER EVENT TRIGGER grail_on_ddl_start ENABLE ALWAYS;
	});
}
break_unseen(2);
($ret, $stdout, $stderr) = $node->psql('postgres', q{CREATE TABLE carol_t (x int); DROP TABLE carol_t},
	extra_params => [ '-U', 'carol' ]);
is($ret, 0, "carol's DDL goes on");
unlike($stderr, qr/ceg2|\(c\)\.f/, "and tells her nothing of alice's graph or its filter") or diag($stderr);
is($node->safe_psql('postgres', q{SELECT stale FROM grail.graph WHERE name = 'ceg2'}), 't', 'which is stale now');
break_unseen(3);
($ret, $stdout, $stderr) = $node->psql('postgres', q{CREATE TABLE alice_t (x int); DROP TABLE alice_t},
	extra_params => [ '-U', 'alice' ]);
like($stderr, qr/WARNING:  the filter of pg_grail graph "public\.ceg3" no longer reads back: the graph is stale/,
	"alice's own DDL tells her");

$node->stop;
done_testing();
