// SPDX-License-Identifier: GPL-3.0-or-later
// RFC 4180 fields and rows, written and read: quoting only where needed,
// quotes doubled, CRLF and LF row ends, fields over several lines, the
// byte-order mark, and the line named by each refusal.
#include "csv.h"

#include <QtTest>

#include <string>

using attnlab::CsvRow;

namespace {

std::string field(std::string_view f)
{
    std::string out;
    attnlab::appendCsvField(out, f);
    return out;
}

}  // namespace

class TestCsv : public QObject {
    Q_OBJECT
private slots:
    void quotesOnlyWhereNeeded()
    {
        QCOMPARE(field("plain"), std::string("plain"));
        QCOMPARE(field("-1.5e-07"), std::string("-1.5e-07"));
        QCOMPARE(field(""), std::string(""));
        QCOMPARE(field("a,b"), std::string("\"a,b\""));
        QCOMPARE(field("say \"hi\""), std::string("\"say \"\"hi\"\"\""));
        QCOMPARE(field("two\nlines"), std::string("\"two\nlines\""));
        QCOMPARE(field("cr\r"), std::string("\"cr\r\""));
        QCOMPARE(field(" lead"), std::string("\" lead\""));
        QCOMPARE(field("trail\t"), std::string("\"trail\t\""));
        QCOMPARE(field("in side"), std::string("in side"));
        QCOMPARE(field("\xEF\xBB\xBFx"), std::string("\"\xEF\xBB\xBFx\""));
    }

    void rowEndsInNewline()
    {
        std::string out;
        attnlab::appendCsvRow(out, {"token", "a,b", ""});
        QCOMPARE(out, std::string("token,\"a,b\",\n"));
    }

    void readsRowsAsWritten()
    {
        const auto rows = attnlab::parseCsv("a,b\r\n\"c,d\",\"e\"\"f\"\n\"g\nh\",\n");
        QVERIFY(rows);
        QCOMPARE(rows->size(), std::size_t(3));
        QCOMPARE((*rows)[0], (CsvRow{"a", "b"}));
        QCOMPARE((*rows)[1], (CsvRow{"c,d", "e\"f"}));
        QCOMPARE((*rows)[2], (CsvRow{"g\nh", ""}));
    }

    void finalRowEndOptionalAndBomSkipped()
    {
        const auto rows = attnlab::parseCsv(
            "\xEF\xBB\xBF"
            "1,2\n3,4");
        QVERIFY(rows);
        QCOMPARE(rows->size(), std::size_t(2));
        QCOMPARE((*rows)[0], (CsvRow{"1", "2"}));
        QCOMPARE((*rows)[1], (CsvRow{"3", "4"}));
        const auto quotedEmpty = attnlab::parseCsv("\"\"");
        QVERIFY(quotedEmpty);
        QCOMPARE(quotedEmpty->size(), std::size_t(1));
        QCOMPARE((*quotedEmpty)[0], (CsvRow{""}));
    }

    void roundTrip()
    {
        const std::vector<CsvRow> rows = {{"x", " y ", "a\"b", "1,2"},
                                          {"", "two\r\nlines", "\xEF\xBB\xBF", "-0"}};
        std::string text;
        for (const CsvRow& r : rows)
            attnlab::appendCsvRow(text, r);
        const auto back = attnlab::parseCsv(text);
        QVERIFY(back);
        QCOMPARE(*back, rows);
    }

    void refusalsNameTheLine()
    {
        const auto open = attnlab::parseCsv("a,b\nc,\"never\nclosed\n");
        QVERIFY(!open);
        QCOMPARE(QString::fromStdString(open.error().message),
                 QStringLiteral("CSV line 2: a quoted field is never closed"));
        const auto after = attnlab::parseCsv("a\nb\n\"c\"d\n");
        QVERIFY(!after);
        QCOMPARE(QString::fromStdString(after.error().message),
                 QStringLiteral("CSV line 3: text after the closing quote of a field"));
    }
};

QTEST_APPLESS_MAIN(TestCsv)
#include "tst_csv.moc"
