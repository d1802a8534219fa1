#!/usr/bin/env escript
%% -*- erlang -*-
%%! -noshell -boot start_clean
%%
%% pctfuzz's Erlang peer: answers the pctfuzz-peer line protocol, version 1
%% (docs/protocol.md, docs/peers.md) with OTP's uri_string module (Debian: erlang-base;
%% OTP 25 or later for quote/1,2 and unquote/1). Run by escript.
%%
%% Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found
%% them; pctfuzz/_internal/oracles/erlang.py declares the same):
%%   erlang-uri-string            uri_string:quote/1, quote/2 with Safe "/" and with
%%                                Safe "!$&'()*+,;=:@" (encode), unquote/1 (decode)
%%   erlang-uri-string-query      uri_string:compose_query/1 (form serialize),
%%                                dissect_query/1 (form parse)
%%   erlang-uri-string-recompose  uri_string:recompose/1 of a map with one component:
%%                                #{path => V}, #{path => "", query => V} and
%%                                #{userinfo => V, host => "h", path => ""} (encode)
%%
%% Erlang binaries are bytes: a str value reaches uri_string as its UTF-8 bytes, a bytes
%% value as is; decoded bytes are answered as {"base64": ...}. OTP 25 has no JSON
%% module (json arrived in OTP 27), so the small reader and writer below handle what the
%% protocol sends (pctfuzz writes pure ASCII, every non-ASCII character as \uXXXX).
-mode(compile).

-define(PCHAR_SAFE, "!$&'()*+,;=:@").

%% impl -> [{set, fun(Binary) -> Result}]
encoders(<<"erlang-uri-string">>) ->
    [{<<"rfc3986-unreserved">>, fun(V) -> uri_string:quote(V) end},
     {<<"rfc3986-unreserved-/">>, fun(V) -> uri_string:quote(V, "/") end},
     {<<"rfc3986-pchar">>, fun(V) -> uri_string:quote(V, ?PCHAR_SAFE) end}];
encoders(<<"erlang-uri-string-recompose">>) ->
    [{<<"rfc3986-pchar-/">>, fun(V) -> uri_string:recompose(#{path => V}) end},
     {<<"rfc3986-query">>,
      fun(V) -> strip(uri_string:recompose(#{path => <<>>, query => V}), <<"?">>, <<>>) end},
     {<<"rfc3986-pchar+@">>,
      fun(V) ->
              strip(uri_string:recompose(#{userinfo => V, host => <<"h">>, path => <<>>}),
                    <<"//">>, <<"@h">>)
      end}];
encoders(_) -> [].

impls() -> [<<"erlang-uri-string">>, <<"erlang-uri-string-query">>,
            <<"erlang-uri-string-recompose">>].

questions(<<"erlang-uri-string">>) -> [<<"encode">>, <<"decode">>];
questions(<<"erlang-uri-string-query">>) -> [<<"form_serialize">>, <<"form_parse">>];
questions(<<"erlang-uri-string-recompose">>) -> [<<"encode">>].

%% recompose/1 writes the component with its delimiters: the component alone.
strip(Bin, Prefix, Suffix) when is_binary(Bin) ->
    P = byte_size(Prefix),
    S = byte_size(Suffix),
    case Bin of
        <<Prefix:P/binary, Middle:(byte_size(Bin) - P - S)/binary, Suffix:S/binary>> -> Middle;
        _ -> error({unexpected_recompose, Bin})
    end;
strip(Other, _, _) -> Other.

main(_) ->
    ok = io:setopts(standard_io, [binary, {encoding, latin1}]),
    loop(true).

loop(First) ->
    case io:get_line(standard_io, "") of
        eof -> halt(0);
        {error, _} -> halt(0);
        Line ->
            case string:trim(Line) of
                <<>> -> loop(First);
                Trimmed ->
                    Reply = reply(First, Trimmed),
                    ok = file:write(standard_io, [Reply, $\n]),
                    loop(false)
            end
    end.

reply(First, Line) ->
    case catch json_decode(Line) of
        Request when is_map(Request), First ->
            case {maps:get(<<"protocol">>, Request, null), maps:get(<<"version">>, Request, null)} of
                {<<"pctfuzz-peer">>, 1} -> handshake();
                _ -> protocol_error(null, <<"this peer speaks pctfuzz-peer version 1">>)
            end;
        Request when is_map(Request) ->
            case maps:get(<<"id">>, Request, null) of
                Id when is_integer(Id) -> answer(Id, Request);
                _ -> protocol_error(null, <<"request without an id">>)
            end;
        _ -> protocol_error(null, <<"not a JSON object">>)
    end.

protocol_error(null, Message) -> json([{<<"protocol_error">>, Message}]);
protocol_error(Id, Message) -> json([{<<"id">>, Id}, {<<"protocol_error">>, Message}]).

handshake() ->
    Version = otp_version(),
    Impls = [{Name, impl_info(Name, Version)} || Name <- impls()],
    json([{<<"protocol">>, <<"pctfuzz-peer">>}, {<<"version">>, 1},
          {<<"peer">>, <<"pctfuzz-erlang-peer">>},
          {<<"runtime">>, iolist_to_binary(["erlang otp ", Version, " erts ",
                                            erlang:system_info(version)])},
          {<<"implementations">>, Impls}]).

impl_info(Name, Version) ->
    Sets = [{set, Set} || {Set, _} <- encoders(Name)],
    [{<<"version">>, Version}, {<<"questions">>, {array, questions(Name)}}
     | case Sets of
           [] -> [];
           _ -> [{<<"sets">>, {array, [S || {set, S} <- Sets]}}]
       end].

%% OTP 25.2.3: the OTP_VERSION file of the release; the major release when it is missing.
otp_version() ->
    Release = erlang:system_info(otp_release),
    File = filename:join([code:root_dir(), "releases", Release, "OTP_VERSION"]),
    case file:read_file(File) of
        {ok, Text} -> string:trim(Text);
        _ -> list_to_binary(Release)
    end.

answer(Id, Request) ->
    try
        json([{<<"id">>, Id}, {<<"ok">>, ask(Request)}])
    catch
        throw:{unsupported, Reason} -> json([{<<"id">>, Id}, {<<"unsupported">>, Reason}]);
        throw:{protocol, Message} -> protocol_error(Id, Message);
        throw:{uri_error, Type, Message} -> error_answer(Id, Type, Message);
        Class:Reason:Stack ->
            %% error:badarg is badarg; a throw or exit names its class (an uncaught throw).
            Type = case {Class, Reason} of
                       {error, R} when is_atom(R) -> R;
                       {error, R} when is_tuple(R), is_atom(element(1, R)) -> element(1, R);
                       _ -> Class
                   end,
            error_answer(Id, Type, io_lib:format("~0p ~0p", [Reason, hd(Stack ++ [none])]))
    end.

error_answer(Id, Type, Message) ->
    json([{<<"id">>, Id}, {<<"error">>, [{<<"type">>, atom_to_binary(Type)},
                                         {<<"message">>, unicode_safe(Message)}]}]).

unicode_safe(Message) ->
    case catch unicode:characters_to_binary(Message) of
        B when is_binary(B) -> B;
        _ -> <<"(unprintable)">>
    end.

%% uri_string answers {error, Reason, Term} instead of raising: an error answer.
result({error, Reason, Term}) ->
    throw({uri_error, Reason, io_lib:format("{error,~0p,~0p}", [Reason, Term])});
result(Value) when is_binary(Value) -> Value;
result(Value) when is_list(Value) -> unicode:characters_to_binary(Value).

value_of(V) when is_binary(V) -> V;
value_of(#{<<"base64">> := B64}) when is_binary(B64) -> base64:decode(B64);
value_of(_) -> throw({protocol, <<"value must be a string or {\"base64\": ...}">>}).

need_utf8(Request, What) ->
    case maps:get(<<"encoding">>, Request, null) of
        <<"UTF-8">> -> ok;
        _ -> throw({unsupported, <<What/binary, " encodes UTF-8 here">>})
    end.

ask(Request) ->
    Impl = maps:get(<<"impl">>, Request, null),
    lists:member(Impl, impls()) orelse throw({protocol, <<"unknown implementation">>}),
    Q = maps:get(<<"q">>, Request, null),
    lists:member(Q, questions(Impl)) orelse
        case lists:member(Q, [<<"encode">>, <<"decode">>, <<"form_serialize">>,
                              <<"form_parse">>]) of
            true -> throw({unsupported, <<Impl/binary, " does not answer ", Q/binary>>});
            false -> throw({protocol, <<"unknown question">>})
        end,
    ask(Impl, Q, Request).

ask(Impl, <<"encode">>, Request) ->
    Set = maps:get(<<"set">>, Request, null),
    Fun = case lists:keyfind(Set, 1, encoders(Impl)) of
              {_, F} -> F;
              false -> throw({unsupported, <<Impl/binary, " has no function for this set">>})
          end,
    need_utf8(Request, <<"uri_string">>),
    Value = value_of(maps:get(<<"value">>, Request, null)),
    case maps:get(<<"space_as_plus">>, Request, false) of
        true ->
            case binary:match(Value, <<" ">>) of
                nomatch -> ok;
                _ -> throw({unsupported, <<"uri_string writes a space as %20">>})
            end;
        _ -> ok
    end,
    result(Fun(Value));
ask(_Impl, <<"decode">>, Request) ->
    Value = value_of(maps:get(<<"value">>, Request, null)),
    [{<<"base64">>, base64:encode(result(uri_string:unquote(Value)))}];
ask(_Impl, <<"form_serialize">>, Request) ->
    need_utf8(Request, <<"compose_query/1">>),
    Pairs = [{value_of(N), value_of(V)} || [N, V] <- maps:get(<<"pairs">>, Request, [])],
    result(uri_string:compose_query(Pairs));
ask(_Impl, <<"form_parse">>, Request) ->
    Text = value_of(maps:get(<<"text">>, Request, null)),
    case uri_string:dissect_query(Text) of
        {error, _, _} = E -> result(E);
        Pairs ->
            %% A name without '=' has the value true (compose_query writes it so back).
            {array, [{array, [[{<<"base64">>, base64:encode(result(N))}],
                              [{<<"base64">>, base64:encode(case V of
                                                                true -> <<>>;
                                                                _ -> result(V)
                                                            end)}]]}
                     || {N, V} <- Pairs]}
    end.

%% --- JSON --------------------------------------------------------------------------------
%% Reader: objects as maps with binary keys, strings as UTF-8 binaries, arrays as lists.
json_decode(Text) ->
    {Value, Rest} = value(skip(Text)),
    <<>> = skip(Rest),
    Value.

skip(<<C, Rest/binary>>) when C =:= $\s; C =:= $\t; C =:= $\r; C =:= $\n -> skip(Rest);
skip(Bin) -> Bin.

value(<<${, Rest/binary>>) -> object(skip(Rest), #{});
value(<<$[, Rest/binary>>) -> array(skip(Rest), []);
value(<<$", Rest/binary>>) -> string(Rest, []);
value(<<"true", Rest/binary>>) -> {true, Rest};
value(<<"false", Rest/binary>>) -> {false, Rest};
value(<<"null", Rest/binary>>) -> {null, Rest};
value(Bin) -> number(Bin).

object(<<$}, Rest/binary>>, Map) when map_size(Map) =:= 0 -> {Map, Rest};
object(<<$", Rest/binary>>, Map) ->
    {Key, R1} = string(Rest, []),
    <<$:, R2/binary>> = skip(R1),
    {Value, R3} = value(skip(R2)),
    case skip(R3) of
        <<$,, R4/binary>> -> object(skip(R4), Map#{Key => Value});
        <<$}, R4/binary>> -> {Map#{Key => Value}, R4}
    end.

array(<<$], Rest/binary>>, []) -> {[], Rest};
array(Bin, Acc) ->
    {Value, R1} = value(Bin),
    case skip(R1) of
        <<$,, R2/binary>> -> array(skip(R2), [Value | Acc]);
        <<$], R2/binary>> -> {lists:reverse([Value | Acc]), R2}
    end.

number(Bin) ->
    {Digits, Rest} = lists:splitwith(fun(C) -> lists:member(C, "-+0123456789.eE") end,
                                     binary_to_list(Bin)),
    Number = case catch list_to_integer(Digits) of
                 I when is_integer(I) -> I;
                 _ -> list_to_float(Digits)
             end,
    {Number, list_to_binary(Rest)}.

string(<<$", Rest/binary>>, Acc) -> {unicode:characters_to_binary(lists:reverse(Acc)), Rest};
string(<<$\\, $u, H:4/binary, $\\, $u, L:4/binary, Rest/binary>>, Acc) ->
    High = binary_to_integer(H, 16),
    Low = binary_to_integer(L, 16),
    if High >= 16#D800, High =< 16#DBFF, Low >= 16#DC00, Low =< 16#DFFF ->
            string(Rest, [16#10000 + (High - 16#D800) * 16#400 + (Low - 16#DC00) | Acc]);
       true ->
            string(<<$\\, $u, L/binary, Rest/binary>>, [scalar(High) | Acc])
    end;
string(<<$\\, $u, H:4/binary, Rest/binary>>, Acc) ->
    string(Rest, [scalar(binary_to_integer(H, 16)) | Acc]);
string(<<$\\, E, Rest/binary>>, Acc) ->
    C = case E of
            $" -> $"; $\\ -> $\\; $/ -> $/; $b -> $\b; $f -> $\f;
            $n -> $\n; $r -> $\r; $t -> $\t
        end,
    string(Rest, [C | Acc]);
string(<<C/utf8, Rest/binary>>, Acc) -> string(Rest, [C | Acc]).

%% A lone surrogate (pctfuzz sends none: byte strings) cannot be UTF-8: U+FFFD.
scalar(C) when C >= 16#D800, C =< 16#DFFF -> 16#FFFD;
scalar(C) -> C.

%% Writer: a proplist is an object, {array, List} an array, a binary a string (UTF-8;
%% every non-ASCII character written \uXXXX), an integer a number.
json(Object) -> iolist_to_binary(write(Object)).

write({array, Items}) -> [$[, lists:join($,, [write(I) || I <- Items]), $]];
write(Bin) when is_binary(Bin) -> write_string(Bin);
write(I) when is_integer(I) -> integer_to_binary(I);
write(true) -> <<"true">>;
write(false) -> <<"false">>;
write(null) -> <<"null">>;
write(Props) when is_list(Props) ->
    [${, lists:join($,, [[write_string(K), $:, write(V)] || {K, V} <- Props]), $}].

write_string(Bin) ->
    Chars = case unicode:characters_to_list(Bin) of
                L when is_list(L) -> L;
                _ -> binary_to_list(Bin)  % not UTF-8: its bytes as Latin-1
            end,
    [$", [escape(C) || C <- Chars], $"].

escape($") -> <<"\\\"">>;
escape($\\) -> <<"\\\\">>;
escape(C) when C >= 16#20, C < 16#7F -> C;
escape(C) when C >= 16#10000 ->
    V = C - 16#10000,
    [hex4(16#D800 + (V bsr 10)), hex4(16#DC00 + (V band 16#3FF))];
escape(C) -> hex4(C).

hex4(C) -> io_lib:format("\\u~4.16.0b", [C]).
