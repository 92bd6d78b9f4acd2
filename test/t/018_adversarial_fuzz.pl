# Adversarial fuzz, as an unprivileged role (fz_owner: owns its tables, no other right):
#  1. a sweep: every function of the extension's schema (from pg_proc, every overload) with every
#     NULL pattern of its arguments, over graphs of each key kind (so wrong key types: text, uuid
#     and bigint mixed), then each argument replaced by extreme values (bigint and int limits, 0,
#     -1, empty and long strings, huge, empty, 2-D and odd-lower-bound arrays, NULL elements);
#  2. rounds of random steps over fresh edge tables (bigint, int, text and uuid keys; live and not;
#     a partitioned table; an inheritance parent with a child and a second parent): writes through
#     the table, its partitions, its child and the child's other parent; type changes of one or
#     both edge columns; column renames through every ALTER form (TABLE, VIEW, MATERIALIZED VIEW,
#     FOREIGN TABLE, TYPE ... RENAME ATTRIBUTE), also renaming another column into an edge
#     column's name; INHERIT / NO INHERIT, a child of two parents; partitions created, detached,
#     attached, and a foreign-table partition (a handler-less wrapper the superuser sets up);
#     triggers disabled and dropped; merges, refreshes, alter_graph, drop and re-create; queries
#     under stale_policy = warn and under force_parallel_mode; random calls of the sweep; the
#     superuser's `pg_dump -t` of one edge table restored into a second database whose graphs have
#     the same ids; a FOR ALL TABLES publication.
# After every step, each graph of the round is checked: every answer of reachable() (all pairs of
# its vertices, batch and single), bfs() (vertex, depth, parent; out, in and both directions),
# descendants(), ancestors(), path() to a random key, find_cycle() and scc_components() must equal a
# recursive query over the rows (WITH RECURSIVE, under stale_policy = error), or be an error. An
# error is fine unless it is internal (SQLSTATE class XX); a wrong answer or a crash is not.
# A crash does not end the run: the server restarts itself, the run goes on after the statement
# that crashed, and every failure is reported at the end. Deterministic: GRAIL_FUZZ_SEED (printed),
# GRAIL_FUZZ_ROUNDS and GRAIL_FUZZ_STEPS vary it.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes ();

my $seed = $ENV{GRAIL_FUZZ_SEED} // 20261125;
my $rounds = $ENV{GRAIL_FUZZ_ROUNDS} // 24;
my $steps = $ENV{GRAIL_FUZZ_STEPS} // 50;
srand($seed);
my $started = Time::HiRes::time();
diag "adversarial fuzz: GRAIL_FUZZ_SEED=$seed GRAIL_FUZZ_ROUNDS=$rounds GRAIL_FUZZ_STEPS=$steps";

my $node = PostgreSQL::Test::Cluster->new('adversarial_fuzz');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
restart_after_crash = on
max_worker_processes = 16
max_parallel_workers_per_gather = 2
log_min_messages = warning
});
$node->start;
my $log_start = -s $node->logfile;

my @dbs = ('fuzz', 'fuzz2');
my $super = $node->safe_psql('postgres', 'SELECT current_user');
$node->safe_psql('postgres', 'CREATE ROLE fz_owner LOGIN');
for my $db (@dbs)
{
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	$node->safe_psql($db, q{
		CREATE EXTENSION pg_grail;
		GRANT CREATE ON SCHEMA public TO fz_owner;
		CREATE FOREIGN DATA WRAPPER fz_fdw;
		CREATE SERVER fz_srv FOREIGN DATA WRAPPER fz_fdw;
		GRANT USAGE ON FOREIGN SERVER fz_srv TO fz_owner;

		-- An error of a graph function: a refusal is fine, an internal error is not.
		CREATE FUNCTION fz_refusal(tag text, g text, what text, state text, message text) RETURNS text
		LANGUAGE sql AS $$
			SELECT CASE WHEN state LIKE 'XX%' OR state LIKE '58%'
			            THEN format('INTERNAL %s %s %s: %s %s', tag, g, what, state, message) ELSE 'refused' END
		$$;

		-- The oracle: the answers of graph g over the rows of tbl (edge columns s -> d), all pairs
		-- of its vertices and of the keys the fuzz writes (0 to 9, and 99 that it never writes),
		-- bfs from two vertices, the components.
		CREATE FUNCTION fz_check(tag text, g text, tbl text, s name, d name) RETURNS SETOF text
		LANGUAGE plpgsql SET grail.stale_policy = 'error' SET jit = off AS $fn$
		DECLARE
			kt text; ord text; edges text; key_prefix text;
			srcs text[]; tgts text[]; truth boolean[]; answer boolean[]; one boolean;
			expected text; got text; n int; i int; src text; roots text[];
			dst text; dir text; dir_edges text; expected_rows text; loopless text;
		BEGIN
			BEGIN
				kt := grail_internal._key_type(g)::text;
			EXCEPTION WHEN OTHERS THEN
				RETURN NEXT fz_refusal(tag, g, '_key_type', SQLSTATE, SQLERRM); RETURN;
			END;
			ord := CASE kt WHEN 'text' THEN ' COLLATE "C"' ELSE '' END;
			key_prefix := CASE kt WHEN 'uuid' THEN '00000000-0000-0000-0000-0000000000' ELSE '' END;
			edges := format('SELECT %I::text::%s AS a, %I::text::%s AS b FROM %s WHERE %I IS NOT NULL AND %I IS NOT NULL',
			                s, kt, d, kt, tbl, s, d);
			BEGIN
				EXECUTE format($q$
					WITH RECURSIVE e AS (%s),
					v AS (SELECT a AS x FROM e UNION SELECT b FROM e
					      UNION SELECT (CASE WHEN %2$L = '' THEN k::text ELSE %2$L || lpad(k::text, 2, '0') END)::%3$s
					      FROM unnest(ARRAY[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 99]) k),
					r(x, y) AS (SELECT x, x FROM v UNION SELECT r.x, e.b FROM r JOIN e ON e.a = r.y)
					SELECT array_agg(v1.x::text ORDER BY v1.x::text, v2.x::text),
					       array_agg(v2.x::text ORDER BY v1.x::text, v2.x::text),
					       array_agg(EXISTS (SELECT 1 FROM r WHERE r.x = v1.x AND r.y = v2.x) ORDER BY v1.x::text, v2.x::text)
					FROM v v1, v v2$q$, edges, key_prefix, kt)
				INTO srcs, tgts, truth;
				EXECUTE format('SELECT array_agg(DISTINCT a::text) FROM (%s) e', edges) INTO roots;
			EXCEPTION WHEN OTHERS THEN
				RETURN NEXT 'oracle-error'; RETURN;
			END;
			n := cardinality(srcs);
			BEGIN
				EXECUTE format('SELECT grail.reachable($1, $2::%s[], $3::%s[])', kt, kt) INTO answer USING g, srcs, tgts;
			EXCEPTION WHEN OTHERS THEN
				RETURN NEXT fz_refusal(tag, g, 'reachable(batch)', SQLSTATE, SQLERRM); RETURN;
			END;
			FOR i IN 1 .. n LOOP
				IF answer[i] IS DISTINCT FROM truth[i] THEN
					RETURN NEXT format('WRONG %s %s: reachable(%L, %L) = %s in a batch, the rows say %s',
					                   tag, g, srcs[i], tgts[i], answer[i], truth[i]);
					RETURN;
				END IF;
			END LOOP;
			FOR k IN 1 .. 6 LOOP
				i := 1 + (random() * (n - 1))::int;
				BEGIN
					EXECUTE format('SELECT grail.reachable($1, $2::%s, $3::%s)', kt, kt) INTO one USING g, srcs[i], tgts[i];
				EXCEPTION WHEN OTHERS THEN
					RETURN NEXT fz_refusal(tag, g, 'reachable', SQLSTATE, SQLERRM); RETURN;
				END;
				IF one IS DISTINCT FROM truth[i] THEN
					RETURN NEXT format('WRONG %s %s: reachable(%L, %L) = %s, the rows say %s', tag, g, srcs[i], tgts[i], one, truth[i]);
					RETURN;
				END IF;
			END LOOP;
			FOR k IN 1 .. least(2, coalesce(cardinality(roots), 0)) LOOP
				src := roots[1 + (random() * (cardinality(roots) - 1))::int];
				EXECUTE format($q$
					WITH RECURSIVE e AS (%s),
					w(x, depth) AS (SELECT $1::%s, 0 UNION SELECT e.b, w.depth + 1 FROM w JOIN e ON e.a = w.x WHERE w.depth < 40),
					dd AS (SELECT x, min(depth) AS depth FROM w GROUP BY x)
					SELECT string_agg(format('%%s:%%s:%%s', dd.x, dd.depth,
					       (SELECT (array_agg(p.x ORDER BY p.x%s))[1] FROM dd p JOIN e ON e.a = p.x AND e.b = dd.x
					        WHERE p.depth = dd.depth - 1)), ',' ORDER BY dd.x::text COLLATE "C")
					FROM dd$q$, edges, kt, ord) INTO expected USING src;
				BEGIN
					EXECUTE format($q$SELECT string_agg(format('%%s:%%s:%%s', vertex, depth, parent), ',' ORDER BY vertex::text COLLATE "C")
					                  FROM grail.bfs($1, $2::%s)$q$, kt) INTO got USING g, src;
				EXCEPTION WHEN OTHERS THEN
					RETURN NEXT fz_refusal(tag, g, 'bfs', SQLSTATE, SQLERRM); RETURN;
				END;
				IF got IS DISTINCT FROM expected THEN
					RETURN NEXT format('WRONG %s %s: bfs(%L) = %s, the rows say %s', tag, g, src, got, expected);
					RETURN;
				END IF;
			END LOOP;
			-- bfs() in each direction, descendants() and ancestors(): the BFS over the rows, swapped
			-- or both ways; path() to a random key and find_cycle() through the root: the BFS's parent
			-- chain (a key that is no vertex: NULL), the cycle's last edge from the first vertex in BFS
			-- order with an edge back (self-loops are no cycles).
			loopless := format('SELECT a, b FROM (%s) x WHERE a <> b', edges);
			FOR k IN 1 .. least(2, coalesce(cardinality(roots), 0)) LOOP
				src := roots[1 + (random() * (cardinality(roots) - 1))::int];
				FOREACH dir IN ARRAY ARRAY['out', 'in', 'both'] LOOP
					dir_edges := CASE dir WHEN 'out' THEN edges
					             WHEN 'in' THEN format('SELECT b AS a, a AS b FROM (%s) x', edges)
					             ELSE format('SELECT a, b FROM (%1$s) x UNION ALL SELECT b, a FROM (%1$s) y', edges) END;
					BEGIN
						EXECUTE format($q$
							WITH RECURSIVE e AS (%s),
							w(x, depth) AS (SELECT $1::%s, 0 UNION SELECT e.b, w.depth + 1 FROM w JOIN e ON e.a = w.x WHERE w.depth < 40),
							dd AS (SELECT x, min(depth) AS depth FROM w GROUP BY x)
							SELECT string_agg(format('%%s:%%s:%%s', dd.x, dd.depth,
							       (SELECT (array_agg(p.x ORDER BY p.x%s))[1] FROM dd p JOIN e ON e.a = p.x AND e.b = dd.x
							        WHERE p.depth = dd.depth - 1)), ',' ORDER BY dd.x::text COLLATE "C"),
							       string_agg(format('%%s:%%s', dd.x, dd.depth), ',' ORDER BY dd.x::text COLLATE "C")
							FROM dd$q$, dir_edges, kt, ord) INTO expected, expected_rows USING src;
					EXCEPTION WHEN OTHERS THEN
						RETURN NEXT 'oracle-error'; RETURN;
					END;
					BEGIN
						EXECUTE format($q$SELECT string_agg(format('%%s:%%s:%%s', vertex, depth, parent), ',' ORDER BY vertex::text COLLATE "C")
						                  FROM grail.bfs($1, $2::%s, NULL, $3)$q$, kt) INTO got USING g, src, dir;
					EXCEPTION WHEN OTHERS THEN
						RETURN NEXT fz_refusal(tag, g, 'bfs ' || dir, SQLSTATE, SQLERRM); RETURN;
					END;
					IF got IS DISTINCT FROM expected THEN
						RETURN NEXT format('WRONG %s %s: bfs(%L, %s) = %s, the rows say %s', tag, g, src, dir, got, expected);
						RETURN;
					END IF;
					CONTINUE WHEN dir = 'both';
					BEGIN
						EXECUTE format($q$SELECT string_agg(format('%%s:%%s', vertex, depth), ',' ORDER BY vertex::text COLLATE "C")
						                  FROM grail.%s($1, $2::%s)$q$, CASE dir WHEN 'out' THEN 'descendants' ELSE 'ancestors' END, kt)
						INTO got USING g, src;
					EXCEPTION WHEN OTHERS THEN
						RETURN NEXT fz_refusal(tag, g, 'descendants/ancestors', SQLSTATE, SQLERRM); RETURN;
					END;
					IF got IS DISTINCT FROM expected_rows THEN
						RETURN NEXT format('WRONG %s %s: %s(%L) = %s, the rows say %s', tag, g,
						                   CASE dir WHEN 'out' THEN 'descendants' ELSE 'ancestors' END, src, got, expected_rows);
						RETURN;
					END IF;
				END LOOP;
				dst := tgts[1 + (random() * (n - 1))::int];
				BEGIN
					EXECUTE format($q$
						WITH RECURSIVE e AS (%s),
						w(x, depth) AS (SELECT $1::%s, 0 UNION SELECT e.b, w.depth + 1 FROM w JOIN e ON e.a = w.x WHERE w.depth < 40),
						dd AS (SELECT x, min(depth) AS depth FROM w GROUP BY x),
						pp AS (SELECT dd.x, dd.depth, (SELECT (array_agg(p.x ORDER BY p.x%s))[1] FROM dd p JOIN e ON e.a = p.x AND e.b = dd.x
						                               WHERE p.depth = dd.depth - 1) AS parent FROM dd),
						last AS (SELECT pp.x FROM pp JOIN e ON e.a = pp.x AND e.b = $1::%2$s ORDER BY pp.depth, pp.x%3$s LIMIT 1),
						ch(goal, cur, chain) AS (
							SELECT 'path', $2::%2$s, ARRAY[$2::text] WHERE EXISTS (SELECT 1 FROM dd WHERE dd.x = $2::%2$s)
							UNION ALL SELECT 'cycle', x, ARRAY[x::text, $1::%2$s::text] FROM last
							UNION ALL SELECT ch.goal, pp.parent, pp.parent::text || ch.chain FROM ch JOIN pp ON pp.x = ch.cur
							WHERE pp.parent IS NOT NULL)
						SELECT format('path %%s cycle %%s', (SELECT chain FROM ch WHERE goal = 'path' AND cur = $1::%2$s),
						              (SELECT chain FROM ch WHERE goal = 'cycle' AND cur = $1::%2$s))$q$, loopless, kt, ord)
					INTO expected USING src, dst;
				EXCEPTION WHEN OTHERS THEN
					RETURN NEXT 'oracle-error'; RETURN;
				END;
				BEGIN
					EXECUTE format($q$SELECT format('path %%s cycle %%s', grail.path($1, $2::%1$s, $3::%1$s)::text[],
					                                grail.find_cycle($1, $2::%1$s)::text[])$q$, kt)
					INTO got USING g, src, dst;
				EXCEPTION WHEN OTHERS THEN
					RETURN NEXT fz_refusal(tag, g, 'path/find_cycle', SQLSTATE, SQLERRM); RETURN;
				END;
				IF got IS DISTINCT FROM expected THEN
					RETURN NEXT format('WRONG %s %s: from %L to %L: %s, the rows say %s', tag, g, src, dst, got, expected);
					RETURN;
				END IF;
			END LOOP;
			EXECUTE format($q$
				WITH RECURSIVE e AS (%s), v AS (SELECT a AS x FROM e UNION SELECT b FROM e),
				r(x, y) AS (SELECT x, x FROM v UNION SELECT r.x, e.b FROM r JOIN e ON e.a = r.y)
				SELECT string_agg(format('%%s:%%s', v.x, (SELECT (array_agg(r1.y ORDER BY r1.y%s))[1] FROM r r1
				                   JOIN r r2 ON r2.x = r1.y AND r2.y = r1.x WHERE r1.x = v.x)), ',' ORDER BY v.x::text COLLATE "C")
				FROM v$q$, edges, ord) INTO expected;
			BEGIN
				EXECUTE format($q$SELECT string_agg(format('%%s:%%s', vertex, component), ',' ORDER BY vertex::text COLLATE "C")
				                  FROM grail.scc_components($1, NULL::%s)$q$, kt) INTO got USING g;
			EXCEPTION WHEN OTHERS THEN
				RETURN NEXT fz_refusal(tag, g, 'scc_components', SQLSTATE, SQLERRM); RETURN;
			END;
			IF got IS DISTINCT FROM expected THEN
				RETURN NEXT format('WRONG %s %s: scc_components = %s, the rows say %s', tag, g, got, expected);
				RETURN;
			END IF;
			RETURN NEXT 'ok';
		END
		$fn$;
	});
}

# Everything that went wrong, reported at the end: [what, where, statement, detail].
my (@crashes, @wrong, @internal, %wrong_of, %quarantined);
my %checks;

sub pick { return $_[ int(rand(@_)) ] }
sub chance { return rand() < $_[0] }
sub lit
{
	my ($s) = @_;
	$s =~ s/'/''/g;
	return "'$s'";
}

sub wait_for_server
{
	for (1 .. 600)
	{
		my $ret = $node->psql('postgres', 'SELECT 1', on_error_stop => 0);
		return if $ret == 0;
		Time::HiRes::sleep(0.2);
	}
	BAIL_OUT('the server did not come back after a crash');
}

# Runs lines (one statement or a few on each line) in one psql session as $user in $db. Lines
# printing WRONG or INTERNAL are failures; so is an error of class XX. When the connection is lost
# (a backend crashed: the server restarts every backend), the crash is recorded with its line and
# the server log's account, and the run goes on after that line in a new session.
my $transcript = $node->basedir . '/transcript.sql';
open my $transcript_fh, '>', $transcript or die;
$transcript_fh->autoflush(1);
sub run_lines
{
	my ($db, $user, $where, @lines) = @_;
	my $first = 0;
	my $tries = 0;
	print $transcript_fh "-- $where: $db as $user\n", map { "$_\n" } @lines;
	while ($first < @lines)
	{
		my $file = $node->basedir . '/step.sql';
		open my $fh, '>', $file or die;
		print $fh "$_\n" for @lines[ $first .. $#lines ];
		close $fh;
		my $log_offset = -s $node->logfile;
		my ($out, $err) = ('', '');
		my $t0 = Time::HiRes::time();
		IPC::Run::run([ 'psql', '-XAtq', '-v', 'VERBOSITY=verbose', '-d', $node->connstr($db) . " user=$user", '-f', $file ],
			'>', \$out, '2>', \$err);
		note sprintf("%s: %d lines, %.1f s", $where, @lines - $first, Time::HiRes::time() - $t0) if $ENV{GRAIL_FUZZ_VERBOSE};
		for my $l (split /\n/, $out)
		{
			if ($l =~ /^WRONG/)
			{
				# A graph that answers wrong usually goes on doing so: the first answer of each
				# graph of each round (the rest are counted).
				my $key = ($where =~ /^(round \d+|[^:]*)/)[0] . ' ' . ($l =~ /^WRONG \S+ (\S+):/ ? $1 : $l);
				push @wrong, "$where: $l" unless $wrong_of{$key}++;
				print $transcript_fh "-- $l\n";
			}
			push @internal, "$where: $l" if $l =~ /^INTERNAL/;
			$checks{$1}++ if $l =~ /^(ok|refused|oracle-error)$/;
		}
		for my $l (split /\n/, $err)
		{
			next unless $l =~ /^psql:[^:]*:(\d+): (ERROR|FATAL|PANIC):\s+(\w{5}): (.*)/;
			my ($line, $level, $state, $msg) = ($1, $2, $3, $4);
			next if $level eq 'ERROR' && $state !~ /^(XX|58)/;
			next if $level eq 'FATAL' && $state =~ /^57P0[123]$/;    # the crash of another backend, a restart
			push @internal, "$where: $level $state $msg: " . $lines[ $first + $line - 1 ];
		}
		if ($err =~ /^psql:[^:]*:(\d+): (?:error: )?(?:server closed the connection unexpectedly|connection to server was lost)/m)
		{
			my $line = $first + $1 - 1;
			wait_for_server();
			my $log = slurp_file($node->logfile, $log_offset);
			my ($signal) = $log =~ /(terminated by signal \d+: [^\n]*|was terminated by exception[^\n]*|exited with exit code \d+)/;
			push @crashes, [ $where, $lines[$line], $signal // 'the connection was lost' ];
			$quarantined{$1} = 1 if $lines[$line] =~ /fz_check\('[^']*', '([^']*)'/;
			print $transcript_fh "-- CRASH: $lines[$line]\n";
			diag "CRASH ($where): " . ($signal // 'connection lost') . "\n    at: $lines[$line]";
			$first = $line + 1;
			next;
		}
		if ($err =~ /could not connect|Connection refused|the database system is (?:in recovery mode|starting up|shutting down)|No such file/)
		{
			BAIL_OUT("cannot connect: $err") if ++$tries > 5;
			wait_for_server();
			next;
		}
		last;
	}
}

# Keys: small integers; a uuid-keyed table holds 00000000-0000-0000-0000-0000000000NN.
sub key
{
	my ($t, $n) = @_;
	return $t->{domain} eq 'uuid' ? sprintf("'00000000-0000-0000-0000-%012d'", $n) : "'$n'";
}

# The world of a round: edge tables of every key kind and shape, each with its graph, owned by
# fz_owner. col: the current names of the edge columns and of the text column note (renames are
# part of the mix; a graph follows renames, so the oracle reads the columns by these names).
my @world;
my %fresh;    # counters for new names
sub new_world
{
	my ($r) = @_;
	@world = (
		{ name => "b$r", graph => "gb$r", domain => 'int', type => 'bigint', kind => 'plain', live => 'true' },
		{ name => "n$r", graph => "gn$r", domain => 'int', type => 'int', kind => 'plain', live => 'false' },
		{ name => "t$r", graph => "gt$r", domain => 'int', type => 'text', kind => 'plain', live => 'true' },
		{ name => "u$r", graph => "gu$r", domain => 'uuid', type => 'uuid', kind => 'plain', live => 'true' },
		{ name => "p$r", graph => "gp$r", domain => 'int', type => 'bigint', kind => 'part', live => 'true' },
		{ name => "i$r", graph => "gi$r", domain => 'int', type => 'bigint', kind => 'inh', live => 'true' },
	);
	my @sql;
	for my $t (@world)
	{
		$t->{col} = { src => 'src', dst => 'dst', note => 'note' };
		my ($name, $type) = ($t->{name}, $t->{type});
		if ($t->{kind} eq 'part')
		{
			push @sql, "CREATE TABLE $name (k int, src $type, dst $type, note text, extra int) PARTITION BY LIST (k);",
			  "CREATE TABLE ${name}_1 PARTITION OF $name FOR VALUES IN (1);",
			  "CREATE TABLE ${name}_2 PARTITION OF $name FOR VALUES IN (2);";
			$t->{parts} = [ [ "${name}_1", 1 ], [ "${name}_2", 2 ] ];
		}
		else
		{
			push @sql, "CREATE TABLE $name (src $type, dst $type, note text, extra int);";
		}
		if ($t->{kind} eq 'inh')
		{
			# A child, a second parent, and a child of both.
			push @sql, "CREATE TABLE ${name}_c () INHERITS ($name);",
			  "CREATE TABLE ${name}_q (src $type, dst $type, note text, extra int);",
			  "CREATE TABLE ${name}_cq () INHERITS ($name, ${name}_q);";
		}
		push @sql, write_rows($t, $name, 10);
		push @sql, write_rows($t, "${name}_c", 4), write_rows($t, "${name}_cq", 4) if $t->{kind} eq 'inh';
		push @sql, "SELECT grail.create_graph('$t->{graph}', '$name', 'src', 'dst', live => $t->{live});";
	}
	return @sql;
}

sub insert_into
{
	my ($t, $table, $k, @pairs) = @_;
	my @cols = ($t->{col}{src}, $t->{col}{dst}, $t->{col}{note});
	unshift @cols, 'k' if defined $k;
	my $values = join(', ', map { '(' . join(', ', (defined $k ? ($k) : ()), key($t, $_->[0]), key($t, $_->[1]), "'x'") . ')' } @pairs);
	return sprintf('INSERT INTO %s (%s) VALUES %s;', $table, join(', ', map { qq{"$_"} } @cols), $values);
}

sub write_rows
{
	my ($t, $table, $count) = @_;
	my $k = $t->{kind} eq 'part' ? pick(1, 2) : undef;
	return insert_into($t, $table, $k, map { [ int(rand(10)), int(rand(10)) ] } 1 .. $count);
}

# One line per graph: a crash in one check does not skip the others. A graph whose check crashed
# is not checked again in its round (%quarantined; the crash is reported once, not at every step).
sub check_lines
{
	my ($tag, @tables) = @_;
	$tag =~ s/\s+/-/g;
	return map {
		sprintf("SELECT setseed(%.4f); SELECT fz_check(%s, %s, %s, %s, %s);", rand(), lit($tag), lit($_->{graph}),
			lit($_->{name}), lit($_->{col}{src}), lit($_->{col}{dst}))
	} grep { !$quarantined{ $_->{graph} } } @tables;
}

# The sweep's calls: every function of the extension's schema (except triggers), every overload.
my @functions = map { [ split /\|/, $_, -1 ] } split /\n/, $node->safe_psql('fuzz', q{
	SELECT p.proname, array_to_string(p.proargtypes::regtype[], ',')
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE n.nspname = 'grail' AND p.prokind = 'f'
	  AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
	ORDER BY 1, 2});

my $huge = 'ARRAY(SELECT g % 12 FROM generate_series(1, 200000) g)';
my %extreme = (
	'bigint' => [ '(-9223372036854775808)::bigint', '9223372036854775807::bigint', '0::bigint', '(-1)::bigint' ],
	'integer' => [ '(-2147483648)::int', '2147483647', '0', '-1' ],
	'text' => [ q{''}, q{' '}, q{'.'}, q{'a.b.c'}, q{repeat('x', 100000)}, q{'pg_catalog.pg_class'}, q{'grail.graph'} ],
	'name' => [ q{''::name}, q{'ctid'::name}, q{'tableoid'::name}, q{repeat('y', 200)::name}, q{'note'::name} ],
	'regclass' => [ q{0::oid::regclass}, q{'pg_class'::regclass}, q{'grail.pending_change'::regclass}, q{4294967295::oid::regclass} ],
	'oid' => [ '0::oid', '4294967295::oid', q{'pg_class'::regclass::oid} ],
	'boolean' => ['false'],
	'bigint[]' => [ q{'{}'::bigint[]}, q{'{{1,2},{3,4}}'::bigint[]}, q{'[5:6]={1,2}'::bigint[]}, q{ARRAY[NULL, 1]::bigint[]},
		"${huge}::bigint[]", q{ARRAY[-9223372036854775808, 9223372036854775807]::bigint[]} ],
	'text[]' => [ q{'{}'::text[]}, q{'{{1,2},{3,4}}'::text[]}, q{'[0:1]={1,2}'::text[]}, q{ARRAY[NULL, '']::text[]},
		"${huge}::text[]" ],
	'uuid[]' => [ q{'{}'::uuid[]}, q{'{{00000000-0000-0000-0000-000000000001}}'::uuid[]},
		q{'[2:2]={00000000-0000-0000-0000-000000000001}'::uuid[]}, q{ARRAY[NULL]::uuid[]} ],
	'uuid' => [ q{'00000000-0000-0000-0000-000000000000'::uuid}, q{'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid} ],
	'regclass[]' => [ q{'{}'::regclass[]}, q{ARRAY[0]::oid[]::regclass[]}, q{ARRAY['pg_class']::regclass[]} ],
	'anyelement' => [ '1::bigint', q{'1'::text}, q{'00000000-0000-0000-0000-000000000001'::uuid}, '1::int', 'NULL::int',
		'NULL::numeric', q{NULL::varchar}, 'NULL::bigint[]' ],
);

# A good value of a type for graph $t of the world ($new: a graph name to create).
sub good
{
	my ($type, $t, $new) = @_;
	return lit($new // $t->{graph}) if $type eq 'text';
	return lit($t->{name}) . '::regclass' if $type eq 'regclass';
	return lit($t->{name}) . '::regclass::oid' if $type eq 'oid';
	return "ARRAY[" . lit($t->{name}) . "]::regclass[]" if $type eq 'regclass[]';
	return lit(pick($t->{col}{src}, $t->{col}{dst})) . '::name' if $type eq 'name';
	return int(rand(10)) . '::bigint' if $type eq 'bigint';
	return pick(3, 0, 5) if $type eq 'integer';
	return pick('true', 'false') if $type eq 'boolean';
	return key($t, int(rand(10))) . '::uuid' if $type eq 'uuid';
	return 'ARRAY[' . join(', ', map { $_ . '::bigint' } 1 .. 3) . ']' if $type eq 'bigint[]';
	return 'ARRAY[' . join(', ', map { key($t, $_) } 1 .. 3) . ']::text[]' if $type eq 'text[]';
	return 'ARRAY[' . join(', ', map { key({ domain => 'uuid' }, $_) } 1 .. 3) . ']::uuid[]' if $type eq 'uuid[]';
	return pick('NULL::bigint', 'NULL::text', 'NULL::uuid') if $type eq 'anyelement';
	return "NULL::$type";
}

sub null_of
{
	my ($type) = @_;
	return pick('NULL::bigint', 'NULL::text', 'NULL::uuid', 'NULL::int', 'NULL') if $type eq 'anyelement';
	return "NULL::$type";
}

sub call_line
{
	my ($name, @args) = @_;
	return "SELECT count(*) FROM (SELECT * FROM grail.$name(" . join(', ', @args) . ') LIMIT 100) f;';
}

# One random call of one function: some arguments NULL, some extreme, the rest good.
sub random_call
{
	my ($t, $f) = @_;
	my ($name, $types) = @{ $f // pick(@functions) };
	my @types = $types eq '' ? () : split /,/, $types;
	my $new = $name eq 'create_graph' ? 'fz_new_' . ++$fresh{graph} : undef;
	my @args = map {
		my $x = rand();
		$x < 0.15 ? null_of($_) : $x < 0.3 && $extreme{$_} ? pick(@{ $extreme{$_} }) : good($_, $t, $new)
	} @types;
	return call_line($name, @args);
}

# Phase 1, the sweep: one world (round 0), each overload with every NULL pattern (a bit mask
# over its arguments) for each graph, then each argument through its extreme values. In
# transactions rolled back, so that the world stays as it was.
run_lines('fuzz', 'fz_owner', 'setup 0', new_world(0));
my @sweep;
for my $f (@functions)
{
	my ($name, $types) = @$f;
	my @types = $types eq '' ? () : split /,/, $types;
	my $n = @types;
	for my $t (@world)
	{
		for my $mask (0 .. (1 << $n) - 1)
		{
			my $new = $name eq 'create_graph' ? 'fz_sweep' : undef;
			my @args = map { ($mask >> $_) & 1 ? null_of($types[$_]) : good($types[$_], $t, $new) } 0 .. $n - 1;
			push @sweep, 'BEGIN; ' . call_line($name, @args) . ' ROLLBACK;';
		}
	}
	for my $i (0 .. $n - 1)
	{
		for my $x (@{ $extreme{ $types[$i] } // [] })
		{
			my $t = pick(@world);
			my @args = map { $_ == $i ? $x : good($types[$_], $t, $name eq 'create_graph' ? 'fz_sweep' : undef) } 0 .. $n - 1;
			push @sweep, 'BEGIN; ' . call_line($name, @args) . ' ROLLBACK;';
		}
	}
}
my $sweep_calls = @sweep;
run_lines('fuzz', 'fz_owner', 'sweep', @sweep);
diag sprintf('sweep: %d functions (overloads), %d calls, %.0f s', scalar(@functions), $sweep_calls, Time::HiRes::time() - $started);
run_lines('fuzz', 'fz_owner', 'sweep check', check_lines('sweep', @world));

# Phase 2, the rounds. A step is a list of actions [user, database, sql] (or [dump, table]).
my $publication = 0;
my %victims;    # fuzz2: graph id -> [graph, table] made to share an id with a dumped table's graph

sub rename_step
{
	my ($t, $s) = @_;
	my $form = pick('TABLE', 'VIEW', 'MATERIALIZED VIEW', 'FOREIGN TABLE', 'TYPE');
	my $role = pick('src', 'dst');
	my $old = $t->{col}{$role};
	my $new = "${role}_$s";
	my $rename = sub {
		my ($from, $to) = @_;
		return $form eq 'TYPE'
		  ? qq{ALTER TYPE $t->{name} RENAME ATTRIBUTE "$from" TO "$to";}
		  : qq{ALTER $form $t->{name} RENAME COLUMN "$from" TO "$to";};
	};
	my $sql = $rename->($old, $new);
	if (chance(0.5))
	{
		# Another column (text) takes the edge column's old name.
		$sql .= ' ' . $rename->($t->{col}{note}, $old);
		$t->{col}{note} = $old;
	}
	my %before = %{ $t->{col} };
	$t->{col}{$role} = $new;
	# In one transaction: a rename that failed leaves the names as they were, which the catalog
	# tells after the step.
	my $hook = sub {
		my $exists = $node->safe_psql('fuzz', "SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('$t->{name}') "
			  . "AND attname = '$new' AND NOT attisdropped");
		$t->{col} = \%before unless $exists;
	};
	return ("BEGIN; $sql COMMIT;", $hook);
}

sub step_actions
{
	my ($r, $s) = @_;
	my $t = pick(@world);
	my $tag = "r${r}s$s";
	my ($name, $src, $dst) = ($t->{name}, $t->{col}{src}, $t->{col}{dst});
	my $x = rand();
	my @owner;
	my @actions;
	if ($x < 0.22)
	{
		# Writes: through the table, a partition, the child, the child's other parent.
		my @targets = ($name);
		push @targets, map { $_->[0] } @{ $t->{parts} } if $t->{kind} eq 'part';
		push @targets, "${name}_c", "${name}_cq", "${name}_q" if $t->{kind} eq 'inh';
		my $target = pick(@targets);
		my $k;
		if ($t->{kind} eq 'part')
		{
			my ($part) = grep { $_->[0] eq $target } @{ $t->{parts} };
			$k = $part ? $part->[1] : pick(1, 2, 3);
		}
		my $y = rand();
		push @owner,
		    $y < 0.4 ? insert_into($t, $target, $k, map { [ int(rand(10)), int(rand(10)) ] } 1 .. 1 + int(rand(3)))
		  : $y < 0.6 ? qq{UPDATE $target SET "$dst" = } . key($t, int(rand(10))) . qq{ WHERE "$src" <> } . key($t, int(rand(10))) . ';'
		  : $y < 0.7 ? qq{UPDATE $target SET "$t->{col}{note}" = 'y' WHERE "$src" = } . key($t, int(rand(10))) . ';'
		  : $y < 0.9 ? qq{DELETE FROM $target WHERE "$src" = } . key($t, int(rand(10))) . ';'
		  :            "TRUNCATE $target;";
	}
	elsif ($x < 0.30)
	{
		push @owner, pick("SELECT count(*) FROM (SELECT grail.merge_graph('$t->{graph}')) m;",
			"SELECT count(*) FROM (SELECT grail.refresh_graph('$t->{graph}')) m;",
			"SELECT grail.alter_graph('$t->{graph}', " . pick('true', 'false') . ');',
			"SELECT grail.drop_graph('$t->{graph}');",
			"SELECT count(*) FROM (SELECT grail.create_graph('$t->{graph}', '$name', '$src', '$dst', live => $t->{live})) c;");
	}
	elsif ($x < 0.38)
	{
		# Readers that accept a stale answer: no oracle (the answer may be old), but no crash either.
		my $v = key($t, int(rand(10)));
		my $kt = pick('text', $t->{domain} eq 'uuid' ? 'uuid' : 'bigint');
		push @owner, "SET grail.stale_policy = warn; SET client_min_messages = error; "
		  . "SELECT count(*) FROM grail.bfs('$t->{graph}', ${v}::$kt) b; "
		  . "SELECT count(*) FROM (SELECT grail.reachable('$t->{graph}', ${v}::$kt, ${v}::$kt)) q; "
		  . "SELECT count(*) FROM grail.scc_components('$t->{graph}', NULL::$kt); RESET ALL;";
	}
	elsif ($x < 0.46)
	{
		# A type change of one or both edge columns (each table keeps its domain of values).
		my @types = $t->{domain} eq 'uuid' ? ('uuid', 'text', 'varchar(40)') : ('bigint', 'int', 'text', 'varchar(20)', 'numeric');
		my @cols = @{ pick([$src], [$dst], [ $src, $dst ]) };
		push @owner, "ALTER TABLE $name " . join(', ', map {
			my $type = pick(@types);
			qq{ALTER COLUMN "$_" TYPE $type USING "$_"::text::$type}
		} @cols) . ';';
	}
	elsif ($x < 0.54)
	{
		my ($sql, $hook) = rename_step($t, $s);
		push @actions, [ 'fz_owner', 'fuzz', $sql, $hook ];
	}
	elsif ($x < 0.62)
	{
		# Mostly the tables with a family.
		$t = pick(grep { $_->{kind} ne 'plain' } @world) if chance(0.7);
		($name, $src, $dst) = ($t->{name}, $t->{col}{src}, $t->{col}{dst});
		if ($t->{kind} eq 'inh')
		{
			push @owner, pick("ALTER TABLE ${name}_c INHERIT ${name}_q;", "ALTER TABLE ${name}_c NO INHERIT ${name}_q;",
				"ALTER TABLE ${name}_c NO INHERIT $name;", "ALTER TABLE ${name}_c INHERIT $name;",
				"CREATE TABLE ${name}_c$s () INHERITS ($name, ${name}_q); " . insert_into($t, "${name}_c$s", undef, [ 1, 8 ]),
				qq{UPDATE ${name}_q SET "$dst" = } . key($t, int(rand(10))) . ';',
				"SELECT setseed(0.5); DELETE FROM ${name}_q WHERE random() < 0.5;");
		}
		elsif ($t->{kind} eq 'part')
		{
			my $part = pick(@{ $t->{parts} });
			my $y = rand();
			if ($y < 0.25)
			{
				my $k = 200 + $s;
				# Then a change pending and a reader that takes a stale answer: the reader must not
				# scan the foreign partition.
				push @owner, "CREATE FOREIGN TABLE ${name}_f$k PARTITION OF $name FOR VALUES IN ($k) SERVER fz_srv;",
				  insert_into($t, $name, 1, [ int(rand(10)), int(rand(10)) ]),
				  "SET grail.stale_policy = warn; SET client_min_messages = error; "
				  . "SELECT count(*) FROM grail.bfs('$t->{graph}', '1'::bigint) b; RESET ALL;";
				push @{ $t->{foreign} }, "${name}_f$k";
			}
			elsif ($y < 0.35 && @{ $t->{foreign} // [] })
			{
				push @owner, 'DROP FOREIGN TABLE ' . pop(@{ $t->{foreign} }) . ';';
			}
			elsif ($y < 0.5)
			{
				my $k = 100 + $s;
				push @owner, "CREATE TABLE ${name}_$k PARTITION OF $name FOR VALUES IN ($k); " . insert_into($t, "${name}_$k", $k, [ 2, 9 ]);
				push @{ $t->{parts} }, [ "${name}_$k", $k ];
			}
			elsif ($y < 0.75)
			{
				push @owner, "ALTER TABLE $name DETACH PARTITION $part->[0];";
			}
			else
			{
				push @owner, "ALTER TABLE $name ATTACH PARTITION $part->[0] FOR VALUES IN ($part->[1]);";
			}
		}
		else
		{
			push @owner, pick("ALTER TABLE $name DISABLE TRIGGER ALL;", "ALTER TABLE $name ENABLE TRIGGER ALL;",
				"DO \$\$ DECLARE n name; BEGIN SELECT tgname INTO n FROM pg_trigger WHERE tgrelid = '$name'::regclass "
				  . "AND tgname LIKE 'grail%' ORDER BY random() LIMIT 1; EXECUTE format('DROP TRIGGER %I ON $name', n); END \$\$;");
		}
		push @owner, write_rows($t, $name, 1);
	}
	elsif ($x < 0.70)
	{
		# Queries in parallel workers (force_parallel_mode), after a write in the same transaction.
		push @owner, "BEGIN; SET LOCAL force_parallel_mode = on; SET LOCAL parallel_setup_cost = 0; "
		  . "SET LOCAL parallel_tuple_cost = 0; SET LOCAL min_parallel_table_scan_size = 0; " . write_rows($t, $name, 1)
		  . ' ' . join(' ', check_lines("$tag-parallel", $t)) . ' COMMIT;';
	}
	elsif ($x < 0.74)
	{
		# pg_dump -t of one edge table, restored into fuzz2 (whose graph of the same id is a victim).
		push @actions, [ 'dump', $t ];
	}
	elsif ($x < 0.76)
	{
		push @actions, [ $super, 'fuzz', $publication ? 'DROP PUBLICATION fz_all;' : 'CREATE PUBLICATION fz_all FOR ALL TABLES;' ];
		$publication = !$publication;
	}
	else
	{
		push @owner, random_call($t);
	}
	push @actions, [ 'fz_owner', 'fuzz', $_ ] for @owner;
	# The check of every graph of the world after each step.
	push @actions, map { [ 'fz_owner', 'fuzz', $_ ] } check_lines($tag, @world);
	return @actions;
}

# pg_dump -t of one table (its grail triggers come along) restored into fuzz2, where a graph
# gets the id the triggers name; then writes to the restored table must not change that graph.
sub dump_restore
{
	my ($t, $tag) = @_;
	my $name = $t->{name};
	my $ids = $node->safe_psql('fuzz', "SELECT string_agg(DISTINCT substring(tgname from 'grail_[a-z]+_([0-9]+)'), ' ') "
		  . "FROM pg_trigger WHERE tgrelid = to_regclass('$name') AND tgname LIKE 'grail%'");
	my $dump = $node->basedir . "/$name.sql";
	my ($out, $err) = ('', '');
	IPC::Run::run([ 'pg_dump', '-t', "public.$name", '-f', $dump, '-d', $node->connstr('fuzz') ], '>', \$out, '2>', \$err);
	my @victims;
	for my $id (split / /, $ids)
	{
		if (!$victims{$id})
		{
			my $last = $node->safe_psql('fuzz2', 'SELECT last_value FROM grail.graph_id_seq');
			next if $last >= $id;
			$node->safe_psql('fuzz2', "SELECT setval('grail.graph_id_seq', $id - 1); CREATE TABLE victim$id (src bigint, dst bigint); "
				  . "INSERT INTO victim$id VALUES (0, 1), (1, 2), (5, 5); ALTER TABLE victim$id OWNER TO fz_owner;");
			run_lines('fuzz2', 'fz_owner', "$tag victim", "SELECT grail.create_graph('victim$id', 'victim$id', 'src', 'dst');");
			$victims{$id} = { graph => "victim$id", name => "victim$id", col => { src => 'src', dst => 'dst' } };
		}
		push @victims, $victims{$id};
	}
	run_lines('fuzz2', $super, "$tag restore", "DROP TABLE IF EXISTS $name CASCADE;");
	IPC::Run::run([ 'psql', '-Xq', '-d', $node->connstr('fuzz2'), '-f', $dump ], '>', \$out, '2>', \$err);
	return unless @victims;
	# Inserts alone first: a graph whose log holds deletes of edges it never had reads the rows.
	my $k = $t->{kind} eq 'part' ? pick(1, 2) : undef;
	run_lines('fuzz2', 'fz_owner', "$tag restored",
		insert_into($t, $name, $k, map { [ int(rand(10)), int(rand(10)) ] } 1 .. 3),
		check_lines($tag, @victims),
		qq{SELECT setseed(0.5); DELETE FROM $name WHERE random() < 0.3;},
		(map { "SELECT count(*) FROM (SELECT grail.merge_graph('$_->{graph}')) m;" } @victims),
		check_lines($tag, @victims),
		insert_into($t, $name, $k, map { [ int(rand(10)), int(rand(10)) ] } 1 .. 3),
		check_lines($tag, @victims));
}

for my $r (1 .. $rounds)
{
	my $round_started = Time::HiRes::time();
	%quarantined = ();
	run_lines('fuzz', 'fz_owner', "setup $r", new_world($r));
	for my $s (1 .. $steps)
	{
		# A step's actions in order; consecutive ones of one user in one database in one session,
		# up to one with a hook (which looks at what the action did).
		my @actions = step_actions($r, $s);
		while (@actions)
		{
			my $a = shift @actions;
			if ($a->[0] eq 'dump')
			{
				dump_restore($a->[1], "round $r step $s dump");
				next;
			}
			my @lines = ($a->[2]);
			while (!$a->[3] && @actions && $actions[0][0] eq $a->[0] && $actions[0][1] eq $a->[1])
			{
				$a = shift @actions;
				push @lines, $a->[2];
			}
			run_lines($a->[1], $a->[0], "round $r step $s", @lines);
			$a->[3]->() if $a->[3];
		}
	}
	if ($publication)
	{
		run_lines('fuzz', $super, "round $r", 'DROP PUBLICATION fz_all;');
		$publication = 0;
	}
	note sprintf('round %d: %.0f s', $r, Time::HiRes::time() - $round_started);
}

my $seconds = Time::HiRes::time() - $started;
diag sprintf('adversarial fuzz: %d sweep calls, %d rounds of %d steps, %.0f s; checks: %d ok, %d refused, %d oracle errors',
	$sweep_calls, $rounds, $steps, $seconds, $checks{ok} // 0, $checks{refused} // 0, $checks{'oracle-error'} // 0);

sub summary
{
	my ($max, @items) = @_;
	my @shown = @items[ 0 .. ($#items < $max - 1 ? $#items : $max - 1) ];
	return join("\n", @shown, @items > $max ? ('... and ' . (@items - $max) . ' more') : ());
}
# Crashes by statement, literals and numbers left out: the first of each kind, and how many.
my (%crash_count, @crash_kinds);
for my $c (@crashes)
{
	(my $kind = $c->[1]) =~ s/SELECT setseed\([^)]*\); //;
	$kind =~ s/'[^']*'/'?'/g;
	$kind =~ s/\d+/N/g;
	push @crash_kinds, [ $kind, $c ] unless $crash_count{$kind}++;
}
is(summary(40, map { "$_->[1][0]: $_->[1][2] (x$crash_count{$_->[0]})\n    at: $_->[1][1]" } @crash_kinds), '', 'no backend crashed');
is(summary(20, @wrong), '', 'no wrong answer');
diag "statements and failures in order: $transcript" if @crashes || @wrong || @internal;
my (%internal_count, @internal_kinds);
for my $e (@internal)
{
	(my $kind = $e) =~ s/^[^:]*: //;
	$kind =~ s/:[^:]*$//;
	$kind =~ s/"[^"]*"|'[^']*'/?/g;
	$kind =~ s/\d+/N/g;
	push @internal_kinds, [ $kind, $e ] unless $internal_count{$kind}++;
}
is(summary(20, map { "$_->[1] (x$internal_count{$_->[0]})" } @internal_kinds), '', 'no internal error');
cmp_ok($checks{ok} // 0, '>', $rounds * $steps / 2, 'the graphs answered often enough for the oracle to mean something');
my $log = slurp_file($node->logfile, $log_start);
my @bad = $log =~ /^.*(?:terminated by signal|PANIC|server process .* was terminated|TRAP:).*$/mg;
is(summary(20, @bad), '', 'no crash in the server log');
is($node->safe_psql('fuzz', 'SELECT rolsuper OR rolcreaterole OR rolcreatedb FROM pg_roles WHERE rolname = \'fz_owner\''), 'f',
	'the unprivileged role is still unprivileged');
$node->stop;
done_testing();
