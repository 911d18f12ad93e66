// SPDX-License-Identifier: GPL-3.0-or-later
// CommandLineParser on its own: what it hands on (options in order with their
// values, positional files, the hidden switches, the picture size, the kernel)
// and the one-line errors of the rules QCommandLineParser does not have.

#include "commandlineparser.h"
#include "echoedvalue.h"
#include "numberargument.h"

#include <QtTest>

using attnlab::CommandLineParser;

class TestCommandLineParser : public QObject {
    Q_OBJECT
private slots:
    void optionsInOrder();
    void positionalAndQtOptions();
    void endsAtHelp();
    void hiddenSwitches();
    void errors_data();
    void errors();
    void scalingLabMode();
    void trainingLabMode();
    void rawBytes();
    void wholeNumbers_data();
    void wholeNumbers();
    void echoedValues();
    void repeatedOptions();
};

void TestCommandLineParser::optionsInOrder()
{
    CommandLineParser p;
    QVERIFY2(p.parse({"--preset", "cinema", "--d-k=512", "--causal", "--d-k", "8", "--sentence", ""}),
             qPrintable(p.error()));
    const std::vector<CommandLineParser::Option>& o = p.options();
    QCOMPARE(int(o.size()), 5);
    QCOMPARE(o[0].name, QStringLiteral("--preset"));
    QCOMPARE(o[0].value, QStringLiteral("cinema"));
    QCOMPARE(o[1].name, QStringLiteral("--d-k"));
    QCOMPARE(o[1].value, QStringLiteral("512"));
    QCOMPARE(o[2].name, QStringLiteral("--causal"));
    QCOMPARE(o[2].value, QString());
    QCOMPARE(o[3].value, QStringLiteral("8"));
    QCOMPARE(o[4].name, QStringLiteral("--sentence"));
    QCOMPARE(o[4].value, QString());
    QCOMPARE(p.value("--d-k"), QStringLiteral("8"));  // the last one given
    QVERIFY(!p.isHeadless());
    QVERIFY(!p.isScalingLab());
    // A value may start with one dash: the engine's checks refuse it later.
    QVERIFY(p.parse({"--seed", "-1", "--export-dir", "out", "--format", "json,svg"}));
    QCOMPARE(p.value("--seed"), QStringLiteral("-1"));
    QVERIFY(p.isHeadless());
    QVERIFY(p.asksForPictures());
    QVERIFY(p.parse({"--save", "a.attnlab", "--format", "json,csv"}));
    QVERIFY(p.isHeadless());
    QVERIFY(!p.asksForPictures());
}

void TestCommandLineParser::positionalAndQtOptions()
{
    CommandLineParser p;
    QVERIFY(p.parse({"-platform", "offscreen", "-reverse", "-style=fusion", "lab.attnlab", "--seed", "3"}));
    QCOMPARE(p.positional(), QStringList{"lab.attnlab"});
    QCOMPARE(int(p.options().size()), 1);
    QCOMPARE(p.options()[0].name, QStringLiteral("--seed"));
}

void TestCommandLineParser::endsAtHelp()
{
    CommandLineParser p;
    // Nothing after --help is read, not even an unknown option.
    QVERIFY(p.parse({"--d-k", "4", "-h", "--colour"}));
    QVERIFY(p.helpAsked());
    QCOMPARE(p.options().back().name, QStringLiteral("--help"));
    QVERIFY(p.parse({"--list-presets", "--nope"}));
    QVERIFY(p.listPresetsAsked());
    QVERIFY(!p.isHeadless());
    QVERIFY(p.parse({"--export-dir", "out", "--version"}));
    QVERIFY(p.versionAsked());
    QVERIFY(!p.isHeadless());
}

void TestCommandLineParser::hiddenSwitches()
{
    CommandLineParser p;
    QVERIFY(p.parse(QStringList{}));
    QVERIFY(!p.exitAfterFirstPaint());
    QCOMPARE(p.kernel(), CommandLineParser::Kernel::Auto);
    QVERIFY(!p.pictureSize().isValid());
    QVERIFY(p.parse(
        {"--exit-after-first-paint", "--screenshot", "shot.png", "--kernel=baseline", "--size", "1600x900"}));
    QVERIFY(p.exitAfterFirstPaint());
    QCOMPARE(p.screenshotPath(), QStringLiteral("shot.png"));
    QCOMPARE(p.kernel(), CommandLineParser::Kernel::Baseline);
    QCOMPARE(p.pictureSize(), QSize(1600, 900));
    QVERIFY(p.parse({"--kernel", "auto", "--size=100x16384"}));
    QCOMPARE(p.kernel(), CommandLineParser::Kernel::Auto);
    QCOMPARE(p.pictureSize(), QSize(100, 16384));
}

void TestCommandLineParser::errors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown") << QStringList{"--colour", "red"} << "unknown option '--colour'; see --help";
    QTest::newRow("unknown with value")
        << QStringList{"--colour=red"} << "unknown option '--colour'; see --help";
    QTest::newRow("single dash") << QStringList{"-x"} << "unknown option '-x'; see --help";
    QTest::newRow("double dash alone") << QStringList{"--"} << "unknown option '--'; see --help";
    QTest::newRow("lab option without the lab")
        << QStringList{"--n-keys", "4"} << "unknown option '--n-keys'; see --help";
    QTest::newRow("value missing") << QStringList{"--d-k"} << "'--d-k' needs a value; see --help";
    QTest::newRow("option as value") << QStringList{"--sentence", "--causal"}
                                     << "'--sentence' needs a value; see --help";
    QTest::newRow("flag with value") << QStringList{"--causal=yes"} << "--causal takes no value";
    QTest::newRow("size not a size") << QStringList{"--size", "big"}
                                     << "--size needs WIDTHxHEIGHT in pixels, each 100 to 16384 (e.g. "
                                        "1600x900), not 'big'";
    QTest::newRow("size too small") << QStringList{"--size", "99x100"}
                                    << "--size needs WIDTHxHEIGHT in pixels, each 100 to 16384 (e.g. "
                                       "1600x900), not '99x100'";
    QTest::newRow("size too large") << QStringList{"--size", "100x16385"}
                                    << "--size needs WIDTHxHEIGHT in pixels, each 100 to 16384 (e.g. "
                                       "1600x900), not '100x16385'";
    QTest::newRow("kernel") << QStringList{"--kernel", "avx512"}
                            << "--kernel must be auto or baseline, not 'avx512'";
    QTest::newRow("lab: window option")
        << QStringList{"--scaling-lab", "--d-k", "4"}
        << "unknown option '--d-k' for --scaling-lab (see attention-lab --scaling-lab --help)";
    QTest::newRow("lab: file") << QStringList{"--scaling-lab", "a.attnlab"}
                               << "unknown option 'a.attnlab' for --scaling-lab (see attention-lab "
                                  "--scaling-lab --help)";
    QTest::newRow("lab: value missing") << QStringList{"--scaling-lab", "--seed"} << "'--seed' needs a value";
    QTest::newRow("training: window option")
        << QStringList{"--training-lab", "--sentence", "a b"}
        << "unknown option '--sentence' for --training-lab (see attention-lab --training-lab --help)";
    QTest::newRow("training: d_k lab option")
        << QStringList{"--training-lab", "--samples", "4"}
        << "unknown option '--samples' for --training-lab (see attention-lab --training-lab --help)";
    QTest::newRow("training: unknown") << QStringList{"--training-lab", "--momentum=0.9"}
                                       << "unknown option '--momentum' for --training-lab (see attention-lab "
                                          "--training-lab --help)";
    QTest::newRow("training: file") << QStringList{"--training-lab", "a.attnlab"}
                                    << "unknown option 'a.attnlab' for --training-lab (see attention-lab "
                                       "--training-lab --help)";
    QTest::newRow("training: value missing")
        << QStringList{"--training-lab", "--lr"} << "'--lr' needs a value";
    QTest::newRow("training option without the lab")
        << QStringList{"--steps", "4"} << "unknown option '--steps'; see --help";
    QTest::newRow("d_k lab option in the window")
        << QStringList{"--lr", "0.1"} << "unknown option '--lr'; see --help";
    QTest::newRow("training option in the d_k lab")
        << QStringList{"--scaling-lab", "--batch", "4"}
        << "unknown option '--batch' for --scaling-lab (see attention-lab --scaling-lab --help)";
    QTest::newRow("both labs") << QStringList{"--scaling-lab", "--training-lab"}
                               << "--scaling-lab and --training-lab are two commands; give one";
}

void TestCommandLineParser::errors()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, error);
    CommandLineParser p;
    QVERIFY(!p.parse(arguments));
    QCOMPARE(p.error(), error);
}

void TestCommandLineParser::scalingLabMode()
{
    CommandLineParser p;
    QVERIFY(p.parse(
        {"--n-keys", "64", "--scaling-lab", "--samples=10", "--export-dir", "out", "--kernel", "baseline"}));
    QVERIFY(p.isScalingLab());
    QCOMPARE(p.value("--n-keys"), QStringLiteral("64"));
    QCOMPARE(p.value("--samples"), QStringLiteral("10"));
    QCOMPARE(p.kernel(), CommandLineParser::Kernel::Baseline);
    QVERIFY(p.parse({"--scaling-lab", "--help", "--d-k"}));
    QVERIFY(p.helpAsked());
}

void TestCommandLineParser::trainingLabMode()
{
    CommandLineParser p;
    QVERIFY2(
        p.parse({"--d-k",    "256", "--training-lab", "--steps=10", "--seed",    "5",  "--optimizer",  "sgd",
                 "--lr",     "0.1", "--n-keys",       "8",          "--d-model", "16", "--classes",    "4",
                 "--batch",  "8",   "--beta",         "2",          "--divisor", "3",  "--export-dir", "out",
                 "--format", "json"}),
        qPrintable(p.error()));
    QVERIFY(p.isTrainingLab());
    QVERIFY(!p.isScalingLab());
    QCOMPARE(int(p.options().size()), 14);
    QCOMPARE(p.value("--d-k"), QStringLiteral("256"));
    QCOMPARE(p.value("--steps"), QStringLiteral("10"));
    QCOMPARE(p.value("--optimizer"), QStringLiteral("sgd"));
    QCOMPARE(p.value("--divisor"), QStringLiteral("3"));
    QVERIFY(p.parse({"--training-lab", "--help", "--sentence"}));
    QVERIFY(p.helpAsked());
    QVERIFY(p.parse({"--scaling-lab", "--n-keys", "4"}));
    QVERIFY(!p.isTrainingLab());
}

void TestCommandLineParser::rawBytes()
{
    char program[] = "attention-lab";
    char option[] = "--sentence";
    char latin1[] = "caf\xe9 au lait";
    char* sentence[] = {program, option, latin1};
    CommandLineParser p;
    QVERIFY(!p.parse(3, sentence));
    QCOMPARE(p.error(), QStringLiteral("--sentence: The sentence is not valid UTF-8 (byte 4)."));
    char path[] = "--open=\xff.attnlab";
    char* file[] = {program, path};
    QVERIFY(!p.parse(2, file));
    QCOMPARE(p.error(), QStringLiteral("argument '--open=\uFFFD.attnlab' is not valid UTF-8"));
    char utf8[] = "caf\xc3\xa9";
    char* good[] = {program, option, utf8};
    QVERIFY(p.parse(3, good));
    QCOMPARE(p.value("--sentence"), QStringLiteral("caf\u00e9"));
}

void TestCommandLineParser::wholeNumbers_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qulonglong>("low");
    QTest::addColumn<qulonglong>("high");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qulonglong>("value");
    const qulonglong max = std::numeric_limits<quint64>::max();
    QTest::newRow("plain") << "1024" << 1ULL << 1024ULL << true << 1024ULL;
    QTest::newRow("leading zeros are digits") << "0008" << 1ULL << 1024ULL << true << 8ULL;
    QTest::newRow("2^64 - 1") << "18446744073709551615" << 0ULL << max << true << max;
    QTest::newRow("2^64") << "18446744073709551616" << 0ULL << max << false << 0ULL;
    QTest::newRow("2^32 + 8 is not 8") << "4294967304" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("one above") << "1025" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("one below") << "0" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("plus") << "+8" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("minus zero") << "-0" << 0ULL << 9ULL << false << 0ULL;
    QTest::newRow("blank before") << " 8" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("blank after") << "8 " << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("tab after") << "8\t" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("exponent") << "1e3" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("hex") << "0x10" << 1ULL << 1024ULL << false << 0ULL;
    QTest::newRow("empty") << "" << 0ULL << 9ULL << false << 0ULL;
}

void TestCommandLineParser::wholeNumbers()
{
    QFETCH(QString, text);
    QFETCH(qulonglong, low);
    QFETCH(qulonglong, high);
    QFETCH(bool, ok);
    QFETCH(qulonglong, value);
    const std::string bytes = text.toStdString();
    const std::optional<std::uint64_t> number = attnlab::wholeNumber(bytes, low, high);
    QCOMPARE(number.has_value(), ok);
    if (ok)
        QCOMPARE(qulonglong(*number), value);
    int dk = 77;
    const std::optional<QString> error = attnlab::readWholeNumber("--d-k", bytes, 1, 1024, &dk);
    if (!error)
        QCOMPARE(dk, int(value));
    else
        QCOMPARE(dk, 77);  // untouched
}

void TestCommandLineParser::echoedValues()
{
    using attnlab::echoedValue;
    QCOMPARE(echoedValue(QStringView(u"abc")), QStringLiteral("'abc'"));
    const QString forty(40, QLatin1Char('7'));
    QCOMPARE(echoedValue(QStringView(forty)), "'" + forty + "'");
    QCOMPARE(echoedValue(QStringView(forty + "8")), "'" + forty + "…' (41 characters)");
    // Characters, not UTF-16 units or bytes: 41 musical symbols (2 units,
    // 4 bytes each) keep 40 of them whole.
    QString clefs;
    for (int i = 0; i < 41; ++i)
        clefs += QStringLiteral("\U0001D11E");
    QCOMPARE(echoedValue(QStringView(clefs)), "'" + clefs.left(80) + "…' (41 characters)");
    QCOMPARE(QString::fromStdString(echoedValue(clefs.toStdString())),
             "'" + clefs.left(80) + "…' (41 characters)");
    QCOMPARE(echoedValue(std::string_view("%1%2")), std::string("'%1%2'"));
    const QString percent = QString(41, QLatin1Char('%')) + "2";
    QVERIFY(echoedValue(QStringView(percent)).endsWith("…' (42 characters)"));
}

void TestCommandLineParser::repeatedOptions()
{
    CommandLineParser p;
    QVERIFY(p.parse({"--causal", "--causal", "--d-k", "4", "--seed", "1"}));
    QCOMPARE(p.repeatedOptionError(), QString());  // a flag twice says the same
    QVERIFY(p.parse({"--sentence", "a b", "--d-k", "4", "--sentence=c d"}));
    QCOMPARE(p.repeatedOptionError(),
             QStringLiteral("--sentence is given twice ('a b' and 'c d'); give it once"));
    QVERIFY(p.parse({"--scaling-lab", "--samples", "1", "--n-keys", "3", "--n-keys", "4"}));
    QCOMPARE(p.repeatedOptionError(), QStringLiteral("--n-keys is given twice ('3' and '4'); give it once"));
}

QTEST_GUILESS_MAIN(TestCommandLineParser)
#include "tst_commandlineparser.moc"
