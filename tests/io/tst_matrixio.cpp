// SPDX-License-Identifier: GPL-3.0-or-later
// The text formats: numbers that read back bit for bit, JSON strings and
// layout read by an independent parser (QJsonDocument), CSV quoting, and a
// labelled matrix written and read back.

#include "csv.h"
#include "jsonwriter.h"
#include "matrixio.h"
#include "npy.h"
#include "numberformat.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace {

bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

QJsonDocument parseJson(const std::string& text)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("JSON parse error at %d: %s", error.offset, qPrintable(error.errorString()));
    return doc;
}

}  // namespace

class TestMatrixIo : public QObject {
    Q_OBJECT
private slots:
    void numberRoundTrip_data();
    void numberRoundTrip();
    void shortestForm_data();
    void shortestForm();
    void nonFiniteNumbers();
    void parseNumberRejects_data();
    void parseNumberRejects();
    void parseNumberAccepts_data();
    void parseNumberAccepts();
    void jsonNumbersReadBackExactly_data();
    void jsonNumbersReadBackExactly();
    void jsonNonFiniteIsNull();
    void jsonStringsEscaped_data();
    void jsonStringsEscaped();
    void jsonNesting();
    void csvFieldQuoting_data();
    void csvFieldQuoting();
    void csvRowsRoundTrip();
    void csvParsing_data();
    void csvParsing();
    void csvParseErrors_data();
    void csvParseErrors();
    void matrixCsvRoundTrip();
    void matrixCsvReadErrors_data();
    void matrixCsvReadErrors();
    void plainNumpyCsvReadsExactly();
    void plainCsvReadErrors_data();
    void plainCsvReadErrors();
    void matrixFileBySuffix();
    void csvNotUtf8_data();
    void csvNotUtf8();
    void csvBlankLinesCostNothing();
    void csvBeyondAMatrixRefusedAtTheRow();
    void matrixFileEntriesWithinTheEngineLimit_data();
    void matrixFileEntriesWithinTheEngineLimit();
};

void TestMatrixIo::numberRoundTrip_data()
{
    QTest::addColumn<double>("value");
    QTest::newRow("0.1") << 0.1;
    QTest::newRow("1/3") << 1.0 / 3.0;
    QTest::newRow("-2/3") << -2.0 / 3.0;
    QTest::newRow("1e-300") << 1e-300;
    QTest::newRow("smallest denormal") << std::numeric_limits<double>::denorm_min();
    QTest::newRow("a denormal") << -1.5e-310;
    QTest::newRow("smallest normal") << std::numeric_limits<double>::min();
    QTest::newRow("largest double") << std::numeric_limits<double>::max();
    QTest::newRow("lowest double") << std::numeric_limits<double>::lowest();
    QTest::newRow("negative zero") << -0.0;
    QTest::newRow("zero") << 0.0;
    QTest::newRow("2^53 + 2") << 9007199254740994.0;
    QTest::newRow("1e20") << 1e20;
    QTest::newRow("pi") << 3.141592653589793;
    QTest::newRow("float32 draw") << double(0.33737015724182129f);
    QTest::newRow("1 + eps") << 1.0 + std::numeric_limits<double>::epsilon();
}

void TestMatrixIo::numberRoundTrip()
{
    QFETCH(double, value);
    const std::string text = attnlab::formatRoundTrip(value);
    double back = 12345;
    QVERIFY2(attnlab::parseNumber(text, &back), text.c_str());
    QVERIFY2(sameBits(back, value), text.c_str());
}

void TestMatrixIo::shortestForm_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("0.1") << 0.1 << "0.1";
    QTest::newRow("1/3") << 1.0 / 3.0 << "0.3333333333333333";
    QTest::newRow("1e-300") << 1e-300 << "1e-300";
    QTest::newRow("smallest denormal") << std::numeric_limits<double>::denorm_min() << "5e-324";
    QTest::newRow("negative zero keeps its sign") << -0.0 << "-0.0";
    QTest::newRow("integer") << 3.0 << "3";
    QTest::newRow("negative half") << -0.5 << "-0.5";
}

void TestMatrixIo::shortestForm()
{
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(attnlab::formatRoundTrip(value)), text);
}

void TestMatrixIo::nonFiniteNumbers()
{
    const double inf = std::numeric_limits<double>::infinity();
    QCOMPARE(attnlab::formatRoundTrip(-inf), std::string("-inf"));
    QCOMPARE(attnlab::formatRoundTrip(inf), std::string("inf"));
    double back = 0;
    QVERIFY(attnlab::parseNumber("-inf", &back));
    QCOMPARE(back, -inf);
    QVERIFY(attnlab::parseNumber("-Infinity", &back));
    QCOMPARE(back, -inf);
    QVERIFY(attnlab::parseNumber(attnlab::formatRoundTrip(std::nan("")), &back));
    QVERIFY(std::isnan(back));
}

void TestMatrixIo::parseNumberRejects_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("empty") << "";
    QTest::newRow("blank") << "  ";
    QTest::newRow("word") << "abc";
    QTest::newRow("trailing garbage") << "1.5x";
    QTest::newRow("two numbers") << "1 2";
    QTest::newRow("two signs") << "+-1";
    QTest::newRow("double plus") << "++1";
    QTest::newRow("comma decimal") << "1,5";
    QTest::newRow("beyond double range") << "1e999";
    QTest::newRow("hex") << "0x10";
}

void TestMatrixIo::parseNumberRejects()
{
    QFETCH(QString, text);
    double value = 42;
    QVERIFY(!attnlab::parseNumber(text.toStdString(), &value));
    QCOMPARE(value, 42.0);
}

void TestMatrixIo::parseNumberAccepts_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("value");
    QTest::newRow("blanks around") << " 2.5\t" << 2.5;
    QTest::newRow("leading plus") << "+3" << 3.0;
    QTest::newRow("exponent") << "-1.25E-2" << -0.0125;
    QTest::newRow("no leading digit") << ".5" << 0.5;
}

void TestMatrixIo::parseNumberAccepts()
{
    QFETCH(QString, text);
    QFETCH(double, value);
    double parsed = 0;
    QVERIFY(attnlab::parseNumber(text.toStdString(), &parsed));
    QCOMPARE(parsed, value);
}

void TestMatrixIo::jsonNumbersReadBackExactly_data()
{
    numberRoundTrip_data();
}

// QJsonDocument is an independent reader: what it reads must be the very
// double that was written.
void TestMatrixIo::jsonNumbersReadBackExactly()
{
    QFETCH(double, value);
    std::ostringstream out;
    attnlab::JsonWriter json(out);
    json.beginObject();
    json.key("x");
    json.value(value);
    json.endObject();
    json.finish();
    const QJsonDocument doc = parseJson(out.str());
    QVERIFY(doc.isObject());
    const double back = doc.object().value("x").toDouble(12345);

    // The number as written between "x": and the closing brace.
    const std::string text = out.str();
    const std::size_t start = text.find(": ") + 2;
    const std::string token = text.substr(start, text.find('\n', start) - start);
    double ours = 12345;
    QVERIFY2(attnlab::parseNumber(token, &ours), token.c_str());
    QVERIFY2(sameBits(ours, value), token.c_str());

    if (value == 0 && std::signbit(value)) {
        // QJsonValue keeps integral doubles as integers and so drops the
        // sign of zero even for "-0.0" (Python's json keeps it).
        QCOMPARE(token, std::string("-0.0"));
        QCOMPARE(back, 0.0);
        return;
    }
    QVERIFY2(sameBits(back, value), text.c_str());
}

void TestMatrixIo::jsonNonFiniteIsNull()
{
    std::ostringstream out;
    attnlab::JsonWriter json(out);
    json.beginArray(attnlab::JsonWriter::Layout::Inline);
    json.value(-std::numeric_limits<double>::infinity());
    json.value(std::nan(""));
    json.value(1.5);
    json.endArray();
    json.finish();
    QCOMPARE(out.str(), std::string("[null, null, 1.5]\n"));
}

void TestMatrixIo::jsonStringsEscaped_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << "Life";
    QTest::newRow("quote") << "say \"hi\"";
    QTest::newRow("backslash") << "a\\b";
    QTest::newRow("line breaks and tab") << "a\nb\r\tc";
    QTest::newRow("control character") << QString("x") + QChar(1) + QChar(0x1f);
    QTest::newRow("non-ASCII UTF-8") << QString::fromUtf8("d\xc3\xa9j\xc3\xa0 \xe2\x80\x94 \xf0\x9f\x8d\xb0");
    QTest::newRow("empty") << "";
}

void TestMatrixIo::jsonStringsEscaped()
{
    QFETCH(QString, text);
    std::ostringstream out;
    attnlab::JsonWriter json(out);
    json.beginObject();
    json.key(text.toStdString());
    json.value(text.toStdString());
    json.endObject();
    json.finish();
    const QJsonObject object = parseJson(out.str()).object();
    QCOMPARE(object.keys(), QStringList{text});
    QCOMPARE(object.value(text).toString(), text);
    QVERIFY(out.str().find('\x01') == std::string::npos);
}

void TestMatrixIo::jsonNesting()
{
    using Layout = attnlab::JsonWriter::Layout;
    std::ostringstream out;
    attnlab::JsonWriter json(out);
    json.beginObject();
    json.key("empty array");
    json.beginArray();
    json.endArray();
    json.key("empty object");
    json.beginObject(Layout::Inline);
    json.endObject();
    json.key("rows");
    json.beginArray();
    for (int i = 0; i < 2; ++i) {
        json.beginObject(Layout::Inline);
        json.key("i");
        json.value(i);
        json.key("ok");
        json.value(i == 1);
        json.key("nested");
        json.beginArray();  // inline inside an inline parent
        json.value(std::uint64_t(18446744073709551615ULL));
        json.null();
        json.endArray();
        json.endObject();
    }
    json.endArray();
    json.endObject();
    json.finish();

    const std::string text = out.str();
    const QJsonObject object = parseJson(text).object();
    QCOMPARE(object.size(), 3);
    QVERIFY(object.value("empty array").toArray().isEmpty());
    QVERIFY(object.value("empty object").isObject());
    const QJsonArray rows = object.value("rows").toArray();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[1].toObject().value("i").toInt(), 1);
    QCOMPARE(rows[1].toObject().value("ok").toBool(), true);
    QVERIFY(rows[0].toObject().value("nested").toArray()[1].isNull());
    QVERIFY(text.find("18446744073709551615") != std::string::npos);
    // One line per row object: the inline layout holds inside it.
    QVERIFY(text.find("{\"i\": 0, \"ok\": false, \"nested\": [18446744073709551615, null]}")
            != std::string::npos);
}

void TestMatrixIo::csvFieldQuoting_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("written");
    QTest::newRow("plain") << "Life"
                           << "Life";
    QTest::newRow("empty") << ""
                           << "";
    QTest::newRow("comma") << ","
                           << "\",\"";
    QTest::newRow("quote doubled") << "say \"hi\""
                                   << "\"say \"\"hi\"\"\"";
    QTest::newRow("lone quote") << "\""
                                << "\"\"\"\"";
    QTest::newRow("line break") << "a\nb"
                                << "\"a\nb\"";
    QTest::newRow("leading blank") << " a"
                                   << "\" a\"";
    QTest::newRow("trailing blank") << "a "
                                    << "\"a \"";
    QTest::newRow("inner blank") << "a b"
                                 << "a b";
    QTest::newRow("number") << "-1.5e-7"
                            << "-1.5e-7";
}

void TestMatrixIo::csvFieldQuoting()
{
    QFETCH(QString, field);
    QFETCH(QString, written);
    std::string out;
    attnlab::appendCsvField(out, field.toStdString());
    QCOMPARE(QString::fromStdString(out), written);

    // Read back as the second field of a row.
    const auto rows = attnlab::parseCsv("x," + out + "\n");
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), std::size_t(1));
    QCOMPARE(rows->front().size(), std::size_t(2));
    QCOMPARE(QString::fromStdString(rows->front()[1]), field);
}

void TestMatrixIo::csvRowsRoundTrip()
{
    const std::vector<attnlab::CsvRow> rows = {
        {"query/key", ",", "\"", "a,\"b\"", " padded "},
        {"", "", "", "", ""},
        {"multi\nline", "\r\n", "x", "y", "z"},
    };
    std::string text;
    for (const auto& row : rows)
        attnlab::appendCsvRow(text, row);
    const auto back = attnlab::parseCsv(text);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->size(), rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        QCOMPARE(back.value()[i], rows[i]);
}

void TestMatrixIo::csvParsing_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QStringList>("joinedRows");  // fields joined with '|'
    QTest::newRow("LF") << QByteArray("a,b\n1,2\n") << QStringList{"a|b", "1|2"};
    QTest::newRow("CRLF") << QByteArray("a,b\r\n1,2\r\n") << QStringList{"a|b", "1|2"};
    QTest::newRow("no final row end") << QByteArray("a,b\n1,2") << QStringList{"a|b", "1|2"};
    QTest::newRow("byte-order mark") << QByteArray(
        "\xEF\xBB\xBF"
        "a,b\n") << QStringList{"a|b"};
    QTest::newRow("quoted field spans lines")
        << QByteArray("\"x\ny\",2\n3,4\n") << QStringList{"x\ny|2", "3|4"};
    QTest::newRow("quoted last field without row end") << QByteArray("a,\"\"") << QStringList{"a|"};
    QTest::newRow("empty fields") << QByteArray(",,\n") << QStringList{"||"};
    QTest::newRow("empty text") << QByteArray("") << QStringList{};
}

void TestMatrixIo::csvParsing()
{
    QFETCH(QByteArray, text);
    QFETCH(QStringList, joinedRows);
    const auto rows = attnlab::parseCsv(text.toStdString());
    QVERIFY(rows.ok());
    QStringList joined;
    for (const auto& row : rows.value()) {
        QStringList fields;
        for (const auto& f : row)
            fields << QString::fromStdString(f);
        joined << fields.join('|');
    }
    QCOMPARE(joined, joinedRows);
}

void TestMatrixIo::csvParseErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("unterminated quote on line 2")
        << QByteArray("a,b\n\"open,2\n3,4\n") << "CSV line 2: a quoted field is never closed";
    QTest::newRow("text after closing quote")
        << QByteArray("a,b\n\"x\"y,2\n") << "CSV line 2: text after the closing quote of a field";
}

void TestMatrixIo::csvParseErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const auto rows = attnlab::parseCsv(text.toStdString());
    QVERIFY(!rows.ok());
    QCOMPARE(QString::fromStdString(rows.error().message), message);
}

void TestMatrixIo::matrixCsvRoundTrip()
{
    const double inf = std::numeric_limits<double>::infinity();
    attn::Matrix m(3, 4);
    m << 0.1, 1.0 / 3.0, -0.0, 1e-300, std::numeric_limits<double>::denorm_min(), -inf, 2.5, -7, 1e20,
        -1.0 / 7.0, double(0.1f), std::numeric_limits<double>::max();
    const std::vector<std::string> rows = {"Life", ",", "say \"hi\""};
    const std::vector<std::string> columns = {"a", "b,c", "\"", " d"};
    std::ostringstream out;
    attnlab::writeMatrixCsv(out, m, rows, columns, "query/key");

    const auto back = attnlab::readMatrixCsv(out.str());
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->corner, std::string("query/key"));
    QCOMPARE(back->rowLabels, rows);
    QCOMPARE(back->columnLabels, columns);
    QCOMPARE(back->values.rows(), m.rows());
    QCOMPARE(back->values.cols(), m.cols());
    for (int i = 0; i < m.rows(); ++i)
        for (int j = 0; j < m.cols(); ++j)
            QVERIFY2(sameBits(back->values(i, j), m(i, j)),
                     qPrintable(QString("cell (%1, %2)").arg(i).arg(j)));
    QVERIFY(out.str().find(",-inf,") != std::string::npos);
}

void TestMatrixIo::matrixCsvReadErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << QByteArray("\n\n") << "the CSV file is empty";
    QTest::newRow("no columns") << QByteArray("corner\nx\n") << "CSV row 1: the header names no column";
    QTest::newRow("short row") << QByteArray("t,0,1\na,1,2\nb,3\n")
                               << "CSV row 3: 2 cells, expected 3 as in the header";
    QTest::newRow("not a number") << QByteArray("t,0,1\na,1,x2\n")
                                  << "CSV row 2, column 3: 'x2' is not a number";
    QTest::newRow("empty cell") << QByteArray("t,0\na,\n") << "CSV row 2, column 2: '' is not a number";
}

void TestMatrixIo::matrixCsvReadErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const auto m = attnlab::readMatrixCsv(text.toStdString());
    QVERIFY(!m.ok());
    QCOMPARE(QString::fromStdString(m.error().message), message);
}

void TestMatrixIo::plainNumpyCsvReadsExactly()
{
    // numpy.savetxt(f, a, delimiter=",") with its default fmt "%.18e" for
    // a = [[1, -0.25, 3e-7], [-1.5e10, 0.1, -0.0], [2/3, 5, -7]]
    // (the digits are Python's "%.18e" % value).
    const std::string text =
        "1.000000000000000000e+00,-2.500000000000000000e-01,2.999999999999999864e-07\n"
        "-1.500000000000000000e+10,1.000000000000000056e-01,-0.000000000000000000e+00\n"
        "6.666666666666666297e-01,5.000000000000000000e+00,-7.000000000000000000e+00\n";
    const auto m = attnlab::readMatrixCsv(text);
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QCOMPARE(m->values.rows(), 3);
    QCOMPARE(m->values.cols(), 3);
    const double want[3][3] = {{1.0, -0.25, 3e-7}, {-1.5e10, 0.1, -0.0}, {2.0 / 3.0, 5.0, -7.0}};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            QVERIFY2(sameBits(m->values(i, j), want[i][j]),
                     qPrintable(QString("cell (%1, %2)").arg(i).arg(j)));
    QVERIFY(m->rowLabels.empty());
    QVERIFY(m->columnLabels.empty());

    // Written by hand: short forms, a final line without its end, CRLF.
    const auto hand = attnlab::readMatrixCsv("-1,2.5\r\n3e2, -4E-1\r\n0,7");
    QVERIFY(hand.ok());
    QCOMPARE(hand->values.rows(), 3);
    QCOMPARE(hand->values(0, 0), -1.0);
    QCOMPARE(hand->values(0, 1), 2.5);
    QCOMPARE(hand->values(1, 0), 300.0);
    QCOMPARE(hand->values(1, 1), -0.4);
    QCOMPARE(hand->values(2, 1), 7.0);

    // One number: a 1 x 1 matrix, not a header without columns.
    const auto single = attnlab::readMatrixCsv("-2.5e-3\n");
    QVERIFY(single.ok());
    QCOMPARE(single->values.rows(), 1);
    QCOMPARE(single->values(0, 0), -2.5e-3);

    // The application's labelled CSV (numeric column and row labels) still
    // reads as labelled: its corner is text.
    std::ostringstream out;
    attn::Matrix w(2, 2);
    w << 0.5, -1, 2, 1e-9;
    attnlab::writeMatrixCsv(out, w, attnlab::indexLabels(2), attnlab::indexLabels(2), "row");
    const auto labelled = attnlab::readMatrixCsv(out.str());
    QVERIFY(labelled.ok());
    QCOMPARE(labelled->values.rows(), 2);
    QCOMPARE(labelled->values.cols(), 2);
    QVERIFY((labelled->values.array() == w.array()).all());
    QCOMPARE(labelled->corner, std::string("row"));
}

void TestMatrixIo::plainCsvReadErrors_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("short row") << QByteArray("1,2\n3\n") << "CSV row 2: 1 cells, expected 2 as in row 1";
    QTest::newRow("text cell") << QByteArray("1,2\n3,x\n") << "CSV row 2, column 2: 'x' is not a number";
    QTest::newRow("decimal comma") << QByteArray("1,2\n\"3,5\",1\n")
                                   << "CSV row 2, column 1: '3,5' is not a number";
}

void TestMatrixIo::plainCsvReadErrors()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const auto m = attnlab::readMatrixCsv(text.toStdString());
    QVERIFY(!m.ok());
    QCOMPARE(QString::fromStdString(m.error().message), message);
}

void TestMatrixIo::matrixFileBySuffix()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("w.CSV"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("-1.000000000000000000e+00,2.500000000000000000e-01\n");
    file.close();
    const auto m = attnlab::readMatrixFile(path);
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QCOMPARE(m->rows(), 1);
    QCOMPARE((*m)(0, 0), -1.0);
    QCOMPARE((*m)(0, 1), 0.25);
    const auto missing = attnlab::readMatrixFile(dir.filePath(QStringLiteral("none.csv")));
    QVERIFY(!missing.ok());
    QVERIFY(QString::fromStdString(missing.error().message).startsWith(QStringLiteral("none.csv: ")));
}

// A UTF-16 file's NULs once cut the message short; one clean line instead.
void TestMatrixIo::csvNotUtf8_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    const QString table = QStringLiteral("token,0\na,1\n");
    const auto utf16 = [&table](bool bigEndian, bool bom) {
        QByteArray bytes;
        if (bom)
            bytes += bigEndian ? QByteArray("\xFE\xFF", 2) : QByteArray("\xFF\xFE", 2);
        for (const QChar c : table) {
            const char low = char(c.unicode() & 0xFF), high = char(c.unicode() >> 8);
            bytes += bigEndian ? QByteArray(1, high) + low : QByteArray(1, low) + high;
        }
        return bytes;
    };
    const QString utf16Message = QStringLiteral("the file is UTF-16 text, not UTF-8; save the CSV as UTF-8");
    QTest::newRow("UTF-16LE with BOM") << utf16(false, true) << utf16Message;
    QTest::newRow("UTF-16BE with BOM") << utf16(true, true) << utf16Message;
    QTest::newRow("UTF-16LE without BOM") << utf16(false, false) << utf16Message;
    QTest::newRow("a NUL on line 2")
        << QByteArray("token,0\na,1\0\n", 13)
        << "CSV line 2: a NUL byte; the file is not UTF-8 text (UTF-16?); save the "
           "CSV as UTF-8";
    QTest::newRow("a long cell, control bytes")
        << QByteArray("t,0\na,") + QByteArray(100, '7') + "\x01\n"
        << "CSV row 2, column 2: '7777777777777777777777777777777777777777'"
           "... (101 bytes) is not a number";
    QTest::newRow("a control byte") << QByteArray("t,0\na,1\x1b[2J\n")
                                    << "CSV row 2, column 2: '1\\x1b[2J' is not a number";
}

void TestMatrixIo::csvNotUtf8()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const auto m = attnlab::readMatrixCsv(std::string_view(text.constData(), std::size_t(text.size())));
    QVERIFY(!m.ok());
    QCOMPARE(QString::fromStdString(m.error().message), message);
}

// A blank line once cost about 90 times its size (a row of one empty string
// kept for each). Now trailing ones are counted, not kept (20 MB of them are
// read), and before a row they are refused at the first.
void TestMatrixIo::csvBlankLinesCostNothing()
{
    const std::string blanks(20u << 20, '\n');
    const auto trailing = attnlab::readMatrixCsv("t,0,1\na,1,2\n" + blanks);
    QVERIFY2(trailing.ok(), trailing.ok() ? "" : trailing.error().message.c_str());
    QCOMPARE(trailing->values.rows(), 1);
    QCOMPARE(trailing->values(0, 1), 2.0);
    const auto inside = attnlab::readMatrixCsv("t,0,1\na,1,2\n" + blanks + "b,3,4\n");
    QVERIFY(!inside.ok());
    QCOMPARE(inside.error().message, std::string("CSV row 3: 1 cells, expected 3 as in the header"));
    const auto only = attnlab::readMatrixCsv(blanks);
    QVERIFY(!only.ok());
    QCOMPARE(only.error().message, std::string("the CSV file is empty"));
}

// The table was sized from its header before a row was read; now each row
// is checked against a matrix's limits (4096 rows or columns, 4096 x 1024
// numbers) before it is kept.
void TestMatrixIo::csvBeyondAMatrixRefusedAtTheRow()
{
    std::string wide = "t";
    for (int j = 0; j < 5000; ++j)
        wide += ",c";
    const auto header = attnlab::readMatrixCsv(wide + "\n");
    QVERIFY(!header.ok());
    QCOMPARE(header.error().message, std::string("CSV line 1: more than 4097 cells in a row"));

    std::string tall = "t,0\n";
    for (int i = 0; i < 4097; ++i)
        tall += "r,1\n";
    const auto rows = attnlab::readMatrixCsv(tall);
    QVERIFY(!rows.ok());
    QCOMPARE(rows.error().message,
             std::string("CSV row 4098: more than 4096 rows, the most a matrix can have"));
    QVERIFY(attnlab::readMatrixCsv(tall.substr(0, tall.size() - 4)).ok());

    // 4096 columns: at most 1024 rows; the 1025th (CSV row 1026) is refused.
    std::string row = "r";
    std::string head = "t";
    for (int j = 0; j < 4096; ++j) {
        row += ",0";
        head += ",c";
    }
    std::string big = head + "\n";
    for (int i = 0; i < 1025; ++i)
        big += row + "\n";
    const auto entries = attnlab::readMatrixCsv(big);
    QVERIFY(!entries.ok());
    QCOMPARE(entries.error().message,
             std::string("CSV row 1026: more than 4194304 numbers, the most a matrix can have"));
}

// readMatrixFile takes a matrix as the engine's input: what the engine would
// refuse later (|x| > 1e30) is refused here, naming the file and its own
// cell, so the import dialog's verdict and the import's agree.
void TestMatrixIo::matrixFileEntriesWithinTheEngineLimit_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    QTest::newRow("labelled CSV")
        << "X.csv" << QByteArray("token,0,1\na,1,2\nb,3,1e31\n")
        << "X.csv: CSV row 3, column 3: 1e+31 is too large: at most 1e+30 in magnitude";
    QTest::newRow("plain CSV")
        << "W.csv" << QByteArray("1,-1e31\n3,4\n")
        << "W.csv: CSV row 1, column 2: -1e+31 is too large: at most 1e+30 in magnitude";
    QTest::newRow("CSV nan") << "W.csv" << QByteArray("1,2\nnan,4\n")
                             << "W.csv: CSV row 2, column 1: nan is not a finite number";
    attn::Matrix m(2, 2);
    m << 1, 1e31, 3, 4;
    const std::string npy = attnlab::npyBytes(m);
    QTest::newRow(".npy") << "big.npy" << QByteArray(npy.data(), qsizetype(npy.size()))
                          << "big.npy: entry [0, 1] (row 1, column 2) is 1e+31; too large: at most 1e+30 in "
                             "magnitude";
    QTest::newRow("exactly 1e30 is accepted") << "W.csv" << QByteArray("1e30,-1e30\n") << "";
}

void TestMatrixIo::matrixFileEntriesWithinTheEngineLimit()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QFile file(dir.filePath(name));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes);
    file.close();
    const auto m = attnlab::readMatrixFile(file.fileName());
    if (message.isEmpty()) {
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
        QCOMPARE((*m)(0, 1), -1e30);
        return;
    }
    QVERIFY(!m.ok());
    QCOMPARE(QString::fromStdString(m.error().message), message);
}

QTEST_APPLESS_MAIN(TestMatrixIo)
#include "tst_matrixio.moc"
