#!/usr/bin/perl
# pctfuzz's Perl peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
# docs/peers.md) with the URI distribution (Debian: liburi-perl).
#
# Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found them;
# pctfuzz/oracles/perl.py declares the same):
#   perl-uri-escape       URI::Escape::uri_escape (encode), uri_unescape (decode)
#   perl-uri-escape-utf8  URI::Escape::uri_escape_utf8 (encode)
#   perl-uri-query        URI->query_form(pairs) (form serialize), URI->query_form (form parse)
#
# A str value reaches the library as Perl characters (as JSON::PP decodes it), a bytes
# value as bytes; what is decoded gets the UTF-8 bytes of a str, as a program reads a
# URL. Decoded text is answered as bytes ({"base64": ...}).
use strict;
use warnings;
use JSON::PP ();
use MIME::Base64 qw(encode_base64 decode_base64);

my $json = JSON::PP->new->ascii->canonical->allow_nonref;
my $uri_error;
BEGIN { eval { require URI; require URI::Escape; 1 } or $uri_error = $@ }

my $ESCAPE_SET = 'rfc3986-unreserved';

sub unsupported { die { unsupported => $_[0] } }
sub protocol_error { die { protocol_error => $_[0] } }

sub value_of {
    my ($value) = @_;
    return ($value, 0) if defined $value && !ref $value;
    if (ref $value eq 'HASH' && defined $value->{base64} && !ref $value->{base64}) {
        return (decode_base64($value->{base64}), 1);
    }
    protocol_error('value must be a string or {"base64": ...}');
}

sub bytes_answer {
    my ($text) = @_;
    utf8::encode($text) if utf8::is_utf8($text);  # characters: as the UTF-8 Perl writes
    return { base64 => encode_base64($text, '') };
}

my %ENCODE = (
    'perl-uri-escape'      => sub { URI::Escape::uri_escape($_[0]) },
    'perl-uri-escape-utf8' => sub { URI::Escape::uri_escape_utf8($_[0]) },
);

sub encode {
    my ($impl, $r) = @_;
    my $fn = $ENCODE{$impl} or unsupported("$impl does not percent-encode");
    unsupported("$impl has no function for the set $r->{set}") if $r->{set} ne $ESCAPE_SET;
    my ($value, $is_bytes) = value_of($r->{value});
    unsupported('a legacy encoding needs bytes') if !$is_bytes && $r->{encoding} ne 'UTF-8';
    unsupported("$impl writes a space as %20") if $r->{space_as_plus} && index($value, ' ') >= 0;
    return $fn->($value);
}

sub answer {
    my ($r) = @_;
    my $impl = $r->{impl} // '';
    protocol_error("unknown implementation $impl")
        unless $impl =~ /\A(perl-uri-escape|perl-uri-escape-utf8|perl-uri-query)\z/;
    my $q = $r->{q} // '';
    return encode($impl, $r) if $q eq 'encode';
    if ($q eq 'decode') {
        unsupported("$impl does not percent-decode") if $impl ne 'perl-uri-escape';
        my ($value, $is_bytes) = value_of($r->{value});
        utf8::encode($value) unless $is_bytes;  # as a program reads it: bytes
        return bytes_answer(URI::Escape::uri_unescape($value));
    }
    if ($q eq 'form_serialize') {
        unsupported("$impl does not serialize forms") if $impl ne 'perl-uri-query';
        unsupported('query_form writes UTF-8 here') if $r->{encoding} ne 'UTF-8';
        my $u = URI->new('http://h/');
        $u->query_form(map { @$_ } @{ $r->{pairs} });
        return $u->query // '';
    }
    if ($q eq 'form_parse') {
        unsupported("$impl does not parse forms") if $impl ne 'perl-uri-query';
        my ($text, $is_bytes) = value_of($r->{text});
        utf8::encode($text) unless $is_bytes;  # as a program reads it: bytes
        my $u = URI->new('http://h/');
        $u->query($text);
        my @flat = $u->query_form;
        my @pairs;
        while (my ($n, $v) = splice(@flat, 0, 2)) {
            push @pairs, [bytes_answer($n), bytes_answer($v // '')];
        }
        return \@pairs;
    }
    protocol_error("unknown question $q");
}

sub handshake {
    my %impls;
    for my $name (qw(perl-uri-escape perl-uri-escape-utf8 perl-uri-query)) {
        if ($uri_error) {
            $impls{$name} = { unavailable => 'the URI Perl module is not installed '
                . '(make peers installs liburi-perl)' };
            next;
        }
        my $info = { version => "$URI::VERSION" };  # the URI distribution's
        if ($name eq 'perl-uri-query') {
            $info->{questions} = ['form_serialize', 'form_parse'];
        } else {
            $info->{questions} = $name eq 'perl-uri-escape' ? ['encode', 'decode'] : ['encode'];
            $info->{sets} = [$ESCAPE_SET];
        }
        $impls{$name} = $info;
    }
    return { protocol => 'pctfuzz-peer', version => 1, peer => 'pctfuzz-perl-peer',
             runtime => "perl $^V, URI " . ($URI::VERSION // 'missing'), implementations => \%impls };
}

$| = 1;
my $first = 1;
while (my $line = <STDIN>) {
    my ($r, $id, $reply);
    $r = eval { $json->decode($line) };
    if (ref $r ne 'HASH') {
        $reply = { protocol_error => 'not a JSON object' };
    } elsif ($first) {
        my $ok = ($r->{protocol} // '') eq 'pctfuzz-peer' && ($r->{version} // 0) == 1;
        $reply = $ok ? handshake() : { protocol_error => 'this peer speaks pctfuzz-peer version 1' };
    } elsif (!defined $r->{id} || ref $r->{id} || $r->{id} !~ /\A[0-9]+\z/) {
        $reply = { protocol_error => 'request without an id' };
    } else {
        $id = $r->{id} + 0;
        my $ok = eval { answer($r) };
        if (my $err = $@) {
            if (ref $err eq 'HASH') {
                $reply = { id => $id, %$err };
            } else {
                my $message = "$err";
                $message =~ s/ at \S+ line \d+\.?\n?\z//;
                $reply = { id => $id, error => { type => 'die', message => $message } };
            }
        } else {
            $reply = { id => $id, ok => $ok };
        }
    }
    $first = 0;
    print $json->encode($reply), "\n";
}
