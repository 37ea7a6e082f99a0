#!/usr/bin/perl
# Queue one HTTP write in a spool by the drop protocol of spool(5): usage SPOOL METHOD URL BODY.
# Prints the write's id, and exits 0 only once the write survives a crash or power cut.
# Copy it into your program; it needs nothing beyond Perl's core modules.
use strict;
use warnings;
use Fcntl qw(O_WRONLY O_CREAT O_EXCL O_RDONLY O_DIRECTORY);
use IO::Handle;
use Encode qw(decode FB_CROAK);
use JSON::PP;
use Sys::Hostname;
use Time::HiRes qw(gettimeofday);

sub random_hex {
    my ($bytes) = @_;
    open(my $random, '<:raw', '/dev/urandom') or die "/dev/urandom: $!\n";
    read($random, my $data, $bytes) == $bytes or die "/dev/urandom: short read\n";
    close($random);
    return unpack('H*', $data);
}

sub drop {
    my ($spool, $method, $url, $body) = @_;
    my $document = { method => $method, url => $url, body => $body, idempotency_key => random_hex(16) };
    my $data = JSON::PP->new->utf8->canonical->encode($document) . "\n";
    (my $host = hostname()) =~ s/[^A-Za-z0-9.-]//g;
    $host = substr($host, 0, 40) || 'host';
    # Unique: the time in microseconds, this process, a random part; sorts by time.
    my ($seconds, $micro) = gettimeofday();
    my $name = sprintf('%d%06d.%d.%s.%s', $seconds, $micro, $$, random_hex(4), $host);
    my $temporary = "$spool/tmp/$name";
    sysopen(my $file, $temporary, O_WRONLY | O_CREAT | O_EXCL, 0600) or die "$temporary: $!\n";
    my $ok = eval {
        for (my $done = 0; $done < length($data);) {
            my $wrote = syswrite($file, $data, length($data) - $done, $done);
            die "$temporary: $!\n" unless defined $wrote;
            $done += $wrote;
        }
        $file->sync or die "$temporary: $!\n";    # the document on disk before its name appears in new/
        close($file) or die "$temporary: $!\n";
        1;
    };
    unless ($ok) { my $error = $@; unlink($temporary); die $error; }
    rename($temporary, "$spool/new/$name") or die "$spool/new/$name: $!\n";    # no reader sees half a file
    sysopen(my $new, "$spool/new", O_RDONLY | O_DIRECTORY) or die "$spool/new: $!\n";
    $new->sync or die "$spool/new: $!\n";    # the name itself survives a power cut
    close($new);
    return $name;
}

if (@ARGV != 4) { print STDERR "usage: spool-drop.pl SPOOL METHOD URL BODY\n"; exit 64; }
# The arguments as text: JSON::PP writes the document in UTF-8.
my $id = eval { drop(map { decode('UTF-8', $_, FB_CROAK) } @ARGV) };
unless (defined $id) { print STDERR "spool-drop.pl: $@"; exit 75; }
print "$id\n";
