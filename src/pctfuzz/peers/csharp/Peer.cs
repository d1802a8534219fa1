// pctfuzz's C# peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
// docs/peers.md) with the URL functions of Mono's class libraries. Built by `make peers`
// with mcs (Debian's mono-complete), against System.Web; no other dependency.
//
// Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found them;
// pctfuzz/_internal/oracles/csharp.py declares the same):
//   mono-uri           Uri.EscapeDataString, Uri.EscapeUriString (encode, one set each),
//                      Uri.UnescapeDataString (decode)
//   mono-httputility   System.Web.HttpUtility.UrlEncode(s) (encode), UrlDecode(s) (decode),
//                      ParseQueryString(s) (form parse)
//   mono-webutility    System.Net.WebUtility.UrlEncode(s) (encode), UrlDecode(s) (decode)
//
// C# strings are UTF-16: the JSON reader keeps a lone surrogate as a lone code unit, so
// it reaches the library as pctfuzz meant it. Mono 6.8 has no System.Text.Json and
// Debian ships no Newtonsoft.Json with it, so the little JSON the protocol needs is
// read and written here.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Collections.Specialized;
using System.IO;
using System.Net;
using System.Text;
using System.Web;

sealed class Unsupported : Exception {
    public Unsupported(string reason) : base(reason) {}
}

sealed class ProtocolError : Exception {
    public ProtocolError(string message) : base(message) {}
}

// A JSON null written as null (a NameValueCollection's value without a name).
sealed class JsonNull {
    public static readonly JsonNull Value = new JsonNull();
}

static class Json {
    public static object Parse(string s) {
        int i = 0;
        object v = Value(s, ref i);
        Ws(s, ref i);
        if (i != s.Length) throw new ProtocolError("trailing characters after JSON");
        return v;
    }

    static object Value(string s, ref int i) {
        Ws(s, ref i);
        if (i >= s.Length) throw new ProtocolError("unexpected end of JSON");
        char c = s[i];
        if (c == '{') {
            var m = new Dictionary<string, object>();
            i++; Ws(s, ref i);
            if (Peek(s, i, '}')) { i++; return m; }
            while (true) {
                Ws(s, ref i);
                string k = Str(s, ref i);
                Ws(s, ref i); Expect(s, ref i, ':');
                m[k] = Value(s, ref i);
                Ws(s, ref i);
                if (Peek(s, i, ',')) { i++; continue; }
                Expect(s, ref i, '}');
                return m;
            }
        }
        if (c == '[') {
            var l = new List<object>();
            i++; Ws(s, ref i);
            if (Peek(s, i, ']')) { i++; return l; }
            while (true) {
                l.Add(Value(s, ref i));
                Ws(s, ref i);
                if (Peek(s, i, ',')) { i++; continue; }
                Expect(s, ref i, ']');
                return l;
            }
        }
        if (c == '"') return Str(s, ref i);
        if (string.CompareOrdinal(s, i, "true", 0, 4) == 0) { i += 4; return true; }
        if (string.CompareOrdinal(s, i, "false", 0, 5) == 0) { i += 5; return false; }
        if (string.CompareOrdinal(s, i, "null", 0, 4) == 0) { i += 4; return JsonNull.Value; }
        int start = i;
        while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
        double d;
        if (start == i || !double.TryParse(s.Substring(start, i - start),
                System.Globalization.NumberStyles.Float,
                System.Globalization.CultureInfo.InvariantCulture, out d)) {
            throw new ProtocolError("bad JSON at " + start);
        }
        return d;
    }

    // A lone \uD800 stays a lone UTF-16 code unit, as pctfuzz meant it.
    static string Str(string s, ref int i) {
        Expect(s, ref i, '"');
        var b = new StringBuilder();
        while (true) {
            if (i >= s.Length) throw new ProtocolError("unterminated JSON string");
            char c = s[i++];
            if (c == '"') return b.ToString();
            if (c != '\\') { b.Append(c); continue; }
            if (i >= s.Length) throw new ProtocolError("unterminated JSON escape");
            char e = s[i++];
            switch (e) {
                case 'n': b.Append('\n'); break;
                case 't': b.Append('\t'); break;
                case 'r': b.Append('\r'); break;
                case 'b': b.Append('\b'); break;
                case 'f': b.Append('\f'); break;
                case 'u':
                    if (i + 4 > s.Length) throw new ProtocolError("short \\u escape");
                    b.Append((char) Convert.ToInt32(s.Substring(i, 4), 16));
                    i += 4;
                    break;
                default: b.Append(e); break;
            }
        }
    }

    static bool Peek(string s, int i, char c) { return i < s.Length && s[i] == c; }

    static void Expect(string s, ref int i, char c) {
        if (!Peek(s, i, c)) throw new ProtocolError("expected '" + c + "' at " + i);
        i++;
    }

    static void Ws(string s, ref int i) {
        while (i < s.Length && " \t\r\n".IndexOf(s[i]) >= 0) i++;
    }

    // ASCII only: every other code unit as \uXXXX, a lone surrogate too (Python's json
    // reads it back as that lone surrogate).
    static void Quote(StringBuilder b, string t) {
        b.Append('"');
        foreach (char c in t) {
            if (c == '"' || c == '\\') b.Append('\\').Append(c);
            else if (c < 0x20 || c > 0x7e) b.AppendFormat("\\u{0:x4}", (int) c);
            else b.Append(c);
        }
        b.Append('"');
    }

    public static void Write(StringBuilder b, object v) {
        if (v is string) { Quote(b, (string) v); return; }
        if (v is bool) { b.Append((bool) v ? "true" : "false"); return; }
        if (v is long || v is int) { b.Append(v); return; }
        if (v is IDictionary<string, object>) {
            b.Append('{');
            bool first = true;
            foreach (var e in (IDictionary<string, object>) v) {
                if (!first) b.Append(',');
                first = false;
                Quote(b, e.Key);
                b.Append(':');
                Write(b, e.Value);
            }
            b.Append('}');
            return;
        }
        if (v is IList) {
            b.Append('[');
            bool first = true;
            foreach (object o in (IList) v) {
                if (!first) b.Append(',');
                first = false;
                Write(b, o);
            }
            b.Append(']');
            return;
        }
        b.Append("null");
    }
}

static class Peer {
    // Uri.EscapeDataString: RFC 3986's unreserved characters raw; Uri.EscapeUriString:
    // those and the reserved ones ('[' and ']' too, unlike encodeURI).
    const string DataString = "rfc3986-unreserved";
    const string UriString = "encodeURI-[]";
    // HttpUtility.UrlEncode and WebUtility.UrlEncode: letters, digits and - _ . ! * ( )
    // raw, a space '+': the component set, and ' and ~ encoded too.
    const string UrlEncodeSet = "component+'~";

    static readonly string[] Impls = {"mono-uri", "mono-httputility", "mono-webutility"};

    static Dictionary<string, object> Map(params object[] kv) {
        var m = new Dictionary<string, object>();
        for (int k = 0; k < kv.Length; k += 2) m[(string) kv[k]] = kv[k + 1];
        return m;
    }

    static string Text(Dictionary<string, object> r, string field, string api) {
        object value;
        r.TryGetValue(field, out value);
        if (value is string) return (string) value;
        if (value is IDictionary<string, object>) throw new Unsupported(api + " takes a string, not bytes");
        throw new ProtocolError(field + " must be a string or {\"base64\": ...}");
    }

    // UTF-8 of a decoder's string, a lone surrogate as U+FFFD (WHATWG "UTF-8 encode"):
    // the peer's conversion for the protocol's bytes answer, not the library's.
    static readonly Encoding Utf8 = new UTF8Encoding(false, false);

    static object Bytes(string s) {
        return Map("base64", Convert.ToBase64String(Utf8.GetBytes(s)));
    }

    static object Encode(string impl, Dictionary<string, object> r) {
        string set = r["set"] as string;
        object plusValue;
        r.TryGetValue("space_as_plus", out plusValue);
        bool plus = plusValue is bool && (bool) plusValue;
        string v = Text(r, "value", impl);
        if (!"UTF-8".Equals(r["encoding"] as string)) {
            throw new Unsupported(impl + " is asked for UTF-8 only");
        }
        if (impl == "mono-uri") {
            if (plus && v.IndexOf(' ') >= 0) throw new Unsupported("Uri writes a space as %20");
            if (set == DataString) return Uri.EscapeDataString(v);
            if (set == UriString) return Uri.EscapeUriString(v);
            throw new Unsupported("Uri has no function for the set " + set);
        }
        if (set != UrlEncodeSet) throw new Unsupported(impl + " has one set");
        if (!plus && v.IndexOf(' ') >= 0) throw new Unsupported("UrlEncode writes a space as '+'");
        return impl == "mono-httputility" ? HttpUtility.UrlEncode(v) : WebUtility.UrlEncode(v);
    }

    static object Decode(string impl, Dictionary<string, object> r) {
        string v = Text(r, "value", impl);
        switch (impl) {
            case "mono-uri": return Bytes(Uri.UnescapeDataString(v));
            case "mono-httputility": return Bytes(HttpUtility.UrlDecode(v));
            default: return Bytes(WebUtility.UrlDecode(v));
        }
    }

    // The NameValueCollection as pairs: each key (AllKeys: in the order it was first
    // added; keys compare without case), then each of its values in order. A value
    // added without a name (no '=' in its sequence) is under the null key: [null, v].
    static object FormParse(Dictionary<string, object> r) {
        NameValueCollection c = HttpUtility.ParseQueryString(Text(r, "text", "ParseQueryString"));
        var pairs = new List<object>();
        foreach (string key in c.AllKeys) {
            foreach (string value in c.GetValues(key)) {
                pairs.Add(new List<object> {key == null ? (object) JsonNull.Value : key, value});
            }
        }
        return pairs;
    }

    static object Answer(Dictionary<string, object> r) {
        string impl = r.ContainsKey("impl") ? r["impl"] as string : null;
        string q = r.ContainsKey("q") ? r["q"] as string : null;
        if (Array.IndexOf(Impls, impl) < 0) throw new ProtocolError("unknown implementation " + impl);
        switch (q) {
            case "encode": return Encode(impl, r);
            case "decode": return Decode(impl, r);
            case "form_parse":
                if (impl != "mono-httputility") throw new Unsupported(impl + " has no form parser");
                return FormParse(r);
            case "form_serialize":
                throw new Unsupported(impl + " has no form serializer");
            default:
                throw new ProtocolError("unknown question " + q);
        }
    }

    static string MonoVersion() {
        // Mono.Runtime.GetDisplayName (internal): "6.8.0.105 (Debian 6.8.0.105+dfsg-...)".
        Type runtime = Type.GetType("Mono.Runtime");
        var display = runtime == null ? null : runtime.GetMethod("GetDisplayName",
            System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static);
        string name = display == null ? Environment.Version.ToString()
                                      : (string) display.Invoke(null, null);
        int space = name.IndexOf(' ');
        return space < 0 ? name : name.Substring(0, space);
    }

    static object Handshake() {
        string version = MonoVersion();
        return Map("protocol", "pctfuzz-peer", "version", 1, "peer", "pctfuzz-csharp-peer",
            "runtime", "mono " + version,
            "implementations", Map(
                "mono-uri", Map("version", version,
                    "questions", new List<object> {"encode", "decode"},
                    "sets", new List<object> {DataString, UriString}),
                "mono-httputility", Map("version", version,
                    "questions", new List<object> {"encode", "decode", "form_parse"},
                    "sets", new List<object> {UrlEncodeSet}),
                "mono-webutility", Map("version", version,
                    "questions", new List<object> {"encode", "decode"},
                    "sets", new List<object> {UrlEncodeSet})));
    }

    static int Main() {
        var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        var output = new StreamWriter(Console.OpenStandardOutput(), new ASCIIEncoding());
        bool first = true;
        string line;
        while ((line = input.ReadLine()) != null) {
            if (line.Length == 0) continue;
            object reply;
            object id = null;
            try {
                var r = Json.Parse(line) as Dictionary<string, object>;
                if (r == null) throw new ProtocolError("not a JSON object");
                if (first) {
                    first = false;
                    object v;
                    r.TryGetValue("version", out v);
                    if (!"pctfuzz-peer".Equals(r.ContainsKey("protocol") ? r["protocol"] : null)
                            || !(v is double) || (double) v != 1) {
                        throw new ProtocolError("this peer speaks pctfuzz-peer version 1");
                    }
                    reply = Handshake();
                } else {
                    object rawId;
                    r.TryGetValue("id", out rawId);
                    if (!(rawId is double)) throw new ProtocolError("request without an id");
                    id = (long) (double) rawId;
                    try {
                        reply = Map("id", id, "ok", Answer(r));
                    } catch (Unsupported e) {
                        reply = Map("id", id, "unsupported", e.Message);
                    } catch (ProtocolError) {
                        throw;
                    } catch (Exception e) {
                        // The library threw: its type names the error (UriFormatException).
                        reply = Map("id", id, "error", Map("type", e.GetType().Name,
                                                           "message", e.Message ?? ""));
                    }
                }
            } catch (ProtocolError e) {
                first = false;
                reply = id == null ? Map("protocol_error", e.Message)
                                   : Map("id", id, "protocol_error", e.Message);
            }
            var b = new StringBuilder();
            Json.Write(b, reply);
            output.Write(b.Append('\n').ToString());
            output.Flush();
        }
        return 0;
    }
}
