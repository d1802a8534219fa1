# pctfuzz's Elixir peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
# docs/peers.md) with Elixir's URI module (Debian: elixir). Run by `elixir peer.exs`.
#
# Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found them;
# pctfuzz/_internal/oracles/elixir.py declares the same):
#   elixir-uri-encode          URI.encode/2 with its default predicate (&URI.char_unescaped?/1)
#                              and with &URI.char_unreserved?/1 (encode), URI.decode/1 (decode)
#   elixir-uri-www-form        URI.encode_www_form/1 (encode; space as '+'),
#                              URI.decode_www_form/1 (decode)
#   elixir-uri-query           URI.encode_query/1 (form serialize),
#                              URI.query_decoder/1 (form parse)
#   elixir-uri-query-rfc3986   URI.encode_query(pairs, :rfc3986) (form serialize),
#                              URI.query_decoder(query, :rfc3986) (form parse)
#   elixir-uri-decode-query    URI.decode_query/1 (form parse): a map, answered as its
#                              pairs sorted by name (a map has no order; Elixir's own
#                              small maps list their keys so)
#
# Elixir strings are binaries (bytes): a str value reaches URI as its UTF-8 bytes, a bytes
# value as is; decoded bytes are answered as {"base64": ...}. Elixir 1.14 has no JSON
# module (JSON arrived in 1.18), so the small reader and writer below handle what the
# protocol sends (pctfuzz writes pure ASCII, every non-ASCII character as \uXXXX).

defmodule PctfuzzPeer do
  defmodule Unsupported, do: defexception([:message])
  defmodule ProtocolError, do: defexception([:message])

  @encoders %{
    "elixir-uri-encode" => %{
      "encodeURI-[]" => {&URI.encode/1, false},
      "rfc3986-unreserved" => {&__MODULE__.encode_unreserved/1, false}
    },
    "elixir-uri-www-form" => %{"rfc3986-unreserved" => {&URI.encode_www_form/1, true}}
  }

  @decoders %{
    "elixir-uri-encode" => &URI.decode/1,
    "elixir-uri-www-form" => &URI.decode_www_form/1
  }

  @serializers %{
    "elixir-uri-query" => &URI.encode_query/1,
    "elixir-uri-query-rfc3986" => &__MODULE__.encode_query_rfc3986/1
  }

  @parsers %{
    "elixir-uri-query" => &__MODULE__.query_decoder/1,
    "elixir-uri-query-rfc3986" => &__MODULE__.query_decoder_rfc3986/1,
    "elixir-uri-decode-query" => &__MODULE__.decode_query/1
  }

  @impls ~w(elixir-uri-encode elixir-uri-www-form elixir-uri-query elixir-uri-query-rfc3986
            elixir-uri-decode-query)

  def encode_unreserved(value), do: URI.encode(value, &URI.char_unreserved?/1)
  def encode_query_rfc3986(pairs), do: URI.encode_query(pairs, :rfc3986)
  def query_decoder(text), do: text |> URI.query_decoder() |> Enum.to_list()
  def query_decoder_rfc3986(text), do: text |> URI.query_decoder(:rfc3986) |> Enum.to_list()
  def decode_query(text), do: text |> URI.decode_query() |> Map.to_list() |> Enum.sort()

  defp value_of(value) when is_binary(value), do: value
  defp value_of(%{"base64" => b64}) when is_binary(b64), do: Base.decode64!(b64)
  defp value_of(_), do: raise(ProtocolError, ~s(value must be a string or {"base64": ...}))

  defp bytes(value), do: %{"base64" => Base.encode64(value)}

  defp need_utf8(request, what) do
    if request["encoding"] != "UTF-8", do: raise(Unsupported, "#{what} encodes UTF-8 here")
  end

  defp ask(impl, "encode", request) do
    case get_in(@encoders, [impl, request["set"]]) do
      nil ->
        raise Unsupported, "#{impl} has no function for the set #{inspect(request["set"])}"

      {fun, plus} ->
        need_utf8(request, impl)
        value = value_of(request["value"])

        if request["space_as_plus"] != plus and String.contains?(value, " ") do
          raise Unsupported, "#{impl} writes a space one way only"
        end

        fun.(value)
    end
  end

  defp ask(impl, "decode", request), do: bytes(@decoders[impl].(value_of(request["value"])))

  defp ask(impl, "form_serialize", request) do
    need_utf8(request, impl)
    @serializers[impl].(for [n, v] <- request["pairs"], do: {value_of(n), value_of(v)})
  end

  defp ask(impl, "form_parse", request) do
    for {n, v} <- @parsers[impl].(value_of(request["text"])), do: [bytes(n), bytes(v)]
  end

  defp questions(impl) do
    for {q, table} <- [
          {"encode", @encoders},
          {"decode", @decoders},
          {"form_serialize", @serializers},
          {"form_parse", @parsers}
        ],
        Map.has_key?(table, impl),
        do: q
  end

  def answer(request) do
    impl = request["impl"]
    unless impl in @impls, do: raise(ProtocolError, "unknown implementation")
    q = request["q"]

    cond do
      q in questions(impl) -> ask(impl, q, request)
      q in ~w(encode decode form_serialize form_parse) -> raise Unsupported, "#{impl}: no #{q}"
      true -> raise ProtocolError, "unknown question"
    end
  end

  def handshake do
    version = System.version()

    impls =
      for impl <- @impls do
        info = [{"version", version}, {"questions", {:array, questions(impl)}}]

        info =
          case @encoders[impl] do
            nil -> info
            sets -> info ++ [{"sets", {:array, Enum.sort(Map.keys(sets))}}]
          end

        {impl, info}
      end

    [
      {"protocol", "pctfuzz-peer"},
      {"version", 1},
      {"peer", "pctfuzz-elixir-peer"},
      {"runtime",
       "elixir #{version} (erlang otp #{:erlang.system_info(:otp_release)}, erts " <>
         "#{:erlang.system_info(:version)})"},
      {"implementations", impls}
    ]
  end

  def reply(first, line) do
    request =
      try do
        Json.decode(line)
      rescue
        _ -> nil
      end

    cond do
      not is_map(request) ->
        [{"protocol_error", "not a JSON object"}]

      first ->
        if request["protocol"] == "pctfuzz-peer" and request["version"] == 1,
          do: handshake(),
          else: [{"protocol_error", "this peer speaks pctfuzz-peer version 1"}]

      not is_integer(request["id"]) ->
        [{"protocol_error", "request without an id"}]

      true ->
        id = request["id"]

        try do
          [{"id", id}, {"ok", answer(request)}]
        rescue
          e in Unsupported ->
            [{"id", id}, {"unsupported", e.message}]

          e in ProtocolError ->
            [{"id", id}, {"protocol_error", e.message}]

          e ->
            type = e.__struct__ |> Module.split() |> List.last()
            [{"id", id}, {"error", [{"type", type}, {"message", Exception.message(e)}]}]
        end
    end
  end

  def loop(first) do
    case IO.binread(:stdio, :line) do
      :eof ->
        :ok

      {:error, _} ->
        :ok

      line ->
        case String.trim(line) do
          "" ->
            loop(first)

          trimmed ->
            IO.binwrite(:stdio, [Json.encode(reply(first, trimmed)), ?\n])
            loop(false)
        end
    end
  end
end

defmodule Json do
  # Reader: objects as maps, strings as UTF-8 binaries (a lone surrogate, which pctfuzz
  # never sends to a byte-string language, as U+FFFD), arrays as lists.
  def decode(text) do
    {value, rest} = value(skip(text))
    "" = skip(rest)
    value
  end

  defp skip(<<c, rest::binary>>) when c in [?\s, ?\t, ?\r, ?\n], do: skip(rest)
  defp skip(bin), do: bin

  defp value(<<?{, rest::binary>>), do: object(skip(rest), %{})
  defp value(<<?[, rest::binary>>), do: array(skip(rest), [])
  defp value(<<?", rest::binary>>), do: string(rest, [])
  defp value(<<"true", rest::binary>>), do: {true, rest}
  defp value(<<"false", rest::binary>>), do: {false, rest}
  defp value(<<"null", rest::binary>>), do: {nil, rest}

  defp value(bin) do
    [number] = Regex.run(~r/^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/, bin)
    rest = binary_part(bin, byte_size(number), byte_size(bin) - byte_size(number))

    case Integer.parse(number) do
      {i, ""} -> {i, rest}
      _ -> {String.to_float(number), rest}
    end
  end

  defp object(<<?}, rest::binary>>, map) when map_size(map) == 0, do: {map, rest}

  defp object(<<?", rest::binary>>, map) do
    {key, r1} = string(rest, [])
    <<?:, r2::binary>> = skip(r1)
    {value, r3} = value(skip(r2))
    map = Map.put(map, key, value)

    case skip(r3) do
      <<?,, r4::binary>> -> object(skip(r4), map)
      <<?}, r4::binary>> -> {map, r4}
    end
  end

  defp array(<<?], rest::binary>>, []), do: {[], rest}

  defp array(bin, acc) do
    {value, r1} = value(bin)

    case skip(r1) do
      <<?,, r2::binary>> -> array(skip(r2), [value | acc])
      <<?], r2::binary>> -> {Enum.reverse([value | acc]), r2}
    end
  end

  defp string(<<?", rest::binary>>, acc), do: {acc |> Enum.reverse() |> List.to_string(), rest}

  defp string(<<"\\u", h::binary-size(4), "\\u", l::binary-size(4), rest::binary>>, acc) do
    high = String.to_integer(h, 16)
    low = String.to_integer(l, 16)

    if high in 0xD800..0xDBFF and low in 0xDC00..0xDFFF do
      string(rest, [0x10000 + (high - 0xD800) * 0x400 + (low - 0xDC00) | acc])
    else
      string("\\u" <> l <> rest, [scalar(high) | acc])
    end
  end

  defp string(<<"\\u", h::binary-size(4), rest::binary>>, acc),
    do: string(rest, [scalar(String.to_integer(h, 16)) | acc])

  defp string(<<?\\, e, rest::binary>>, acc) do
    c =
      case e do
        ?" -> ?"
        ?\\ -> ?\\
        ?/ -> ?/
        ?b -> ?\b
        ?f -> ?\f
        ?n -> ?\n
        ?r -> ?\r
        ?t -> ?\t
      end

    string(rest, [c | acc])
  end

  defp string(<<c::utf8, rest::binary>>, acc), do: string(rest, [c | acc])

  defp scalar(c) when c in 0xD800..0xDFFF, do: 0xFFFD
  defp scalar(c), do: c

  # Writer: a list of {key, value} is an object, {:array, list} an array, a binary a
  # string (every non-ASCII character written \uXXXX; bytes that are not UTF-8 as
  # Latin-1), an integer a number.
  def encode(value), do: IO.iodata_to_binary(write(value))

  defp write({:array, items}), do: [?[, Enum.intersperse(Enum.map(items, &write/1), ?,), ?]]
  defp write(bin) when is_binary(bin), do: write_string(bin)
  defp write(i) when is_integer(i), do: Integer.to_string(i)
  defp write(true), do: "true"
  defp write(false), do: "false"
  defp write(nil), do: "null"

  defp write(%{} = map), do: write(Enum.to_list(map))

  defp write(list) when is_list(list) do
    if Enum.all?(list, &match?({k, _} when is_binary(k), &1)) and list != [] do
      pairs = for {k, v} <- list, do: [write_string(k), ?:, write(v)]
      [?{, Enum.intersperse(pairs, ?,), ?}]
    else
      write({:array, list})
    end
  end

  defp write_string(bin) do
    chars =
      case :unicode.characters_to_list(bin) do
        list when is_list(list) -> list
        _ -> :binary.bin_to_list(bin)
      end

    [?", Enum.map(chars, &escape/1), ?"]
  end

  defp escape(?"), do: "\\\""
  defp escape(?\\), do: "\\\\"
  defp escape(c) when c >= 0x20 and c < 0x7F, do: c

  defp escape(c) when c >= 0x10000 do
    v = c - 0x10000
    [hex4(0xD800 + Bitwise.bsr(v, 10)), hex4(0xDC00 + Bitwise.band(v, 0x3FF))]
  end

  defp escape(c), do: hex4(c)

  defp hex4(c), do: "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0")
end

PctfuzzPeer.loop(true)
