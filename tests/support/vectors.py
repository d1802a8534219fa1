"""The project's own conformance tables, carried over as facts.

Every table cites where its cases come from. Nothing here reads ``../shared`` (or any
file) at test time: a fresh clone tests itself. Strings use ``\\uXXXX`` escapes for
every non-ASCII character so look-alikes (U+2212 MINUS SIGN vs "-") stay visible.

Sources:

- seed 000: excerpt of the WHATWG URL Standard, section 1.3 "Percent-encoded bytes"
  (its examples table and the application/x-www-form-urlencoded serializer).
- seed 001: "Percent-Encoding Guide" blog post (data URIs, encodeQueryValue).
- seed 002: encoding card for RFC 3986 section 2, with five test vectors.
- web-platform-tests/wpt ``url/`` data (3-Clause BSD License, Copyright (c)
  web-platform-tests contributors); each WPT table names its file and commit.
"""

from __future__ import annotations

from dataclasses import dataclass

# --------------------------------------------------------------------------------------
# Record types
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EncodeVector:
    """``percent_encode(input, set_name, encoding=..., space_as_plus=...) == expected``."""

    input: str
    set_name: str
    expected: str
    encoding: str = "utf-8"
    space_as_plus: bool = False
    note: str = ""


@dataclass(frozen=True)
class DecodeVector:
    """``percent_decode_text(input) == expected``."""

    input: str
    expected: str
    note: str = ""


@dataclass(frozen=True)
class PercentEncodingCase:
    """One object of WPT percent-encoding.json: ``input`` and ``(label, expected)`` columns."""

    input: str
    outputs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class SerializeCase:
    """WPT stringifier ``serialize_pairs``: append ``pairs`` to an empty list, serialize."""

    test: str
    pairs: tuple[tuple[str, str], ...]
    expected: str


@dataclass(frozen=True)
class ParamsStep:
    """One step of a WPT ``url_search_params`` case (see WPT_URL_SEARCH_PARAMS)."""

    append: tuple[str, str] | None
    expect_params: str | None
    expect_url_href: str | None = None


@dataclass(frozen=True)
class UrlSearchParamsCase:
    """WPT stringifier ``url_search_params``, reduced to its form-codec part."""

    test: str
    url: str
    #: The URL's query as the URL parser leaves it (None: the URL has no query).
    #: Fact about the URL parser for these two URLs, not something this project parses.
    query: str | None
    #: href up to and including the path: what precedes "?" + query in every expected href.
    href_before_query: str
    steps: tuple[ParamsStep, ...]


@dataclass(frozen=True)
class SetterCase:
    """WPT setters_tests.json: set ``attribute`` of URL(``href``) to ``new_value``;
    ``expected`` is the getter of the same attribute afterwards."""

    attribute: str  # "search" | "hash" | "pathname"
    href: str
    new_value: str
    expected: str


# --------------------------------------------------------------------------------------
# Seed 002: RFC 3986 section 2 encoding card ("encoding/percent-encoding", verified,
# source_version "RFC 3986 §2"), all five of its test_vectors. Encoding uses the
# RFC 3986 unreserved set (everything but ALPHA DIGIT - . _ ~ is encoded).
# --------------------------------------------------------------------------------------

SEED_002_ENCODE: tuple[EncodeVector, ...] = (
    EncodeVector("a b", "rfc3986-unreserved", "a%20b", note="space -> %20"),
    EncodeVector("caf\u00e9", "rfc3986-unreserved", "caf%C3%A9", note="UTF-8 then percent"),
    EncodeVector(
        "a/b?c#d&e=f",
        "rfc3986-unreserved",
        "a%2Fb%3Fc%23d%26e%3Df",
        note="reserved gen-delims/sub-delims as data",
    ),
    EncodeVector("AZaz09-._~", "rfc3986-unreserved", "AZaz09-._~", note="unreserved unchanged"),
)

SEED_002_DECODE: tuple[DecodeVector, ...] = (
    DecodeVector("caf%C3%A9", "caf\u00e9", note="%C3%A9 is UTF-8 for U+00E9"),
)


# --------------------------------------------------------------------------------------
# web-platform-tests url/resources/percent-encoding.json, BSD-3-Clause, the WPT file as
# vendored unchanged by nodejs/node (test/fixtures/wpt/url/resources/percent-encoding.json,
# node@7131ad46d0760f982bbc37efa2afd2aded04b4b0), sha256 f11d08eb...2fb06dfb.
# All 6 cases, every column. How each column is checked (WPT percent-encoding.window.js):
#   utf-8       UTF-8 percent-encode with the fragment set (WPT checks it as a.hash);
#   any other   percent-encode after encoding with that label and the special-query set
#               (WPT checks it as a.search of a document in that encoding); a code point
#               the encoding cannot encode becomes %26%23<decimal>%3B.
# The last case ("\u00e1|") has only a utf-8 column, so WPT itself never runs it; we do.
# --------------------------------------------------------------------------------------

WPT_PERCENT_ENCODING: tuple[PercentEncodingCase, ...] = (
    PercentEncodingCase(
        "\u2020",  # DAGGER
        (
            ("big5", "%26%238224%3B"),
            ("euc-kr", "%A2%D3"),
            ("utf-8", "%E2%80%A0"),
            ("windows-1252", "%86"),
        ),
    ),
    # "This uses a trailing A to prevent the URL parser from trimming the C0 control."
    PercentEncodingCase(
        "\x0eA",
        (("big5", "%0EA"), ("iso-2022-jp", "%26%2365533%3BA"), ("utf-8", "%0EA")),
    ),
    PercentEncodingCase(
        "\u203e\\",  # OVERLINE, REVERSE SOLIDUS
        (("iso-2022-jp", "%1B(J~%1B(B\\"), ("utf-8", "%E2%80%BE\\")),
    ),
    PercentEncodingCase("\ue5e5", (("gb18030", "%26%2358853%3B"), ("utf-8", "%EE%97%A5"))),
    PercentEncodingCase("\u2212", (("shift_jis", "%81|"), ("utf-8", "%E2%88%92"))),  # MINUS SIGN
    PercentEncodingCase("\u00e1|", (("utf-8", "%C3%A1|"),)),
)


# --------------------------------------------------------------------------------------
# web-platform-tests url/resources/urlencoded-parser-data.json (wpt@d1655f32e1b75a6f052a
# 26647f1c108b7b4f689e), run by url/urlencoded-parser.any.js (wpt@139a32d3512932f351bc86
# a9f8bea918e9a25218), BSD-3-Clause. All 35 cases, in order: (input, expected pairs).
# Check: form_urldecode(input) == list(expected), the whole list (so its length too).
# --------------------------------------------------------------------------------------

WPT_URLENCODED_PARSER: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("test", (("test", ""),)),
    ("\ufefftest=\ufeff", (("\ufefftest", "\ufeff"),)),
    ("%EF%BB%BFtest=%EF%BB%BF", (("\ufefftest", "\ufeff"),)),
    ("%EF%BF%BF=%EF%BF%BF", (("\uffff", "\uffff"),)),
    ("%FE%FF", (("\ufffd\ufffd", ""),)),
    ("%FF%FE", (("\ufffd\ufffd", ""),)),
    ("\u2020&\u2020=x", (("\u2020", ""), ("\u2020", "x"))),
    ("%C2", (("\ufffd", ""),)),
    ("%C2x", (("\ufffdx", ""),)),
    ("_charset_=windows-1252&test=%C2x", (("_charset_", "windows-1252"), ("test", "\ufffdx"))),
    ("", ()),
    ("a", (("a", ""),)),
    ("a=b", (("a", "b"),)),
    ("a=", (("a", ""),)),
    ("=b", (("", "b"),)),
    ("&", ()),
    ("&a", (("a", ""),)),
    ("a&", (("a", ""),)),
    ("a&a", (("a", ""), ("a", ""))),
    ("a&b&c", (("a", ""), ("b", ""), ("c", ""))),
    ("a=b&c=d", (("a", "b"), ("c", "d"))),
    ("a=b&c=d&", (("a", "b"), ("c", "d"))),
    ("&&&a=b&&&&c=d&", (("a", "b"), ("c", "d"))),
    ("a=a&a=b&a=c", (("a", "a"), ("a", "b"), ("a", "c"))),
    ("a==a", (("a", "=a"),)),
    ("a=a+b+c+d", (("a", "a b c d"),)),
    ("%=a", (("%", "a"),)),
    ("%a=a", (("%a", "a"),)),
    ("%a_=a", (("%a_", "a"),)),
    ("%61=a", (("a", "a"),)),
    ("%61+%4d%4D=", (("a MM", ""),)),
    ("id=0&value=%", (("id", "0"), ("value", "%"))),
    ("b=%2sf%2a", (("b", "%2sf*"),)),
    ("b=%2%2af%2a", (("b", "%2*f*"),)),
    ("b=%%2a", (("b", "%*"),)),
)


# --------------------------------------------------------------------------------------
# web-platform-tests url/urlsearchparams-stringifier.any.js (wpt@49fd817603e660f9b9b93d16
# 4be821ad5c4028eb), BSD-3-Clause: every assert_equals, in file order, split by kind.
# The JS append()/delete() sequences are folded into the final pair list.
# --------------------------------------------------------------------------------------

# serialize_pairs (25): form_urlencode(pairs) == expected.
WPT_SERIALIZE_PAIRS: tuple[SerializeCase, ...] = (
    SerializeCase("Serialize space", (("a", "b c"),), "a=b+c"),
    SerializeCase("Serialize space", (("a b", "c"),), "a+b=c"),
    SerializeCase("Serialize empty value", (("a", ""),), "a="),
    SerializeCase("Serialize empty value", (("a", ""), ("a", "")), "a=&a="),
    SerializeCase("Serialize empty value", (("a", ""), ("a", ""), ("", "b")), "a=&a=&=b"),
    SerializeCase(
        "Serialize empty value", (("a", ""), ("a", ""), ("", "b"), ("", "")), "a=&a=&=b&="
    ),
    SerializeCase(
        "Serialize empty value",
        (("a", ""), ("a", ""), ("", "b"), ("", ""), ("", "")),
        "a=&a=&=b&=&=",
    ),
    SerializeCase("Serialize empty name", (("", "b"),), "=b"),
    SerializeCase("Serialize empty name", (("", "b"), ("", "b")), "=b&=b"),
    SerializeCase("Serialize empty name and value", (("", ""),), "="),
    SerializeCase("Serialize empty name and value", (("", ""), ("", "")), "=&="),
    SerializeCase("Serialize +", (("a", "b+c"),), "a=b%2Bc"),
    SerializeCase("Serialize +", (("a+b", "c"),), "a%2Bb=c"),
    SerializeCase("Serialize =", (("=", "a"),), "%3D=a"),
    SerializeCase("Serialize =", (("=", "a"), ("b", "=")), "%3D=a&b=%3D"),
    SerializeCase("Serialize &", (("&", "a"),), "%26=a"),
    SerializeCase("Serialize &", (("&", "a"), ("b", "&")), "%26=a&b=%26"),
    SerializeCase("Serialize *-._", (("a", "*-._"),), "a=*-._"),
    SerializeCase("Serialize *-._", (("*-._", "c"),), "*-._=c"),
    SerializeCase("Serialize %", (("a", "b%c"),), "a=b%25c"),
    SerializeCase("Serialize %", (("a%b", "c"),), "a%25b=c"),
    SerializeCase("Serialize \\0", (("a", "b\x00c"),), "a=b%00c"),
    SerializeCase("Serialize \\0", (("a\x00b", "c"),), "a%00b=c"),
    SerializeCase("Serialize \U0001f4a9", (("a", "b\U0001f4a9c"),), "a=b%F0%9F%92%A9c"),
    SerializeCase("Serialize \U0001f4a9", (("a\U0001f4a9b", "c"),), "a%F0%9F%92%A9b=c"),
)

# parse_then_serialize (7): form_urlencode(form_urldecode(input)) == expected.
WPT_PARSE_THEN_SERIALIZE: tuple[tuple[str, str, str], ...] = (
    ("Serialize %", "id=0&value=%", "id=0&value=%25"),
    ("URLSearchParams.toString", "a=b&c=d&&e&&", "a=b&c=d&e="),
    ("URLSearchParams.toString", "a = b &a=b&c=d%20", "a+=+b+&a=b&c=d+"),
    ("URLSearchParams.toString", "a=&a=b", "a=&a=b"),
    ("URLSearchParams.toString", "b=%2sf%2a", "b=%252sf*"),
    ("URLSearchParams.toString", "b=%2%2af%2a", "b=%252*f*"),
    ("URLSearchParams.toString", "b=%%2a", "b=%25*"),
)

# url_search_params (2). Carried over: the form-codec part. The params list starts as
# form_urldecode(query) (empty when the URL has no query); each step appends its pair;
# expect_params must equal form_urlencode(list). Also checked: an appended step sets the
# URL's query to that serialization, so expect_url_href == href_before_query + "?" +
# expect_params; and the first expected href keeps "a=b,c" as is, which is the
# special-query percent-encode of "a=b,c" (the URL parser's query state, "http" being a
# special scheme).
# Not testable without a URL parser (so not claimed): that parsing `url` yields exactly
# `query` and `href_before_query` (host and path parsing, href serialization). Those two
# fields are facts about the WHATWG URL parser for these two URLs, taken from WPT's own
# expected hrefs, and are what the checks above build on.
WPT_URL_SEARCH_PARAMS: tuple[UrlSearchParamsCase, ...] = (
    UrlSearchParamsCase(
        "URLSearchParams connected to URL",
        url="http://www.example.com/?a=b,c",
        query="a=b,c",
        href_before_query="http://www.example.com/",
        steps=(
            ParamsStep(None, "a=b%2Cc", expect_url_href="http://www.example.com/?a=b,c"),
            ParamsStep(
                ("x", "y"), "a=b%2Cc&x=y", expect_url_href="http://www.example.com/?a=b%2Cc&x=y"
            ),
        ),
    ),
    UrlSearchParamsCase(
        "URLSearchParams must not do newline normalization",
        url="http://www.example.com/",
        query=None,
        href_before_query="http://www.example.com/",
        steps=(
            ParamsStep(("a\nb", "c\rd"), None),
            ParamsStep(("e\n\rf", "g\r\nh"), "a%0Ab=c%0Dd&e%0A%0Df=g%0D%0Ah"),
        ),
    ),
)


# --------------------------------------------------------------------------------------
# web-platform-tests url/resources/setters_tests.json (wpt@3d12af38b405c55261c637ea2e2565
# f699c9b913, sha256 4ada1066...6c68c0), BSD-3-Clause: the `search`, `hash` and `pathname`
# cases whose expected getter is "prefix + percent-encode(new value)", i.e. the new value
# reaches the component changed only by the setter's fixed preprocessing and by
# percent-encoding. Only the getter of the set attribute is carried over (the expected
# href needs a URL serializer).
#
# Selection rule, applied to every case of the three attributes (URL Standard 6.1 setters,
# 4.4 basic URL parser with a state override):
#   all       new_value is not "" (the empty string nulls the component and may strip
#             an opaque path's trailing spaces: not percent-encoding).
#   pathname  href has no opaque path (for a non-special scheme, "scheme:" is followed by
#             "/"); after removing tab/LF/CR and, for special schemes, reading "\" as "/",
#             and dropping one leading "/", no "/"-separated segment is a single- or
#             double-dot segment ("." ".." "%2e" ".%2E" ...); for "file" no segment is a
#             Windows drive letter.
# Admitted: search 9 of 16, hash 17 of 22, pathname 19 of 32 = 45 cases.
# Rejected: search/hash: the 7/5 empty new values; pathname: 4 empty, 3 opaque paths
# (mailto:, data:original, sc:original), 6 with dot segments ("../home", the special
# "\a\%2E\b\%2e.\c", "/var/log/../run", "//monkey/..//", "/.//p", "/..//p").
#
# How the test derives each getter (WPT_SETTER_* in test_conformance.py spell it out):
#   search    strip one leading "?", remove tab/LF/CR, percent-encode with the
#             special-query set if the scheme is special else the query set;
#             getter = "" if that is empty else "?" + it.
#   hash      strip one leading "#", remove tab/LF/CR, fragment set;
#             getter = "" if empty else "#" + it.
#   pathname  remove tab/LF/CR, drop one leading "/" (or "\" if special), path set
#             ("\" -> "/" for special schemes, both left unencoded);
#             getter = "/" + it.
# --------------------------------------------------------------------------------------

#: URL Standard 4.2: the special schemes (default ports aside).
SPECIAL_SCHEMES = frozenset({"ftp", "file", "http", "https", "ws", "wss"})

# The "every ASCII character" probe value WPT uses for all three attributes on "a:/".
_SETTER_PROBE = (
    "\x00\x01\t\n\r\x1f !\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}~\x7f\x80\x81\u00c9\u00e9"
)

WPT_SETTERS: tuple[SetterCase, ...] = (
    SetterCase("search", "https://example.net#nav", "lang=fr", "?lang=fr"),
    SetterCase("search", "https://example.net?lang=en-US#nav", "lang=fr", "?lang=fr"),
    SetterCase("search", "https://example.net?lang=en-US#nav", "?lang=fr", "?lang=fr"),
    SetterCase("search", "https://example.net?lang=en-US#nav", "??lang=fr", "??lang=fr"),
    SetterCase("search", "https://example.net?lang=en-US#nav", "?", ""),
    # "UTF-8 percent encoding with the query encode set. Tabs and newlines are removed."
    SetterCase(
        "search",
        "a:/",
        _SETTER_PROBE,
        "?%00%01%1F%20!%22%23$%&'()*+,-./09:;%3C=%3E?@AZ[\\]^_`az{|}~%7F%C2%80%C2%81%C3%89%C3%A9",
    ),
    # "Bytes already percent-encoded are left as-is"
    SetterCase("search", "http://example.net", "%c3%89t\u00e9", "?%c3%89t%C3%A9"),
    SetterCase("search", "http://example.net", " ", "?%20"),  # trailing space encoded
    SetterCase("search", "http://example.net", "\x00", "?%00"),  # trailing C0 encoded
    SetterCase("hash", "https://example.net", "main", "#main"),
    SetterCase("hash", "https://example.net#nav", "main", "#main"),
    SetterCase("hash", "https://example.net?lang=en-US", "##nav", "##nav"),
    SetterCase("hash", "https://example.net?lang=en-US#nav", "#main", "#main"),
    SetterCase("hash", "https://example.net?lang=en-US#nav", "#", ""),
    SetterCase("hash", "http://example.net", "#foo bar", "#foo%20bar"),
    SetterCase("hash", "http://example.net", '#foo"bar', "#foo%22bar"),
    SetterCase("hash", "http://example.net", "#foo<bar", "#foo%3Cbar"),
    SetterCase("hash", "http://example.net", "#foo>bar", "#foo%3Ebar"),
    SetterCase("hash", "http://example.net", "#foo`bar", "#foo%60bar"),
    # "Simple percent-encoding; tabs and newlines are removed"
    SetterCase(
        "hash",
        "a:/",
        _SETTER_PROBE,
        "#%00%01%1F%20!%22#$%&'()*+,-./09:;%3C=%3E?@AZ[\\]^_%60az{|}~%7F%C2%80%C2%81%C3%89%C3%A9",
    ),
    SetterCase("hash", "http://example.net", "a\x00b", "#a%00b"),  # NULLs in fragment
    SetterCase("hash", "non-spec:/", "a\x00b", "#a%00b"),
    SetterCase("hash", "http://example.net", "%c3%89t\u00e9", "#%c3%89t%C3%A9"),
    SetterCase("hash", "javascript:alert(1)", "castle", "#castle"),
    SetterCase("hash", "http://example.net", " ", "#%20"),
    SetterCase("hash", "http://example.net", "\x00", "#%00"),
    SetterCase("pathname", "foo:/some/path", "test", "/test"),
    SetterCase("pathname", "https://example.net#nav", "home", "/home"),
    # "\ is *not* a segment delimiter for non-'special' URLs"
    SetterCase(
        "pathname",
        "view-source+http://example.net/home?lang=fr#nav",
        "\\a\\%2E\\b\\%2e.\\c",
        "/\\a\\%2E\\b\\%2e.\\c",
    ),
    # "UTF-8 percent encoding with the default encode set. Tabs and newlines are removed."
    # (expects %5E for "^": the path set includes U+005E in the current standard)
    SetterCase(
        "pathname",
        "a:/",
        _SETTER_PROBE,
        "/%00%01%1F%20!%22%23$%&'()*+,-./09:;%3C=%3E%3F@AZ[\\]%5E_%60az%7B|%7D~%7F%C2%80%C2%81"
        "%C3%89%C3%A9",
    ),
    # "Bytes already percent-encoded are left as-is, including %2E outside dotted segments."
    SetterCase("pathname", "http://example.net", "%2e%2E%c3%89t\u00e9", "/%2e%2E%c3%89t%C3%A9"),
    SetterCase("pathname", "http://example.net", "?", "/%3F"),
    SetterCase("pathname", "http://example.net", "#", "/%23"),
    SetterCase("pathname", "sc://example.net", "?", "/%3F"),
    SetterCase("pathname", "sc://example.net", "#", "/%23"),
    SetterCase("pathname", "http://example.net", "/?\u00e9", "/%3F%C3%A9"),
    SetterCase("pathname", "http://example.net", "/#\u00e9", "/%23%C3%A9"),
    SetterCase("pathname", "file://monkey/", "\\\\", "//"),  # File URLs and (back)slashes
    SetterCase("pathname", "file:///unicorn", "//\\/", "////"),
    SetterCase("pathname", "non-spec:/", "//p", "//p"),
    SetterCase("pathname", "non-spec:/.//", "p", "/p"),  # "Drop /. from path"
    SetterCase("pathname", "data:/nospace", "space ", "/space%20"),
    SetterCase("pathname", "sc:/nospace", "space ", "/space%20"),
    SetterCase("pathname", "http://example.net", " ", "/%20"),
    SetterCase("pathname", "http://example.net", "\x00", "/%00"),
)


# --------------------------------------------------------------------------------------
# Seed 000: WHATWG URL Standard 1.3, the "percent-encode after encoding" examples table.
# The excerpt interleaves an old wording (userinfo set, explicit spaceAsPlus) and the
# current one; the current standard wins: a legacy encoding goes with the special-query
# set, or with the application/x-www-form-urlencoded set, for which spaceAsPlus is true.
# With the form set, "+" and "%" are encoded too, so "1+1 ≡ 2%20‽" gives
# "1%2B1+%81%DF+2%2520%26%238253%3B" (the old row "1+1+%81%DF+2%20%26%238253%3B" is the
# userinfo-set wording and is not carried over). The UTF-8 rows use the userinfo set in
# both wordings. ‽ is U+203D (decimal 8253), ≡ is U+2261 (Shift_JIS 0x81 0xDF).
# --------------------------------------------------------------------------------------

SEED_000_EXAMPLES: tuple[EncodeVector, ...] = (
    EncodeVector(" ", "special-query", "%20", encoding="shift_jis"),
    # Row elided by the excerpt (rowspan=3 shows two of three); its value is the
    # URL Standard's, and matches the "≡" bytes of the form-set row below.
    EncodeVector("\u2261", "special-query", "%81%DF", encoding="shift_jis"),
    EncodeVector("\u203d", "special-query", "%26%238253%3B", encoding="shift_jis"),
    EncodeVector("\u00a5", "special-query", "%1B(J\\%1B(B", encoding="iso-2022-jp"),
    EncodeVector(
        "1+1 \u2261 2%20\u203d",
        "application/x-www-form-urlencoded",
        "1%2B1+%81%DF+2%2520%26%238253%3B",
        encoding="shift_jis",
        space_as_plus=True,
    ),
    EncodeVector("\u203d", "userinfo", "%E2%80%BD"),
    EncodeVector("\u203d%25%2E", "userinfo", "%E2%80%BD%25%2E"),
)


# --------------------------------------------------------------------------------------
# Seed 001: "Percent-Encoding Guide" blog post. The SVG (a JS String.raw template: real
# newlines and tabs, a literal backslash in "\o/"), the data URI printed after
# `'data:image/svg+xml,' + encodeURI(rectSVG).replaceAll('#', '%23')`, and the mirror-
# polygon URI printed after `encodeQueryValue` of `vertices` and `style`, verbatim.
# --------------------------------------------------------------------------------------

SEED_001_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 128 128">\n'
    '\t<rect fill="#69E" x="20" y="20" width="15.2" height="87"/>\n'
    '\t<text fill="Gray" x="19" y="19">\\o/</text>\n'
    "</svg>"
)
SEED_001_DATA_URI_PREFIX = "data:image/svg+xml,"
SEED_001_DATA_URI = (
    "data:image/svg+xml,%3Csvg%20xmlns=%22http://www.w3.org/2000/svg%22%20viewBox=%220%200"
    "%20128%20128%22%3E%0A%09%3Crect%20fill=%22%2369E%22%20x=%2220%22%20y=%2220%22%20width="
    "%2215.2%22%20height=%2287%22/%3E%0A%09%3Ctext%20fill=%22Gray%22%20x=%2219%22%20y=%2219"
    "%22%3E%5Co/%3C/text%3E%0A%3C/svg%3E"
)
SEED_001_VERTICES = (
    "[[1,0],[0.58,0.58],[0,1],[-0.58,0.58],[-1,0],[-0.58,-0.58],[0,-1],[0.58,-0.58]]"
)
#: `background-image:url("${rectDataURI}");color-scheme:light dark`
SEED_001_STYLE = f'background-image:url("{SEED_001_DATA_URI}");color-scheme:light dark'
#: `'https://home.6t.lt/66c/mirror-polygon.svg' + query`, query built from encodeQueryValue.
SEED_001_QUERY_PREFIX = "https://home.6t.lt/66c/mirror-polygon.svg"
SEED_001_MIRROR_POLYGON_URI = (
    "https://home.6t.lt/66c/mirror-polygon.svg?v=%5B%5B1,0%5D,%5B0.58,0.58%5D,%5B0,1%5D,"
    "%5B-0.58,0.58%5D,%5B-1,0%5D,%5B-0.58,-0.58%5D,%5B0,-1%5D,%5B0.58,-0.58%5D%5D&i=background"
    "-image:url(%22data:image/svg%2Bxml,%253Csvg%2520xmlns=%2522http://www.w3.org/2000/svg"
    "%2522%2520viewBox=%25220%25200%2520128%2520128%2522%253E%250A%2509%253Crect%2520fill="
    "%2522%252369E%2522%2520x=%252220%2522%2520y=%252220%2522%2520width=%252215.2%2522%2520"
    "height=%252287%2522/%253E%250A%2509%253Ctext%2520fill=%2522Gray%2522%2520x=%252219%2522"
    "%2520y=%252219%2522%253E%255Co/%253C/text%253E%250A%253C/svg%253E%22);color-scheme:light"
    "+dark&h=6"
)

#: ECMA-262 19.2.6 (and seed 001's grammar): the characters each JS function leaves
#: unencoded. encodeURIComponent = unreserved | previously-unreserved; encodeURI adds the
#: RFC 2396 reserved characters and "#".
JS_ENCODE_URI_COMPONENT_UNESCAPED = (
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()"
)
JS_ENCODE_URI_UNESCAPED = JS_ENCODE_URI_COMPONENT_UNESCAPED + ";/?:@&=+$,#"
