# pctfuzz's Nim peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
# docs/peers.md) with Nim's std/uri (Debian: nim). `make peers` compiles it
# (`nim c -d:release`) into the build folder; it uses the standard library only.
#
# Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found
# them; pctfuzz/_internal/oracles/nim.py declares the same):
#   nim-uri       encodeUrl(s, usePlus) (encode; usePlus = the request's space_as_plus),
#                 decodeUrl(s, decodePlus = false) (decode), encodeQuery (form serialize,
#                 its defaults: usePlus = true, omitEq = true), decodeQuery (form parse)
#   nim-uri-plus  encodeUrl(s) and decodeUrl(s) with their defaults (usePlus = true,
#                 decodePlus = true)
#
# Nim strings are bytes: a str value reaches the library as its UTF-8 bytes, a bytes
# value as is; decoded bytes are answered as {"base64": ...}.

import std/[base64, json, uri]

const EscapeSet = "rfc3986-unreserved"

type
  Unsupported = object of CatchableError
  ProtocolError = object of CatchableError

proc unsupported(why: string) {.noreturn.} =
  raise newException(Unsupported, why)

proc protocolError(why: string) {.noreturn.} =
  raise newException(ProtocolError, why)

proc valueOf(node: JsonNode): string =
  ## A str (its UTF-8 bytes) or {"base64": ...} (the bytes).
  if node != nil and node.kind == JString:
    return node.getStr
  if node != nil and node.kind == JObject and node.hasKey("base64") and
      node["base64"].kind == JString:
    return decode(node["base64"].getStr)
  protocolError("value must be a string or {\"base64\": ...}")

proc bytesAnswer(s: string): JsonNode =
  %*{"base64": encode(s)}

proc field(r: JsonNode, name: string): JsonNode =
  if not r.hasKey(name): protocolError("request without " & name)
  r[name]

proc encodeAnswer(impl: string, r: JsonNode): JsonNode =
  if r.field("set").getStr != EscapeSet:
    unsupported("encodeUrl has one set")
  if r.field("encoding").getStr != "UTF-8":
    unsupported("encodeUrl encodes the string's bytes: UTF-8 here")
  let value = valueOf(r.field("value"))
  let plus = r.field("space_as_plus").getBool
  if impl == "nim-uri-plus":
    if not plus and ' ' in value:
      unsupported("encodeUrl(s) writes a space as '+'")
    return %encodeUrl(value)
  %encodeUrl(value, usePlus = plus)

proc answer(r: JsonNode): JsonNode =
  let impl = r.field("impl").getStr
  if impl != "nim-uri" and impl != "nim-uri-plus":
    protocolError("unknown implementation " & impl)
  case r.field("q").getStr
  of "encode":
    return encodeAnswer(impl, r)
  of "decode":
    let value = valueOf(r.field("value"))
    if impl == "nim-uri-plus":
      return bytesAnswer(decodeUrl(value))
    return bytesAnswer(decodeUrl(value, decodePlus = false))
  of "form_serialize":
    if impl != "nim-uri": unsupported(impl & " does not serialize forms")
    if r.field("encoding").getStr != "UTF-8":
      unsupported("encodeQuery encodes the strings' bytes: UTF-8 here")
    var pairs: seq[(string, string)]
    for pair in r.field("pairs"):
      if pair.kind != JArray or pair.len != 2:
        protocolError("pairs must be [[name, value], ...]")
      pairs.add((valueOf(pair[0]), valueOf(pair[1])))
    return %encodeQuery(pairs)
  of "form_parse":
    if impl != "nim-uri": unsupported(impl & " does not parse forms")
    result = newJArray()
    for key, value in decodeQuery(valueOf(r.field("text"))):
      result.add(%*[bytesAnswer(key), bytesAnswer(value)])
  else:
    protocolError("unknown question " & r.field("q").getStr)

proc handshake(): JsonNode =
  let version = NimVersion
  %*{"protocol": "pctfuzz-peer", "version": 1, "peer": "pctfuzz-nim-peer",
     "runtime": "nim " & version,
     "implementations": {
       "nim-uri": {"version": version,
                   "questions": ["encode", "decode", "form_serialize", "form_parse"],
                   "sets": [EscapeSet]},
       "nim-uri-plus": {"version": version, "questions": ["encode", "decode"],
                        "sets": [EscapeSet]}}}

proc write(reply: JsonNode) =
  # toUgly escapes only what JSON needs: every answer here is ASCII (escapes, base64),
  # but an exception's message is made ASCII first.
  stdout.write($reply & "\n")
  stdout.flushFile

proc ascii(s: string): string =
  for c in s:
    result.add(if ord(c) < 0x80: c else: '?')

var first = true
var line: string
while stdin.readLine(line):
  if line.len == 0: continue
  var id: JsonNode = nil
  var reply: JsonNode
  try:
    let r = parseJson(line)
    if r.kind != JObject: protocolError("not a JSON object")
    if first:
      first = false
      if r{"protocol"}.getStr == "pctfuzz-peer" and r{"version"}.getInt == 1:
        reply = handshake()
      else:
        reply = %*{"protocol_error": "this peer speaks pctfuzz-peer version 1"}
    else:
      id = r{"id"}
      if id == nil or id.kind != JInt: protocolError("request without an id")
      try:
        reply = %*{"id": id, "ok": answer(r)}
      except Unsupported as e:
        reply = %*{"id": id, "unsupported": e.msg}
      except ProtocolError:
        raise
      except Exception as e:
        # A Defect too (--panics:off, the default): it is the library's failure.
        reply = %*{"id": id, "error": {"type": $e.name, "message": ascii(e.msg)}}
  except ProtocolError, JsonParsingError, ValueError:
    let e = getCurrentException()
    first = false
    reply = if id == nil: %*{"protocol_error": ascii(e.msg)}
            else: %*{"id": id, "protocol_error": ascii(e.msg)}
  write(reply)
