# An image's chunks are stored lz4-compressed in grail.index_chunk (the layout PostgreSQL's own
# detoast reads). A chunk damaged by a careless hand (or the disk) must be a damaged index, XX001
# with the hint to rebuild, never a crash, an internal error or an answer: a compressed block whose
# bytes were overwritten, a raw size in its header that lies smaller or past what the image has left
# (near 1 GB PostgreSQL raised "invalid memory alloc request size", XX000), a method that does not
# exist (XX000 "invalid compression method id"). A chunk made plain by an UPDATE (stored again as
# PostgreSQL compresses it) still answers. The pages are edited with the server stopped; the image
# cache is off, so each statement's session reads the chunks.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('damaged_chunks');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'pg_grail'
grail.shared_cache_size = 0
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION pg_grail;
	CREATE TABLE edges (source bigint, target bigint);
	INSERT INTO edges SELECT g, g + 1 FROM generate_series(1, 20000) g;
	SELECT grail.create_graph('g', 'edges', live => false);
	CREATE ROLE reader LOGIN;
	GRANT SELECT ON edges TO reader;
});

my $query = q{SELECT grail.reachable('g', 1, 20001), grail.reachable('g', 20001, 1),
	(SELECT count(*) FROM grail.descendants('g', 19000))};
my $good = $node->safe_psql('postgres', $query, connstr => $node->connstr('postgres') . ' user=reader');
is($good, "t|f|1002", 'the graph answers before any damage');

# A compressed chunk: its page and line pointer, and the table's file.
my ($ctid, $seq) = split /\|/, $node->safe_psql('postgres', q{
	SELECT ctid, seq FROM grail.index_chunk
	WHERE pg_column_compression(data) = 'lz4' AND pg_column_size(data) > 4000 ORDER BY seq LIMIT 1});
ok(defined $seq, "chunk $seq is lz4-compressed");
my ($block, $lp) = $ctid =~ /\((\d+),(\d+)\)/;
my $file = $node->data_dir . '/' . $node->safe_psql('postgres', q{SELECT pg_relation_filepath('grail.index_chunk')});
$node->safe_psql('postgres', 'CHECKPOINT');
$node->stop;
my $saved = slurp_file($file);

# Runs $edit on the compressed datum of the chunk (its offset in the page), starts the server, and
# returns the reader's stderr (empty where it answered) and stdout.
sub damaged {
	my ($edit) = @_;
	my $bytes = $saved;
	my $page = substr($bytes, $block * 8192, 8192);
	my $item = unpack('V', substr($page, 24 + ($lp - 1) * 4, 4));
	my $tuple = $item & 0x7fff;
	my $datum = $tuple + ord(substr($page, $tuple + 22, 1)) + 12;    # past graph_id and seq
	$datum = ($datum + 3) & ~3;
	die 'not a compressed datum' unless (unpack('V', substr($page, $datum, 4)) & 3) == 2;
	$edit->(\$page, $datum);
	substr($bytes, $block * 8192, 8192) = $page;
	open(my $fh, '>', $file) or die $!;
	binmode $fh;
	print $fh $bytes;
	close $fh;
	$node->start;
	my ($out, $err) = ('', '');
	$node->psql('postgres', $query, stdout => \$out, stderr => \$err,
		connstr => $node->connstr('postgres') . ' user=reader');
	$node->stop;
	return ($err, $out);
}

sub raw_size {
	my ($size) = @_;
	return sub {
		my ($page, $datum) = @_;
		my $info = unpack('V', substr($$page, $datum + 4, 4));
		substr($$page, $datum + 4, 4) = pack('V', ($info & 0xc0000000) | $size);
	};
}

my $damaged = qr/the stored index of a pg_grail graph is damaged: chunk $seq .*\n.*HINT:  Rebuild it with grail\.refresh_graph\(\)/;

my ($err, $out) = damaged(sub {
	my ($page, $datum) = @_;
	substr($$page, $datum + 8, 64) = "\xff" x 64;
});
like($err, qr/$damaged/, 'overwritten lz4 bytes: a damaged index with the hint');
like($err, qr/does not decompress/, 'which says the chunk does not decompress');
is($out, '', 'and no answer');

($err, $out) = damaged(raw_size(100));
like($err, qr/$damaged/, 'a raw size that lies smaller: a damaged index');

($err, $out) = damaged(raw_size(0x3fffffff));
like($err, qr/$damaged/, 'a raw size near 1 GB: a damaged index, not an internal error');
like($err, qr/claims more bytes than the rest of its recorded size/, 'which says the size is past the image');

($err, $out) = damaged(sub {
	my ($page, $datum) = @_;
	my $info = unpack('V', substr($$page, $datum + 4, 4));
	substr($$page, $datum + 4, 4) = pack('V', ($info & 0x3fffffff) | (2 << 30));
});
like($err, qr/$damaged/, 'an unknown compression method: a damaged index');
like($err, qr/is compressed by no method PostgreSQL knows/, 'which says so');

# The undamaged file again: the graph answers, also with a chunk made plain by an UPDATE.
open(my $fh, '>', $file) or die $!;
binmode $fh;
print $fh $saved;
close $fh;
$node->start;
is($node->safe_psql('postgres', $query), $good, 'the undamaged chunks answer again');
$node->safe_psql('postgres', qq{UPDATE grail.index_chunk SET data = data || ''::bytea WHERE seq = $seq});
is($node->safe_psql('postgres', q{SELECT pg_column_compression(data) IS DISTINCT FROM 'lz4' FROM grail.index_chunk
	WHERE seq = } . $seq), 't', 'the chunk is stored again by PostgreSQL');
is($node->safe_psql('postgres', $query), $good, 'and the graph answers as before');
ok(slurp_file($node->logfile) !~ /terminated by signal/, 'no backend crashed');

$node->stop;
done_testing();
