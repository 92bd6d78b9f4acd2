# Fuzz: every SQL function of the extension (found in pg_proc, so new ones are included) called
# with random arguments (odd names, extreme ids, arrays with NULLs, of other lengths, dimensions
# and bounds, negative and huge depths and label counts, NULLs) over random edge tables with
# garbage column types, mixed with writes and setting changes. The backend must never die and
# every error must be a clean ERROR whose SQLSTATE is not in class XX (internal error). Part of the
# calls run as the unprivileged role fuzz_other with its hostile schema (test/hostile_schema.sql)
# first on its search_path: no shadow there may ever run with any other role's rights.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Encode ();

my $calls = $ENV{GRAIL_FUZZ_CALLS} // 20000;
my $seed = $ENV{GRAIL_FUZZ_SEED} // 20240601;
srand($seed);

my $node = PostgreSQL::Test::Cluster->new('fuzz');
$node->init(extra => [ '--encoding=UTF8', '--locale=C' ]);
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	SELECT setseed(0.5);
	CREATE TABLE e_int (source int, target int);
	INSERT INTO e_int SELECT (random() * 20)::int, (random() * 20)::int FROM generate_series(1, 40);
	CREATE TABLE e_big (source bigint, target bigint);
	INSERT INTO e_big VALUES (-9223372036854775808, 9223372036854775807), (9223372036854775807, 0), (0, -9223372036854775808), (1, 1), (1, 1);
	CREATE TABLE e_small (source smallint, target smallint);
	INSERT INTO e_small VALUES (-32768, 32767), (32767, 1), (1, -32768);
	CREATE TABLE e_nulls (source int, target int);
	INSERT INTO e_nulls VALUES (1, 2), (NULL, 3), (3, NULL), (NULL, NULL), (2, 3);
	CREATE TABLE e_empty (source int, target int);
	CREATE TABLE e_text (source text, target text);
	INSERT INTO e_text VALUES ('1', '2'), ('x', 'y');
	CREATE TABLE e_float (source float8, target float8);
	INSERT INTO e_float VALUES (1.5, 2), ('NaN', 'Infinity');
	CREATE TABLE e_numeric (source numeric, target numeric);
	INSERT INTO e_numeric VALUES (1, 2), (1e30, 2);
	CREATE TABLE e_bool (source bool, target bool);
	INSERT INTO e_bool VALUES (true, false);
	CREATE TABLE e_array (source int[], target int[]);
	INSERT INTO e_array VALUES ('{1}', '{2}');
	CREATE TABLE e_mixed (source int, target text, note jsonb);
	INSERT INTO e_mixed VALUES (1, '2', '{}');
	CREATE TABLE "Wéird ""T"" ☃" ("sr c" int, "dst☃" bigint, source int, target int);
	INSERT INTO "Wéird ""T"" ☃" VALUES (1, 2, 3, 4), (2, 1, 4, 3);
	CREATE TABLE e_one (source int);
	CREATE TABLE e_part (source int, target int) PARTITION BY RANGE (source);
	CREATE TABLE e_part_1 PARTITION OF e_part FOR VALUES FROM (0) TO (100);
	INSERT INTO e_part VALUES (1, 2);
	CREATE VIEW e_view AS SELECT * FROM e_int;
	CREATE MATERIALIZED VIEW e_matview AS SELECT * FROM e_int;
	CREATE SEQUENCE e_seq;
	CREATE TABLE e_dropped (a int, source int, target int);
	ALTER TABLE e_dropped DROP COLUMN a;
	INSERT INTO e_dropped VALUES (5, 6);
	CREATE ROLE fuzz_other;
	GRANT USAGE ON SCHEMA public TO fuzz_other;
	GRANT SELECT ON e_int TO fuzz_other;
	GRANT SELECT, TRIGGER, UPDATE ON e_big TO fuzz_other;
	CREATE SCHEMA fuzz_evil AUTHORIZATION fuzz_other;
});
$node->safe_psql('postgres', slurp_file("$ENV{TESTDIR}/hostile_schema.sql")
	. q{ SET ROLE fuzz_other; SELECT pg_temp.plant_hostile_objects('fuzz_evil');});

my @functions = map { [ split /\|/, $_, -1 ] } split /\n/, $node->safe_psql('postgres', q{
	SELECT proname, pronargdefaults, proretset, array_to_string(proargtypes::regtype[], ',')
	FROM pg_proc WHERE pronamespace = 'grail'::regnamespace AND proname !~ '^_' AND prokind = 'f'
	ORDER BY proname, oid});
my @tables = ('e_int', 'e_big', 'e_small', 'e_nulls', 'e_empty', 'e_text', 'e_float', 'e_numeric', 'e_bool',
	'e_array', 'e_mixed', '"Wéird ""T"" ☃"', 'e_one', 'e_part', 'e_part_1', 'e_view', 'e_matview', 'e_seq',
	'e_dropped', 'pg_class', 'grail.graph', 'grail.index_chunk', 'no_such_table', 'public."e_int"', 'E_INT');
# Writes go to the user tables only: a superuser deleting catalog rows is not a test.
my @user_tables = grep { !/^(pg_class|grail\.|no_such)/ } @tables;
my @columns = ('source', 'target', 'sr c', 'dst☃', 'note', 'no_such', 'ctid', 'xmin', 'tableoid', '', 'a',
	'relpages', 'relnatts', 'id', 'seq', 'x' x 70);
my @names = ('g', 'g2', "quote's", 'ünïcødé ☃', '', ' ', 'semi; DROP TABLE e_int; --', 'NULL', "tab\there",
	'x' x 100, 'G', '"g"', 'back\\slash', '%s%n', 'é' x 40, 'g');
my @graphs = ('g', "quote's", 'ünïcødé ☃', 'back\\slash');
my @good_tables = ('e_int', 'e_big', 'e_small', '"Wéird ""T"" ☃"', 'e_dropped', 'e_empty', 'e_nulls');
my @bigints = ('-9223372036854775808', '9223372036854775807', '0', '-1', '1', '2', '3', '4', '5', '6', '7',
	'10', '20', '32767', '-32768', '2147483648', 'NULL');
my @ints = ('-2147483648', '2147483647', '-1', '0', '1', '2', '3', '5', '16', '17', '100', 'NULL');

sub pick { return $_[ int(rand(@_)) ] }
sub lit
{
	my ($s) = @_;
	return 'NULL' if !defined $s;
	$s =~ s/'/''/g;
	return "'$s'";
}
sub bigint_value { return rand() < 0.7 ? pick(@bigints) : int(rand(40)) - 10 }
sub bigint_array
{
	my $r = rand();
	return 'NULL::bigint[]' if $r < 0.05;
	return q{'{}'::bigint[]} if $r < 0.1;
	return q{'{{1,2},{3,4}}'::bigint[]} if $r < 0.13;
	return q{'[5:6]={1,2}'::bigint[]} if $r < 0.16;
	return q{ARRAY[NULL]::bigint[]} if $r < 0.19;
	return 'ARRAY[' . join(',', map { bigint_value() } 1 .. 1 + int(rand(6))) . ']::bigint[]';
}
sub value
{
	my ($type) = @_;
	return 'NULL' if rand() < 0.04;
	if ($type eq 'text')
	{
		my $r = rand();
		return lit(Encode::encode_utf8(join('', map { chr(32 + int(rand(0x2FF))) } 1 .. int(rand(12))))) if $r < 0.05;
		return lit(pick(@names)) if $r < 0.4;
		return lit(pick(@graphs));    # the few names that usually exist
	}
	if ($type eq 'regclass')
	{
		my $r = rand();
		return pick(0, 1, 4294967295) . '::oid::regclass' if $r < 0.05;
		return lit(pick(@tables)) if $r < 0.5;
		return lit(pick(@good_tables));
	}
	return lit(rand() < 0.4 ? pick(@columns) : pick('source', 'target')) if $type eq 'name';
	return pick(@ints) if $type eq 'integer' || $type eq 'smallint';
	return bigint_value() if $type eq 'bigint';
	return bigint_array() if $type eq 'bigint[]';
	return pick('true', 'false', 'NULL') if $type eq 'boolean';
	return 'ARRAY[' . join(',', map { pick(@ints) } 0 .. int(rand(4))) . ']::int[]' if $type eq 'integer[]';
	return "NULL::$type";
}

# One statement per line: psql reports errors by line.
my @lines = ('SELECT setseed(0.25);');    # random() in the writes below
my @what = ('other');
for my $i (1 .. $calls)
{
	my $r = rand();
	if ($r < 0.06)
	{
		my $t = pick(@user_tables);
		push @lines, pick(
			"INSERT INTO $t SELECT * FROM $t LIMIT 3;",
			"DELETE FROM $t WHERE random() < 0.3;",
			"TRUNCATE $t;",
			"INSERT INTO e_int SELECT (random() * 20)::int, (random() * 20)::int FROM generate_series(1, 5);",
			"SET grail.stale_policy = " . pick('error', 'warn', 'bogus') . ";",
			"SET grail.device = " . pick('cpu', 'auto', 'gpu', 'tpu') . ";",
			"SET grail.build_memory_limit = " . pick("'1kB'", "'1MB'", '0', "'4GB'", '-1') . ";",
			"SET statement_timeout = " . pick('0', '1', '1000') . ";",
			(rand() < 0.3 ? "SET ROLE fuzz_other;" : "RESET ROLE; RESET search_path;"),
			"SET ROLE fuzz_other; SET search_path = fuzz_evil, pg_catalog, public;",
			"RESET ALL;");
		push @what, 'other';
		next;
	}
	my $f = pick(@functions);
	$f = pick(@functions) while $f->[0] eq 'drop_graph' && rand() < 0.7;    # keep some graphs alive
	my ($name, $ndefaults, $retset, $types) = @$f;
	my @types = $types eq '' ? () : split /,/, $types;
	my $nargs = @types - int(rand($ndefaults + 1));
	$nargs = int(rand(@types + 2)) if rand() < 0.03;    # a wrong number of arguments
	my @args = map { value($types[$_] // 'bigint') } 0 .. $nargs - 1;
	my $call = "grail.$name(" . join(', ', @args) . ')';
	my $stmt = $retset eq 't' ? "SELECT count(*), sum(hashtext(f::text)) FROM $call f;" : "SELECT $call;";
	$stmt = "BEGIN; $stmt ROLLBACK;" if rand() < 0.05;
	push @lines, $stmt;
	push @what, $name;
}
push @lines, 'RESET ALL;', q{SELECT 'still alive';};
push @what, 'other', 'alive';

my $file = $node->basedir . '/fuzz.sql';
open my $fh, '>', $file or die;
print $fh "$_\n" for @lines;
close $fh;

my $log_offset = -s $node->logfile;
my ($stdout, $stderr) = ('', '');
local $ENV{PGCLIENTENCODING} = 'UTF8';
my $ok = IPC::Run::run([ 'psql', '-XAtq', '-v', 'VERBOSITY=sqlstate', '-d', $node->connstr('postgres'), '-f', $file ],
	'>', \$stdout, '2>', \$stderr);

my (%states, %errors_of, %calls_of, %failed_line);
for my $l (split /\n/, $stderr)
{
	next unless $l =~ /^psql:[^:]*:(\d+): (ERROR|FATAL|PANIC):\s+(\S+)/;
	my ($line, $level, $state) = ($1, $2, $3);
	$states{"$level $state"}++;
	$failed_line{$line} = "$level $state";
}
for my $i (0 .. $#what)
{
	$calls_of{ $what[$i] }{calls}++;
	$calls_of{ $what[$i] }{ok}++ unless $failed_line{ $i + 1 };
}
my $fn_calls = $calls + 1 - ($calls_of{other}{calls} // 0);
diag sprintf('fuzz: seed %d, %d statements, %d function calls, %d errors', $seed, $calls, $fn_calls, scalar(keys %failed_line));
diag sprintf('  %-16s %5d calls, %5d ok', $_, $calls_of{$_}{calls}, $calls_of{$_}{ok} // 0)
  for sort grep { $_ ne 'alive' } keys %calls_of;
diag '  SQLSTATEs: ' . join(', ', map { "$_ x$states{$_}" } sort keys %states);
my %example;
for my $line (sort { $a <=> $b } keys %failed_line)
{
	$example{ $failed_line{$line} } //= $lines[ $line - 1 ];
}
note "  e.g. $_: $example{$_}" for sort keys %example;

ok($ok, 'psql ran the whole file (the connection stayed up)');
like($stdout, qr/still alive\s*$/, 'the last statement answered in the same session');
unlike($stderr, qr/server closed the connection|connection to server was lost|terminated abnormally/, 'no lost connection');
my @internal = grep { /^(ERROR|FATAL|PANIC) (XX|58)/ || !/^ERROR/ } keys %states;
is(join(', ', @internal), '', 'only clean ERRORs, no SQLSTATE of class XX');
if (@internal)
{
	for my $line (sort { $a <=> $b } keys %failed_line)
	{
		diag "line $line: $failed_line{$line}: $lines[$line - 1]" if $failed_line{$line} =~ /XX|58|FATAL|PANIC/;
	}
}
for my $f (@functions)
{
	ok(($calls_of{ $f->[0] }{ok} // 0) > 0, "$f->[0] succeeded at least once");
}
is($node->safe_psql('postgres', q{SELECT string_agg(DISTINCT who || ': ' || what, '; ') FROM fuzz_evil.elevated}), '',
	'no shadow of the hostile schema ran with another role\'s rights');
is($node->safe_psql('postgres', q{SELECT rolsuper FROM pg_roles WHERE rolname = 'fuzz_other'}), 'f',
	'the unprivileged role is still unprivileged');
my $log = slurp_file($node->logfile, $log_offset);
unlike($log, qr/terminated by signal|PANIC|TRAP:|server process .* exited/, 'no crash in the server log');
is($node->safe_psql('postgres', 'SELECT 1'), '1', 'server up');
$node->stop;
done_testing();
