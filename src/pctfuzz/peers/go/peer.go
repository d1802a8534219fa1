// pctfuzz's Go peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
// docs/peers.md) with Go's net/url. Built by `make peers` from the standard library only.
//
// One JSON object per line on stdin, one answer per line on stdout, in order; the first
// line is the handshake. Implementations (set names are pctfuzz's canonical names, as
// `pctfuzz probe` found them; pctfuzz/oracles/go.py declares the same):
//
//	go-queryescape   url.QueryEscape (encode), url.QueryUnescape (decode)
//	go-pathescape    url.PathEscape (encode), url.PathUnescape (decode)
//	go-values        url.Values.Encode (form serialize), url.ParseQuery (form parse)
//	go-url-path      (&url.URL{Path: v}).EscapedPath()
//	go-url-fragment  (&url.URL{Fragment: v}).EscapedFragment()
//	go-url-userinfo  url.User(v).String()
//	go-url-query     url.Parse("http://h/?" + v) then RawQuery (kept as written)
//
// Go strings are bytes: a value may arrive as bytes ({"base64": ...}) and decoded text
// is answered as bytes, so pctfuzz does the UTF-8 decoding the URL Standard does.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"sort"
	"strings"
)

type request struct {
	Protocol    string          `json:"protocol"`
	Version     *int            `json:"version"`
	ID          *int64          `json:"id"`
	Impl        string          `json:"impl"`
	Q           string          `json:"q"`
	Value       json.RawMessage `json:"value"`
	Set         string          `json:"set"`
	Encoding    string          `json:"encoding"`
	SpaceAsPlus bool            `json:"space_as_plus"`
	Pairs       [][]string      `json:"pairs"`
	Text        json.RawMessage `json:"text"`
}

type unsupported string

type encoder struct {
	fn   func(string) string
	plus bool // writes a space as "+"
	// fallible, when set, is called instead of fn: a function that may return an error.
	fallible func(string) (string, error)
}

type impl struct {
	encoders      map[string]encoder
	decode        func(string) (string, error)
	formSerialize func([][]string) string
	formParse     func(string) (url.Values, error)
}

func urlPath(s string) string     { u := url.URL{Path: s}; return u.EscapedPath() }
func urlFragment(s string) string { u := url.URL{Fragment: s}; return u.EscapedFragment() }
func userinfo(s string) string    { return url.User(s).String() }

// urlQuery is the RawQuery url.Parse reads: "encoded query values, without '?'"
// (pkg.go.dev/net/url#URL), taken as written; Parse refuses an ASCII control.
func urlQuery(s string) (string, error) {
	u, err := url.Parse("http://h/?" + s)
	if err != nil {
		return "", err
	}
	return u.RawQuery, nil
}

func valuesEncode(pairs [][]string) string {
	v := url.Values{}
	for _, p := range pairs {
		v.Add(p[0], p[1])
	}
	return v.Encode()
}

var impls = map[string]impl{
	"go-queryescape": {encoders: map[string]encoder{"rfc3986-unreserved": {fn: url.QueryEscape, plus: true}},
		decode: url.QueryUnescape},
	"go-pathescape": {encoders: map[string]encoder{"rfc3986-unreserved-$&%2B:=@": {fn: url.PathEscape, plus: false}},
		decode: url.PathUnescape},
	"go-values":       {formSerialize: valuesEncode, formParse: url.ParseQuery},
	"go-url-path":     {encoders: map[string]encoder{"rfc3986-pchar+!'()*-/": {fn: urlPath, plus: false}}},
	"go-url-fragment": {encoders: map[string]encoder{"rfc3986-query+'": {fn: urlFragment, plus: false}}},
	"go-url-userinfo": {encoders: map[string]encoder{"rfc3986-unreserved-$&%2B,;=": {fn: userinfo, plus: false}}},
	"go-url-query":    {encoders: map[string]encoder{"c0-control": {fallible: urlQuery}}},
}

func questions(im impl) []string {
	q := []string{}
	if im.encoders != nil {
		q = append(q, "encode")
	}
	if im.decode != nil {
		q = append(q, "decode")
	}
	if im.formSerialize != nil {
		q = append(q, "form_serialize")
	}
	if im.formParse != nil {
		q = append(q, "form_parse")
	}
	return q
}

func handshake() map[string]interface{} {
	out := map[string]interface{}{}
	for name, im := range impls {
		entry := map[string]interface{}{"version": strings.TrimPrefix(runtime.Version(), "go"), "questions": questions(im)}
		if im.encoders != nil {
			sets := []string{}
			for s := range im.encoders {
				sets = append(sets, s)
			}
			entry["sets"] = sets
		}
		out[name] = entry
	}
	return map[string]interface{}{"protocol": "pctfuzz-peer", "version": 1,
		"peer": "pctfuzz-go-peer", "runtime": "go " + runtime.Version(), "implementations": out}
}

// value reads a str (a JSON string) or bytes ({"base64": ...}); isBytes says which.
func value(raw json.RawMessage) (s string, isBytes bool, err error) {
	if len(raw) > 0 && raw[0] == '"' {
		err = json.Unmarshal(raw, &s)
		return s, false, err
	}
	var b struct {
		Base64 *string `json:"base64"`
	}
	if err = json.Unmarshal(raw, &b); err != nil || b.Base64 == nil {
		return "", false, fmt.Errorf("expected a string or {\"base64\": ...}")
	}
	data, err := base64.StdEncoding.DecodeString(*b.Base64)
	return string(data), true, err
}

func bytesAnswer(s string) map[string]string {
	return map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(s))}
}

func errorType(err error) string {
	switch err.(type) {
	case url.EscapeError:
		return "EscapeError"
	case url.InvalidHostError:
		return "InvalidHostError"
	case *url.Error:
		return "Error"
	}
	return "error"
}

// answer runs one request: its ok value, an error the library returned, or unsupported.
func answer(r *request) (ok interface{}, libErr error, unsup unsupported, protoErr string) {
	im, found := impls[r.Impl]
	if !found {
		return nil, nil, "", "unknown implementation " + r.Impl
	}
	switch r.Q {
	case "encode":
		enc, has := im.encoders[r.Set]
		if !has {
			return nil, nil, unsupported(r.Impl + " has no function for the set " + r.Set), ""
		}
		v, isBytes, err := value(r.Value)
		if err != nil {
			return nil, nil, "", "value: " + err.Error()
		}
		if !isBytes && r.Encoding != "UTF-8" {
			return nil, nil, "Go strings are UTF-8: a legacy encoding needs bytes", ""
		}
		if r.SpaceAsPlus != enc.plus && strings.Contains(v, " ") {
			return nil, nil, "this function writes a space one way only", ""
		}
		if enc.fallible != nil {
			out, err := enc.fallible(v)
			if err != nil {
				return nil, err, "", ""
			}
			return out, nil, "", ""
		}
		return enc.fn(v), nil, "", ""
	case "decode":
		if im.decode == nil {
			return nil, nil, unsupported(r.Impl + " does not percent-decode"), ""
		}
		v, _, err := value(r.Value)
		if err != nil {
			return nil, nil, "", "value: " + err.Error()
		}
		out, err := im.decode(v)
		if err != nil {
			return nil, err, "", ""
		}
		return bytesAnswer(out), nil, "", ""
	case "form_serialize":
		if im.formSerialize == nil {
			return nil, nil, unsupported(r.Impl + " does not serialize forms"), ""
		}
		if r.Encoding != "UTF-8" {
			return nil, nil, "url.Values.Encode writes the strings' bytes (UTF-8 here)", ""
		}
		for _, p := range r.Pairs {
			if len(p) != 2 {
				return nil, nil, "", "pairs: expected [name, value]"
			}
		}
		return im.formSerialize(r.Pairs), nil, "", ""
	case "form_parse":
		if im.formParse == nil {
			return nil, nil, unsupported(r.Impl + " does not parse forms"), ""
		}
		text, _, err := value(r.Text)
		if err != nil {
			return nil, nil, "", "text: " + err.Error()
		}
		values, err := im.formParse(text)
		if err != nil {
			return nil, err, "", ""
		}
		// url.Values is a map: its pairs are answered by name, sorted (as Encode sorts).
		names := make([]string, 0, len(values))
		for name := range values {
			names = append(names, name)
		}
		sort.Strings(names)
		pairs := [][]interface{}{}
		for _, name := range names {
			for _, v := range values[name] {
				pairs = append(pairs, []interface{}{bytesAnswer(name), bytesAnswer(v)})
			}
		}
		return pairs, nil, "", ""
	}
	return nil, nil, "", "unknown question " + r.Q
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out) // Encode ends each answer with "\n"
	enc.SetEscapeHTML(false)
	first := true
	for {
		line, err := in.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			return // stdin closed: exit
		}
		var r request
		var reply map[string]interface{}
		if jerr := json.Unmarshal(line, &r); jerr != nil {
			reply = map[string]interface{}{"protocol_error": "not a JSON object: " + jerr.Error()}
		} else if first {
			if r.Protocol != "pctfuzz-peer" || r.Version == nil || *r.Version != 1 {
				reply = map[string]interface{}{"protocol_error": "this peer speaks pctfuzz-peer version 1"}
			} else {
				reply = handshake()
			}
		} else if r.ID == nil {
			reply = map[string]interface{}{"protocol_error": "request without an id"}
		} else {
			ok, libErr, unsup, protoErr := answer(&r)
			switch {
			case protoErr != "":
				reply = map[string]interface{}{"id": *r.ID, "protocol_error": protoErr}
			case unsup != "":
				reply = map[string]interface{}{"id": *r.ID, "unsupported": string(unsup)}
			case libErr != nil:
				reply = map[string]interface{}{"id": *r.ID, "error": map[string]string{
					"type": errorType(libErr), "message": libErr.Error()}}
			default:
				reply = map[string]interface{}{"id": *r.ID, "ok": ok}
			}
		}
		first = false
		if enc.Encode(reply) != nil || out.Flush() != nil {
			os.Exit(1)
		}
	}
}
