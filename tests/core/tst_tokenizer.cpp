// SPDX-License-Identifier: GPL-3.0-or-later
// Tokenizer cases: the article, repeated words, punctuation, Unicode, and
// every refusal.

#include "tokenizer.h"

#include <QtTest>

namespace {
QStringList toList(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v)
        out << QString::fromStdString(s);
    return out;
}
}  // namespace

class TestTokenizer : public QObject {
    Q_OBJECT
private slots:
    void tokens_data();
    void tokens();
    void idsFollowVocabulary();
    void refusals_data();
    void refusals();
    void modeNames();
};

void TestTokenizer::tokens_data()
{
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QStringList>("tokens");
    QTest::addColumn<QStringList>("vocab");
    const int art = int(attn::TokenizerMode::Article);
    const int punct = int(attn::TokenizerMode::Punctuation);
    QTest::newRow("the article") << "Life is short, eat dessert first" << art
                                 << QStringList{"Life", "is", "short", "eat", "dessert", "first"}
                                 << QStringList{"Life", "dessert", "eat", "first", "is", "short"};
    QTest::newRow("repeated words share an id")
        << "the cat saw the dog" << art << QStringList{"the", "cat", "saw", "the", "dog"}
        << QStringList{"cat", "dog", "saw", "the"};
    QTest::newRow("article keeps other punctuation")
        << "Stop! Go, now." << art << QStringList{"Stop!", "Go", "now."}
        << QStringList{"Go", "Stop!", "now."};
    QTest::newRow("punctuation splits")
        << "Stop! Go, now." << punct << QStringList{"Stop", "!", "Go", ",", "now", "."}
        << QStringList{"!", ",", ".", "Go", "Stop", "now"};
    QTest::newRow("runs of white space")
        << "  a\t\tb \n c  " << art << QStringList{"a", "b", "c"} << QStringList{"a", "b", "c"};
    QTest::newRow("accents stay whole")
        << QString::fromUtf8("café naïve café") << art
        << QStringList{QString::fromUtf8("café"), QString::fromUtf8("naïve"), QString::fromUtf8("café")}
        << QStringList{QString::fromUtf8("café"), QString::fromUtf8("naïve")};
    QTest::newRow("CJK with ideographic space")
        << QString::fromUtf8("我爱　猫") << art
        << QStringList{QString::fromUtf8("我爱"), QString::fromUtf8("猫")}
        << QStringList{QString::fromUtf8("我爱"), QString::fromUtf8("猫")};
    QTest::newRow("emoji and CJK punctuation")
        << QString::fromUtf8("猫。🐱!") << punct
        << QStringList{QString::fromUtf8("猫"), QString::fromUtf8("。"), QString::fromUtf8("🐱"), "!"}
        << QStringList{"!", QString::fromUtf8("。"), QString::fromUtf8("猫"), QString::fromUtf8("🐱")};
    QTest::newRow("right-to-left text") << QString::fromUtf8("שלום עולם") << art
                                        << QStringList{QString::fromUtf8("שלום"), QString::fromUtf8("עולם")}
                                        << QStringList{QString::fromUtf8("עולם"), QString::fromUtf8("שלום")};
    QTest::newRow("code-point order: upper before lower")
        << "b B a A" << art << QStringList{"b", "B", "a", "A"} << QStringList{"A", "B", "a", "b"};
}

void TestTokenizer::tokens()
{
    QFETCH(QString, sentence);
    QFETCH(int, mode);
    QFETCH(QStringList, tokens);
    QFETCH(QStringList, vocab);
    const QByteArray utf8 = sentence.toUtf8();
    const auto t = attn::tokenize(std::string_view(utf8.constData(), utf8.size()), attn::TokenizerMode(mode));
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE(toList(t->tokens), tokens);
    QCOMPARE(toList(t->vocab), vocab);
}

void TestTokenizer::idsFollowVocabulary()
{
    const auto t = attn::tokenize("the cat saw the dog", attn::TokenizerMode::Article);
    QVERIFY(t.ok());
    const std::vector<int> expected{3, 0, 2, 3, 1};
    QCOMPARE(t->ids, expected);
    const auto a = attn::tokenize("Life is short, eat dessert first", attn::TokenizerMode::Article);
    const std::vector<int> article{0, 4, 5, 2, 1, 3};  // the article's sentence_int
    QCOMPARE(a->ids, article);
}

void TestTokenizer::refusals_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("empty") << QByteArray("") << "no tokens";
    QTest::newRow("white space only") << QByteArray("  \t \n ") << "no tokens";
    QTest::newRow("commas only") << QByteArray(", , ,") << "no tokens";
    QTest::newRow("invalid UTF-8") << QByteArray("ab\xff cd") << "not valid UTF-8 (byte 3)";
    QTest::newRow("truncated sequence") << QByteArray("caf\xc3") << "not valid UTF-8";
    QTest::newRow("overlong encoding") << QByteArray("\xc0\xaf") << "not valid UTF-8";
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << "not valid UTF-8";
    QTest::newRow("control character") << QByteArray("a\x01 b") << "control character";
    QTest::newRow("too many tokens") << QByteArray("w ").repeated(4097) << "limit is 4096";
    QTest::newRow("too long") << QByteArray((1 << 20) + 1, 'a') << "bytes long";
}

void TestTokenizer::refusals()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, mentions);
    const auto t =
        attn::tokenize(std::string_view(bytes.constData(), bytes.size()), attn::TokenizerMode::Article);
    QVERIFY(!t.ok());
    QVERIFY2(QString::fromStdString(t.error().message).contains(mentions), t.error().message.c_str());
}

void TestTokenizer::modeNames()
{
    attn::TokenizerMode m = attn::TokenizerMode::Article;
    QVERIFY(attn::parseTokenizerMode("punctuation", &m));
    QCOMPARE(int(m), int(attn::TokenizerMode::Punctuation));
    QCOMPARE(QString(attn::tokenizerModeName(m)), QStringLiteral("punctuation"));
    QVERIFY(!attn::parseTokenizerMode("bpe", &m));
}

QTEST_APPLESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
