<?php
// pctfuzz's PHP peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
// docs/peers.md) with PHP's URL functions. Started as `php -d display_errors=stderr peer.php`:
// nothing but answers may reach stdout.
//
// Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found them;
// pctfuzz/oracles/php.py declares the same):
//   php-rawurlencode  rawurlencode (encode), rawurldecode (decode)
//   php-urlencode     urlencode (encode; space as '+'), urldecode (decode)
//   php-http-query    http_build_query (form serialize), parse_str (form parse)
//
// PHP strings are bytes: a value may arrive as bytes, and decoded text is answered as
// bytes ({"base64": ...}) so pctfuzz does the UTF-8 decoding the URL Standard does.

final class Unsupported extends Exception {}
final class ProtocolError extends Exception {}

const RAW_SET = 'rfc3986-unreserved';
const PLUS_SET = 'application/x-www-form-urlencoded+*';

function value_of($value) {
    if (is_string($value)) {
        return [$value, false];
    }
    if (is_array($value) && isset($value['base64']) && is_string($value['base64'])) {
        $bytes = base64_decode($value['base64'], true);
        if ($bytes !== false) {
            return [$bytes, true];
        }
    }
    throw new ProtocolError('value must be a string or {"base64": ...}');
}

function bytes_answer(string $bytes): array {
    return ['base64' => base64_encode($bytes)];
}

function encoder(string $impl, array $r): string {
    [$v, $isBytes] = value_of($r['value'] ?? null);
    if (!$isBytes && ($r['encoding'] ?? '') !== 'UTF-8') {
        throw new Unsupported('PHP strings are bytes: a legacy encoding needs bytes');
    }
    $plus = ($r['space_as_plus'] ?? false) === true;
    if ($impl === 'php-rawurlencode' && ($r['set'] ?? '') === RAW_SET) {
        if ($plus && strpos($v, ' ') !== false) {
            throw new Unsupported('rawurlencode writes a space as %20');
        }
        return rawurlencode($v);
    }
    if ($impl === 'php-urlencode' && ($r['set'] ?? '') === PLUS_SET) {
        if (!$plus && strpos($v, ' ') !== false) {
            throw new Unsupported("urlencode writes a space as '+'");
        }
        return urlencode($v);
    }
    throw new Unsupported("$impl has no function for the set " . ($r['set'] ?? ''));
}

function form_serialize(array $r): string {
    if (($r['encoding'] ?? '') !== 'UTF-8') {
        throw new Unsupported('http_build_query writes the strings\' bytes (UTF-8 here)');
    }
    $data = [];
    foreach ($r['pairs'] ?? [] as $pair) {
        if (!is_array($pair) || count($pair) !== 2) {
            throw new ProtocolError('pairs: expected [name, value]');
        }
        [$name, $value] = $pair;
        if (array_key_exists($name, $data)) {
            throw new Unsupported('a PHP array holds one value per name');
        }
        $data[$name] = $value;
    }
    // An array's integer-like keys are integers: still written as their digits.
    return http_build_query($data);
}

function form_parse(array $r): array {
    [$text] = value_of($r['text'] ?? null);
    if (strpos(urldecode($text), '[') !== false) {
        throw new Unsupported('parse_str reads a name with [ as an array');
    }
    parse_str($text, $out);
    $pairs = [];
    foreach ($out as $name => $value) {
        if (is_array($value)) {
            throw new Unsupported('parse_str builds a nested array from a name with [');
        }
        $pairs[] = [bytes_answer((string) $name), bytes_answer($value)];
    }
    return $pairs;
}

function answer(array $r) {
    $impl = $r['impl'] ?? '';
    $q = $r['q'] ?? '';
    if (!in_array($impl, ['php-rawurlencode', 'php-urlencode', 'php-http-query'], true)) {
        throw new ProtocolError("unknown implementation $impl");
    }
    switch ($q) {
        case 'encode':
            return encoder($impl, $r);
        case 'decode':
            [$v] = value_of($r['value'] ?? null);
            if ($impl === 'php-rawurlencode') {
                return bytes_answer(rawurldecode($v));
            }
            if ($impl === 'php-urlencode') {
                return bytes_answer(urldecode($v));
            }
            throw new Unsupported("$impl does not percent-decode");
        case 'form_serialize':
            if ($impl !== 'php-http-query') {
                throw new Unsupported("$impl does not serialize forms");
            }
            return form_serialize($r);
        case 'form_parse':
            if ($impl !== 'php-http-query') {
                throw new Unsupported("$impl does not parse forms");
            }
            return form_parse($r);
    }
    throw new ProtocolError("unknown question $q");
}

function handshake(): array {
    $v = PHP_VERSION;
    return ['protocol' => 'pctfuzz-peer', 'version' => 1, 'peer' => 'pctfuzz-php-peer',
        'runtime' => "php $v", 'implementations' => [
            'php-rawurlencode' => ['version' => $v, 'questions' => ['encode', 'decode'],
                'sets' => [RAW_SET]],
            'php-urlencode' => ['version' => $v, 'questions' => ['encode', 'decode'],
                'sets' => [PLUS_SET]],
            'php-http-query' => ['version' => $v,
                'questions' => ['form_serialize', 'form_parse']],
        ]];
}

$first = true;
while (($line = fgets(STDIN)) !== false) {
    $r = json_decode($line, true);
    $id = is_array($r) && is_int($r['id'] ?? null) ? $r['id'] : null;
    if (!is_array($r)) {
        $reply = ['protocol_error' => 'not a JSON object: ' . json_last_error_msg()];
    } elseif ($first) {
        $ok = ($r['protocol'] ?? null) === 'pctfuzz-peer' && ($r['version'] ?? null) === 1;
        $reply = $ok ? handshake() : ['protocol_error' => 'this peer speaks pctfuzz-peer version 1'];
    } elseif ($id === null) {
        $reply = ['protocol_error' => 'request without an id'];
    } else {
        try {
            $reply = ['id' => $id, 'ok' => answer($r)];
        } catch (Unsupported $e) {
            $reply = ['id' => $id, 'unsupported' => $e->getMessage()];
        } catch (ProtocolError $e) {
            $reply = ['id' => $id, 'protocol_error' => $e->getMessage()];
        } catch (Throwable $e) {
            $reply = ['id' => $id, 'error' => ['type' => get_class($e), 'message' => $e->getMessage()]];
        }
    }
    $first = false;
    echo json_encode($reply, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE), "\n";
    fflush(STDOUT);
}
