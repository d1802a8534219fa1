"""The peers in other languages (docs/peers.md): each against its real library.

Every test runs where the peer's runtime is installed (``make peers``) and is skipped
with the reason elsewhere. Per implementation: known vectors (what the library's
documentation says it returns), and a short differential run through the matrix loop
whose only unexplained differences may be the real bugs listed in docs/in-the-wild.md.
Per peer program: the protocol itself (ids echoed, a malformed request answered, exit
when stdin closes, nothing but answers on stdout).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from broken_impls import LosesLastChar

from pctfuzz._internal.cases import DecodeCase, EncodeCase, FormCase, FormParseCase
from pctfuzz._internal.cli.impls import impl_statuses
from pctfuzz._internal.errors import PctfuzzError
from pctfuzz._internal.fuzz.matrix import run_matrix
from pctfuzz._internal.oracles import get_impl
from pctfuzz._internal.oracles.langs import PEER_PROGRAMS, peer_command
from pctfuzz._internal.oracles.peer import PeerUnavailable

FORM = "application/x-www-form-urlencoded"


def _impl(name: str) -> Any:
    try:
        return get_impl(name)
    except PctfuzzError as exc:
        pytest.skip(f"{name} not available: {exc} (make peers)")


def _enc(value: str | bytes, set_name: str, plus: bool = False) -> Callable[[Any], Any]:
    return lambda a: a.encode(EncodeCase(value, set_name, "UTF-8", plus))


#: (implementation, question, expected answer): each from the library's documentation.
VECTORS: list[tuple[str, Callable[[Any], Any], Any]] = [
    ("go-queryescape", _enc("a b/\u00e9~*", "rfc3986-unreserved", True), "a+b%2F%C3%A9~%2A"),
    ("go-queryescape", lambda a: a.decode(DecodeCase("a+b%41")), b"a bA"),
    ("go-pathescape", _enc("a b/;:@&=+$", "rfc3986-unreserved-$&%2B:=@"), "a%20b%2F%3B:@&=+$"),
    ("go-values", lambda a: a.form_serialize(FormCase((("b", "2"), ("a", "1 ~*")))),
     "a=1+~%2A&b=2"),
    ("go-values", lambda a: a.form_parse(FormParseCase("b=2&a=1+%41")), [("a", "1 A"), ("b", "2")]),
    ("go-url-path", _enc("a b?*!", "rfc3986-pchar+!'()*-/"), "a%20b%3F%2A%21"),
    ("go-url-fragment", _enc("a b#!*'", "rfc3986-query+'"), "a%20b%23!*%27"),
    ("go-url-userinfo", _enc("a@b:c;", "rfc3986-unreserved-$&%2B,;="), "a%40b%3Ac;"),
    # RawQuery holds the query as written (pkg.go.dev/net/url#URL): nothing is escaped.
    ("go-url-query", _enc("a b\"<>^%zz\u00e9", "c0-control"), "a b\"<>^%zz\u00e9"),
    ("java-urlencoder", _enc("a b*~\u00e9", FORM, True), "a+b*%7E%C3%A9"),
    ("java-urlencoder", lambda a: a.encode(EncodeCase("\u00e9\u20ac", FORM, "windows-1252", True)),
     "%E9%80"),
    ("java-urlencoder", lambda a: a.decode(DecodeCase("a+%41%FF")), b"a A\xef\xbf\xbd"),
    # A real JDK 17 bug (docs/in-the-wild.md): Integer.parseInt takes the sign of "%-0".
    ("java-urlencoder", lambda a: a.decode(DecodeCase("%+1a")), b"\x01a"),
    ("java-urlencoder", lambda a: a.decode(DecodeCase("%-0")), b"\x00"),
    ("java-uri", _enc("a b[/\u00e9", "rfc3986-pchar-/"), "a%20b%5B/%C3%A9"),
    ("java-uri", _enc("a b[&=?", "rfc3986-query-[]"), "a%20b[&=?"),
    ("java-uri", _enc("a@b:c", "rfc3986-pchar+@"), "a%40b:c"),
    # A real JDK 17 bug (docs/in-the-wild.md): NFC over the quoted string composes the
    # escape's last hex digit with a combining mark (%5E + U+0301 -> %5 + U+00C9).
    ("java-uri", _enc("^\u0301", "rfc3986-pchar-/"), "%5%C3%89"),
    ("php-rawurlencode", _enc("a b~*", "rfc3986-unreserved"), "a%20b~%2A"),
    ("php-urlencode", _enc("a b~*", FORM + "+*", True), "a+b%7E%2A"),
    ("php-urlencode", lambda a: a.decode(DecodeCase("a+%41")), b"a A"),
    ("php-http-query", lambda a: a.form_serialize(FormCase((("a b", "*~"),))), "a+b=%2A%7E"),
    ("php-http-query", lambda a: a.form_parse(FormParseCase("a.b=1&a.b=2& c=3")),
     [("a_b", "2"), ("c", "3")]),
    ("ruby-www-form-component", _enc("a b*~", FORM, True), "a+b*%7E"),
    ("ruby-www-form", lambda a: a.form_parse(FormParseCase("a=1&&b&")),
     [("a", "1"), ("", ""), ("b", "")]),
    ("ruby-www-form", lambda a: a.form_serialize(FormCase((("a b", "*~"),))), "a+b=*%7E"),
    ("ruby-cgi", _enc("a b~*", "rfc3986-unreserved", True), "a+b~%2A"),
    ("ruby-erb", _enc("a b~*", "rfc3986-unreserved"), "a%20b~%2A"),
    ("perl-uri-escape", _enc("a b~\u00e9", "rfc3986-unreserved"), "a%20b~%E9"),
    ("perl-uri-escape", lambda a: a.decode(DecodeCase("%C3%A9\u00e9")), b"\xc3\xa9\xc3\xa9"),
    ("perl-uri-escape-utf8", _enc("\u00e9\u20ac", "rfc3986-unreserved"), "%C3%A9%E2%82%AC"),
    ("perl-uri-query", lambda a: a.form_parse(FormParseCase("a=1;b=2&")), [("a", "1"), ("b", "2")]),
    ("perl-uri-query", lambda a: a.form_serialize(FormCase((("a b", "!~&"),))), "a+b=!~%26"),
    ("curl-escape", _enc(b"a b~\xff", "rfc3986-unreserved"), "a%20b~%FF"),
    ("curl-escape", lambda a: a.decode(DecodeCase("%41%zz+")), b"A%zz+"),
    ("curl-url", _enc("a b/c", "rfc3986-unreserved-/"), "a%20b/c"),
    ("curl-url", _enc("a b+", "rfc3986-unreserved", True), "a+b%2b"),
    ("rust-url", _enc("a b^", "path"), "a%20b^"),
    ("rust-url", _enc("a'b", "special-query"), "a%27b"),
    ("rust-url", _enc("a`b", "fragment"), "a%60b"),
    # LuaSocket url.lua: escape() "([^A-Za-z0-9_])" -> "%%%02x"; unescape() "%%(%x%x)".
    # Lowercase hex is a real bug (docs/in-the-wild.md): build_path writes uppercase.
    ("lua-socket-url", _enc("a b-._~*\u00e9", "application/x-www-form-urlencoded+*%2D."),
     "a%20b%2d%2e_%7e%2a%c3%a9"),
    ("lua-socket-url", _enc(b"\xff/", "application/x-www-form-urlencoded+*%2D."), "%ff%2f"),
    ("lua-socket-url", lambda a: a.decode(DecodeCase("%41%zz%e9+%")), b"A%zz\xe9+%"),
    # Tcl http 2.9.8 (http.tcl init): RFC 3986 unreserved raw, %HH uppercase, \n as %0D%0A.
    ("tcl-http", _enc("a b-._~*\u00e9\n", "rfc3986-unreserved"), "a%20b-._~%2A%C3%A9%0D%0A"),
    ("tcl-http", lambda a: a.form_serialize(FormCase((("a b", "~*"), ("", "")))),
     "a%20b=~%2A&="),
    # Real bugs (docs/in-the-wild.md): a CR LF gains a CR; a lone surrogate's bytes.
    ("tcl-http", _enc("a\r\nb", "rfc3986-unreserved"), "a%0D%0D%0Ab"),
    ("tcl-http", _enc("\ud800", "rfc3986-unreserved"), "%ED%A0%80"),
    # R 4.2.2 ?URLencode: reserved = TRUE encodes all but "- _ . ~" and alphanumerics;
    # the default leaves the reserved "! $ & ' ( ) * + , ; = : / ? @ # [ ]" alone, and a
    # value that holds a %xx is returned as it is (repeated = FALSE).
    ("r-urlencode", _enc("a b/?[~\u00e9", "rfc3986-unreserved"), "a%20b%2F%3F%5B~%C3%A9"),
    ("r-urlencode", _enc("a b/?[~\u00e9", "encodeURI-[]"), "a%20b/?[~%C3%A9"),
    ("r-urlencode", _enc("a b%41", "rfc3986-unreserved"), "a b%41"),
    ("r-urlencode", lambda a: a.decode(DecodeCase("%41%C3%A9+")), b"A\xc3\xa9+"),
    # A real bug (docs/in-the-wild.md): any two characters after % are read as hex.
    ("r-urlencode", lambda a: a.decode(DecodeCase("%4g")), b"P"),
    ("r-urlencode", lambda a: a.decode(DecodeCase("100%")), b"100"),
    # network-uri 2.6.4.1 (Network/URI.hs): isUnreserved is RFC 3986's unreserved set,
    # isUnescapedInURI leaves the reserved characters too, isAllowedInURI also '%'.
    ("haskell-network-uri", _enc("a b/?#[]*~%\u00e9", "rfc3986-unreserved"),
     "a%20b%2F%3F%23%5B%5D%2A~%25%C3%A9"),
    ("haskell-network-uri", _enc("a b/?#[]*~%\u00e9", "encodeURI-[]"), "a%20b/?#[]*~%25%C3%A9"),
    ("haskell-network-uri", _enc("a b/?#[]*~%\u00e9", "encodeURI-%25[]"), "a%20b/?#[]*~%%C3%A9"),
    # unEscapeString: '+' and invalid escapes kept, ill-formed UTF-8 one U+FFFD per
    # sequence (entries), U+FFFF too (network-uri#51).
    ("haskell-network-uri", lambda a: a.decode(DecodeCase("%41+%zz%C3%A9%ED%A0%80%EF%BF%BF")),
     b"A+%zz\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd"),
    # A real bug (docs/in-the-wild.md): a lone surrogate as its three surrogate bytes.
    ("haskell-network-uri", _enc("\ud800", "rfc3986-unreserved"), "%ED%A0%80"),
    # Nim 1.6.10 lib/pure/uri.nim: encodeUrl keeps RFC 3986's unreserved set (a space '+'
    # with usePlus); decodeUrl keeps an invalid escape; encodeQuery omits '=' of an empty
    # value; decodeQuery keeps an empty sequence but the last.
    ("nim-uri", _enc("a b~*\u00e9", "rfc3986-unreserved"), "a%20b~%2A%C3%A9"),
    ("nim-uri", _enc("a b~*\u00e9", "rfc3986-unreserved", True), "a+b~%2A%C3%A9"),
    ("nim-uri", lambda a: a.decode(DecodeCase("%41+%zz%\xff")), b"A+%zz%\xc3\xbf"),
    ("nim-uri", lambda a: a.form_serialize(FormCase((("a b", "~*"), ("c", "")))), "a+b=~%2A&c"),
    ("nim-uri", lambda a: a.form_parse(FormParseCase("&a=1&&b&")),
     [("", ""), ("a", "1"), ("", ""), ("b", "")]),
    # A real bug (docs/in-the-wild.md): the pair ("", "") is written as nothing, and
    # as the first pair it takes the next pair's '&' too.
    ("nim-uri", lambda a: a.form_serialize(FormCase((("", ""), ("a", "1")))), "a=1"),
    ("nim-uri-plus", _enc("a b", "rfc3986-unreserved", True), "a+b"),
    ("nim-uri-plus", lambda a: a.decode(DecodeCase("a+b%2B")), b"a b+"),
    # Qt 6.4 (doc.qt.io/qt-6/qurl.html#toPercentEncoding): "Unreserved is defined as:
    # ALPHA / DIGIT / "-" / "." / "_" / "~""; exclude leaves its characters raw.
    ("qt-qurl", _enc("a b/?#[]*~%-._\u00e9", "rfc3986-unreserved"),
     "a%20b%2F%3F%23%5B%5D%2A~%25-._%C3%A9"),
    ("qt-qurl", _enc("a b/?~", "rfc3986-unreserved-/"), "a%20b/%3F~"),
    ("qt-qurl", lambda a: a.decode(DecodeCase("%41%C3%A9+%2b")), b"A\xc3\xa9++"),
    # "the sequence "%G5" could be decoded to 'W'" (it is (0x47 << 4 | 5) & 0xFF, 'u');
    # the answer is a QString: a leading BOM dropped, one U+FFFD per invalid byte.
    ("qt-qurl", lambda a: a.decode(DecodeCase("%G5")), b"u"),
    ("qt-qurl", lambda a: a.decode(DecodeCase("%EF%BB%BFa%E2%82")),
     "a\ufffd\ufffd".encode()),
    # A real bug (docs/in-the-wild.md): QString::toUtf8 writes '?' for a lone surrogate.
    # (It reached the library: QJsonDocument keeps a \ud800 escape, and a \u0000.)
    ("qt-qurl", _enc("\ud800", "rfc3986-unreserved"), "%3F"),
    ("qt-qurl", _enc("a\x00b", "rfc3986-unreserved"), "a%00b"),
    # QUrlQuery (doc.qt.io/qt-6/qurlquery.html): setters take encoded forms, a space is
    # %20, '+' is never a space; TolerantMode keeps a field with a lone '%' as written.
    ("qt-qurlquery", lambda a: a.form_serialize(FormCase((("a b", "+&=~*\u00e9"), ("", "")))),
     "a%20b=%2B%26%3D~%2A%C3%A9&="),
    ("qt-qurlquery", lambda a: a.form_parse(FormParseCase("a+b=%2B%20&&c=%41%&d=%EF%BF%BF&")),
     [("a+b", "+ "), ("", ""), ("c", "%41%"), ("d", "\ufffd" * 3)]),
    ("qt-qurlquery", lambda a: a.form_serialize(FormCase((("\ud800", "x"),))), "%3F=x"),
    # QJsonDocument writes a kept lone surrogate back as its escape (Qt copies the unit).
    ("qt-qurlquery", lambda a: a.form_parse(FormParseCase("a=\ud800\x00")),
     [("a", "\ud800\x00")]),
    # GLib 2.74.6 guri.c: g_uri_escape_string leaves RFC 3986's unreserved characters raw,
    # and reserved_chars_allowed (the G_URI_RESERVED_CHARS_ALLOWED_IN_* strings) too.
    ("glib-uri-escape", _enc("a b/:@!~*%\u00e9\U0001f600", "rfc3986-unreserved"),
     "a%20b%2F%3A%40%21~%2A%25%C3%A9%F0%9F%98%80"),
    ("glib-uri-escape", _enc("a b/:@!*", "rfc3986-pchar-/"), "a%20b/:@!*"),
    ("glib-uri-escape", _enc("a b/:@!*", "rfc3986-pchar"), "a%20b%2F:@!*"),
    ("glib-uri-escape", _enc("a b/:@!*", "rfc3986-pchar+@"), "a%20b%2F:%40!*"),
    ("glib-uri-escape", _enc(b"\xff\x00a", "rfc3986-unreserved"), "%FF%00a"),
    # A real bug (docs/in-the-wild.md): with reserved_chars_allowed, strchr finds a NUL
    # byte in the string's terminator, so g_uri_escape_bytes writes it raw: the answer
    # ends there.
    ("glib-uri-escape", _enc(b"a\x00b", "rfc3986-pchar"), "a"),
    # g_uri_unescape_string / g_uri_unescape_bytes: '+' kept, no UTF-8 check (bytes).
    ("glib-uri-escape", lambda a: a.decode(DecodeCase("%41+%C3%A9%FF")), b"A+\xc3\xa9\xff"),
    ("glib-uri-escape", lambda a: a.decode(DecodeCase(b"a%00b")), b"a\x00b"),
    # g_uri_params_iter_next with G_URI_PARAMS_WWW_FORM: '+' a space, a final '&' ends it.
    ("glib-uri-params", lambda a: a.form_parse(FormParseCase("a=1+%41&b=&=c&a=2&")),
     [("a", "1 A"), ("b", ""), ("", "c"), ("a", "2")]),
    # g_uri_parse_params: a hash table, the last value of a name (answered sorted by name).
    ("glib-uri-parse-params", lambda a: a.form_parse(FormParseCase("b=1&a=2+%41&b=3&")),
     [("a", "2 A"), ("b", "3")]),
    # Mono 6.8: Uri.EscapeDataString keeps RFC 3986's unreserved set, EscapeUriString the
    # reserved characters too; UnescapeDataString keeps invalid UTF-8 escaped.
    ("mono-uri", _enc("a b!'()*~/?#[]\u00e9", "rfc3986-unreserved"),
     "a%20b%21%27%28%29%2A~%2F%3F%23%5B%5D%C3%A9"),
    ("mono-uri", _enc("a b!'()*~/?#[]%\u00e9", "encodeURI-[]"), "a%20b!'()*~/?#[]%25%C3%A9"),
    ("mono-uri", _enc("\x80\ud800a", "rfc3986-unreserved"), "%C2%80%EF%BF%BD%61"),
    ("mono-uri", lambda a: a.decode(DecodeCase("%41+%C3%A9%e9%zz")), b"A+\xc3\xa9%E9%zz"),
    # HttpUtility.UrlEncode: lowercase hex, '!()*' raw, '~' and "'" encoded; WebUtility's
    # the same set in uppercase. Both UrlDecode read '+' as a space; HttpUtility '%uXXXX'.
    ("mono-httputility", _enc("a b!'()*~\u00e9", "component+'~", True), "a+b!%27()*%7e%c3%a9"),
    ("mono-httputility", lambda a: a.decode(DecodeCase("a+%41%u0042%FF")), b"a AB\xef\xbf\xbd"),
    ("mono-httputility", lambda a: a.form_parse(FormParseCase("?a=1&b&A=2&")),
     [("a", "1"), ("a", "2"), ("", "b"), ("", "")]),
    # Real bugs (docs/in-the-wild.md): UrlDecode writes a character up to U+00FF as its low
    # byte before the UTF-8 decode; ParseQueryString HTML-decodes the query first
    # (dotnet/corefx#23582) and strips a second '?' (dotnet/corefx#23574).
    ("mono-httputility", lambda a: a.decode(DecodeCase("\u00e9+")), b"\xef\xbf\xbd "),
    ("mono-httputility", lambda a: a.form_parse(FormParseCase("a=1&amp;b=2")),
     [("a", "1"), ("b", "2")]),
    ("mono-httputility", lambda a: a.form_parse(FormParseCase("??a=1")), [("a", "1")]),
    ("mono-webutility", _enc("a b!'()*~\u00e9", "component+'~", True), "a+b!%27()*%7E%C3%A9"),
    ("mono-webutility", lambda a: a.decode(DecodeCase("a+%41%u0042\u00e9%FF")),
     b"a A%u0042\xc3\xa9\xef\xbf\xbd"),
    # Erlang uri_string (OTP 25 manual): quote/1 leaves RFC 3986 unreserved raw, quote/2
    # its Safe list too; compose_query/1 the form set; recompose/1 keeps a '%'.
    ("erlang-uri-string", _enc("a b/~*\u00e9", "rfc3986-unreserved"), "a%20b%2F~%2A%C3%A9"),
    ("erlang-uri-string", _enc("SomeId/04", "rfc3986-unreserved-/"), "SomeId/04"),
    ("erlang-uri-string", _enc("a b/:@!", "rfc3986-pchar"), "a%20b%2F:@!"),
    ("erlang-uri-string", lambda a: a.decode(DecodeCase("SomeId%2504")), b"SomeId%04"),
    ("erlang-uri-string-query",
     lambda a: a.form_serialize(FormCase((("foo bar", "1"), ("city", "\u00f6rebro")))),
     "foo+bar=1&city=%C3%B6rebro"),
    ("erlang-uri-string-query",
     lambda a: a.form_parse(FormParseCase("foo+bar=1&city=%C3%B6rebro&x")),
     [("foo bar", "1"), ("city", "\u00f6rebro"), ("x", "")]),
    # The manual's example: a character reference is decoded (an entry).
    ("erlang-uri-string-query",
     lambda a: a.form_parse(FormParseCase("city=%26%2326481%3B%26%2320140%3B")),
     [("city", "\u6771\u4eac")]),
    # A real bug (docs/in-the-wild.md): a raw '&#' does not separate pairs.
    ("erlang-uri-string-query", lambda a: a.form_parse(FormParseCase("a&#65;=1")),
     [("aA", "1")]),
    ("erlang-uri-string-recompose", _enc("a b/%41?#", "rfc3986-pchar-/"), "a%20b/%41%3F%23"),
    ("erlang-uri-string-recompose", _enc("a b/?#", "rfc3986-query"), "a%20b/?%23"),
    ("erlang-uri-string-recompose", _enc("a@b:c/", "rfc3986-pchar+@"), "a%40b:c%2F"),
    # Elixir URI (Elixir 1.14 docs): encode/1 keeps reserved and unreserved characters.
    ("elixir-uri-encode", _enc("ftp://s-ite.tld/?value=put it+\u0439", "encodeURI-[]"),
     "ftp://s-ite.tld/?value=put%20it+%D0%B9"),
    ("elixir-uri-encode", _enc("a b[]~*", "rfc3986-unreserved"), "a%20b%5B%5D~%2A"),
    ("elixir-uri-encode", lambda a: a.decode(DecodeCase("https%3A%2F%2Felixir-lang.org")),
     b"https://elixir-lang.org"),
    ("elixir-uri-www-form", _enc("put: it+\u0439", "rfc3986-unreserved", True),
     "put%3A+it%2B%D0%B9"),
    ("elixir-uri-www-form", lambda a: a.decode(DecodeCase("%3Call+in%2F")), b"<all in/"),
    ("elixir-uri-query",
     lambda a: a.form_serialize(FormCase((("key", "value with spaces"), ("~", "*")))),
     "key=value+with+spaces&~=%2A"),
    ("elixir-uri-query",
     lambda a: a.form_parse(FormParseCase("food=bread%26butter&drinks=tap%20water+please")),
     [("food", "bread&butter"), ("drinks", "tap water please")]),
    ("elixir-uri-query-rfc3986",
     lambda a: a.form_serialize(FormCase((("key", "value with spaces"),))),
     "key=value%20with%20spaces"),
    ("elixir-uri-query-rfc3986",
     lambda a: a.form_parse(FormParseCase("food=bread%26butter&drinks=tap%20water+please")),
     [("food", "bread&butter"), ("drinks", "tap water+please")]),
    ("elixir-uri-decode-query", lambda a: a.form_parse(FormParseCase("foo=1&bar=2&foo=3")),
     [("bar", "2"), ("foo", "3")]),
    # Bun: JavaScriptCore's built-ins (MDN encodeURIComponent: all but A-Z a-z 0-9
    # - _ . ! ~ * ' ( ) escaped), WebKit's URLSearchParams and URL setters.
    ("bun", _enc("a b!'()*~\u00e9", "encodeURIComponent"), "a%20b!'()*~%C3%A9"),
    ("bun", _enc("a b?#[]/", "encodeURI"), "a%20b?#%5B%5D/"),  # [ ] are not uriReserved
    ("bun", _enc("a b*~", FORM, True), "a+b*%7E"),
    ("bun", lambda a: a.decode(DecodeCase("%41%C3%A9")), b"A\xc3\xa9"),
    ("bun", lambda a: a.form_serialize(FormCase((("a b", "\u00e9&="),))), "a+b=%C3%A9%26%3D"),
    ("bun", lambda a: a.form_parse(FormParseCase("?a=b+c&&%41")), [("?a", "b c"), ("A", "")]),
    # WebKit decodes a bad escape as the URL Standard 5.1 does (Node.js loses the \u00e9).
    ("bun", lambda a: a.form_parse(FormParseCase("%FF\u00e9")), [("\ufffd\u00e9", "")]),
    # WebKit's path set has ^ (whatwg/url#846), the special-query set '.
    ("bun-url", _enc("a b^", "path"), "a%20b%5E"),
    ("bun-url", _enc("a'b", "special-query"), "a%27b"),
    ("bun-url", _enc("a'b", "query"), "a'b"),
    ("bun-url", _enc("a`b", "fragment"), "a%60b"),
    ("bun-url", _enc("a@b:c/", "userinfo"), "a%40b%3Ac%2F"),
    ("bun-url", _enc("\ud800", "fragment"), "%EF%BF%BD"),  # a USVString: U+FFFD
    # Deno: V8's built-ins, rust-url's form_urlencoded and url crates.
    ("deno", _enc("a b!'()*~\u00e9", "encodeURIComponent"), "a%20b!'()*~%C3%A9"),
    ("deno", _enc("a b?#[]/", "encodeURI"), "a%20b?#%5B%5D/"),
    ("deno", _enc("a b*~", FORM, True), "a+b*%7E"),
    ("deno", lambda a: a.decode(DecodeCase("%41%C3%A9")), b"A\xc3\xa9"),
    ("deno", lambda a: a.form_serialize(FormCase((("a b", "\u00e9&="),))), "a+b=%C3%A9%26%3D"),
    ("deno", lambda a: a.form_parse(FormParseCase("?a=b+c&&%41")), [("?a", "b c"), ("A", "")]),
    ("deno", lambda a: a.form_parse(FormParseCase("%FF\u00e9")), [("\ufffd\u00e9", "")]),
    # A real bug (docs/in-the-wild.md, denoland/deno#28386): ^ is left raw in a path.
    ("deno-url", _enc("a b^", "path"), "a%20b^"),
    ("deno-url", _enc("a'b", "special-query"), "a%27b"),
    ("deno-url", _enc("a'b", "query"), "a'b"),
    ("deno-url", _enc("a`b", "fragment"), "a%60b"),
    ("deno-url", _enc("a@b:c/", "userinfo"), "a%40b%3Ac%2F"),
    ("deno-url", _enc("\ud800", "fragment"), "%EF%BF%BD"),  # a USVString: U+FFFD
]


@pytest.mark.parametrize(("name", "ask", "want"), VECTORS,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(VECTORS)])
def test_known_vectors_against_the_real_library(name: str, ask: Callable[[Any], Any],
                                                want: Any) -> None:
    impl = _impl(name)
    try:
        assert ask(impl) == want
    finally:
        getattr(impl, "close", lambda: None)()


@pytest.mark.parametrize(("name", "ask", "error"), [
    ("go-queryescape", lambda a: a.decode(DecodeCase("%zz")), "EscapeError"),
    ("java-urlencoder", lambda a: a.decode(DecodeCase("%")), "IllegalArgumentException"),
    ("ruby-www-form-component", lambda a: a.decode(DecodeCase("%")), "ArgumentError"),
    ("perl-uri-escape", _enc("\u20ac", "rfc3986-unreserved"), "die"),
    # A real JDK bug (docs/in-the-wild.md): a lone surrogate makes toASCIIString throw.
    ("java-uri", _enc("\ud800", "rfc3986-pchar-/"), "NullPointerException"),
    ("bun", _enc("\ud800", "component"), "URIError"),  # ECMA-262 19.2.6.5
    ("bun", lambda a: a.decode(DecodeCase("%")), "URIError"),
    ("deno", _enc("\ud800", "component"), "URIError"),
    ("deno", lambda a: a.decode(DecodeCase("%")), "URIError"),
    # Real bugs (docs/in-the-wild.md): unquote/1 of a binary throws (erlang/otp#11654);
    # dissect_query/1 crashes on its own compose_query/1 output for the value "&#".
    ("erlang-uri-string", lambda a: a.decode(DecodeCase("%zz")), "throw"),
    ("erlang-uri-string-query", lambda a: a.form_parse(FormParseCase("a=%26%23")),
     "function_clause"),
    ("erlang-uri-string-query", lambda a: a.form_parse(FormParseCase("a=%zz")),
     "invalid_percent_encoding"),  # the documented error tuple (an entry)
    # GLib's strict decoders (entries): NULL from g_uri_unescape_string, a GError from
    # g_uri_unescape_bytes and g_uri_params_iter_next.
    ("glib-uri-escape", lambda a: a.decode(DecodeCase("%zz")), "NULL"),
    ("glib-uri-escape", lambda a: a.decode(DecodeCase("a%00")), "NULL"),
    ("glib-uri-escape", lambda a: a.decode(DecodeCase(b"%4")), "G_URI_ERROR_FAILED"),
    ("glib-uri-params", lambda a: a.form_parse(FormParseCase("a=1&&b=2")), "G_URI_ERROR_FAILED"),
    ("glib-uri-parse-params", lambda a: a.form_parse(FormParseCase("a=%zz")),
     "G_URI_ERROR_FAILED"),
    # EscapeDataString's lone high surrogate at the end (an entry).
    ("mono-uri", _enc("a\ud800", "rfc3986-unreserved"), "UriFormatException"),
])
def test_library_errors_arrive_named(name: str, ask: Callable[[Any], Any], error: str) -> None:
    impl = _impl(name)
    try:
        with pytest.raises(Exception) as info:
            ask(impl)
        assert type(info.value).__name__ == error
    finally:
        getattr(impl, "close", lambda: None)()


#: The real bugs (docs/in-the-wild.md) a short run may meet: impl -> is it that one?
KNOWN_BUGS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "java-uri": lambda f: (f["kind"] == "crash" and "\\ud" in f["case"])
    or (f["actual"] is not None and re.search("%[0-9A-F](?![0-9A-F])", f["actual"]) is not None),
    "java-urlencoder": lambda f: "%+" in f["case"] or "%-" in f["case"],
    # every escape of a query in lowercase hex (%2b, %2a, %c3%a9; %21 has no letter)
    "curl-url": lambda f: f["actual"] is not None
    and re.search("%([0-9a-f][a-f]|[a-f][0-9a-f])", f["actual"]) is not None,
    "rust-url": lambda f: f["actual"] is not None and "^" in f["actual"],
    "deno-url": lambda f: f["actual"] is not None and "^" in f["actual"],
    "tcl-http": lambda f: f["actual"] is not None
    and ("%0D%0D%0A" in f["actual"] or "%ED%A0" in f["actual"] or "%ED%B" in f["actual"]),
    # URLdecode reads any two characters after % as hex digits (or drops a short one).
    "r-urlencode": lambda f: f["case"].startswith("decode(")
    and re.search("%(?![0-9A-Fa-f]{2})", f["case"]) is not None,
    # unquote/1 of a binary throws where a list returns {error, ...} (erlang/otp#11654).
    "erlang-uri-string": lambda f: f["kind"] == "crash" and f["case"].startswith("decode("),
    # dissect_query/1: a raw '&#' joins a name; a decoded '&#' at the end crashes.
    "erlang-uri-string-query": lambda f: re.search("(&|%26)(#|%23)", f["case"], re.I)
    is not None,
    "lua-socket-url": lambda f: f["actual"] is not None
    and re.search("%([0-9a-f][a-f]|[a-f][0-9a-f])", f["actual"]) is not None,
    "haskell-network-uri": lambda f: f["actual"] is not None
    and ("%ED%A0" in f["actual"] or "%ED%B" in f["actual"]),
    # QUrl::toPercentEncoding (and QUrlQuery built on it) writes a lone surrogate as %3F.
    "qt-qurl": lambda f: "\\ud" in f["case"] and f["actual"] is not None
    and "%3F" in f["actual"],
    "qt-qurlquery": lambda f: "\\ud" in f["case"] and f["actual"] is not None
    and "%3F" in f["actual"],
    # encodeQuery writes the pair ("", "") as nothing (omitEq), without its '&' first.
    "nim-uri": lambda f: f["case"].startswith("form(") and "('', '')" in f["case"],
    # g_uri_escape_bytes with reserved_chars_allowed writes a NUL raw: the answer ends there.
    "glib-uri-escape": lambda f: f["case"].startswith("encode(b") and "\\x00" in f["case"]
    and "set='rfc3986-unreserved'" not in f["case"],
    # UrlDecode (so ParseQueryString): a raw U+0080-U+00FF or astral character, or a
    # '%uXXXX' of one or of a surrogate, lost to its low byte; ParseQueryString's HTML
    # decode ('&' then an entity) and its second '?'; names that differ by a letter Mono's
    # collation ignores (U+0218-U+021F, U+0400, U+07FF, U+FFFD) are one key
    # (docs/in-the-wild.md).
    "mono-httputility": lambda f: re.search(
        r"\\x[89a-f][0-9a-f]|[\u00a0-\u00ff]|[\U00010000-\U0010ffff]|%u00[89a-f]|%ud[89a-f]"
        r"|&(#|[a-z0-9]+;)|^form_parse\('\?\?|[\u0218-\u021f\u0400\u07ff\ufffd]", f["case"],
        re.IGNORECASE) is not None,
}

NEW_IMPLS = sorted({n for n, *_ in VECTORS})
CORPUS = Path(__file__).resolve().parents[2] / "corpus"


@pytest.mark.slow
@pytest.mark.parametrize("name", NEW_IMPLS)
def test_short_differential_run_finds_only_known_bugs(name: str, tmp_path: Path) -> None:
    impl = _impl(name)
    try:
        run = run_matrix({name: impl}, max_time=600, max_inputs=60, findings=tmp_path,
                         corpus=CORPUS)
    finally:
        getattr(impl, "close", lambda: None)()
    assert sum(c.answered for c in run.cells.values()) > 0, "no case was answered"
    assert not run.lost
    unexplained = [f for f in run.findings.values()
                   if not KNOWN_BUGS.get(name, lambda _f: False)(f)]
    assert unexplained == []


def test_matrix_asks_every_input_of_every_implementation(tmp_path: Path) -> None:
    """A planted bug shows as a bug cell with its finding; the reference answers each
    distinct case once however many implementations are asked it."""
    impls = {"urllib": get_impl("urllib"), "urllib-lossy": LosesLastChar()}
    run = run_matrix(impls, max_time=600, max_inputs=40, findings=tmp_path,
                     targets=("diff_form",))
    assert run.inputs["diff_form"] == 40
    answered = sum(c.answered for c in run.cells.values())
    assert run.reference_answers < answered  # shared between the two
    planted = run.cells[("urllib-lossy", "form")]
    assert planted.bugs and all(i in run.findings for i in planted.bugs)
    assert list(tmp_path.glob("*.json"))
    assert ("form", "urllib", "urllib-lossy") in run.confusions


@pytest.mark.parametrize("lang", sorted(PEER_PROGRAMS))
def test_peer_program_speaks_the_protocol(lang: str) -> None:
    try:
        command = peer_command(lang)
    except PeerUnavailable as exc:
        pytest.skip(f"{lang}: {exc}")
    requests = [
        {"protocol": "pctfuzz-peer", "version": 1},
        {"id": 7, "impl": "no-such-impl", "q": "encode", "value": "a", "set": "path",
         "encoding": "UTF-8", "space_as_plus": False},
        {"id": 8, "impl": "x", "q": "decode"},
    ]
    text = "".join(json.dumps(r) + "\n" for r in requests) + "not json\n"
    proc = subprocess.run(command, input=text.encode(), capture_output=True, timeout=600,
                          check=False)  # exits when its stdin closes
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 4  # one answer per line, nothing else on stdout
    hello, *answers = (json.loads(line) for line in lines)
    assert hello["protocol"] == "pctfuzz-peer" and hello["implementations"]
    assert [a.get("id") for a in answers] == [7, 8, None]
    assert all("protocol_error" in a for a in answers)


def test_impls_json_gives_language_and_version() -> None:
    statuses = impl_statuses()
    by_name = {s.name: s for s in statuses}
    assert by_name["urllib"].language == "Python" and by_name["node"].language == "JavaScript"
    assert by_name["go-values"].language == "Go" and by_name["rust-url"].language == "Rust"
    available = [s for s in statuses if s.available]
    if not all(by_name[n].available for n in ("go-values", "java-uri", "php-urlencode",
                                              "ruby-cgi", "perl-uri-query")):
        pytest.skip("the peers' runtimes are not all installed: make peers")
    assert len(available) >= 25
    assert len({s.language for s in available}) >= 7
    assert all(s.version for s in available)


#: JavaScript runtimes besides Node.js: npm packages that make peers installs.
ENGINE_IMPLS = {"bun": ("bun", "bun-url"), "deno": ("deno", "deno-url")}
ENGINES = Path(__file__).resolve().parents[2] / "src" / "pctfuzz" / "peers" / "engines"


@pytest.mark.parametrize("runtime", sorted(ENGINE_IMPLS))
def test_engine_runs_the_pinned_npm_package(runtime: str) -> None:
    """make peers installs the version package-lock.json pins, and the peer reports it."""
    impl = _impl(runtime)
    try:
        lock = json.loads((ENGINES / "package-lock.json").read_text())
        pinned = lock["packages"][f"node_modules/{runtime}"]["version"]
        assert impl.peer_info["peer"] == f"pctfuzz-{runtime}-peer"
        if "/engines/node_modules/" in impl.command[0]:  # not a runtime found on PATH
            assert impl.peer_info["runtime"] == f"{runtime} {pinned}"
        assert impl.version == impl.peer_info["runtime"].split()[1]
    finally:
        impl.close()


@pytest.mark.parametrize("runtime", sorted(ENGINE_IMPLS))
def test_a_missing_engine_is_not_available(runtime: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """No build folder and no runtime on PATH: each of its implementations says
    "run make peers", and pctfuzz impls lists the rest."""
    monkeypatch.setenv("PCTFUZZ_PEER_BUILD", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    for name in ENGINE_IMPLS[runtime]:
        with pytest.raises(PeerUnavailable, match=r"not available: .*run make peers"):
            get_impl(name)
    rows = {s.name: s for s in impl_statuses()}
    for name in ENGINE_IMPLS[runtime]:
        assert not rows[name].available and "make peers" in (rows[name].reason or "")
        assert rows[name].language == "JavaScript"
    assert rows["urllib"].available
