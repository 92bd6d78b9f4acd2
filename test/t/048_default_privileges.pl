# Default privileges of the role that installs or updates pg_grail (ALTER DEFAULT PRIVILEGES ...
# GRANT ALL ON SCHEMAS / TABLES / SEQUENCES / FUNCTIONS) must not reach the extension's objects.
# Before, they gave PUBLIC CREATE on grail and grail_internal: a plain role put there
# grail_internal._filter_renamed(oid, text, text, text), which the event triggers (SECURITY DEFINER,
# the installing superuser's rights) called in place of pg_grail's (their '' literals match text
# better than name), and so made itself superuser with one CREATE FUNCTION. Roles named in the
# default privileges also got writes on the catalog tables.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('default_privileges');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;

$node->safe_psql('postgres', q{
	CREATE ROLE mallory LOGIN;
	CREATE ROLE bob LOGIN;
	CREATE ROLE watcher LOGIN IN ROLE pg_monitor;
	CREATE DATABASE fresh;
	CREATE DATABASE updated;
});
# Default privileges hold per database.
my $defaults = q{
	ALTER DEFAULT PRIVILEGES GRANT ALL ON SCHEMAS TO PUBLIC;
	ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO PUBLIC;
	ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO bob WITH GRANT OPTION;
	ALTER DEFAULT PRIVILEGES GRANT ALL ON SEQUENCES TO PUBLIC;
	ALTER DEFAULT PRIVILEGES GRANT ALL ON FUNCTIONS TO bob WITH GRANT OPTION;
	ALTER DEFAULT PRIVILEGES GRANT ALL ON FUNCTIONS TO pg_monitor;
	ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO pg_database_owner;
};
$node->safe_psql('fresh', $defaults . 'CREATE EXTENSION pg_grail');
$node->safe_psql('updated', $defaults . q{CREATE EXTENSION pg_grail VERSION '0.6.0'; GRANT INSERT ON grail.graph TO mallory;
	GRANT UPDATE (relid) ON grail.graph TO mallory});
# What such a grant let a plain role do before the update: an overload in grail that a call with
# numeric keys reaches; and an operator that the update's grail.graphs, made with search_path =
# grail, took for its oid = regclass (an exact match, where pg_catalog's needs a cast), so that
# whoever read the view ran the role's function: a superuser made it one.
$node->safe_psql('updated', q{SET ROLE mallory;
	CREATE FUNCTION grail.reachable(text, numeric, numeric) RETURNS boolean LANGUAGE sql AS 'SELECT true';
	CREATE FUNCTION grail.oid_is(oid, regclass) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
		IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
			EXECUTE 'ALTER ROLE mallory SUPERUSER';
		END IF;
		RETURN $1 OPERATOR(pg_catalog.=) $2::oid;
	END$$;
	CREATE OPERATOR grail.= (LEFTARG = oid, RIGHTARG = regclass, FUNCTION = grail.oid_is)});
my ($update_rc, $update_out, $update_err) = $node->psql('updated', 'ALTER EXTENSION pg_grail UPDATE');
is($update_rc, 0, 'updated: the update runs');
like($update_err, qr/WARNING:  pg_grail takes back INSERT on table grail.graph from mallory, a grant it does not make/,
	'updated: and says which grant it takes back');
like($update_err, qr/takes back CREATE on schema grail from PUBLIC/, 'updated: CREATE on grail among them');
like($update_err, qr/WARNING:  pg_grail takes back UPDATE \(relid\) on table grail.graph from mallory/,
	'updated: and a grant on a column of the catalog');
like($update_err, qr/WARNING:  schemas of pg_grail hold function reachable\(text,numeric,numeric\) in schema grail \(owner mallory\), which pg_grail did not make/,
	'updated: and names the function a role put into grail meanwhile');
like($update_err, qr/WARNING:  schemas of pg_grail hold operator =\(oid,regclass\) in schema grail \(owner mallory\)/,
	'updated: and the operator, with its owner');
$node->safe_psql('updated', q{SELECT count(*) FROM grail.graphs});
is($node->safe_psql('updated', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'mallory'}), 'f',
	'updated: a superuser reading grail.graphs runs none of the role\'s functions');
unlike($node->safe_psql('updated', q{SELECT pg_get_viewdef('grail.graphs'::regclass)}), qr/OPERATOR\(grail\./,
	'updated: grail.graphs uses no operator of schema grail');

for my $db ('fresh', 'updated') {
	my $check = sub {
		my ($role, $sql) = @_;
		return $node->safe_psql($db, "SET ROLE $role; $sql");
	};
	is($check->('mallory', q{SELECT has_schema_privilege('grail', 'CREATE'), has_schema_privilege('grail_internal', 'CREATE')}),
		'f|f', "$db: PUBLIC may not create in grail or grail_internal");
	is($check->('mallory', q{SELECT has_schema_privilege('grail', 'USAGE'), has_schema_privilege('grail_internal', 'USAGE')}),
		't|t', "$db: PUBLIC keeps USAGE on both schemas");
	my ($rc, $out, $err) = $node->psql($db, q{SET ROLE mallory;
		CREATE FUNCTION grail_internal._filter_renamed(oid, text, text, text) RETURNS text LANGUAGE sql
		AS 'ALTER ROLE mallory SUPERUSER'});
	isnt($rc, 0, "$db: a plain role cannot put a function into grail_internal");
	like($err, qr/permission denied for schema grail_internal/, "$db: it is told why");
	is($check->('bob', q{SELECT has_table_privilege('grail.graph', 'SELECT'), has_table_privilege('grail.graph', 'INSERT'),
		has_table_privilege('grail.index_chunk', 'UPDATE'), has_table_privilege('grail.pending_change', 'DELETE'),
		has_sequence_privilege('grail.graph_id_seq', 'USAGE')}),
		'f|f|f|f|f', "$db: a role named in the default privileges gets nothing on the catalog");
	is($check->('mallory', q{SELECT has_table_privilege('grail.graph', 'INSERT'), has_column_privilege('grail.graph', 'relid', 'UPDATE')}),
		'f|f', "$db: nor does a role granted it by hand, on the table or a column");
	is($check->('mallory', q{SELECT has_table_privilege('grail.graphs', 'SELECT'), has_table_privilege('grail.graphs', 'INSERT'),
		has_table_privilege('grail.activity', 'SELECT'), has_table_privilege('grail.activity', 'TRIGGER')}),
		't|f|t|f', "$db: PUBLIC reads the two views, and only reads them");
	is($check->('bob', q{SELECT has_function_privilege('grail_internal._filter_renamed(oid, text, name, name)', 'EXECUTE'),
		has_function_privilege('grail.cache_info()', 'EXECUTE'), has_function_privilege('grail.reachable(text, bigint, bigint)', 'EXECUTE'),
		has_function_privilege('grail.reachable(text, bigint, bigint)', 'EXECUTE WITH GRANT OPTION')}),
		'f|f|t|f', "$db: internal functions stay revoked, public ones stay executable, no grant option");
	is($check->('watcher', q{SELECT has_function_privilege('grail.cache_info()', 'EXECUTE'),
		has_function_privilege('grail_internal._watch(bigint)', 'EXECUTE')}), 't|f',
		"$db: pg_monitor keeps cache_info(), and gets no internal function");
	is($node->safe_psql($db, q{SELECT has_table_privilege('pg_database_owner', 'grail.graph', 'SELECT'),
		has_table_privilege('pg_database_owner', 'grail.graph', 'UPDATE'),
		has_table_privilege('pg_database_owner', 'grail.index_chunk', 'INSERT')}), 't|f|f',
		"$db: the database owner still reads the catalog (pg_dump), and only reads it");
}

# The whole attack, as a role with nothing but the defaults: its graph's filter makes the event
# triggers call _filter_renamed; the CREATE FUNCTION in grail_internal is refused.
$node->safe_psql('fresh', q{CREATE SCHEMA m AUTHORIZATION mallory});
$node->safe_psql('fresh', q{SET ROLE mallory; CREATE TABLE m.e (s bigint, t bigint); INSERT INTO m.e VALUES (1, 2);
	SELECT grail.create_graph('m.g', 'm.e', 's', 't', filter => 's > 0')});
$node->psql('fresh', q{SET ROLE mallory;
	CREATE FUNCTION grail_internal._filter_renamed(oid, text, text, text) RETURNS text LANGUAGE plpgsql
	AS $$BEGIN EXECUTE 'ALTER ROLE mallory SUPERUSER'; RETURN $2; END$$});
$node->safe_psql('fresh', q{SET ROLE mallory; CREATE FUNCTION m.junk() RETURNS int LANGUAGE sql AS 'SELECT 1';
	DROP FUNCTION m.junk()});
is($node->safe_psql('fresh', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'mallory'}), 'f',
	'mallory is not made superuser');
is($node->safe_psql('fresh', q{SET ROLE mallory; SELECT grail.reachable('m.g', 1::bigint, 2::bigint)}), 't',
	'and the graph answers');

# A DBA's later GRANT of CREATE on grail_internal, or of more than SELECT on the catalog, to a role
# that is not a superuser is refused (the event trigger grail_on_grant), whatever object the GRANT
# names, so that no role can put functions beside pg_grail's or triggers on its tables.
my ($grant_rc, $grant_out, $grant_err) = $node->psql('fresh', q{GRANT CREATE ON SCHEMA grail_internal TO mallory});
isnt($grant_rc, 0, 'a later GRANT of CREATE on grail_internal is refused');
like($grant_err, qr/CREATE on pg_grail's schema grail_internal cannot be granted to mallory, which is not a superuser/,
	'and says why');
($grant_rc, $grant_out, $grant_err) = $node->psql('fresh', q{GRANT TRIGGER ON grail.pending_change TO PUBLIC});
like($grant_err, qr/TRIGGER on pg_grail's table grail.pending_change cannot be granted to PUBLIC/, 'so is TRIGGER on the change log');
($grant_rc, $grant_out, $grant_err) = $node->psql('fresh', q{GRANT UPDATE ON grail.graph TO pg_database_owner});
like($grant_err, qr/UPDATE on pg_grail's table grail.graph cannot be granted to pg_database_owner/, 'and writes on the catalog');
is($node->safe_psql('fresh', q{SELECT has_schema_privilege('mallory', 'grail_internal', 'CREATE'),
	has_table_privilege('mallory', 'grail.pending_change', 'TRIGGER'), has_table_privilege('pg_database_owner', 'grail.graph', 'UPDATE')}),
	'f|f|f', 'none of them was made');
$node->safe_psql('fresh', q{GRANT SELECT ON grail.graph TO mallory; REVOKE SELECT ON grail.graph FROM mallory;
	GRANT EXECUTE ON FUNCTION grail.cache_info() TO mallory; REVOKE EXECUTE ON FUNCTION grail.cache_info() FROM mallory});
pass('SELECT on the catalog and EXECUTE on functions may still be granted');

# Where such a grant was made all the same (event triggers disabled meanwhile), the event
# triggers' rights are still not handed out: their calls of _filter_renamed
# name its argument types, so overloads that untyped literals or a regclass would match better than
# pg_grail's (oid, text, name, name) are never chosen. Reached by any DDL (the '' call) and by a
# rename of a filter's column (the regclass one).
$node->safe_psql('fresh', q{ALTER EVENT TRIGGER grail_on_grant DISABLE; GRANT CREATE ON SCHEMA grail_internal TO mallory;
	ALTER EVENT TRIGGER grail_on_grant ENABLE ALWAYS});
$node->safe_psql('fresh', q{SET ROLE mallory;
	CREATE FUNCTION grail_internal._filter_renamed(oid, text, text, text) RETURNS text LANGUAGE plpgsql
	AS $$BEGIN EXECUTE 'ALTER ROLE mallory SUPERUSER'; RETURN $2; END$$;
	CREATE FUNCTION grail_internal._filter_renamed(regclass, text, name, name) RETURNS text LANGUAGE plpgsql
	AS $$BEGIN EXECUTE 'ALTER ROLE mallory SUPERUSER'; RETURN $2; END$$});
$node->safe_psql('fresh', q{SET ROLE mallory; CREATE FUNCTION m.junk() RETURNS int LANGUAGE sql AS 'SELECT 1';
	DROP FUNCTION m.junk(); ALTER TABLE m.e RENAME COLUMN s TO s2});
is($node->safe_psql('fresh', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'mallory'}), 'f',
	'with CREATE on grail_internal granted by hand, the overloads are not called');
is($node->safe_psql('fresh', q{SELECT filter FROM grail.graph WHERE name = 'g'}), '(s2 > 0)',
	'and the filter follows the renamed column');
is($node->safe_psql('fresh', q{SET ROLE mallory; SELECT grail.reachable('m.g', 1::bigint, 2::bigint)}), 't',
	'and the graph answers');

# Objects of a 0.6.0 install that a superuser handed to a plain role (ALTER ... OWNER TO, which 0.7.0
# refuses) go back to a superuser in the update, first of all: the owner of an event trigger's
# SECURITY DEFINER function ran it with its own rights, so every DROP failed in it (the update's too),
# and could have changed it.
$node->safe_psql('postgres', 'CREATE DATABASE handed');
$node->safe_psql('handed', q{CREATE EXTENSION pg_grail VERSION '0.6.0';
	ALTER FUNCTION grail._on_drop() OWNER TO mallory;
	ALTER FUNCTION grail.reachable(text, bigint, bigint) OWNER TO mallory;
	ALTER SEQUENCE grail.build_seq OWNER TO mallory;
	ALTER VIEW grail.graphs OWNER TO mallory;
	ALTER SCHEMA grail OWNER TO mallory});
my ($handed_rc, $handed_out, $handed_err) = $node->psql('handed', 'ALTER EXTENSION pg_grail UPDATE');
is($handed_rc, 0, 'handed: the update runs');
like($handed_err, qr/WARNING:  pg_grail gives function grail._on_drop\(\) back to role "\w+" from role "mallory", which is not a superuser/,
	'handed: and says what it gives back');
like($handed_err, qr/gives schema grail back/, 'handed: the schema among them');
is($node->safe_psql('handed', q{
	WITH ours AS (SELECT d.classid, d.objid FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'pg_grail'
	              WHERE d.deptype = 'e' UNION ALL SELECT 'pg_namespace'::regclass, 'grail'::regnamespace)
	SELECT count(*) FROM ours o
	LEFT JOIN pg_proc p ON o.classid = 'pg_proc'::regclass AND p.oid = o.objid
	LEFT JOIN pg_class c ON o.classid = 'pg_class'::regclass AND c.oid = o.objid
	LEFT JOIN pg_namespace n ON o.classid = 'pg_namespace'::regclass AND n.oid = o.objid
	WHERE COALESCE(p.proowner, c.relowner, n.nspowner) = 'mallory'::regrole}), '0', 'handed: mallory owns none of them after');
$node->safe_psql('handed', q{CREATE TABLE t (a int); DROP TABLE t});
pass('handed: DROP works again');

done_testing();
