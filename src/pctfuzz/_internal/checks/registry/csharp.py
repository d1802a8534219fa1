"""Built-in entries for Mono's URL functions (adapters ``mono-uri``, ``mono-httputility``
and ``mono-webutility``; ``pctfuzz._internal.oracles.csharp``), each cited to Mono 6.8's
source (``mcs/class/System.Web/System.Web/HttpUtility.cs``; ``System.Uri`` and
``System.Net.WebUtility`` come from Microsoft's reference source and CoreFX, which Mono
builds) or Microsoft's documentation, and to the WHATWG URL Standard.

The decoders return a string: invalid UTF-8 becomes U+FFFD, as .NET's UTF-8 decoder
counts it (``ED A0 80`` is two, where the Encoding Standard writes three), or stays
percent-encoded (``Uri.UnescapeDataString``). Three behaviours of ``HttpUtility`` are
real bugs that no entry accepts (docs/in-the-wild.md): ``UrlDecode`` writes a character
up to U+00FF as its low byte before the UTF-8 decode (a raw ``é`` and ``%u00e9`` are
lost), ``ParseQueryString`` HTML-decodes the whole query first (``&amp;`` separates
pairs; dotnet/corefx#23582), and strips a second leading ``?`` (dotnet/corefx#23574).
"""

from __future__ import annotations

import functools

from pctfuzz._internal.accept.decoders import U_ESCAPE
from pctfuzz._internal.accept.entry import MODEL, KnownDivergence
from pctfuzz._internal.accept.model import GROUPED_INVARIANT, Model
from pctfuzz._internal.accept.reconcilers import (
    modelled,
    percent_u,
    plus_as_space,
    replacement,
)
from pctfuzz._internal.cases import Case, DecodeCase, EncodeCase, FormParseCase
from pctfuzz._internal.checks.registry.common import (
    WHATWG_FORM_PARSE,
    WHATWG_PCT,
    Pair,
    add_entry,
    add_lowercase_hex,
    str_value_with_surrogate,
)
from pctfuzz._internal.operations import DECODE, ENCODE, FORM_PARSE
from pctfuzz._internal.outcome import Outcome
from pctfuzz._internal.reference import percent_encode
from pctfuzz._internal.sets import get_set
from pctfuzz._internal.text import surrogates_to_fffd

__all__ = ["ENTRIES"]

ENTRIES: list[KnownDivergence] = []
_entry = functools.partial(add_entry, ENTRIES)

_MONO = "Mono 6.8.0.105"
_HTTPUTILITY = f"{_MONO} mcs/class/System.Web/System.Web/HttpUtility.cs"
_URIHELPER = ("Microsoft reference source System/net/System/UriHelper.cs (Mono's System.dll "
              "builds it)")
_DECODE = "WHATWG URL Standard 1.3 (percent-decode)"

# --- System.Uri ------------------------------------------------------------------------------


#: EscapeString converts a run of non-ASCII code units at most this long at a time
#: (c_MaxUnicodeCharsReallocate - 1).
_RUN = 39


def escape_string(value: str, set_name: str) -> str | None:
    """UriHelper.EscapeString on ``value``'s UTF-16 code units, or None where it throws:
    each ASCII character as the set says; each run of non-ASCII units (at most ``_RUN``)
    as the escapes of its UTF-8 (a lone surrogate U+FFFD's), and when the run ends in a
    high surrogate the unit after it joins the run (escaped, even an ASCII one), unless
    the run is that surrogate alone or reaches the end: then it throws."""
    data = value.encode("utf-16-le", "surrogatepass")
    units = [int.from_bytes(data[k:k + 2], "little") for k in range(0, len(data), 2)]
    pes = get_set(set_name)
    out, i = [], 0
    while i < len(units):
        if units[i] <= 0x7F:
            out.append(percent_encode(chr(units[i]), pes))
            i += 1
            continue
        count, most = 1, min(len(units) - i, _RUN)
        while count < most and units[i + count] > 0x7F:
            count += 1
        if 0xD800 <= units[i + count - 1] <= 0xDBFF:
            if count == 1 or count == len(units) - i:
                return None
            count += 1
        run = b"".join(unit.to_bytes(2, "little") for unit in units[i:i + count])
        text = surrogates_to_fffd(run.decode("utf-16-le", "surrogatepass"))
        out.append("".join(f"%{b:02X}" for b in text.encode("utf-8")))
        i += count
    return "".join(out)


def _uri_surrogates(case: Case, expected: Outcome, actual: Outcome) -> Pair:
    if not isinstance(case, EncodeCase) or not isinstance(case.value, str):
        return None
    escaped = escape_string(case.value, case.set_name)
    if escaped is None:
        if actual.error is not None and type(actual.error).__name__ == "UriFormatException":
            return actual, actual
        return None
    return Outcome(escaped), actual


_entry(
    id="mono-uri-escape-lone-surrogate",
    impl="mono-uri",
    check=ENCODE.name,
    summary="Uri.EscapeDataString and EscapeUriString write a lone surrogate as U+FFFD, with "
    "the unit after a lone high one, or throw UriFormatException",
    applies=str_value_with_surrogate,
    reconcile=_uri_surrogates,
    reference="refuses: NotScalarValueError",
    implementation="%EF%BF%BD, in a run of non-ASCII characters encoded at once: a run "
    "that ends in a high surrogate takes the next unit too, escaped even if ASCII "
    "('\\x80\\ud800a' is '%C2%80%EF%BF%BD%61'); UriFormatException 'Invalid URI: There is "
    "an invalid sequence in the string.' when that run is the surrogate alone or ends the "
    "string ('\\ud800a', 'a\\ud800')",
    citation=f"{_URIHELPER}, EscapeString ('Is the last a high surrogate?' ... 'if (count == "
    "1 || count == end - i) throw new UriFormatException(SR.GetString(SR.net_uri_BadString))' "
    "... 'need to grab one more char as a Surrogate except when it's a bogus input'); "
    "dotnet/runtime's "
    "EscapeUnescapeIriTests.ReplacesStandaloneSurrogatesWithReplacementChar (.NET later "
    f"writes every lone surrogate as %EF%BF%BD); {WHATWG_PCT} takes a scalar value string",
    why="a lone surrogate is no scalar value: it is refused, or replaced by U+FFFD as a "
    "USVString conversion does, never encoded as surrogate bytes; the character it takes "
    "with it is escaped, not lost (its escape decodes to it)",
    example=EncodeCase("\ud800", "rfc3986-unreserved"),
)

_KEPT = replacement("percent-encoded")
_entry(
    id="mono-uri-unescape-invalid-utf8",
    impl="mono-uri",
    check=DECODE.name,
    summary="Uri.UnescapeDataString leaves escapes whose bytes are not UTF-8 escaped "
    "(uppercase hex)",
    applies=lambda case: isinstance(case, DecodeCase),
    reconcile=_KEPT.reconcile,
    model=_KEPT.model,
    phase=_KEPT.phase,
    reference="the bytes (percent-decode, URL 1.3): '%FF' is the byte FF",
    implementation="a string: each invalid UTF-8 sequence written back as %HH ('%e9' as "
    "'%E9'), the rest decoded",
    citation=f"{_URIHELPER}, UnescapeString and MatchUTF8Sequence ('Need to check for "
    "invalid utf sequences that may not have given any chars ... get the invalid sequence "
    f"bytes that we just copy off', escaped again with EscapeAsciiChar); {_DECODE}",
    why="UnescapeDataString returns text: it decodes what is UTF-8 and keeps the rest as "
    "it was (escaped), so no byte is lost",
    example=DecodeCase("%FF"),
)

# --- HttpUtility and WebUtility: encode -----------------------------------------------------
# Both write a lone surrogate as %EF%BF%BD (Encoding.UTF8's replacement fallback): what a
# USVString conversion gives it, which the differential check counts as agreement.
add_lowercase_hex(
    ENTRIES,
    id="mono-httputility-urlencode-lowercase",
    impl="mono-httputility",
    function="HttpUtility.UrlEncode",
    source=f"{_HTTPUTILITY}, UrlEncodeChar (its hexChars table holds the lowercase digits "
    "a-f; WebUtility.UrlEncode writes uppercase)",
    example=EncodeCase("/", "component+'~", "UTF-8", True),
)

# --- HttpUtility and WebUtility: decode -----------------------------------------------------


_PLUS = plus_as_space()
_DOTNET = replacement("dotnet")
_U = percent_u()
_WEBUTILITY = (f"{_MONO} System.Net.WebUtility (CoreFX's WebUtility.cs: UrlDecodeInternal "
               "and its UrlDecoder, whose FlushBytes decodes the bytes with Encoding.UTF8)")
for _impl, _function, _source in (("mono-httputility", "HttpUtility.UrlDecode",
                                   f"{_HTTPUTILITY}, UrlDecode"),
                                  ("mono-webutility", "WebUtility.UrlDecode", _WEBUTILITY)):
    _entry(
        id=f"{_impl}-urldecode-plus",
        impl=_impl,
        check=DECODE.name,
        summary=f"{_function} decodes '+' as a space",
        applies=lambda case: isinstance(case, DecodeCase),
        reconcile=_PLUS.reconcile,
        model=_PLUS.model,
        phase=_PLUS.phase,
        reference="keeps '+' (percent-decode, URL 1.3)",
        implementation="'+' is a space, then percent-decodes",
        citation=f"{_source} ('+' written as ' '); Microsoft docs, {_function}: 'Converts a "
        "string that has been encoded for transmission in a URL into a decoded string' "
        f"(the inverse of UrlEncode, which writes a space '+'); {WHATWG_FORM_PARSE} step 3.3",
        why="a form decoder: URL 5.1 reads '+' in a name or value as a space",
        example=DecodeCase("a+b"),
    )
    if _impl == "mono-httputility":
        _entry(
            id="mono-httputility-urldecode-u-escape",
            impl=_impl,
            check=DECODE.name,
            summary="HttpUtility.UrlDecode decodes '%uXXXX' (UrlEncodeUnicode's escape) as "
            "the UTF-16 code unit XXXX",
            applies=lambda case: isinstance(case, DecodeCase) and isinstance(case.value, str)
            and U_ESCAPE.search(case.value) is not None,
            reconcile=_U.reconcile,
            model=_U.model,
            phase=_U.phase,
            reference="keeps '%u0041' as it is (no escape: 'u' is no hex digit)",
            implementation="'%u0041' is 'A', '%uD83D%uDE00' one character U+1F600; a code "
            "unit of no character (a lone surrogate) U+FFFD",
            citation=f"{_HTTPUTILITY}, UrlDecode ('// unicode hex sequence': GetChar (s, "
            "i + 2, 4)) and UrlEncodeUnicode, which writes '%uXXXX'; Microsoft docs, "
            "HttpUtility.UrlEncodeUnicode (obsolete: 'Use UrlEncode(String)'); "
            f"{_DECODE}",
            why="the decoder reads the escape its own legacy encoder writes; '%u' is no "
            "percent-encoded byte, so no other decoder gives it a meaning to lose",
            example=DecodeCase("%u0041"),
        )
    _entry(
        id=f"{_impl}-urldecode-replacement",
        impl=_impl,
        check=DECODE.name,
        summary=f"{_function} returns a string: invalid UTF-8 as U+FFFD, one per maximal "
        "subpart, a lead byte and a continuation byte out of its range one (.NET's decoder)",
        applies=lambda case: isinstance(case, DecodeCase),
        reconcile=_DOTNET.reconcile,
        model=_DOTNET.model,
        phase=_DOTNET.phase,
        reference="the bytes (percent-decode, URL 1.3): '%FF' is the byte FF",
        implementation="U+FFFD for invalid UTF-8: 'ED A0 80' two, 'C0 AF' two, 'F0 9F 98' "
        "one",
        citation=f"{_source} (Encoding.UTF8's GetString: its DecoderReplacementFallback "
        "writes U+FFFD); Unicode 15.0 section 3.9 (U+FFFD substitution of maximal subparts "
        f"is a recommended practice, not a requirement); {_DECODE}",
        why="the function returns text; a valid sequence decodes as the bytes do, only "
        "ill-formed bytes are replaced",
        example=DecodeCase("%FF"),
    )


# --- HttpUtility.ParseQueryString -----------------------------------------------------------
#: Mono's ParseQueryString without its two bugs (the HTML decode of the query, the second
#: '?' stripped): one leading '?' dropped; the rest split at every '&' (an empty
#: sequence, and the one after a final '&', kept); a sequence without '=' a value of the
#: null key; names and values as UrlDecode decodes them ('+' a space, '%uXXXX', invalid
#: UTF-8 as .NET counts it); grouped as a NameValueCollection groups its keys. A model,
#: so a rule found beside it composes with it (a form finding named against code was one
#: finding per input shape: 15 in a 90 s campaign).
_COLLECTION = Model(query_mark=True, empty="kept", bare_values=True, order=GROUPED_INVARIANT,
                    percent_u=True, replacement="dotnet")


_entry(
    id="mono-httputility-parsequerystring-collection",
    impl="mono-httputility",
    check=FORM_PARSE.name,
    summary="ParseQueryString returns a NameValueCollection: values grouped under keys "
    "compared as culture-aware text without case, a sequence without '=' (an empty one "
    "too) a value without a name",
    applies=lambda case: isinstance(case, FormParseCase) and isinstance(case.text, str),
    reconcile=modelled(_COLLECTION),
    model=_COLLECTION,
    phase=MODEL,
    reference="the pairs in order; a sequence without '=' is a name with an empty value; "
    "empty sequences skipped",
    implementation="the keys in the order first added, each with its values ('a=1&b=2&A=3' "
    "is a: 1, 3; b: 2; 'a%00' is the key 'a' too: a NUL is ignorable), a sequence without "
    "'=' a value of the null key (answered with the name ''), one after a final '&' too; "
    "names and values decoded by UrlDecode",
    citation=f"{_HTTPUTILITY}, ParseQueryString ('if (valuePos == -1) {{ name = null; "
    "valuePos = namePos; }}', then result.Add (name, value)) and the collection it returns "
    "(HttpQSCollection, a NameValueCollection); Microsoft reference source "
    "NameObjectCollectionBase.cs (its default key comparer is "
    "StringComparer.InvariantCultureIgnoreCase, a CultureAwareComparer on Mono 6.8); "
    "Microsoft docs, 'Best practices for comparing strings in .NET': embedded null "
    "characters 'are ignored when you use the String.Compare and String.Equals methods to "
    "perform culture-sensitive comparisons (including comparisons that use the invariant "
    "culture)'; "
    "Microsoft docs, HttpUtility.ParseQueryString: 'Parses a query string into a "
    "NameValueCollection using UTF8 encoding' and NameValueCollection: 'This collection is "
    f"based on the NameObjectCollectionBase class ... Each element is a key/value pair'; "
    f"{WHATWG_FORM_PARSE}",
    why="documented: the function returns a collection keyed by name, not a list of pairs; "
    "every value is kept, and a value without a name stays apart (the null key)",
    example=FormParseCase("a=1&b&A=2"),
)
