// SPDX-License-Identifier: GPL-3.0-or-later
// The exact JSON reader on hand-written documents: numbers as std::from_chars
// reads them (so -0.0, 2^64 - 1 as text, subnormals), strings with every
// escape, objects in file order, and each refusal's line and column.
#include "jsonvalue.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using attnlab::JsonValue;
using attnlab::parseJson;

namespace {

std::string errorOf(std::string_view text)
{
    const auto doc = parseJson(text);
    return doc ? std::string("(accepted)") : doc.error().message;
}

}  // namespace

class TestJsonValue : public QObject {
    Q_OBJECT
private slots:
    void numbersAreExact()
    {
        const auto doc = parseJson("[0.1, -0.0, 1e-320, 18446744073709551615, 2.5E+3]");
        QVERIFY(doc);
        QVERIFY(doc->isArray());
        QVERIFY(doc->allNumbers());
        const std::vector<double>& v = doc->numbers();
        QCOMPARE(v.size(), std::size_t(5));
        QCOMPARE(v[0], 0.1);  // the nearest double, as from_chars gives it
        QCOMPARE(v[1], 0.0);
        QVERIFY(std::signbit(v[1]));  // QJsonDocument would lose the sign
        QCOMPARE(v[2], 1e-320);       // subnormal, kept
        QVERIFY(v[2] > 0 && v[2] < std::numeric_limits<double>::min());
        QCOMPARE(v[3], 18446744073709551616.0);  // nearest double of 2^64 - 1
        QCOMPARE(v[4], 2500.0);
    }

    void numberKeepsItsSourceText()
    {
        const auto doc = parseJson("{\"seed\": 18446744073709551615, \"x\": -0.0}");
        QVERIFY(doc);
        const JsonValue* seed = doc->find("seed");
        QVERIFY(seed && seed->isNumber());
        QCOMPARE(seed->text(), std::string("18446744073709551615"));
        QCOMPARE(doc->find("x")->text(), std::string("-0.0"));
        QVERIFY(!doc->find("missing"));
    }

    void mixedArrayKeepsItems()
    {
        const auto doc = parseJson("[1, \"two\", [3], {\"four\": 4}, true, null]");
        QVERIFY(doc);
        QVERIFY(!doc->allNumbers());
        QCOMPARE(doc->size(), std::size_t(6));
        const auto& items = doc->items();
        QVERIFY(items[0].isNumber());
        QCOMPARE(items[0].number(), 1.0);
        QCOMPARE(items[1].text(), std::string("two"));
        QVERIFY(items[2].isArray() && items[2].allNumbers());
        QCOMPARE(items[2].numbers().front(), 3.0);
        QCOMPARE(items[3].find("four")->number(), 4.0);
        QVERIFY(items[4].isBoolean() && items[4].boolean());
        QCOMPARE(items[5].type(), JsonValue::Type::Null);
    }

    void objectMembersInFileOrderWithLines()
    {
        const auto doc = parseJson("{\n  \"b\": 1,\n  \"a\": [],\n  \"c\": {}\n}");
        QVERIFY(doc);
        const auto& m = doc->members();
        QCOMPARE(m.size(), std::size_t(3));
        QCOMPARE(m[0].first, std::string("b"));
        QCOMPARE(m[1].first, std::string("a"));
        QCOMPARE(m[2].first, std::string("c"));
        QCOMPARE(m[0].second.line(), 2);
        QCOMPARE(m[1].second.line(), 3);
        QCOMPARE(m[2].second.line(), 4);
        QVERIFY(m[1].second.isArray());
        QCOMPARE(m[1].second.size(), std::size_t(0));
    }

    void stringEscapes()
    {
        // \u00e9 is é (2 UTF-8 bytes), \ud83d\ude00 a surrogate pair (4 bytes).
        const auto doc = parseJson("[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\", \"\\ud83d\\ude00\"]");
        QVERIFY(doc);
        const auto& items = doc->items();
        QCOMPARE(items[0].text(), std::string("a\"b\\c/d\b\f\n\r\t"));
        QCOMPARE(items[1].text(), std::string("\xC3\xA9"));
        QCOMPARE(items[2].text(), std::string("\xF0\x9F\x98\x80"));
    }

    void byteOrderMarkSkipped()
    {
        const auto doc = parseJson("\xEF\xBB\xBF{\"a\": 1}");
        QVERIFY(doc);
        QCOMPARE(doc->find("a")->number(), 1.0);
    }

    void refusalsNameWhereAndWhat_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QByteArray("") << "the file is empty";
        QTest::newRow("trailing comma")
            << QByteArray("[1, 2,]") << "line 1, column 7: unexpected character ']'";
        QTest::newRow("duplicate key")
            << QByteArray("{\"a\": 1,\n \"a\": 2}") << "line 2, column 2: the key \"a\" appears twice";
        QTest::newRow("text after") << QByteArray("{} x")
                                    << "line 1, column 4: text after the end of the JSON document";
        QTest::newRow("leading dot") << QByteArray("[.5]") << "line 1, column 2: unexpected character '.'";
        QTest::newRow("no exponent digits")
            << QByteArray("[1e]") << "line 1, column 4: a number needs digits in its exponent";
        QTest::newRow("out of range")
            << QByteArray("[1e999]") << "line 1, column 2: the number 1e999 is out of the range of a double";
        QTest::newRow("lone surrogate")
            << QByteArray("[\"\\ud83d\"]") << "line 1, column 9: a lone UTF-16 surrogate in a \\u escape";
        QTest::newRow("bad escape") << QByteArray("[\"\\q\"]") << "line 1, column 4: unknown escape '\\q'";
        QTest::newRow("unquoted key")
            << QByteArray("{a: 1}") << "line 1, column 2: expected a key in double quotes";
        QTest::newRow("ends early") << QByteArray("[1, 2") << "the file ends early";
        QTest::newRow("comment") << QByteArray("// x\n{}") << "line 1, column 1: unexpected character '/'";
    }
    void refusalsNameWhereAndWhat()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, message);
        const QString got = QString::fromStdString(errorOf(std::string_view(text.constData(), text.size())));
        QVERIFY2(got.startsWith(message), qPrintable(got));
    }

    void deepNestingRefused()
    {
        const std::string deep(100000, '[');
        const std::string message = errorOf(deep);
        QVERIFY2(message.find("levels deep") != std::string::npos, message.c_str());
    }

    // 100,000 distinct keys (1.4 MB) once took 28 s with a quadratic
    // duplicate check; a hash set makes it linear. The bound is 10 times
    // what a slow machine needs, far below the quadratic time. (By default
    // the values cap refuses so many members; raised here to see the check.)
    void manyKeysLinear()
    {
        attnlab::JsonLimits limits;
        limits.maxValues = 1 << 20;
        std::string text = "{";
        for (int i = 0; i < 100000; ++i)
            text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
        const auto doc = parseJson(text + "}", limits);
        QVERIFY2(doc, doc ? "" : doc.error().message.c_str());
        QCOMPARE(doc->members().size(), std::size_t(100000));
        QCOMPARE(doc->members().back().first, std::string("k99999"));
        // The same with the first key again at the end: found, named, placed.
        const auto twice = parseJson(text + ",\"k0\":1}", limits);
        QVERIFY(!twice);
        QCOMPARE(twice.error().message,
                 "line 1, column " + std::to_string(text.size() + 2) + ": the key \"k0\" appears twice");
    }

    // "[[],[],...]" cost about 150 bytes a value for 3 bytes of text: the
    // count of values is capped while reading, so 20 MB of it is refused at
    // the 65,537th value (the 65,536th empty array, at column 2 + 3 * 65,535), not after
    // allocating about 1 GB.
    void manySmallValuesCapped()
    {
        std::string text = "[";
        text.reserve(20u << 20);
        while (text.size() < (20u << 20))
            text += "[],";
        text += "[]]";
        const auto doc = parseJson(text);
        QVERIFY(!doc);
        QCOMPARE(doc.error().message,
                 std::string("line 1, column 196607: more than 65536 values, more than any file this program "
                             "reads can hold"));
        // Just under the cap: the outer array and 65,535 empty ones.
        std::string fits = "[[]";
        for (int i = 1; i < 65535; ++i)
            fits += ",[]";
        const auto full = parseJson(fits + "]");
        QVERIFY2(full, full ? "" : full.error().message.c_str());
        QCOMPARE(full->size(), std::size_t(65535));
        QVERIFY(!parseJson(fits + ",[]]"));
    }

    // Numbers in all-number arrays have their own cap (8 bytes each), and
    // numbers that turn into values when a non-number follows count as values.
    void numberCapChecked()
    {
        attnlab::JsonLimits limits;
        limits.maxNumbers = 4;
        QVERIFY(parseJson("[[1,2],[3,4]]", limits));
        const auto over = parseJson("[[1,2],[3,4,5]]", limits);
        QVERIFY(!over);
        QCOMPARE(
            over.error().message,
            std::string("line 1, column 13: more than 4 numbers, more than any file this program reads can "
                        "hold"));
        limits.maxValues = 5;  // the outer array, the inner one, three numbers become values
        QVERIFY(parseJson("[[1,2,\"x\"]]", limits));
        QVERIFY(!parseJson("[[1,2,3,\"x\"]]", limits));
    }

    void toQJsonValue()
    {
        const auto doc = parseJson("{\"a\": [1, 2.5], \"b\": \"x\", \"c\": false}");
        QVERIFY(doc);
        const QJsonValue v = doc->toQJsonValue();
        QVERIFY(v.isObject());
        QCOMPARE(v[QLatin1String("a")][1].toDouble(), 2.5);
        QCOMPARE(v[QLatin1String("b")].toString(), QStringLiteral("x"));
        QCOMPARE(v[QLatin1String("c")].toBool(true), false);
    }
};

QTEST_APPLESS_MAIN(TestJsonValue)
#include "tst_jsonvalue.moc"
