# pctfuzz's Ruby peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
# docs/peers.md) with Ruby's standard library.
#
# Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found them;
# pctfuzz/oracles/ruby.py declares the same):
#   ruby-www-form-component  URI.encode_www_form_component (encode; space as '+'),
#                            URI.decode_www_form_component (decode)
#   ruby-www-form            URI.encode_www_form (form serialize), URI.decode_www_form (form parse)
#   ruby-cgi                 CGI.escape (encode; space as '+'), CGI.unescape (decode)
#   ruby-erb                 ERB::Util.url_encode (encode)
#
# Ruby strings carry bytes: a value may arrive as bytes (binary), and decoded text is
# answered as bytes ({"base64": ...}) so pctfuzz does the UTF-8 decoding the URL
# Standard does.
require "base64"
require "cgi"
require "erb"
require "json"
require "uri"

class Unsupported < StandardError; end
class ProtocolError < StandardError; end

# name -> {set => [function, writes space as '+']}
ENCODERS = {
  "ruby-www-form-component" => {
    "application/x-www-form-urlencoded" => [->(s) { URI.encode_www_form_component(s) }, true],
  },
  "ruby-cgi" => { "rfc3986-unreserved" => [->(s) { CGI.escape(s) }, true] },
  "ruby-erb" => { "rfc3986-unreserved" => [->(s) { ERB::Util.url_encode(s) }, false] },
}.freeze

DECODERS = {
  "ruby-www-form-component" => ->(s) { URI.decode_www_form_component(s) },
  "ruby-cgi" => ->(s) { CGI.unescape(s) },
}.freeze

IMPLS = %w[ruby-www-form-component ruby-www-form ruby-cgi ruby-erb].freeze

def value_of(value)
  return [value, false] if value.is_a?(String)
  if value.is_a?(Hash) && value["base64"].is_a?(String)
    return [Base64.strict_decode64(value["base64"]), true]
  end
  raise ProtocolError, 'value must be a string or {"base64": ...}'
end

def bytes_answer(text)
  { "base64" => Base64.strict_encode64(text.b) }
end

def encode(impl, r)
  fn, plus = (ENCODERS[impl] || {})[r["set"]]
  raise Unsupported, "#{impl} has no function for the set #{r['set']}" unless fn
  value, is_bytes = value_of(r["value"])
  raise Unsupported, "a legacy encoding needs bytes" if !is_bytes && r["encoding"] != "UTF-8"
  if r["space_as_plus"] != plus && value.include?(" ")
    raise Unsupported, "#{impl} writes a space one way only"
  end
  fn.call(value)
end

def answer(r)
  impl = r["impl"]
  raise ProtocolError, "unknown implementation #{impl}" unless IMPLS.include?(impl)
  case r["q"]
  when "encode"
    encode(impl, r)
  when "decode"
    fn = DECODERS[impl]
    raise Unsupported, "#{impl} does not percent-decode" unless fn
    bytes_answer(fn.call(value_of(r["value"])[0]))
  when "form_serialize"
    raise Unsupported, "#{impl} does not serialize forms" unless impl == "ruby-www-form"
    raise Unsupported, "URI.encode_www_form encodes UTF-8 here" unless r["encoding"] == "UTF-8"
    URI.encode_www_form(r["pairs"])
  when "form_parse"
    raise Unsupported, "#{impl} does not parse forms" unless impl == "ruby-www-form"
    # decode_www_form's default encoding is UTF-8: its strings are answered as bytes.
    URI.decode_www_form(value_of(r["text"])[0]).map { |n, v| [bytes_answer(n), bytes_answer(v)] }
  else
    raise ProtocolError, "unknown question #{r['q']}"
  end
end

def handshake
  version = RUBY_VERSION
  impls = IMPLS.to_h do |name|
    questions = []
    questions << "encode" if ENCODERS[name]
    questions << "decode" if DECODERS[name]
    questions += %w[form_serialize form_parse] if name == "ruby-www-form"
    info = { "version" => version, "questions" => questions }
    info["sets"] = ENCODERS[name].keys if ENCODERS[name]
    [name, info]
  end
  { "protocol" => "pctfuzz-peer", "version" => 1, "peer" => "pctfuzz-ruby-peer",
    "runtime" => RUBY_DESCRIPTION, "implementations" => impls }
end

$stdout.sync = true
first = true
$stdin.each_line do |line|
  id = nil
  reply =
    begin
      r = JSON.parse(line)
      raise ProtocolError, "not a JSON object" unless r.is_a?(Hash)
      if first
        ok = r["protocol"] == "pctfuzz-peer" && r["version"] == 1
        ok ? handshake : { "protocol_error" => "this peer speaks pctfuzz-peer version 1" }
      else
        id = r["id"]
        raise ProtocolError, "request without an id" unless id.is_a?(Integer)
        begin
          { "id" => id, "ok" => answer(r) }
        rescue Unsupported => e
          { "id" => id, "unsupported" => e.message }
        rescue ProtocolError
          raise
        rescue StandardError => e
          { "id" => id, "error" => { "type" => e.class.name.split("::").last,
                                     "message" => e.message.dup.force_encoding("UTF-8").scrub } }
        end
      end
    rescue ProtocolError, JSON::ParserError => e
      id ? { "id" => id, "protocol_error" => e.message } : { "protocol_error" => e.message }
    end
  first = false
  $stdout.write(JSON.generate(reply, ascii_only: true) + "\n")
end
