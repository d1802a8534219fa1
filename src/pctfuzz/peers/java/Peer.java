// pctfuzz's Java peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
// docs/peers.md) with the JDK's java.net. Built by `make peers` (javac, no dependencies).
//
// Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found them;
// pctfuzz/oracles/java.py declares the same):
//   java-urlencoder   URLEncoder.encode(s, charset) (encode: UTF-8, windows-1252, Shift_JIS),
//                     URLDecoder.decode(s, UTF_8) (decode)
//   java-uri          the multi-argument java.net.URI constructor, one component per set
//                     (path, query, userinfo; the fragment's set is the query's), read back with toASCIIString()
//
// Java strings are UTF-16, so a lone surrogate from pctfuzz reaches the library as is.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Peer {
    static final class Unsupported extends Exception {
        Unsupported(String reason) { super(reason); }
    }

    static final class ProtocolError extends Exception {
        ProtocolError(String message) { super(message); }
    }

    static final String ENCODER_SET = "application/x-www-form-urlencoded";
    static final String URI_PATH = "rfc3986-pchar-/";
    static final String URI_QUERY = "rfc3986-query-[]";
    static final String URI_USERINFO = "rfc3986-pchar+@";
    static final String[] ENCODINGS = {"UTF-8", "windows-1252", "Shift_JIS"};

    // --- JSON: the little the protocol needs ---------------------------------------------
    static final class Json {
        final String s;
        int i;
        Json(String s) { this.s = s; }

        Object value() throws ProtocolError {
            ws();
            if (i >= s.length()) throw new ProtocolError("unexpected end of JSON");
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                i++; ws();
                if (peek('}')) { i++; return m; }
                while (true) {
                    ws();
                    String k = string();
                    ws(); expect(':');
                    m.put(k, value());
                    ws();
                    if (peek(',')) { i++; continue; }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                i++; ws();
                if (peek(']')) { i++; return l; }
                while (true) {
                    l.add(value());
                    ws();
                    if (peek(',')) { i++; continue; }
                    expect(']');
                    return l;
                }
            }
            if (c == '"') return string();
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            if (start == i) throw new ProtocolError("bad JSON at " + i);
            return Double.valueOf(s.substring(start, i));
        }

        // A lone \\uD800 stays a lone UTF-16 code unit, as pctfuzz meant it.
        String string() throws ProtocolError {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw new ProtocolError("unterminated JSON string");
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') { b.append(c); continue; }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n': b.append('\n'); break;
                    case 't': b.append('\t'); break;
                    case 'r': b.append('\r'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'u': b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
                    default: b.append(e);
                }
            }
        }

        boolean peek(char c) { return i < s.length() && s.charAt(i) == c; }
        void expect(char c) throws ProtocolError {
            if (!peek(c)) throw new ProtocolError("expected '" + c + "' at " + i);
            i++;
        }
        void ws() { while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++; }
    }

    static void quote(StringBuilder b, String t) {
        b.append('"');
        for (int k = 0; k < t.length(); k++) {
            char c = t.charAt(k);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        b.append('"');
    }

    static void write(StringBuilder b, Object v) {
        if (v instanceof String) { quote(b, (String) v); return; }
        if (v instanceof Number || v instanceof Boolean) { b.append(v); return; }
        if (v instanceof Map) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                if (!first) b.append(',');
                first = false;
                quote(b, (String) e.getKey());
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
            return;
        }
        if (v instanceof List) {
            b.append('[');
            boolean first = true;
            for (Object o : (List<?>) v) {
                if (!first) b.append(',');
                first = false;
                write(b, o);
            }
            b.append(']');
            return;
        }
        b.append("null");
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int k = 0; k < kv.length; k += 2) m.put((String) kv[k], kv[k + 1]);
        return m;
    }

    // --- the implementations ---------------------------------------------------------------
    static String text(Object value, String api) throws Unsupported, ProtocolError {
        if (value instanceof String) return (String) value;
        if (value instanceof Map) throw new Unsupported(api + " takes a String, not bytes");
        throw new ProtocolError("value must be a string or {\"base64\": ...}");
    }

    /** The part of an ASCII URI string between prefix and suffix. */
    static String between(String uri, String prefix, String suffix) throws ProtocolError {
        if (!uri.startsWith(prefix) || !uri.endsWith(suffix)) {
            throw new ProtocolError("unexpected URI " + uri);
        }
        return uri.substring(prefix.length(), uri.length() - suffix.length());
    }

    static String uriComponent(String set, String v) throws Exception {
        switch (set) {
            case URI_PATH:
                return between(new URI("http", null, "h", -1, "/" + v, null, null).toASCIIString(), "http://h/", "");
            case URI_USERINFO:
                return between(new URI("http", v, "h", -1, "/", null, null).toASCIIString(), "http://", "@h/");
            default:
                throw new Unsupported("java-uri has no function for the set " + set);
        }
    }

    /** UTF-8 of a String, a lone surrogate as U+FFFD (WHATWG "UTF-8 encode"), where
     *  getBytes would write '?': the peer's conversion, not the library's. */
    static byte[] utf8(String s) throws java.nio.charset.CharacterCodingException {
        java.nio.ByteBuffer bb = StandardCharsets.UTF_8.newEncoder()
            .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
            .replaceWith(new byte[] {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD})
            .encode(java.nio.CharBuffer.wrap(s));
        byte[] out = new byte[bb.remaining()];
        bb.get(out);
        return out;
    }

    static Object encode(String impl, Map<String, Object> r) throws Exception {
        String v = text(r.get("value"), impl);
        boolean plus = Boolean.TRUE.equals(r.get("space_as_plus"));
        String set = (String) r.get("set");
        String encoding = (String) r.get("encoding");
        if (impl.equals("java-urlencoder")) {
            if (!ENCODER_SET.equals(set)) throw new Unsupported("URLEncoder has one set");
            if (!plus && v.indexOf(' ') >= 0) throw new Unsupported("URLEncoder writes a space as '+'");
            return URLEncoder.encode(v, Charset.forName(encoding));
        }
        if (!"UTF-8".equals(encoding)) throw new Unsupported("java.net.URI encodes UTF-8 only");
        if (plus && v.indexOf(' ') >= 0) throw new Unsupported("java.net.URI writes a space as %20");
        if (set.equals(URI_QUERY)) {
            return between(new URI("http", null, "h", -1, "/", v, null).toASCIIString(), "http://h/?", "");
        }
        return uriComponent(set, v);
    }

    static Object answer(Map<String, Object> r) throws Exception {
        String impl = (String) r.get("impl");
        String q = (String) r.get("q");
        if (!"java-urlencoder".equals(impl) && !"java-uri".equals(impl)) {
            throw new ProtocolError("unknown implementation " + impl);
        }
        switch (q == null ? "" : q) {
            case "encode":
                return encode(impl, r);
            case "decode":
                if (!impl.equals("java-urlencoder")) throw new Unsupported(impl + " does not percent-decode");
                String out = URLDecoder.decode(text(r.get("value"), "URLDecoder.decode"), StandardCharsets.UTF_8);
                return map("base64", Base64.getEncoder().encodeToString(utf8(out)));
            case "form_serialize":
            case "form_parse":
                throw new Unsupported(impl + " has no form API");
            default:
                throw new ProtocolError("unknown question " + q);
        }
    }

    static Map<String, Object> handshake() {
        String version = System.getProperty("java.version");
        List<Object> encoderSets = List.of(ENCODER_SET);
        List<Object> uriSets = List.of(URI_PATH, URI_QUERY, URI_USERINFO);
        return map("protocol", "pctfuzz-peer", "version", 1, "peer", "pctfuzz-java-peer",
            "runtime", "java " + version + " (" + System.getProperty("java.vm.name") + ")",
            "implementations", map(
                "java-urlencoder", map("version", version, "questions", List.of("encode", "decode"),
                    "sets", encoderSets),
                "java-uri", map("version", version, "questions", List.of("encode"), "sets", uriSets)));
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII));
        boolean first = true;
        String line;
        while ((line = in.readLine()) != null) {
            Map<String, Object> reply;
            Object id = null;
            try {
                Object parsed = new Json(line).value();
                if (!(parsed instanceof Map)) throw new ProtocolError("not a JSON object");
                @SuppressWarnings("unchecked")
                Map<String, Object> r = (Map<String, Object>) parsed;
                if (first) {
                    first = false;
                    Object v = r.get("version");
                    if (!"pctfuzz-peer".equals(r.get("protocol")) || !(v instanceof Double) || (Double) v != 1) {
                        throw new ProtocolError("this peer speaks pctfuzz-peer version 1");
                    }
                    reply = handshake();
                } else {
                    if (!(r.get("id") instanceof Double)) throw new ProtocolError("request without an id");
                    id = ((Double) r.get("id")).longValue();
                    try {
                        reply = map("id", id, "ok", answer(r));
                    } catch (Unsupported e) {
                        reply = map("id", id, "unsupported", e.getMessage());
                    } catch (ProtocolError e) {
                        throw e;
                    } catch (Exception e) {
                        String message = e.getMessage() == null ? "" : e.getMessage();
                        reply = map("id", id, "error", map("type", e.getClass().getSimpleName(), "message", message));
                    }
                }
            } catch (ProtocolError e) {
                first = false;
                reply = id == null ? map("protocol_error", e.getMessage()) : map("id", id, "protocol_error", e.getMessage());
            }
            StringBuilder b = new StringBuilder();
            write(b, reply);
            out.print(b.append('\n'));
            out.flush();
        }
    }
}
