-- pctfuzz's Lua peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
-- docs/peers.md) with LuaSocket's socket.url (Debian: lua5.4, lua-socket).
--
-- Implementation (set names are pctfuzz's canonical names, as `pctfuzz probe` found
-- them; pctfuzz/_internal/oracles/lua.py declares the same):
--   lua-socket-url  socket.url.escape (encode), socket.url.unescape (decode)
--
-- Lua strings are bytes: a str value reaches the library as its UTF-8 bytes, a bytes
-- value as is; decoded bytes are answered as {"base64": ...}. Lua has no JSON library
-- in its standard library, so the small reader and writer below handle what the
-- protocol sends (pctfuzz writes pure ASCII, every non-ASCII character as \uXXXX).

local ok_url, url = pcall(require, "socket.url")
local ok_mime, mime = pcall(require, "mime")
local ok_socket, socket = pcall(require, "socket")

-- Everything but A-Z a-z 0-9 _ (url.lua: "([^A-Za-z0-9_])"), named from the form set.
local ESCAPE_SET = "application/x-www-form-urlencoded+*%2D."
local IMPL = "lua-socket-url"

-- --- JSON -------------------------------------------------------------------------------------
local function utf8_of(code)
  return utf8.char(code)
end

local function decode_json(text)
  local pos = 1
  local value

  local function fail(what)
    error({ protocol_error = "not JSON: " .. what .. " at byte " .. pos }, 0)
  end

  local function skip()
    pos = text:find("[^ \t\r\n]", pos) or (#text + 1)
  end

  local function string_value()
    pos = pos + 1 -- the opening quote
    local parts = {}
    while true do
      local c = text:sub(pos, pos)
      if c == "" then fail("unterminated string") end
      if c == '"' then
        pos = pos + 1
        return table.concat(parts)
      end
      if c == "\\" then
        local e = text:sub(pos + 1, pos + 1)
        local simple = ({ ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f",
                          n = "\n", r = "\r", t = "\t" })[e]
        if simple then
          parts[#parts + 1] = simple
          pos = pos + 2
        elseif e == "u" then
          local hex = text:sub(pos + 2, pos + 5)
          if not hex:match("^%x%x%x%x$") then fail("bad \\u escape") end
          local code = tonumber(hex, 16)
          pos = pos + 6
          if code >= 0xD800 and code <= 0xDBFF then
            local low = text:match("^\\u(%x%x%x%x)", pos)
            local low_code = low and tonumber(low, 16)
            if low_code and low_code >= 0xDC00 and low_code <= 0xDFFF then
              code = 0x10000 + (code - 0xD800) * 0x400 + (low_code - 0xDC00)
              pos = pos + 6
            else
              code = 0xFFFD -- a lone surrogate (pctfuzz sends none: byte strings)
            end
          elseif code >= 0xDC00 and code <= 0xDFFF then
            code = 0xFFFD
          end
          parts[#parts + 1] = utf8_of(code)
        else
          fail("bad escape")
        end
      else
        local stop = text:find('["\\]', pos) or (#text + 1)
        parts[#parts + 1] = text:sub(pos, stop - 1)
        pos = stop
      end
    end
  end

  function value()
    skip()
    local c = text:sub(pos, pos)
    if c == "{" then
      local object = {}
      pos = pos + 1
      skip()
      if text:sub(pos, pos) == "}" then
        pos = pos + 1
        return object
      end
      while true do
        skip()
        if text:sub(pos, pos) ~= '"' then fail("expected a name") end
        local key = string_value()
        skip()
        if text:sub(pos, pos) ~= ":" then fail("expected ':'") end
        pos = pos + 1
        object[key] = value()
        skip()
        local sep = text:sub(pos, pos)
        pos = pos + 1
        if sep == "}" then return object end
        if sep ~= "," then fail("expected ',' or '}'") end
      end
    elseif c == "[" then
      local array = {}
      pos = pos + 1
      skip()
      if text:sub(pos, pos) == "]" then
        pos = pos + 1
        return array
      end
      while true do
        array[#array + 1] = value()
        skip()
        local sep = text:sub(pos, pos)
        pos = pos + 1
        if sep == "]" then return array end
        if sep ~= "," then fail("expected ',' or ']'") end
      end
    elseif c == '"' then
      return string_value()
    elseif text:sub(pos, pos + 3) == "true" then
      pos = pos + 4
      return true
    elseif text:sub(pos, pos + 4) == "false" then
      pos = pos + 5
      return false
    elseif text:sub(pos, pos + 3) == "null" then
      pos = pos + 4
      return nil
    else
      local number = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not number or number == "" then fail("unexpected character") end
      pos = pos + #number
      return math.tointeger(tonumber(number)) or tonumber(number)
    end
  end

  local result = value()
  skip()
  if pos <= #text then fail("trailing characters") end
  return result
end

local function encode_string(s)
  -- ASCII out: control characters and bytes above 0x7F (only in error messages) as \u00XX.
  return '"' .. s:gsub('[%c"\\\128-\255]', function(c)
    local named = ({ ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r",
                     ["\t"] = "\\t" })[c]
    return named or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local encode_json

local function is_array(t)
  return rawget(t, 1) ~= nil or next(t) == nil and getmetatable(t) == "array"
end

function encode_json(v)
  local kind = type(v)
  if kind == "string" then return encode_string(v) end
  if kind == "number" then return string.format("%d", v) end
  if kind == "boolean" then return tostring(v) end
  if kind == "table" then
    local parts = {}
    if is_array(v) then
      for _, item in ipairs(v) do parts[#parts + 1] = encode_json(item) end
      return "[" .. table.concat(parts, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do parts[#parts + 1] = encode_string(k) .. ":" .. encode_json(v[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return "null"
end

local function array(t)
  return setmetatable(t, { __metatable = "array" })
end

-- --- the implementation ---------------------------------------------------------------------
local function unsupported(reason)
  error({ unsupported = reason }, 0)
end

local function protocol_error(message)
  error({ protocol_error = message }, 0)
end

local function value_of(v)
  if type(v) == "string" then return v, false end
  if type(v) == "table" and type(v.base64) == "string" then
    return (mime.unb64(v.base64)) or "", true
  end
  protocol_error('value must be a string or {"base64": ...}')
end

local function answer(request)
  if request.impl ~= IMPL then protocol_error("unknown implementation " .. tostring(request.impl)) end
  if request.q == "encode" then
    if request.set ~= ESCAPE_SET then unsupported("socket.url.escape has no function for the set " .. tostring(request.set)) end
    local value, is_bytes = value_of(request.value)
    if not is_bytes and request.encoding ~= "UTF-8" then unsupported("a legacy encoding needs bytes") end
    if request.space_as_plus and value:find(" ", 1, true) then unsupported("socket.url.escape writes a space as %20") end
    return url.escape(value)
  elseif request.q == "decode" then
    local value = value_of(request.value)
    return { base64 = (mime.b64(url.unescape(value))) or "" }
  elseif request.q == "form_serialize" or request.q == "form_parse" then
    unsupported("socket.url has no form functions")
  end
  protocol_error("unknown question " .. tostring(request.q))
end

local function handshake()
  local info
  if ok_url and ok_mime and ok_socket then
    info = { version = (socket._VERSION:gsub("^LuaSocket ", "")), questions = array({ "encode", "decode" }),
             sets = array({ ESCAPE_SET }) }
  else
    info = { unavailable = "LuaSocket is not installed (make peers installs lua-socket)" }
  end
  return { protocol = "pctfuzz-peer", version = 1, peer = "pctfuzz-lua-peer",
           runtime = _VERSION .. ", " .. (ok_socket and socket._VERSION or "no LuaSocket"),
           implementations = { [IMPL] = info } }
end

local first = true
for line in io.lines() do
  if line:find("%S") then
    local reply
    local ok, request = pcall(decode_json, line)
    if not ok or type(request) ~= "table" then
      reply = { protocol_error = type(request) == "table" and request.protocol_error
                or "not a JSON object" }
    elseif first then
      if request.protocol == "pctfuzz-peer" and request.version == 1 then
        reply = handshake()
      else
        reply = { protocol_error = "this peer speaks pctfuzz-peer version 1" }
      end
    elseif math.type(request.id) ~= "integer" then
      reply = { protocol_error = "request without an id" }
    else
      local done, result = pcall(answer, request)
      if done then
        reply = { id = request.id, ok = result }
      elseif type(result) == "table" then
        result.id = request.id
        reply = result
      else
        reply = { id = request.id, error = { type = "error", message = tostring(result) } }
      end
    end
    first = false
    io.write(encode_json(reply), "\n")
    io.flush()
  end
end
