// pctfuzz's Qt peer: answers the pctfuzz-peer line protocol, version 1 (docs/protocol.md,
// docs/peers.md) with Qt 6's QtCore (Debian: qt6-base-dev). `make peers` compiles it with
// g++ against Qt6Core (pkg-config) into the build folder; it reads and writes JSON with
// QtCore's own QJsonDocument.
//
// Implementations (set names are pctfuzz's canonical names, as `pctfuzz probe` found
// them; pctfuzz/_internal/oracles/qt.py declares the same):
//   qt-qurl       QUrl::toPercentEncoding(v) ("rfc3986-unreserved": the default exclude
//                 and include), QUrl::toPercentEncoding(v, "/") ("rfc3986-unreserved-/")
//                 (encode), QUrl::fromPercentEncoding (decode)
//   qt-qurlquery  QUrlQuery::addQueryItem(QUrl::toPercentEncoding(name),
//                 QUrl::toPercentEncoding(value)) for each pair, as QUrlQuery's documentation
//                 asks (its setters take encoded forms only), then query(QUrl::FullyEncoded)
//                 (form serialize); setQuery(text) then queryItems(QUrl::FullyDecoded)
//                 (form parse)
//
// QString is UTF-16 and QJsonDocument keeps a lone surrogate escape as that code unit (and
// writes one back as an escape), so a str value reaches the library as pctfuzz meant it;
// a NUL too. The functions take a QString (toPercentEncoding, addQueryItem, setQuery),
// so bytes values are unsupported there; fromPercentEncoding takes a QByteArray: a str
// value is given as its UTF-8 bytes, a bytes value as is, and its QString answer is sent
// as its UTF-8 bytes ({"base64": ...}).

#include <QtCore/QByteArray>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QJsonValue>
#include <QtCore/QString>
#include <QtCore/QUrl>
#include <QtCore/QUrlQuery>
#include <QtCore/QtGlobal>

#include <cstdio>
#include <iostream>
#include <string>

namespace {

struct Unsupported { QString why; };
struct ProtocolError { QString why; };

const char *const Unreserved = "rfc3986-unreserved";
const char *const UnreservedSlash = "rfc3986-unreserved-/";

QJsonValue field(const QJsonObject &r, const char *name)
{
    if (!r.contains(QLatin1String(name)))
        throw ProtocolError{QStringLiteral("request without ") + QLatin1String(name)};
    return r.value(QLatin1String(name));
}

bool isBytes(const QJsonValue &v)
{
    return v.isObject() && v.toObject().value(QLatin1String("base64")).isString();
}

// A str (QString, lone surrogates kept) or {"base64": ...}.
QString text(const QJsonValue &v, const char *api)
{
    if (v.isString())
        return v.toString();
    if (isBytes(v))
        throw Unsupported{QLatin1String(api) + QLatin1String(" takes a QString, not bytes")};
    throw ProtocolError{QStringLiteral("value must be a string or {\"base64\": ...}")};
}

QByteArray bytes(const QJsonValue &v)
{
    if (v.isString())
        return v.toString().toUtf8();
    if (isBytes(v)) {
        auto decoded = QByteArray::fromBase64Encoding(
            v.toObject().value(QLatin1String("base64")).toString().toLatin1(),
            QByteArray::AbortOnBase64DecodingErrors);
        if (decoded)
            return *decoded;
    }
    throw ProtocolError{QStringLiteral("value must be a string or {\"base64\": ...}")};
}

QJsonValue bytesAnswer(const QByteArray &b)
{
    return QJsonObject{{QStringLiteral("base64"), QString::fromLatin1(b.toBase64())}};
}

void utf8Only(const QJsonObject &r, const char *api)
{
    if (field(r, "encoding").toString() != QLatin1String("UTF-8"))
        throw Unsupported{QLatin1String(api) + QLatin1String(" encodes UTF-8 only")};
}

QJsonValue encode(const QJsonObject &r)
{
    const QString set = field(r, "set").toString();
    utf8Only(r, "QUrl::toPercentEncoding");
    if (field(r, "space_as_plus").toBool())
        throw Unsupported{QStringLiteral("QUrl::toPercentEncoding writes a space as %20")};
    const QString value = text(field(r, "value"), "QUrl::toPercentEncoding");
    if (set == QLatin1String(Unreserved))
        return QString::fromLatin1(QUrl::toPercentEncoding(value));
    if (set == QLatin1String(UnreservedSlash))
        return QString::fromLatin1(QUrl::toPercentEncoding(value, "/"));
    throw Unsupported{QStringLiteral("no QUrl::toPercentEncoding call for set ") + set};
}

QJsonValue formSerialize(const QJsonObject &r)
{
    utf8Only(r, "QUrlQuery");
    QUrlQuery query;
    for (const QJsonValue pair : field(r, "pairs").toArray()) {
        const QJsonArray p = pair.toArray();
        if (!pair.isArray() || p.size() != 2)
            throw ProtocolError{QStringLiteral("pairs must be [[name, value], ...]")};
        // "all user input must be first percent-encoded using QUrl::toPercentEncoding()
        // or similar functions before being passed to the functions in this class"
        // (QUrlQuery, Encoding): addQueryItem takes encoded forms only.
        query.addQueryItem(QString::fromLatin1(QUrl::toPercentEncoding(
                               text(p[0], "QUrlQuery::addQueryItem"))),
                           QString::fromLatin1(QUrl::toPercentEncoding(
                               text(p[1], "QUrlQuery::addQueryItem"))));
    }
    return query.query(QUrl::FullyEncoded);
}

QJsonValue formParse(const QJsonObject &r)
{
    QUrlQuery query;
    query.setQuery(text(field(r, "text"), "QUrlQuery::setQuery"));
    QJsonArray out;
    for (const auto &item : query.queryItems(QUrl::FullyDecoded))
        out.append(QJsonArray{item.first, item.second});
    return out;
}

QJsonValue answer(const QJsonObject &r)
{
    const QString impl = field(r, "impl").toString();
    const QString q = field(r, "q").toString();
    if (impl == QLatin1String("qt-qurl")) {
        if (q == QLatin1String("encode"))
            return encode(r);
        if (q == QLatin1String("decode"))
            return bytesAnswer(QUrl::fromPercentEncoding(bytes(field(r, "value"))).toUtf8());
        if (q == QLatin1String("form_serialize") || q == QLatin1String("form_parse"))
            throw Unsupported{QStringLiteral("qt-qurl has no form functions: qt-qurlquery")};
    } else if (impl == QLatin1String("qt-qurlquery")) {
        if (q == QLatin1String("form_serialize"))
            return formSerialize(r);
        if (q == QLatin1String("form_parse"))
            return formParse(r);
        if (q == QLatin1String("encode") || q == QLatin1String("decode"))
            throw Unsupported{QStringLiteral("qt-qurlquery answers forms only: qt-qurl")};
    } else {
        throw ProtocolError{QStringLiteral("unknown implementation ") + impl};
    }
    throw ProtocolError{QStringLiteral("unknown question ") + q};
}

QJsonObject handshake()
{
    // qVersion(): the QtCore that is loaded, which may be newer than the headers.
    const QString version = QString::fromLatin1(qVersion());
    return QJsonObject{
        {QStringLiteral("protocol"), QStringLiteral("pctfuzz-peer")},
        {QStringLiteral("version"), 1},
        {QStringLiteral("peer"), QStringLiteral("pctfuzz-qt-peer")},
        {QStringLiteral("runtime"), QStringLiteral("Qt ") + version},
        {QStringLiteral("implementations"), QJsonObject{
            {QStringLiteral("qt-qurl"), QJsonObject{
                {QStringLiteral("version"), version},
                {QStringLiteral("questions"), QJsonArray{QStringLiteral("encode"),
                                                         QStringLiteral("decode")}},
                {QStringLiteral("sets"), QJsonArray{QLatin1String(Unreserved),
                                                    QLatin1String(UnreservedSlash)}}}},
            {QStringLiteral("qt-qurlquery"), QJsonObject{
                {QStringLiteral("version"), version},
                {QStringLiteral("questions"), QJsonArray{QStringLiteral("form_serialize"),
                                                         QStringLiteral("form_parse")}}}}}}};
}

void write(const QJsonObject &reply)
{
    // Compact JSON is one line: QJsonDocument escapes control characters and writes a
    // lone surrogate as a \uXXXX escape.
    const QByteArray line = QJsonDocument(reply).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stdout);
    std::fflush(stdout);
}

QJsonObject protocolError(const QString &why, const QJsonValue &id)
{
    QJsonObject reply{{QStringLiteral("protocol_error"), why}};
    if (!id.isUndefined())
        reply.insert(QStringLiteral("id"), id);
    return reply;
}

}  // namespace

int main()
{
    std::ios::sync_with_stdio(false);
    bool first = true;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty())
            continue;
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(
            QByteArray(line.data(), static_cast<qsizetype>(line.size())), &error);
        if (error.error != QJsonParseError::NoError || !doc.isObject()) {
            first = false;
            write(protocolError(error.error != QJsonParseError::NoError
                                    ? error.errorString() : QStringLiteral("not a JSON object"),
                                QJsonValue(QJsonValue::Undefined)));
            continue;
        }
        const QJsonObject r = doc.object();
        if (first) {
            first = false;
            if (r.value(QLatin1String("protocol")).toString() == QLatin1String("pctfuzz-peer")
                && r.value(QLatin1String("version")).toInt() == 1)
                write(handshake());
            else
                write(protocolError(QStringLiteral("this peer speaks pctfuzz-peer version 1"),
                                    QJsonValue(QJsonValue::Undefined)));
            continue;
        }
        const QJsonValue id = r.value(QLatin1String("id"));
        if (!id.isDouble() || id.toDouble() != static_cast<double>(id.toInteger())) {
            write(protocolError(QStringLiteral("request without an id"),
                                QJsonValue(QJsonValue::Undefined)));
            continue;
        }
        try {
            write(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("ok"), answer(r)}});
        } catch (const Unsupported &u) {
            write(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("unsupported"), u.why}});
        } catch (const ProtocolError &p) {
            write(protocolError(p.why, id));
        }
    }
    return 0;
}
