#!/usr/bin/env node
// pctfuzz's Node.js peer: answers the pctfuzz-peer line protocol, version 1
// (docs/protocol.md; the Python side is pctfuzz/oracles/process.py, the adapters pctfuzz/oracles/node.py).
//
// One JSON object per line on stdin, one answer per line on stdout, in order. The
// first line is the handshake; every later line is a request naming one of the
// implementations below and one of the four questions. Each answer is exactly one of
// {"id", "ok"}, {"id", "error": {type, message}} (the implementation threw),
// {"id", "unsupported": reason} (it cannot express the case) or
// {"id", "protocol_error": message} (the request itself is malformed).
//
// Implementations (set names are pctfuzz's canonical names):
//   node              encodeURIComponent (sets component, encodeURIComponent),
//                     encodeURI (set encodeURI), URLSearchParams (form set with
//                     spaceAsPlus; form serialize and parse), decodeURIComponent (decode)
//   node-querystring  querystring.escape (component sets), unescape (decode),
//                     stringify (form serialize), parse (form parse)
//   whatwg-url        the whatwg-url npm package: URL setters hash/search/pathname/
//                     username (fragment, query, special-query, path, userinfo),
//                     URLSearchParams (form), percentDecodeString/percentDecodeBytes
//
// The same file runs under Bun (`bun --no-install peer.js`: JavaScriptCore and WebKit's
// URL code) and Deno (`deno run peer.js`: V8 and rust-url), which hold other
// implementations instead (docs/peers.md):
//   bun, deno         the runtime's built-ins, asked as `node` asks Node.js's
//   bun-url, deno-url the runtime's URL setters, asked as `whatwg-url` asks its URL
//                     (fragment, query, special-query, path, userinfo; encode only)
"use strict";

// Which runtime runs this file. Deno and Bun both offer Node.js's `process`.
const RUNTIME = typeof globalThis.Deno === "object" && globalThis.Deno !== null ? "deno"
  : (typeof process.versions.bun === "string" ? "bun" : "node");
const RUNTIME_VERSION = RUNTIME === "deno" ? globalThis.Deno.version.deno
  : (RUNTIME === "bun" ? process.versions.bun : process.version);
const RUNTIME_NAME = { node: "Node.js", bun: "Bun", deno: "Deno" }[RUNTIME];

// stdout carries the protocol only: anything the code under test prints goes to stderr,
// so a stray line never shifts the answers (pctfuzz matches every answer to its id).
{
  const util = require("util");
  const toStderr = (...args) => { process.stderr.write(`${util.format(...args)}\n`); };
  console.log = console.info = console.debug = console.dir = toStderr;
  process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
}

// A watchdog thread: the main thread blocks in readSync or may hang inside a request,
// so it cannot notice that pctfuzz is gone. When this process's parent changes (the
// parent died; its stdin is then closed too), the watchdog kills the process.
{
  const { Worker } = require("worker_threads");
  const watchdog = new Worker(
    `const parent = ${process.ppid};
     setInterval(() => { if (process.ppid !== parent) { process.kill(process.pid, "SIGKILL"); } }, 200);`,
    { eval: true, stdout: false, stderr: false },
  );
  watchdog.unref();
}

const querystring = require("querystring");

const PROTOCOL = "pctfuzz-peer";
const VERSION = 1;
const QUESTIONS = ["encode", "decode", "form_serialize", "form_parse"];

class Unsupported extends Error {}

function unsupported(reason) {
  throw new Unsupported(reason);
}

// --- values ------------------------------------------------------------------------------------
// A str travels as a JSON string (lone surrogates as \uXXXX escapes, which JSON.parse
// keeps as lone code units); bytes as {"base64": "..."}.
function isBytes(value) {
  return value !== null && typeof value === "object" && typeof value.base64 === "string";
}

function bytesOf(value) {
  return new Uint8Array(Buffer.from(value.base64, "base64"));
}

function bytesAnswer(bytes) {
  return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64") };
}

// A JS string as UTF-8 bytes: a lone surrogate becomes U+FFFD (EF BF BD), as the
// WHATWG "UTF-8 encode" does.
function utf8Answer(text) {
  return { base64: Buffer.from(text, "utf8").toString("base64") };
}

function textOnly(value, api) {
  if (typeof value !== "string") {
    unsupported(`${api} takes a string`);
  }
  return value;
}

function utf8Only(request, api) {
  if (request.encoding !== "UTF-8") {
    unsupported(`${api} always encodes UTF-8`);
  }
}

const COMPONENT_SETS = new Set(["component", "encodeURIComponent"]);
const FORM_SET = "application/x-www-form-urlencoded";

// --- node, bun, deno: the built-ins ------------------------------------------------------
function searchParamsName(SearchParams, value) {
  // The serializer writes name "=" value; with an empty value the encoded name is
  // everything before the final "=" (an encoded name never holds a raw "=").
  const text = new SearchParams([[value, ""]]).toString();
  return text.slice(0, -1);
}

function searchParamsParse(SearchParams, text) {
  // The constructor drops one leading "?" (URL 6.2 step 3); a leading "&" (an empty
  // sequence, which the parser skips) keeps the text as the parser would see it.
  const init = text.startsWith("?") ? `&${text}` : text;
  return [...new SearchParams(init)];
}

// The built-ins of the runtime: the `node`, `bun` and `deno` implementations.
const builtins = {
  version: () => RUNTIME_VERSION,
  sets: ["component", "encodeURIComponent", "encodeURI", FORM_SET],
  encode(request) {
    const value = textOnly(request.value, "encodeURIComponent");
    utf8Only(request, "encodeURIComponent");
    if (request.set === FORM_SET) {
      if (!request.space_as_plus) {
        unsupported("URLSearchParams always writes space as '+'");
      }
      return searchParamsName(URLSearchParams, value);
    }
    if (request.space_as_plus) {
      unsupported("encodeURIComponent and encodeURI never write space as '+'");
    }
    if (COMPONENT_SETS.has(request.set)) {
      return encodeURIComponent(value);
    }
    if (request.set === "encodeURI") {
      return encodeURI(value);
    }
    return unsupported(`no ${RUNTIME_NAME} built-in percent-encodes with the ${request.set} set`);
  },
  decode(request) {
    return utf8Answer(decodeURIComponent(textOnly(request.value, "decodeURIComponent")));
  },
  form_serialize(request) {
    utf8Only(request, "URLSearchParams");
    return new URLSearchParams(request.pairs).toString();
  },
  form_parse(request) {
    return searchParamsParse(URLSearchParams, textOnly(request.text, "URLSearchParams"));
  },
};

// --- node-querystring ---------------------------------------------------------------------
// querystring.stringify takes an object, querystring.parse returns one: an object keeps
// the order of its string keys except "array index" keys (ECMA-262 10.1.11.1
// OrdinaryOwnPropertyKeys: those come first, ascending), and a repeated name becomes one
// key with an array value. Pairs whose order an object cannot hold are Unsupported.
function isArrayIndex(key) {
  return /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < 4294967295;
}

const nodeQuerystring = {
  version: () => process.version,
  sets: ["component", "encodeURIComponent"],
  encode(request) {
    const value = textOnly(request.value, "querystring.escape");
    utf8Only(request, "querystring.escape");
    if (request.space_as_plus) {
      unsupported("querystring.escape never writes space as '+'");
    }
    if (!COMPONENT_SETS.has(request.set)) {
      unsupported("querystring.escape encodes the encodeURIComponent set only");
    }
    return querystring.escape(value);
  },
  decode(request) {
    return utf8Answer(querystring.unescape(textOnly(request.value, "querystring.unescape")));
  },
  form_serialize(request) {
    utf8Only(request, "querystring.stringify");
    const object = Object.create(null);
    const order = [];
    for (const [name, value] of request.pairs) {
      if (!(name in object)) {
        object[name] = [];
        order.push(name);
      } else if (order[order.length - 1] !== name) {
        unsupported("querystring.stringify groups a repeated name: its pairs' order is lost");
      }
      object[name].push(value);
    }
    if (order.length > 1 && order.some(isArrayIndex)) {
      unsupported("an object lists array-index keys first: the pairs' order is lost");
    }
    for (const name of order) {
      if (object[name].length === 1) {
        object[name] = object[name][0];
      }
    }
    return querystring.stringify(object);
  },
  form_parse(request) {
    const text = textOnly(request.text, "querystring.parse");
    // maxKeys: 0 lifts the documented default limit of 1000 pairs.
    const object = querystring.parse(text, "&", "=", { maxKeys: 0 });
    const keys = Object.keys(object);
    if (keys.length > 1 && keys.some((k) => Array.isArray(object[k]) || isArrayIndex(k))) {
      unsupported("querystring.parse returns an object: the order of repeated or array-index names is lost");
    }
    const pairs = [];
    for (const key of keys) {
      for (const value of [].concat(object[key])) {
        pairs.push([key, value]);
      }
    }
    return pairs;
  },
};

// --- whatwg-url ---------------------------------------------------------------------------
let whatwgUrl = null;
let whatwgUrlError = null;
try {
  if (RUNTIME === "node") { // Bun would fetch a missing package from the registry
    whatwgUrl = require("whatwg-url");
  }
} catch (error) {
  whatwgUrlError = `the whatwg-url npm package is not installed (${error.code || error.message}); ` +
    "run make install, or see docs/protocol.md (PCTFUZZ_NODE_MODULES)";
}

function whatwgUrlVersion() {
  const path = require("path");
  const fs = require("fs");
  const main = require.resolve("whatwg-url");
  const manifest = path.join(path.dirname(main), "package.json");
  return JSON.parse(fs.readFileSync(manifest, "utf8")).version;
}

// Sets a URL setter percent-encodes with, each on a base whose parser state uses it
// (WHATWG URL 4.4): [base URL, attribute, prefix kept out of the value's way].
const SETTERS = {
  "fragment": ["https://h/", "hash", "#"],
  "query": ["x://h/", "search", "?"],
  "special-query": ["https://h/", "search", "?"],
  "path": ["x://h", "pathname", "/"],
};
const TAB_OR_NEWLINE = /[\t\n\r]/;
// WHATWG URL 4.4 path state: single-dot and double-dot URL path segments.
const DOT_SEGMENTS = new Set([".", "%2e", "..", ".%2e", "%2e.", "%2e%2e"]);

// A value through one URL setter (SETTERS, or the username setter for userinfo).
function urlSetterEncode(URLClass, label, request, value) {
  if (request.space_as_plus) {
    unsupported("the URL setters never write space as '+'");
  }
  if (request.set === "userinfo") {
    // The username setter percent-encodes directly: no parser, nothing removed.
    const url = new URLClass("https://h/");
    url.username = value;
    return url.username;
  }
  const setter = SETTERS[request.set];
  if (setter === undefined) {
    unsupported(`no ${label} API percent-encodes with the ${request.set} set alone`);
  }
  if (TAB_OR_NEWLINE.test(value)) {
    unsupported("the URL parser removes ASCII tab and newline before encoding");
  }
  if (request.set === "path" && value.split("/").some((s) => DOT_SEGMENTS.has(s.toLowerCase()))) {
    unsupported("the path state resolves '.' and '..' segments");
  }
  const [base, attribute, prefix] = setter;
  const url = new URLClass(base);
  url[attribute] = prefix + value;
  const result = url[attribute];
  return result.startsWith(prefix) ? result.slice(prefix.length) : result;
}

const whatwg = {
  version: whatwgUrlVersion,
  sets: ["userinfo", ...Object.keys(SETTERS), FORM_SET],
  encode(request) {
    const value = textOnly(request.value, "the URL API");
    utf8Only(request, "the URL API");
    if (request.set === FORM_SET) {
      if (!request.space_as_plus) {
        unsupported("URLSearchParams always writes space as '+'");
      }
      return searchParamsName(whatwgUrl.URLSearchParams, value);
    }
    return urlSetterEncode(whatwgUrl.URL, "whatwg-url", request, value);
  },
  decode(request) {
    const value = request.value;
    if (isBytes(value)) {
      return bytesAnswer(whatwgUrl.percentDecodeBytes(bytesOf(value)));
    }
    return bytesAnswer(whatwgUrl.percentDecodeString(value));
  },
  form_serialize(request) {
    utf8Only(request, "URLSearchParams");
    return new whatwgUrl.URLSearchParams(request.pairs).toString();
  },
  form_parse(request) {
    return searchParamsParse(whatwgUrl.URLSearchParams, textOnly(request.text, "URLSearchParams"));
  },
};

// --- bun-url, deno-url: the runtime's own URL class -------------------------------------------
// Encode only: the URL API has no percent-decoder, and URLSearchParams is asked as the
// runtime's built-ins (`bun`, `deno`).
const runtimeUrl = {
  version: () => RUNTIME_VERSION,
  questions: ["encode"],
  sets: ["userinfo", ...Object.keys(SETTERS)],
  encode(request) {
    const value = textOnly(request.value, "the URL API");
    utf8Only(request, "the URL API");
    return urlSetterEncode(URL, `${RUNTIME_NAME} URL`, request, value);
  },
  decode() {
    unsupported("the URL API has no percent-decoder");
  },
  form_serialize() {
    unsupported(`URLSearchParams is asked as the ${RUNTIME} implementation`);
  },
  form_parse() {
    unsupported(`URLSearchParams is asked as the ${RUNTIME} implementation`);
  },
};

const IMPLEMENTATIONS = {
  node: { "node": builtins, "node-querystring": nodeQuerystring, "whatwg-url": whatwg },
  bun: { "bun": builtins, "bun-url": runtimeUrl },
  deno: { "deno": builtins, "deno-url": runtimeUrl },
}[RUNTIME];
const UNAVAILABLE = { "whatwg-url": whatwgUrlError };

// --- the protocol -------------------------------------------------------------------------
function handshake(message) {
  if (message === null || typeof message !== "object" || message.protocol !== PROTOCOL) {
    return { protocol_error: `expected the handshake {"protocol": "${PROTOCOL}", "version": ${VERSION}}` };
  }
  if (message.version !== VERSION) {
    return { protocol_error: `unsupported protocol version ${JSON.stringify(message.version)}; this peer speaks ${VERSION}` };
  }
  const implementations = {};
  for (const [name, impl] of Object.entries(IMPLEMENTATIONS)) {
    implementations[name] = UNAVAILABLE[name]
      ? { unavailable: UNAVAILABLE[name] }
      : { version: impl.version(), questions: impl.questions || QUESTIONS, sets: impl.sets };
  }
  return { protocol: PROTOCOL, version: VERSION, peer: `pctfuzz-${RUNTIME}-peer`, runtime: `${RUNTIME} ${RUNTIME_VERSION}`, implementations };
}

function answer(request) {
  if (request === null || typeof request !== "object" || !Number.isInteger(request.id)) {
    return { protocol_error: "a request is an object with an integer id" };
  }
  const id = request.id;
  const impl = IMPLEMENTATIONS[request.impl];
  if (impl === undefined || UNAVAILABLE[request.impl]) {
    return { id, protocol_error: `no implementation ${JSON.stringify(request.impl)} available here` };
  }
  if (!QUESTIONS.includes(request.q)) {
    return { id, protocol_error: `unknown question ${JSON.stringify(request.q)}` };
  }
  try {
    return { id, ok: impl[request.q](request) };
  } catch (error) {
    if (error instanceof Unsupported) {
      return { id, unsupported: error.message };
    }
    const type = error !== null && typeof error === "object" && typeof error.name === "string"
      ? error.name : typeof error;
    return { id, error: { type, message: String(error && error.message !== undefined ? error.message : error) } };
  }
}

let shaken = false;

function onLine(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    return { protocol_error: `not JSON: ${error.message}` };
  }
  if (!shaken) {
    const reply = handshake(message);
    shaken = reply.protocol_error === undefined;
    return reply;
  }
  return answer(message);
}

// Synchronous reads and writes on fds 0 and 1: one request is answered before the next
// is read, and a blocking read wakes up faster than the event loop (benchmarks/
// bench_protocol.py).
const fs = require("fs");

function pause() {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}

function writeAll(text) {
  const data = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < data.length) {
    try {
      offset += fs.writeSync(1, data, offset, data.length - offset);
    } catch (error) {
      if (error.code !== "EAGAIN") {
        throw error;
      }
      pause();
    }
  }
}

function serve() {
  const chunk = Buffer.alloc(1 << 16);
  let pending = Buffer.alloc(0);
  for (;;) {
    let count;
    try {
      count = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error.code === "EAGAIN") {
        pause();
        continue;
      }
      if (error.code === "EOF") {
        return;
      }
      throw error;
    }
    if (count === 0) {
      return; // stdin closed: pctfuzz is done with us
    }
    pending = pending.length ? Buffer.concat([pending, chunk.subarray(0, count)]) : Buffer.from(chunk.subarray(0, count));
    // One write per read: the answers to every complete line read so far, in order.
    let out = "";
    let start = 0;
    let newline = pending.indexOf(10);
    while (newline >= 0) {
      const line = pending.toString("utf8", start, newline);
      if (line.trim() !== "") {
        out += `${JSON.stringify(onLine(line))}\n`;
      }
      start = newline + 1;
      newline = pending.indexOf(10, start);
    }
    pending = pending.subarray(start);
    if (out) {
      writeAll(out);
    }
  }
}

serve();
