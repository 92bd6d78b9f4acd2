# The shared image cache (src/pg/service/image_cache.hpp): backends map one image file per build instead
# of each holding a copy; a damaged file is replaced from the catalog; a cache too small for an
# image leaves private copies; eviction keeps the files within grail.shared_cache_size; answers
# stay right throughout.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('image_cache');
$node->init;
$node->append_conf('postgresql.conf', "grail.shared_cache_size = '64MB'\nrestart_after_crash = on");
$node->start;
my $cache = $node->data_dir . '/base/pgsql_tmp/pgsql_tmp_grail';
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	-- big: 400,000 vertices, a chain plus random edges (an image of some tens of MB).
	CREATE TABLE big (source int, target int);
	INSERT INTO big SELECT i, i + 1 FROM generate_series(1, 399999) i;
	INSERT INTO big SELECT (random() * 400000)::int, (random() * 400000)::int FROM generate_series(1, 400000);
	SELECT count(*) FROM (SELECT grail.create_graph('big', 'big')) c;
	CREATE TABLE small (source int, target int);
	INSERT INTO small VALUES (1, 2), (2, 3);
	SELECT count(*) FROM (SELECT grail.create_graph('small', 'small')) c;
});
my $image_bytes = $node->safe_psql('postgres', q{SELECT index_bytes FROM grail.graphs WHERE name = 'big'});
my $truth = $node->safe_psql('postgres', q{SELECT grail.reachable('big', 1, 400000), grail.reachable('big', 400000, 1)});

# Private memory a backend gains by querying the graph (Private_Clean + Private_Dirty of
# /proc/PID/smaps_rollup): with the image mapped from the cache, far less than the image.
sub private_kb
{
	my ($pid) = @_;
	my $rollup = slurp_file("/proc/$pid/smaps_rollup");
	my $kb = 0;
	$kb += $1 while $rollup =~ /^Private_(?:Clean|Dirty):\s+(\d+) kB/mg;
	return $kb;
}
# The first backend writes the file; the others map it.
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 1, 400000), grail.reachable('big', 400000, 1)}), $truth,
	'first backend answers');
my @files = glob("$cache/*.img");
is(scalar(@files), 1, 'one image file for the queried build');
is(-s $files[0], $image_bytes, 'of the build\'s size');
# Pages of a file mapped by one process count as its private memory: a first backend holds the
# mapping while the others are measured (as with every backend but the first on a busy server).
my $holder = $node->background_psql('postgres');
$holder->query_safe(q{SELECT grail.reachable('big', 1, 400000)});
my @sessions = map { $node->background_psql('postgres') } 1 .. 4;
my @growth;
for my $s (@sessions)
{
	my $pid = $s->query_safe('SELECT pg_backend_pid()');
	my $before = private_kb($pid);
	is($s->query_safe(q{SELECT grail.reachable('big', 1, 400000), grail.reachable('big', 400000, 1)}), $truth,
		"backend $pid answers from the shared image");
	push @growth, private_kb($pid) - $before;
	is($s->query_safe(q{SELECT hits, loads FROM grail.cache_counters()}), '1|0', "backend $pid mapped it, loaded nothing");
}
my $max_growth = (sort { $b <=> $a } @growth)[0];
cmp_ok($max_growth * 1024, '<', $image_bytes / 4,
	sprintf('a querying backend gains %d kB of private memory for an image of %d kB', $max_growth, $image_bytes / 1024));
$_->quit for (@sessions, $holder);

# Without the preload the cache works, with this session's counters only, and says so.
is($node->safe_psql('postgres', q{SELECT mode, mode_reason ~ 'not in shared_preload_libraries' FROM grail.cache_counters()}),
	'shared|t', 'cache_counters: shared mode, without server-wide counters, and why');
is($node->safe_psql('postgres', q{SELECT count(*), count(backends) FROM grail.cache_info()}), '1|0',
	'cache_info lists the image, its server-wide counters null');

# A damaged file is noticed (its header and section table are checked by every backend that maps
# it; the writer checked all of it), removed and written again from the catalog.
open my $fh, '+<', $files[0] or die;
seek $fh, 64 + 8, 0; # the offset of the first section, in the section table
print $fh "garbage!";
close $fh;
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT grail.reachable('big', 1, 400000), grail.reachable('big', 400000, 1)});
is($out, $truth, 'a damaged image file: the answer comes from the catalog');
like($err, qr/cached image file was damaged/, 'with a warning that names the graph');
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 1, 400000); SELECT hits, loads FROM grail.cache_counters()}),
	"t\n1|0", 'and the rewritten file serves the next backend');

# A refresh makes a new build: its own file; the old one goes when evicted.
$node->safe_psql('postgres', q{INSERT INTO big VALUES (400000, 1); SELECT count(*) FROM (SELECT grail.refresh_graph('big')) r});
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 400000, 1)}), 't', 'the new build answers');
is($node->safe_psql('postgres', q{SELECT count(*), count(g.id) FROM grail.cache_info() c LEFT JOIN grail.graph g ON g.build_uuid = c.build}),
	'1|1', 'cache_info shows the current build alone: the old image went with the new one');
is($node->safe_psql('postgres', q{SELECT grail.reachable('small', 1, 3); SELECT grail.drop_graph('small'); SELECT count(*) FROM grail.cache_info()}),
	"t\n\n1", 'a dropped graph\'s image goes with it');
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.create_graph('small', 'small')) c});

# A cache smaller than the image: private copies, same answers.
$node->append_conf('postgresql.conf', "grail.shared_cache_size = '1MB'");
$node->reload;
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('big')) r});
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 400000, 1), grail.reachable('small', 1, 3)}), 't|t',
	'a cache too small for the image: answers from a private copy');
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 1, 2); SELECT private_copies, loads FROM grail.cache_counters()}),
	"t\n1|1", 'counted as a private copy');
my $total = 0;
$total += -s $_ for glob("$cache/*.img");
cmp_ok($total, '<=', 1024 * 1024, 'eviction keeps the files within the limit');

# Turned off: every backend keeps its own copy, as before.
$node->append_conf('postgresql.conf', "grail.shared_cache_size = 0");
$node->reload;
is($node->safe_psql('postgres', q{SELECT grail.reachable('small', 1, 3); SELECT hits, private_copies FROM grail.cache_counters()}),
	"t\n0|1", 'grail.shared_cache_size = 0: a private copy');

# kill -9 of a backend while it makes an image file: the server restarts its backends; no file
# under an image's name is left half-written, and the graphs answer. A lock on the chunks holds
# the load once its temp file is made (as a slow read would), so that the kill finds it part-way
# however fast the load (a load of this image can end before a poll for its temp file sees it).
$node->append_conf('postgresql.conf', "grail.shared_cache_size = '1GB'");
$node->reload;
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('big')) r});
my $chunks_holder = $node->background_psql('postgres', on_error_stop => 0);
$chunks_holder->query_safe(q{BEGIN; LOCK TABLE grail.index_chunk IN ACCESS EXCLUSIVE MODE});
my $loader = $node->background_psql('postgres', on_error_stop => 0);
my $loader_pid = $loader->query_safe('SELECT pg_backend_pid()');
$loader->query_until(qr/^$/, "SELECT grail.reachable('big', 400000, 1);\n");
$node->poll_query_until('postgres', "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $loader_pid")
	or die 'the load did not wait for the chunks';
is(scalar(() = glob("$cache/*.tmp")), 1, 'the killed load has its temp file');
my $log_offset = -s $node->logfile;
kill 'KILL', $loader_pid;
# Until the postmaster has seen the death, a new connection still reaches the old server.
$node->wait_for_log(qr/all server processes terminated; reinitializing/, $log_offset);
$node->poll_query_until('postgres', 'SELECT true') or die 'server did not recover';
for my $f (glob("$cache/*.img"))
{
	ok(-s $f == $image_bytes || -s $f < $image_bytes / 2, "no half-written image under its name ($f)");
}
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 400000, 1), grail.reachable('big', 1, 400000)}), 't|t',
	'after a backend was killed while writing an image, the graph answers');
eval { $loader->quit };
eval { $chunks_holder->quit };

# A backend terminated (FATAL, which exits without unwinding C++ frames) while it writes an
# image leaves no temp file behind: a lock on the chunks holds the load after the temp file was
# made, as a slow read would.
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('big')) r});
my $blocker = $node->background_psql('postgres');
$blocker->query_safe(q{BEGIN; LOCK TABLE grail.index_chunk IN ACCESS EXCLUSIVE MODE});
my $victim = $node->background_psql('postgres', on_error_stop => 0);
my $victim_pid = $victim->query_safe('SELECT pg_backend_pid()');
$victim->query_until(qr/^$/, "SELECT grail.reachable('big', 400000, 1);\n");
$node->poll_query_until('postgres', "SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = $victim_pid")
	or die 'the load did not wait for the chunks';
is(scalar(() = glob("$cache/*.tmp")), 1, 'a load waiting for the chunks has its temp file');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($victim_pid)");
$node->poll_query_until('postgres', "SELECT count(*) = 0 FROM pg_stat_activity WHERE pid = $victim_pid")
	or die 'the terminated backend did not exit';
$blocker->query_safe('COMMIT');
is(scalar(() = glob("$cache/*.tmp")), 0, 'a backend terminated while writing an image leaves no temp file');
eval { $victim->quit };
# A temp file whose writer is gone (as a crash without a restart of the backends could leave) is
# removed by the next backend that makes room, not counted against the cache for ever.
my $orphan = "$cache/1_1_1_00000000-0000-0000-0000-000000000000.img.2147483646.tmp";
open my $ofh, '>', $orphan or die;
print $ofh "x" x 65536;
close $ofh;
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('big')) r});
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 400000, 1)}), 't', 'the next load answers');
ok(!-e $orphan, 'and removed the temp file of a writer that is gone');

# A REPEATABLE READ reader of a build and readers of a newer one each keep their image: neither
# removes the other's file, so no statement loads the image again.
my $rr = $node->background_psql('postgres');
$rr->query_safe(q{BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT grail.reachable('big', 1, 400000)});
$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT grail.refresh_graph('big')) r});
my $reader = $node->background_psql('postgres');
# This reader writes the new build's image: it then maps the file as other readers do, with only
# the pages its queries read in its resident set, not every page it wrote (RssFile of
# /proc/PID/status: pages of files mapped by this process).
sub rss_file_kb
{
	my ($pid) = @_;
	return slurp_file("/proc/$pid/status") =~ /^RssFile:\s+(\d+) kB/m ? $1 : die 'no RssFile';
}
my $reader_pid = $reader->query_safe('SELECT pg_backend_pid()');
my $file_kb = rss_file_kb($reader_pid);
$reader->query_safe(q{SELECT grail.reachable('big', 1, 400000)});
is($reader->query_safe(q{SELECT loads FROM grail.cache_counters()}), '1', 'a reader of the new build writes its image');
my $writer_grew = (rss_file_kb($reader_pid) - $file_kb) * 1024;
# A second reader maps the file the first one wrote and asks the same: what the search reads (on
# this random graph, a varying part of the image) is what both keep resident.
my $mapper = $node->background_psql('postgres');
my $mapper_pid = $mapper->query_safe('SELECT pg_backend_pid()');
my $mapper_kb = rss_file_kb($mapper_pid);
$mapper->query_safe(q{SELECT grail.reachable('big', 1, 400000)});
my $mapper_grew = (rss_file_kb($mapper_pid) - $mapper_kb) * 1024;
$mapper->quit;
cmp_ok($writer_grew, '<', $mapper_grew + $image_bytes / 8,
	"and keeps no more of the file resident than a reader ($writer_grew bytes; a reader $mapper_grew)");
my $counters = q{SELECT hits + loads FROM grail.cache_counters()};
my ($rr_opened, $reader_opened) = ($rr->query_safe($counters), $reader->query_safe($counters));
for (1 .. 4)
{
	$rr->query_safe(q{SELECT grail.reachable('big', 1, 400000)});
	$reader->query_safe(q{SELECT grail.reachable('big', 1, 400000)});
}
is($rr->query_safe($counters), $rr_opened, 'the reader of the older build opened no image again');
is($reader->query_safe($counters), $reader_opened, 'the reader of the newer build opened no image again');
is($node->safe_psql('postgres', q{SELECT count(*) FROM grail.cache_info()}), '2', 'both images are cached');
$rr->query_safe('COMMIT');
$rr->query_safe(q{SELECT grail.reachable('big', 1, 400000)});
is($node->safe_psql('postgres', q{SELECT count(*), count(g.id) FROM grail.cache_info() c LEFT JOIN grail.graph g ON g.build_uuid = c.build}),
	'1|1', 'the older image goes once no backend maps it');
$rr->quit;

# A mapped image file truncated under a backend (by the data directory's owner): the backend's
# next statement notices before it reads the mapping, and answers from an image written again.
my ($mapped) = glob("$cache/*.img");
my $mapped_bytes = -s $mapped;
my $loads = $reader->query_safe(q{SELECT loads FROM grail.cache_counters()});
truncate($mapped, 4096) or die "truncate: $!";
is($reader->query_safe(q{SELECT grail.reachable('big', 1, 400000), grail.reachable('big', 400000, 1)}), 't|t',
	'a truncated image file: the backend that mapped it answers from an image written again');
is($reader->query_safe(q{SELECT loads FROM grail.cache_counters()}), $loads + 1, 'which it loaded');
is(-s $mapped, $mapped_bytes, 'the image file has its size again');
$reader->quit;
ok(!$node->log_contains('terminated by signal (?!9:)'), 'no backend died of a signal but the SIGKILL sent');

# A restart empties the cache (PostgreSQL clears base/pgsql_tmp), and the graphs answer. Now
# preloaded: server-wide counters in shared memory.
$node->append_conf('postgresql.conf', "shared_preload_libraries = 'pg_grail'");
$node->restart;
is(scalar(() = glob("$cache/*.img")), 0, 'a restart empties the cache');
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 400000, 1)}), 't', 'and the graphs answer after it');
is($node->safe_psql('postgres', q{SELECT mode, mode_reason ~ 'server-wide counters in' FROM grail.cache_counters()}),
	'shared|t', 'preloaded: cache_counters says server-wide counters exist');
my @users = map { $node->background_psql('postgres') } 1 .. 3;
$_->query_safe(q{SELECT grail.reachable('big', 1, 400000)}) for @users;
is($node->safe_psql('postgres', q{SELECT backends, hits, loads FROM grail.cache_info()}), '3|3|1',
	'cache_info: three backends map the image, opened three times from the file after one load');
$users[0]->quit;
$users[1]->query_safe(q{SELECT grail.refresh_graph('big')});
is($node->safe_psql('postgres', q{SELECT grail.reachable('big', 1, 400000); SELECT backends, hits, loads FROM grail.cache_info() c JOIN grail.graph g ON g.build_uuid = c.build}),
	"t
1|0|1", 'a backend that ended and the refreshed build\'s image: counted apart');
$_->quit for @users[1, 2];
$node->poll_query_until('postgres', q{SELECT bool_and(backends = 0) FROM grail.cache_info()})
	or die 'the backends that ended still count';
pass('backends that ended no longer count');
ok(!$node->log_contains('terminated by signal (?!9:)|PANIC|TRAP'), 'no crash in the server log but the SIGKILL sent');
$node->stop;
done_testing();
