# Write fuzz: a seeded random mix of writes, trigger manipulation and DDL on edge tables
# (INSERT, DELETE, UPDATE of edge and other columns, TRUNCATE, COPY, writes with
# session_replication_role = replica, DISABLE/ENABLE [ALWAYS|REPLICA] TRIGGER, DROP TRIGGER,
# look-alike triggers, BEFORE triggers that rewrite edges, renames, added and dropped columns,
# savepoints rolled back, refreshes), on graphs over whole tables and one with a filter (w3: rows
# whose note is NULL or sorts before '8', so UPDATEs of note move rows across it), and after every step a check of random pairs: each answer
# of reachable() must equal a recursive query over the rows the same snapshot sees, or be a
# refusal (a stale graph, or one that cannot tell). Never a silent wrong answer.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $steps = $ENV{GRAIL_WRITE_FUZZ_STEPS} // 1500;
my $seed = $ENV{GRAIL_WRITE_FUZZ_SEED} // 20261123;
srand($seed);

my $node = PostgreSQL::Test::Cluster->new('write_fuzz');
$node->init;
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE FUNCTION nothing() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$;
	-- BEFORE UPDATE: adds 1 to the column named by the argument, whatever the UPDATE set.
	CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		RETURN jsonb_populate_record(NEW, jsonb_build_object(TG_ARGV[0], (to_jsonb(NEW) ->> TG_ARGV[0])::int + 1));
	END$$;
});
# Tables w0..w3 with edge columns src, dst (renamed back and forth) and a payload column; w3's
# graph has a filter on the payload.
my @tables = map { "w$_" } 0 .. 3;
for my $t (@tables)
{
	my $filter = $t eq 'w3' ? q{, filter => 'note IS NULL OR note < ''8'''} : '';
	$node->safe_psql('postgres', qq{
		CREATE TABLE $t (src int, dst int, note text);
		INSERT INTO $t SELECT (random() * 15)::int, (random() * 15)::int, CASE WHEN random() < 0.5 THEN 'x' END
		FROM generate_series(1, 20);
		SELECT count(*) FROM (SELECT grail.create_graph('$t', '$t', 'src', 'dst'$filter)) c;
	});
}

# The check, in the session under test: for 6 random pairs, reachable() against the rows (those
# the graph's filter passes). The columns are found by their current names (renames are part of
# the mix).
$node->safe_psql('postgres', q{
	CREATE FUNCTION check_graph(g text) RETURNS text LANGUAGE plpgsql AS $$
	DECLARE
		src name; dst name; f text; answer boolean; truth boolean; a int; b int; refused int := 0;
	BEGIN
		SELECT source_column, target_column, filter INTO src, dst, f FROM grail.graphs WHERE name = g;
		IF src IS NULL THEN RETURN 'gone'; END IF;
		FOR k IN 1..6 LOOP
			a := (random() * 16)::int; b := (random() * 16)::int;
			BEGIN
				answer := grail.reachable(g, a, b);
			EXCEPTION WHEN object_not_in_prerequisite_state OR feature_not_supported OR undefined_column THEN
				refused := refused + 1;
				CONTINUE;
			END;
			EXECUTE format('WITH RECURSIVE r(v) AS (SELECT $1 UNION SELECT e.%I FROM %I e JOIN r ON e.%I = r.v WHERE %s) '
			               'SELECT EXISTS (SELECT 1 FROM r WHERE v = $2)', dst, g, src, coalesce(f, 'true')) INTO truth USING a, b;
			IF answer IS DISTINCT FROM truth THEN
				RETURN format('WRONG %s: reachable(%s, %s) = %s, rows say %s', g, a, b, answer, truth);
			END IF;
		END LOOP;
		RETURN CASE WHEN refused = 6 THEN 'refused' ELSE 'ok' END;
	END $$;
});

sub pick { return $_[ int(rand(@_)) ] }

# The current edge column names per table, tracked as the renames go.
my %src = map { $_ => 'src' } @tables;
my %dst = map { $_ => 'dst' } @tables;
my @lines;
for my $i (1 .. $steps)
{
	my $t = pick(@tables);
	my ($s, $d) = ($src{$t}, $dst{$t});
	my $trigger = q{(SELECT tgname FROM pg_trigger WHERE tgrelid = '} . $t
	  . q{'::regclass AND tgname LIKE 'grail\_stale\_%' ORDER BY random() LIMIT 1)};
	my $r = rand();
	my $step;
	if ($r < 0.15) { $step = "INSERT INTO $t ($s, $d) SELECT (random() * 15)::int, (random() * 15)::int FROM generate_series(1, 3);" }
	elsif ($r < 0.25) { $step = "DELETE FROM $t WHERE random() < 0.2;" }
	elsif ($r < 0.33) { $step = "UPDATE $t SET $d = (random() * 15)::int WHERE random() < 0.2;" }
	elsif ($r < 0.38) { $step = "UPDATE $t SET note = md5(random()::text) WHERE random() < 0.5;" }
	elsif ($r < 0.40) { $step = "TRUNCATE $t; INSERT INTO $t ($s, $d) VALUES (1, 2), (2, 3);" }
	elsif ($r < 0.43) { $step = "COPY $t ($s, $d) FROM STDIN;\n3\t4\n4\t5\n\\."; }
	elsif ($r < 0.47)
	{
		$step = "SET session_replication_role = replica; INSERT INTO $t ($s, $d) VALUES ((random() * 15)::int, (random() * 15)::int); RESET session_replication_role;";
	}
	elsif ($r < 0.52) { $step = "ALTER TABLE $t " . pick('DISABLE TRIGGER ALL', 'DISABLE TRIGGER USER', 'ENABLE TRIGGER ALL', 'ENABLE TRIGGER USER') . ";" }
	elsif ($r < 0.56)
	{
		my $mode = pick('DISABLE', 'ENABLE', 'ENABLE ALWAYS', 'ENABLE REPLICA');
		$step = "DO \$\$ BEGIN EXECUTE format('ALTER TABLE $t $mode TRIGGER %I', $trigger); END \$\$;";
	}
	elsif ($r < 0.58) { $step = "DO \$\$ BEGIN EXECUTE format('DROP TRIGGER %I ON $t', $trigger); END \$\$;" }
	elsif ($r < 0.60)
	{
		$step = "DO \$\$ DECLARE n name := $trigger; BEGIN EXECUTE format('DROP TRIGGER %I ON $t', n); "
		  . "EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR DELETE OR TRUNCATE ON $t FOR EACH STATEMENT EXECUTE FUNCTION nothing()', n); END \$\$;";
	}
	elsif ($r < 0.63) { $step = "CREATE TRIGGER bump BEFORE UPDATE ON $t FOR EACH ROW EXECUTE FUNCTION bump('$d');" }
	elsif ($r < 0.65) { $step = "DROP TRIGGER IF EXISTS bump ON $t;" }
	elsif ($r < 0.69)
	{
		my ($old, $new) = rand() < 0.5 ? ('src', $s eq 'src' ? 'src2' : 'src') : ('dst', $d eq 'dst' ? 'dst2' : 'dst');
		my $from = $old eq 'src' ? $s : $d;
		$step = "ALTER TABLE $t RENAME COLUMN $from TO $new;";
		if ($old eq 'src') { $src{$t} = $new } else { $dst{$t} = $new }
	}
	elsif ($r < 0.72) { $step = pick("ALTER TABLE $t ADD COLUMN IF NOT EXISTS extra int;", "ALTER TABLE $t DROP COLUMN IF EXISTS extra;") }
	elsif ($r < 0.77)
	{
		$step = "BEGIN; SAVEPOINT s; INSERT INTO $t ($s, $d) VALUES (0, 15); SELECT count(*) FROM (SELECT grail.refresh_graph('$t')) x; "
		  . "SELECT check_graph('$t'); ROLLBACK TO SAVEPOINT s; SELECT check_graph('$t'); COMMIT;";
	}
	elsif ($r < 0.80) { $step = "BEGIN; INSERT INTO $t ($s, $d) VALUES (15, 0); SELECT check_graph('$t'); ROLLBACK;" }
	elsif ($r < 0.85)
	{
		# A window: from a fresh build, the triggers off (or one dropped and made again exactly as
		# pg_grail makes it), a write, the triggers back as they were.
		my $off = pick("ALTER TABLE $t DISABLE TRIGGER " . pick('ALL', 'USER') . ';',
			"DO \$\$ BEGIN EXECUTE format('ALTER TABLE $t DISABLE TRIGGER %I', $trigger); END \$\$;",
			"DO \$\$ BEGIN EXECUTE format('ALTER TABLE $t ENABLE REPLICA TRIGGER %I', $trigger); END \$\$;",
			"DO \$\$ DECLARE g bigint := (SELECT id FROM grail.graph WHERE name = '$t'); BEGIN "
			  . "EXECUTE format('DROP TRIGGER grail_stale_%s ON $t', g); "
			  . "EXECUTE format('CREATE TRIGGER grail_stale_%s AFTER INSERT OR DELETE OR TRUNCATE ON $t FOR EACH STATEMENT "
			  . "EXECUTE FUNCTION grail._mark_stale(%L)', g, g); END \$\$;");
		my $write = pick("INSERT INTO $t ($s, $d) VALUES ((random() * 15)::int, (random() * 15)::int);",
			"DELETE FROM $t WHERE random() < 0.3;", "UPDATE $t SET $d = (random() * 15)::int WHERE random() < 0.3;");
		$step = "SELECT count(*) FROM (SELECT grail.refresh_graph('$t')) x; $off $write "
		  . "DO \$\$ DECLARE n name; BEGIN FOR n IN SELECT tgname FROM pg_trigger WHERE tgrelid = '$t'::regclass "
		  . "AND tgname LIKE 'grail\\_stale\\_%' LOOP EXECUTE format('ALTER TABLE $t ENABLE ALWAYS TRIGGER %I', n); END LOOP; END \$\$;";
	}
	else { $step = "SELECT count(*) FROM (SELECT grail.refresh_graph('$t')) x;" }
	push @lines, $step, "SELECT check_graph('$t');";
}
push @lines, q{SELECT 'still alive';};

my $file = $node->basedir . '/write_fuzz.sql';
open my $fh, '>', $file or die;
print $fh "$_\n" for @lines;
close $fh;
my ($stdout, $stderr) = ('', '');
my $ok = IPC::Run::run([ 'psql', '-XAtq', '-v', 'VERBOSITY=sqlstate', '-d', $node->connstr('postgres'), '-f', $file ],
	'>', \$stdout, '2>', \$stderr);

my @out = split /\n/, $stdout;
my @wrong = grep { /^WRONG/ } @out;
my %counts;
$counts{$_}++ for grep { /^(ok|refused|gone)$/ } @out;
my @internal = grep { /ERROR:\s+(XX|58)/ } split /\n/, $stderr;
diag sprintf('write fuzz: seed %d, %d steps, checks: %d ok, %d refused, %d gone; %d errors from the steps',
	$seed, $steps, $counts{ok} // 0, $counts{refused} // 0, $counts{gone} // 0, scalar(() = $stderr =~ /ERROR/g));
ok($ok, 'psql ran the whole file');
like($stdout, qr/still alive\s*$/, 'the session stayed up');
is(join("\n", @wrong[ 0 .. ($#wrong < 4 ? $#wrong : 4) ]), '', 'no silent wrong answer');
is(join("\n", @internal), '', 'no internal error');
cmp_ok($counts{ok} // 0, '>', $steps / 8, 'the graphs answered often enough for the check to mean something');
$node->stop;
done_testing();
