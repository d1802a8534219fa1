/* pctfuzz's GLib peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
 * docs/peers.md) with GLib's URI functions (guri.c). Built by `make peers` with gcc and
 * pkg-config (Debian: libglib2.0-dev; libjson-glib-dev gives the JSON reader and writer).
 *
 * Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found
 * them; pctfuzz/_internal/oracles/glib.py declares the same):
 *   glib-uri-escape  g_uri_escape_string(s, reserved_chars_allowed, FALSE) for a str value,
 *                    g_uri_escape_bytes(data, length, reserved_chars_allowed) for bytes
 *                    (encode; reserved_chars_allowed NULL or one of the
 *                    G_URI_RESERVED_CHARS_ALLOWED_IN_* strings, one set each);
 *                    g_uri_unescape_string(s, NULL) for a str value,
 *                    g_uri_unescape_bytes(data, length, NULL) for bytes (decode)
 *   glib-uri-params  g_uri_params_iter_init(&iter, text, length, "&", G_URI_PARAMS_WWW_FORM)
 *                    then g_uri_params_iter_next until it stops (form parse): the iterator
 *                    g_uri_parse_params reads into a hash table, pairs kept in order
 *   glib-uri-parse-params  g_uri_parse_params(text, length, "&", G_URI_PARAMS_WWW_FORM)
 *                    (form parse): its hash table, answered as its pairs sorted by name
 *
 * C strings are bytes: a value may arrive as bytes ({"base64": ...}) and decoded text is
 * answered as bytes, so pctfuzz does the UTF-8 decoding the URL Standard does. A str
 * value is the NUL-terminated UTF-8 string json-glib gives: the adapter sends no str
 * with a NUL (a C string ends there) and sends a form's text as bytes.
 */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#define IMPL_ESCAPE "glib-uri-escape"
#define IMPL_PARAMS "glib-uri-params"
#define IMPL_PARSE_PARAMS "glib-uri-parse-params"

/* canonical set name -> reserved_chars_allowed (the G_URI_RESERVED_CHARS_ALLOWED_IN_*
 * macros of guri.h). */
static const struct {
  const char *set;
  const char *allowed;
} ESCAPE_SETS[] = {
  {"rfc3986-unreserved", NULL},
  {"rfc3986-pchar-/", G_URI_RESERVED_CHARS_ALLOWED_IN_PATH},
  {"rfc3986-pchar", G_URI_RESERVED_CHARS_ALLOWED_IN_PATH_ELEMENT},
  {"rfc3986-pchar+@", G_URI_RESERVED_CHARS_ALLOWED_IN_USERINFO},
};

typedef enum { ANSWER_OK, ANSWER_ERROR, ANSWER_UNSUPPORTED, ANSWER_PROTOCOL } AnswerKind;

typedef struct {
  AnswerKind kind;
  JsonNode *ok;       /* ANSWER_OK */
  char *error_type;   /* ANSWER_ERROR */
  char *message;      /* ANSWER_ERROR, ANSWER_UNSUPPORTED, ANSWER_PROTOCOL */
} Answer;

static Answer
unsupported (const char *reason)
{
  return (Answer){ANSWER_UNSUPPORTED, NULL, NULL, g_strdup (reason)};
}

static Answer
protocol_error (const char *message)
{
  return (Answer){ANSWER_PROTOCOL, NULL, NULL, g_strdup (message)};
}

/* A GLib function's failure: the GError's domain and code name the type. */
static Answer
library_error (const char *type, const char *message)
{
  /* A message is UTF-8 text in the C locale; make_valid keeps the JSON writer safe. */
  return (Answer){ANSWER_ERROR, NULL, g_strdup (type), g_utf8_make_valid (message, -1)};
}

static Answer
ok_string (const char *text)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, text);
  return (Answer){ANSWER_OK, node, NULL, NULL};
}

static JsonNode *
bytes_node (const guint8 *data, gsize length)
{
  JsonObject *object = json_object_new ();
  char *b64 = g_base64_encode (data, length);
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  json_object_set_string_member (object, "base64", b64);
  json_node_take_object (node, object);
  g_free (b64);
  return node;
}

/* A value: a JSON string (is_bytes FALSE; NUL-terminated, length its strlen) or
 * {"base64": ...} (is_bytes TRUE). Returns FALSE if it is neither. */
static gboolean
read_value (JsonObject *request, const char *member, guint8 **data, gsize *length,
            gboolean *is_bytes)
{
  JsonNode *node = json_object_get_member (request, member);
  if (node == NULL)
    return FALSE;
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);
      *length = strlen (s);
      *data = (guint8 *) g_strdup (s);
      *is_bytes = FALSE;
      return TRUE;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      JsonNode *b64 = json_object_get_member (object, "base64");
      if (b64 != NULL && JSON_NODE_HOLDS_VALUE (b64)
          && json_node_get_value_type (b64) == G_TYPE_STRING)
        {
          *data = g_base64_decode (json_node_get_string (b64), length);
          if (*data == NULL)
            *data = (guint8 *) g_strdup ("");
          *is_bytes = TRUE;
          return TRUE;
        }
    }
  return FALSE;
}

static const char *
string_member (JsonObject *request, const char *member)
{
  JsonNode *node = json_object_get_member (request, member);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static Answer
answer_encode (JsonObject *request)
{
  const char *set = string_member (request, "set");
  const char *encoding = string_member (request, "encoding");
  const char *allowed = NULL;
  gboolean found = FALSE, is_bytes;
  guint8 *data;
  gsize length;
  Answer answer;

  for (gsize i = 0; i < G_N_ELEMENTS (ESCAPE_SETS); i++)
    if (set != NULL && strcmp (set, ESCAPE_SETS[i].set) == 0)
      {
        allowed = ESCAPE_SETS[i].allowed;
        found = TRUE;
      }
  if (!found)
    return unsupported ("g_uri_escape_string has no reserved_chars_allowed for this set");
  if (!read_value (request, "value", &data, &length, &is_bytes))
    return protocol_error ("value: expected a string or {\"base64\": ...}");
  if (!is_bytes && (encoding == NULL || strcmp (encoding, "UTF-8") != 0))
    answer = unsupported ("a str is given as its UTF-8 bytes: a legacy encoding needs bytes");
  else if (json_object_get_boolean_member_with_default (request, "space_as_plus", FALSE)
           && memchr (data, ' ', length) != NULL)
    answer = unsupported ("g_uri_escape_string writes a space as %20");
  else
    {
      char *out = is_bytes ? g_uri_escape_bytes (data, length, allowed)
                           : g_uri_escape_string ((const char *) data, allowed, FALSE);
      answer = ok_string (out);
      g_free (out);
    }
  g_free (data);
  return answer;
}

static Answer
answer_decode (JsonObject *request)
{
  gboolean is_bytes;
  guint8 *data;
  gsize length;
  Answer answer;

  if (!read_value (request, "value", &data, &length, &is_bytes))
    return protocol_error ("value: expected a string or {\"base64\": ...}");
  if (is_bytes)
    {
      GError *error = NULL;
      GBytes *out = g_uri_unescape_bytes ((const char *) data, length, NULL, &error);
      if (out == NULL)
        {
          answer = library_error ("G_URI_ERROR_FAILED", error->message);
          g_error_free (error);
        }
      else
        {
          gsize n;
          const guint8 *bytes = g_bytes_get_data (out, &n);
          answer = (Answer){ANSWER_OK, bytes_node (bytes, n), NULL, NULL};
          g_bytes_unref (out);
        }
    }
  else
    {
      char *out = g_uri_unescape_string ((const char *) data, NULL);
      if (out == NULL)
        /* No GError: the function returns NULL for an invalid escape and for %00. */
        answer = library_error ("NULL", "g_uri_unescape_string returned NULL");
      else
        answer = (Answer){ANSWER_OK, bytes_node ((const guint8 *) out, strlen (out)), NULL,
                          NULL};
      g_free (out);
    }
  g_free (data);
  return answer;
}

static Answer
answer_form_parse (JsonObject *request)
{
  gboolean is_bytes;
  guint8 *data;
  gsize length;
  GUriParamsIter iter;
  GError *error = NULL;
  char *attribute, *value;
  JsonArray *pairs;

  if (!read_value (request, "text", &data, &length, &is_bytes))
    return protocol_error ("text: expected a string or {\"base64\": ...}");
  pairs = json_array_new ();
  g_uri_params_iter_init (&iter, (const char *) data, length, "&", G_URI_PARAMS_WWW_FORM);
  while (g_uri_params_iter_next (&iter, &attribute, &value, &error))
    {
      JsonArray *pair = json_array_new ();
      json_array_add_element (pair, bytes_node ((guint8 *) attribute, strlen (attribute)));
      json_array_add_element (pair, bytes_node ((guint8 *) value, strlen (value)));
      json_array_add_array_element (pairs, pair);
      g_free (attribute);
      g_free (value);
    }
  g_free (data);
  if (error != NULL)
    {
      Answer answer = library_error ("G_URI_ERROR_FAILED", error->message);
      g_error_free (error);
      json_array_unref (pairs);
      return answer;
    }
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, pairs);
  return (Answer){ANSWER_OK, node, NULL, NULL};
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* g_uri_parse_params: a GHashTable has no order, so its pairs are answered sorted by
 * name (strcmp: by the UTF-8 bytes). */
static Answer
answer_parse_params (JsonObject *request)
{
  gboolean is_bytes;
  guint8 *data;
  gsize length;
  GError *error = NULL;
  GHashTable *table;

  if (!read_value (request, "text", &data, &length, &is_bytes))
    return protocol_error ("text: expected a string or {\"base64\": ...}");
  table = g_uri_parse_params ((const char *) data, length, "&", G_URI_PARAMS_WWW_FORM,
                              &error);
  g_free (data);
  if (table == NULL)
    {
      Answer answer = library_error ("G_URI_ERROR_FAILED", error->message);
      g_error_free (error);
      return answer;
    }
  guint n;
  gpointer *names = g_hash_table_get_keys_as_array (table, &n);
  qsort (names, n, sizeof *names, compare_names);
  JsonArray *pairs = json_array_new ();
  for (guint i = 0; i < n; i++)
    {
      const char *name = names[i], *value = g_hash_table_lookup (table, name);
      JsonArray *pair = json_array_new ();
      json_array_add_element (pair, bytes_node ((const guint8 *) name, strlen (name)));
      json_array_add_element (pair, bytes_node ((const guint8 *) value, strlen (value)));
      json_array_add_array_element (pairs, pair);
    }
  g_free (names);
  g_hash_table_unref (table);
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, pairs);
  return (Answer){ANSWER_OK, node, NULL, NULL};
}

static Answer
answer (JsonObject *request)
{
  const char *impl = string_member (request, "impl");
  const char *q = string_member (request, "q");

  if (impl == NULL || (strcmp (impl, IMPL_ESCAPE) != 0 && strcmp (impl, IMPL_PARAMS) != 0
                       && strcmp (impl, IMPL_PARSE_PARAMS) != 0))
    return protocol_error ("unknown implementation");
  if (q == NULL)
    return protocol_error ("request without a question");
  if (strcmp (impl, IMPL_PARSE_PARAMS) == 0)
    {
      if (strcmp (q, "form_parse") == 0)
        return answer_parse_params (request);
      if (strcmp (q, "encode") == 0 || strcmp (q, "decode") == 0
          || strcmp (q, "form_serialize") == 0)
        return unsupported ("g_uri_parse_params parses only");
      return protocol_error ("unknown question");
    }
  gboolean escape = strcmp (impl, IMPL_ESCAPE) == 0;
  if (strcmp (q, "encode") == 0)
    return escape ? answer_encode (request) : unsupported ("g_uri_parse_params parses only");
  if (strcmp (q, "decode") == 0)
    return escape ? answer_decode (request) : unsupported ("g_uri_parse_params parses only");
  if (strcmp (q, "form_parse") == 0)
    return escape ? unsupported ("g_uri_escape_string is no form parser")
                  : answer_form_parse (request);
  if (strcmp (q, "form_serialize") == 0)
    return unsupported ("GLib has no form serializer");
  return protocol_error ("unknown question");
}

static JsonNode *
handshake (void)
{
  JsonBuilder *b = json_builder_new ();
  char *version = g_strdup_printf ("%u.%u.%u", glib_major_version, glib_minor_version,
                                   glib_micro_version);
  char *runtime = g_strdup_printf ("glib %s, json-glib %s", version, JSON_VERSION_S);

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "protocol");
  json_builder_add_string_value (b, "pctfuzz-peer");
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "peer");
  json_builder_add_string_value (b, "pctfuzz-glib-peer");
  json_builder_set_member_name (b, "runtime");
  json_builder_add_string_value (b, runtime);
  json_builder_set_member_name (b, "implementations");
  json_builder_begin_object (b);

  json_builder_set_member_name (b, IMPL_ESCAPE);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, version);
  json_builder_set_member_name (b, "questions");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "encode");
  json_builder_add_string_value (b, "decode");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "sets");
  json_builder_begin_array (b);
  for (gsize i = 0; i < G_N_ELEMENTS (ESCAPE_SETS); i++)
    json_builder_add_string_value (b, ESCAPE_SETS[i].set);
  json_builder_end_array (b);
  json_builder_end_object (b);

  json_builder_set_member_name (b, IMPL_PARAMS);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, version);
  json_builder_set_member_name (b, "questions");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "form_parse");
  json_builder_end_array (b);
  json_builder_end_object (b);

  json_builder_set_member_name (b, IMPL_PARSE_PARAMS);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_string_value (b, version);
  json_builder_set_member_name (b, "questions");
  json_builder_begin_array (b);
  json_builder_add_string_value (b, "form_parse");
  json_builder_end_array (b);
  json_builder_end_object (b);

  json_builder_end_object (b);
  json_builder_end_object (b);

  JsonNode *root = json_builder_get_root (b);
  g_object_unref (b);
  g_free (version);
  g_free (runtime);
  return root;
}

static JsonNode *
reply_node (gint64 id, gboolean has_id, Answer a)
{
  JsonObject *o = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);
  if (has_id)
    json_object_set_int_member (o, "id", id);
  switch (a.kind)
    {
    case ANSWER_OK:
      json_object_set_member (o, "ok", a.ok);
      break;
    case ANSWER_ERROR:
      {
        JsonObject *e = json_object_new ();
        json_object_set_string_member (e, "type", a.error_type);
        json_object_set_string_member (e, "message", a.message);
        json_object_set_object_member (o, "error", e);
        break;
      }
    case ANSWER_UNSUPPORTED:
      json_object_set_string_member (o, "unsupported", a.message);
      break;
    case ANSWER_PROTOCOL:
      json_object_set_string_member (o, "protocol_error", a.message);
      break;
    }
  g_free (a.error_type);
  g_free (a.message);
  json_node_take_object (node, o);
  return node;
}

static void
write_line (JsonGenerator *generator, JsonNode *node)
{
  json_generator_set_root (generator, node);
  char *text = json_generator_to_data (generator, NULL);
  fputs (text, stdout);
  fputc ('\n', stdout);
  fflush (stdout);
  g_free (text);
  json_node_unref (node);
}

int
main (void)
{
  JsonParser *parser = json_parser_new ();
  JsonGenerator *generator = json_generator_new ();
  char *line = NULL;
  size_t capacity = 0;
  ssize_t n;
  gboolean first = TRUE;

  json_generator_set_pretty (generator, FALSE);
  while ((n = getline (&line, &capacity, stdin)) != -1)
    {
      GError *error = NULL;
      JsonObject *request;
      JsonNode *reply;

      if (n <= 1 && (n == 0 || line[0] == '\n'))
        continue;
      if (!json_parser_load_from_data (parser, line, n, &error)
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          g_clear_error (&error);
          first = FALSE;
          write_line (generator, reply_node (0, FALSE, protocol_error ("not a JSON object")));
          continue;
        }
      request = json_node_get_object (json_parser_get_root (parser));
      if (first)
        {
          const char *protocol = string_member (request, "protocol");
          first = FALSE;
          if (protocol != NULL && strcmp (protocol, "pctfuzz-peer") == 0
              && json_object_get_int_member_with_default (request, "version", 0) == 1)
            reply = handshake ();
          else
            reply = reply_node (0, FALSE,
                                protocol_error ("this peer speaks pctfuzz-peer version 1"));
          write_line (generator, reply);
          continue;
        }
      JsonNode *id = json_object_get_member (request, "id");
      if (id == NULL || !JSON_NODE_HOLDS_VALUE (id)
          || json_node_get_value_type (id) != G_TYPE_INT64)
        {
          write_line (generator, reply_node (0, FALSE, protocol_error ("request without an id")));
          continue;
        }
      write_line (generator, reply_node (json_node_get_int (id), TRUE, answer (request)));
    }
  free (line);
  g_object_unref (parser);
  g_object_unref (generator);
  return 0;
}
