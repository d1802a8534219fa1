# pctfuzz's Tcl peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
# docs/peers.md) with Tcl's http package (Debian: tcl; tcllib gives the JSON reader
# and writer).
#
# Implementation (set names are pctfuzz's canonical names, as `pctfuzz probe` found
# them; pctfuzz/_internal/oracles/tcl.py declares the same):
#   tcl-http  ::http::quoteString (encode), ::http::formatQuery (form serialize)
#
# Tcl strings are Unicode (UTF-16 code units in Tcl 8.6): a str value reaches the
# package as the same characters, lone surrogates too (JSON escapes them; tcllib's json
# keeps them). The adapter sends no bytes values: json2dict cannot tell a string from
# an object, so every value here is a string.

set impl_error ""
if {[catch {package require json; package require json::write; package require http} \
        impl_error]} {
    set have_libs 0
} else {
    set have_libs 1
    json::write indented 0
}

set ESCAPE_SET "rfc3986-unreserved"
set IMPL "tcl-http"

proc reply_unsupported {reason} {
    return -code error -errorcode {PCTFUZZ UNSUPPORTED} $reason
}

proc reply_protocol_error {message} {
    return -code error -errorcode {PCTFUZZ PROTOCOL} $message
}

proc need_utf8 {request} {
    if {[dict get $request encoding] ne "UTF-8"} {
        reply_unsupported "the http package is asked with -urlencoding utf-8 only"
    }
}

proc answer {request} {
    global IMPL ESCAPE_SET
    if {![dict exists $request impl] || [dict get $request impl] ne $IMPL} {
        reply_protocol_error "unknown implementation"
    }
    set q [expr {[dict exists $request q] ? [dict get $request q] : ""}]
    switch -- $q {
        encode {
            if {[dict get $request set] ne $ESCAPE_SET} {
                reply_unsupported "::http::quoteString has one set"
            }
            need_utf8 $request
            set value [dict get $request value]
            if {[dict get $request space_as_plus] && [string first " " $value] >= 0} {
                reply_unsupported "::http::quoteString writes a space as %20"
            }
            return [json::write string [::http::quoteString $value]]
        }
        form_serialize {
            need_utf8 $request
            set flat {}
            foreach pair [dict get $request pairs] {
                lappend flat [lindex $pair 0] [lindex $pair 1]
            }
            return [json::write string [::http::formatQuery {*}$flat]]
        }
        decode - form_parse {
            reply_unsupported "the http package has no decoder or query parser"
        }
    }
    reply_protocol_error "unknown question $q"
}

proc handshake {} {
    global have_libs impl_error IMPL ESCAPE_SET
    if {$have_libs} {
        set info [json::write object \
            version [json::write string [package provide http]] \
            questions [json::write array [json::write string encode] \
                           [json::write string form_serialize]] \
            sets [json::write array [json::write string $ESCAPE_SET]]]
        set runtime "tcl [info patchlevel], http [package provide http], tcllib json\
            [package provide json]"
        set runtime [json::write string $runtime]
    } else {
        # No JSON writer: a fixed answer, with no character that needs escaping.
        set info "{\"unavailable\":\"tcllib is not installed (make peers installs tcllib)\"}"
        set runtime "\"tcl [info patchlevel]\""
    }
    return "{\"protocol\":\"pctfuzz-peer\",\"version\":1,\"peer\":\"pctfuzz-tcl-peer\",\
\"runtime\":$runtime,\"implementations\":{\"$IMPL\":$info}}"
}

proc error_reply {message {id ""}} {
    set text [json::write string $message]
    if {$id eq ""} {
        return "{\"protocol_error\":$text}"
    }
    return "{\"id\":$id,\"protocol_error\":$text}"
}

fconfigure stdin -encoding utf-8 -translation lf
fconfigure stdout -encoding utf-8 -translation lf -buffering line

set first 1
while {[gets stdin line] >= 0} {
    if {[string trim $line] eq ""} {
        continue
    }
    if {!$have_libs} {
        # No JSON reader: the handshake says why, and nothing else can be answered.
        puts [expr {$first ? [handshake] : "{\"protocol_error\":\"tcllib is not installed\"}"}]
        set first 0
        continue
    }
    if {[catch {json::json2dict $line} request] || [catch {dict size $request}]} {
        puts [error_reply "not a JSON object"]
        set first 0
        continue
    }
    if {$first} {
        set first 0
        if {[dict exists $request protocol] && [dict get $request protocol] eq "pctfuzz-peer"
                && [dict exists $request version] && [dict get $request version] eq "1"} {
            puts [handshake]
        } else {
            puts [error_reply "this peer speaks pctfuzz-peer version 1"]
        }
        continue
    }
    if {![dict exists $request id] || ![string is entier -strict [dict get $request id]]} {
        puts [error_reply "request without an id"]
        continue
    }
    set id [dict get $request id]
    if {[catch {answer $request} result options]} {
        set code [dict get $options -errorcode]
        if {$code eq {PCTFUZZ UNSUPPORTED}} {
            puts "{\"id\":$id,\"unsupported\":[json::write string $result]}"
        } elseif {$code eq {PCTFUZZ PROTOCOL}} {
            puts [error_reply $result $id]
        } else {
            puts "{\"id\":$id,\"error\":{\"type\":[json::write string [lindex $code 0]],\
\"message\":[json::write string $result]}}"
        }
    } else {
        puts "{\"id\":$id,\"ok\":$result}"
    }
}
