# The GPU service's TAP tests (025_gpu_service_wait, 028_gpu_service_builds, 031_gpu_service_search,
# 035_gpu_service_chordless) share this: a node running the service with its CPU stand-in, the
# server's test hold, and the helpers that kill or cancel a request while the server holds it.
#
#   my $node = GrailService::start_node($name, $conf)
#       a started node with pg_grail preloaded, grail.gpu_service = cpu_stand_in and $conf (more
#       postgresql.conf lines), the extension created; passes a test once the service runs
#   hold_on(), hold_off()    the server holds each request after its request frame while the hold
#                            file exists (GRAIL_GPU_SERVER_TEST_HOLD)
#   waiting($name)           whether the session of that application_name comes to wait on the
#                            service (wait_event_type Extension)
#   server_pid($gone)        the running server's pid; with $gone, one other than that (killed)
#                            server's, once the supervisor has seen it die and started another
#   start_session($name, @statements)
#                            a psql of its own (application_name $name), each statement its own -c:
#                            { h => the IPC::Run harness, out, err }
package GrailService;
use strict;
use warnings;
use Exporter 'import';
use IPC::Run;
use PostgreSQL::Test::Cluster;
use Test::More;

our @EXPORT = qw(hold_on hold_off waiting server_pid start_session);

my ($node, $hold);

sub start_node
{
	my ($name, $conf) = @_;
	# The server's working directory is the data directory: the hold file is named relative to it.
	$ENV{GRAIL_GPU_SERVER_TEST_HOLD} = 'grail_test_hold';
	$node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.gpu_service = cpu_stand_in
} . ($conf // ''));
	$node->start;
	$hold = $node->data_dir . '/grail_test_hold';
	$node->safe_psql('postgres', q{CREATE EXTENSION pg_grail});
	ok($node->poll_query_until('postgres', q{SELECT grail.device_info() LIKE '%GPU service: running%'}),
		'the service runs with the stand-in');
	return $node;
}

sub hold_on
{
	open(my $f, '>', $hold) or die "cannot make $hold: $!";
	close($f);
}
sub hold_off { unlink($hold) or die "cannot remove $hold: $!"; }

sub waiting
{
	my ($name) = @_;
	return $node->poll_query_until('postgres',
		qq{SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = '$name' AND wait_event_type = 'Extension'});
}

sub server_pid
{
	my ($gone) = @_;
	my $running = q{SELECT grail.device_info() LIKE '%GPU service: running%'};
	$running .= qq{ AND grail.device_info() !~ 'server pid $gone\\M'} if defined $gone;
	$node->poll_query_until('postgres', $running)
		or die 'the service does not run' . (defined $gone ? " with a server other than $gone" : '');
	my ($pid) = $node->safe_psql('postgres', 'SELECT grail.device_info()') =~ /server pid (\d+)/;
	return $pid;
}

sub start_session
{
	my ($name, @statements) = @_;
	my %s = (in => '', out => '', err => '');
	$s{h} = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres') . " application_name=$name", map { ('-c', $_) } @statements ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err});
	return \%s;
}

1;
