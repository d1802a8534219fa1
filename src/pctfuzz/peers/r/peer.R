# pctfuzz's R peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
# docs/peers.md) with R's utils::URLencode and utils::URLdecode (Debian: r-base-core;
# r-cran-jsonlite reads and writes the JSON).
#
# Implementation (set names are pctfuzz's canonical names, as `pctfuzz probe` found
# them; pctfuzz/_internal/oracles/r.py declares the same):
#   r-urlencode  URLencode(x) and URLencode(x, reserved = TRUE) (encode, repeated = FALSE
#                as the default is), URLdecode (decode)
#
# A str value reaches R as a UTF-8 string; decoded bytes are answered as
# {"base64": ...}.

invisible(Sys.setlocale("LC_CTYPE", "C.UTF-8"))
have_json <- suppressWarnings(requireNamespace("jsonlite", quietly = TRUE))

# URLencode's sets: reserved = TRUE leaves RFC 3986's unreserved characters raw;
# reserved = FALSE also "][!$&'()*+,;=:/?@#": encodeURI's set, but [ ] raw.
SETS <- c("rfc3986-unreserved" = TRUE, "encodeURI-[]" = FALSE)
IMPL <- "r-urlencode"

unsupported <- function(reason) {
  stop(structure(class = c("pctfuzz_unsupported", "error", "condition"),
                 list(message = reason, call = NULL)))
}

protocol_error <- function(message) {
  stop(structure(class = c("pctfuzz_protocol", "error", "condition"),
                 list(message = message, call = NULL)))
}

to_json <- function(x) {
  as.character(jsonlite::toJSON(x, auto_unbox = TRUE, digits = NA, null = "null"))
}

text_of <- function(value) {
  if (!is.character(value) || length(value) != 1L) {
    unsupported("R's URL functions take a character string (the adapter sends no bytes)")
  }
  enc2utf8(value)
}

answer <- function(request) {
  if (!identical(request$impl, IMPL)) protocol_error("unknown implementation")
  q <- if (is.null(request$q)) "" else request$q
  if (identical(q, "encode")) {
    set <- request$set
    if (!is.character(set) || !(set %in% names(SETS))) {
      unsupported(paste("URLencode has no argument for the set", set))
    }
    if (!identical(request$encoding, "UTF-8")) unsupported("R strings here are UTF-8")
    value <- text_of(request$value)
    if (isTRUE(request$space_as_plus) && grepl(" ", value, fixed = TRUE)) {
      unsupported("URLencode writes a space as %20")
    }
    return(utils::URLencode(value, reserved = SETS[[set]]))
  }
  if (identical(q, "decode")) {
    decoded <- utils::URLdecode(text_of(request$value))
    # base64_enc breaks its output into lines: one line here.
    return(list(base64 = gsub("[\r\n]", "", jsonlite::base64_enc(charToRaw(decoded)))))
  }
  if (q %in% c("form_serialize", "form_parse")) {
    unsupported("utils has no form functions")
  }
  protocol_error(paste("unknown question", q))
}

handshake <- function() {
  if (have_json) {
    info <- list(version = as.character(getRversion()), questions = I(c("encode", "decode")),
                 sets = I(names(SETS)))
  } else {
    info <- list(unavailable = "jsonlite is not installed (make peers installs r-cran-jsonlite)")
  }
  implementations <- list()
  implementations[[IMPL]] <- info
  list(protocol = "pctfuzz-peer", version = 1L, peer = "pctfuzz-r-peer",
       runtime = R.version.string, implementations = implementations)
}

reply <- function(line, first) {
  request <- tryCatch(jsonlite::fromJSON(line, simplifyVector = FALSE), error = function(e) NULL)
  if (!is.list(request) || is.null(names(request))) {
    return(list(protocol_error = "not a JSON object"))
  }
  if (first) {
    if (identical(request$protocol, "pctfuzz-peer") && identical(request$version, 1L)) {
      return(handshake())
    }
    return(list(protocol_error = "this peer speaks pctfuzz-peer version 1"))
  }
  id <- request$id
  if (!is.numeric(id) || length(id) != 1L || id != round(id)) {
    return(list(protocol_error = "request without an id"))
  }
  tryCatch(
    list(id = id, ok = withCallingHandlers(answer(request),
                                           warning = function(w) invokeRestart("muffleWarning"))),
    pctfuzz_unsupported = function(e) list(id = id, unsupported = conditionMessage(e)),
    pctfuzz_protocol = function(e) list(id = id, protocol_error = conditionMessage(e)),
    error = function(e) list(id = id, error = list(type = "error",
                                                   message = conditionMessage(e)))
  )
}

input <- file("stdin", open = "r")
first <- TRUE
repeat {
  line <- readLines(input, n = 1L, warn = FALSE)
  if (length(line) == 0L) break
  if (!nzchar(trimws(line))) next
  if (!have_json) {
    text <- if (first) paste0('{"protocol":"pctfuzz-peer","version":1,"peer":"pctfuzz-r-peer",',
                              '"runtime":"R","implementations":{"', IMPL, '":{"unavailable":',
                              '"jsonlite is not installed (make peers installs r-cran-jsonlite)"}}}')
            else '{"protocol_error":"jsonlite is not installed"}'
  } else {
    text <- to_json(reply(line, first))
  }
  first <- FALSE
  cat(text, "\n", sep = "")
  flush(stdout())
}
