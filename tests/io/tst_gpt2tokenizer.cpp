// SPDX-License-Identifier: GPL-3.0-or-later
// GPT-2's byte-level BPE with the real vocabulary (tests/data/gpt2/tiny-gpt2,
// GPT-2's own vocab.json and merges.txt): the ids of every sentence in both
// reference.json files (gpt-3-encoder 1.1.4 under node); a hand-made table of
// cases whose ids come from tests/data/gpt2/gpt2_bpe_reference.py, an
// independent Python transcription of OpenAI's encoder.py with the `regex`
// module (no GPT-2 tokenizer package is installed here), run as
//   python3 gpt2_bpe_reference.py tiny-gpt2 TEXT...
// the pieces and their display text; decode(encode(s)) == s; a 50,000-byte
// word and a 100,000-character text in bounded time; and every malformed
// vocab.json and merges.txt refused with its message.

#include "gpt2tokenizer.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>
#include <optional>

using Ids = std::vector<int>;
Q_DECLARE_METATYPE(Ids)

namespace {

const QString kDataDir = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/");

QString utf8(const char* bytes, int size)
{
    return QString::fromUtf8(bytes, size);
}

// GPT-2's bytes_to_unicode, written again here for the hand-made files.
QString byteChar(int b)
{
    int next = 0x100;
    for (int i = 0; i < 256; ++i) {
        const bool own = (i >= 0x21 && i <= 0x7E) || (i >= 0xA1 && i <= 0xAC) || i >= 0xAE;
        if (i == b)
            return QString(QChar(own ? i : next));
        if (!own)
            ++next;
    }
    return {};
}

// JSON for a string (the byte characters need no escape but '"' and '\').
QByteArray jsonString(const QString& s)
{
    QString out = s;
    out.replace(QLatin1Char('\\'), QLatin1String("\\\\")).replace(QLatin1Char('"'), QLatin1String("\\\""));
    return "\"" + out.toUtf8() + "\"";
}

// A vocab.json: `extra` entries first (token, id text), then the 256 byte
// tokens with ids 0..255 unless `withBytes` is false.
QByteArray vocab(const std::vector<std::pair<QString, QByteArray>>& extra, bool withBytes = true)
{
    QByteArray json = "{";
    for (const auto& [token, id] : extra) {
        if (json.size() > 1)
            json += ", ";
        json += jsonString(token) + ": " + id;
    }
    for (int b = 0; withBytes && b < 256; ++b) {
        if (json.size() > 1)
            json += ", ";
        json += jsonString(byteChar(b)) + ": " + QByteArray::number(b);
    }
    return json + "}";
}

std::string_view view(const QByteArray& bytes)
{
    return {bytes.constData(), std::size_t(bytes.size())};
}

}  // namespace

class TestGpt2Tokenizer : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void referenceSentences_data();
    void referenceSentences();
    void throughInterface_data() { referenceSentences_data(); }
    void throughInterface();
    void interfaceTokens();
    void table_data();
    void table();
    void piecesAndDisplay();
    void displayText_data();
    void displayText();
    void handMadeMerges_data();
    void handMadeMerges();
    void malformed_data();
    void malformed();
    void folder();
    void decodeRefusesUnknownIds();
    void longInputs();

private:
    std::optional<attnlab::Gpt2Tokenizer> gpt2_;
};

void TestGpt2Tokenizer::initTestCase()
{
    auto t = attnlab::Gpt2Tokenizer::fromFolder(kDataDir + QStringLiteral("tiny-gpt2"));
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE(t->vocabSize(), 50257);
    QCOMPARE(t->mergeCount(), 50000);
    gpt2_ = std::move(t).value();
}

void TestGpt2Tokenizer::referenceSentences_data()
{
    QTest::addColumn<QString>("sentence");
    QTest::addColumn<Ids>("ids");
    int count = 0;
    for (const char* checkpoint : {"tiny-gpt2", "tiny-gpt2-lmhead-f16"}) {
        QFile file(kDataDir + QLatin1String(checkpoint) + QStringLiteral("/reference.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonArray cases = QJsonDocument::fromJson(file.readAll()).object().value("cases").toArray();
        for (const QJsonValue& c : cases) {
            Ids ids;
            for (const QJsonValue& id : c["token_ids"].toArray())
                ids.push_back(id.toInt());
            const QString sentence = c["sentence"].toString();
            QTest::newRow(qPrintable(QLatin1String(checkpoint) + ": " + sentence)) << sentence << ids;
            ++count;
        }
    }
    QCOMPARE(count, 9);
}

void TestGpt2Tokenizer::referenceSentences()
{
    QFETCH(QString, sentence);
    QFETCH(Ids, ids);
    QCOMPARE(gpt2_->encodeIds(sentence), ids);
    QCOMPARE(gpt2_->decode(ids).value(), sentence);
}

// The same reference ids through ModelTokenizer, as the model session, the
// command line and the exports reach the tokenizer.
void TestGpt2Tokenizer::throughInterface()
{
    QFETCH(QString, sentence);
    QFETCH(Ids, ids);
    const std::shared_ptr<const attnlab::ModelTokenizer> tokenizer =
        std::make_shared<const attnlab::Gpt2Tokenizer>(*gpt2_);
    QCOMPARE(tokenizer->encodeIds(sentence), ids);
    const std::vector<attnlab::ModelToken> tokens = tokenizer->encode(sentence);
    QCOMPARE(tokens.size(), ids.size());
    QByteArray bytes;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        QCOMPARE(tokens[i].id, ids[i]);
        QCOMPARE(tokens[i].piece, gpt2_->token(ids[i]).piece);
        QCOMPARE(tokens[i].display, gpt2_->token(ids[i]).display);
        bytes += tokenizer->tokenBytes(ids[i]);
    }
    QCOMPARE(bytes, sentence.toUtf8());
    QCOMPARE(tokenizer->decodeBytes(ids).value(), sentence.toUtf8());
    QCOMPARE(tokenizer->decode(ids).value(), sentence);
}

void TestGpt2Tokenizer::interfaceTokens()
{
    const attnlab::ModelTokenizer& tokenizer = *gpt2_;
    QCOMPARE(tokenizer.name(), QStringLiteral("GPT-2 byte-level BPE"));
    QCOMPARE(tokenizer.vocabSize(), 50257);
    // "Jane is\n\t🙂" as piecesAndDisplay spells it, through the interface.
    const std::vector<attnlab::ModelToken> tokens = tokenizer.encode(QStringLiteral("Jane is\n\t🙂"));
    QCOMPARE(int(tokens.size()), 6);
    QCOMPARE(tokens[1].id, 318);
    QCOMPARE(tokens[1].piece, QStringLiteral("Ġis"));
    QCOMPARE(tokens[1].display, QStringLiteral("␣is"));
    QCOMPARE(tokens[4].display, QStringLiteral("<0xF0><0x9F>"));
    QCOMPARE(tokenizer.token(50256).piece, QStringLiteral("<|endoftext|>"));
    QCOMPARE(tokenizer.tokenBytes(220), QByteArray(" "));
    const attn::Expected<QString> unknown = tokenizer.decode({318, 50257});
    QVERIFY(!unknown.ok());
    QCOMPARE(QString::fromStdString(unknown.error().message),
             QStringLiteral("token id 50257 is not in the vocabulary (ids 0 to 50256)"));
}

void TestGpt2Tokenizer::table_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<Ids>("ids");
    QTest::newRow("contraction don't") << utf8("don't", 5) << Ids{9099, 470};
    QTest::newRow("all seven contractions")
        << utf8("they're we've I'd you'll she's it't I'm", 39)
        << Ids{9930, 821, 356, 1053, 314, 1549, 345, 1183, 673, 338, 340, 470, 314, 1101};
    QTest::newRow("upper-case contraction I'LL") << utf8("I'LL", 4) << Ids{40, 6, 3069};
    QTest::newRow("digits") << utf8("2024 12345", 10) << Ids{1238, 1731, 17031, 2231};
    QTest::newRow("Unicode letters") << utf8("naïve café Ελληνικά", 29)
                                     << Ids{2616, 38776, 40304, 7377,  243,   39377, 39377,
                                            138,  115,   26180, 29945, 43000, 138,   105};
    QTest::newRow("CJK") << utf8("日本語", 9) << Ids{33768, 98, 17312, 105, 45739, 252};
    QTest::newRow("emoji alone") << utf8("🙂", 4) << Ids{8582, 25081};
    QTest::newRow("emoji with variation selector")
        << utf8("I ❤️ 🤖", 13) << Ids{40, 43074, 97, 37929, 12520, 97, 244};
    QTest::newRow("run of spaces") << utf8("a   b", 5) << Ids{64, 220, 220, 275};
    QTest::newRow("newlines") << utf8("a\n\nb", 4) << Ids{64, 198, 198, 65};
    QTest::newRow("newline then spaces") << utf8("a\n  b", 5) << Ids{64, 198, 220, 275};
    QTest::newRow("trailing spaces") << utf8("trailing   ", 11) << Ids{9535, 4386, 220, 220, 220};
    QTest::newRow("only spaces") << utf8("  ", 2) << Ids{220, 220};
    QTest::newRow("leading space") << utf8(" leading", 8) << Ids{3756};
    QTest::newRow("tab") << utf8("tab\tthere", 9) << Ids{8658, 197, 8117};
    QTest::newRow("em dash") << utf8("em—dash", 9) << Ids{368, 960, 42460};
    QTest::newRow("superscript and roman numeral") << utf8("x² Ⅻ", 7) << Ids{87, 31185, 2343, 227, 104};
    QTest::newRow("no-break and ideographic spaces") << utf8(
        "a\xc2\xa0"
        "b\xe3\x80\x80"
        "c",
        8) << Ids{64, 1849, 65, 5099, 222, 66};
    // " \u0085" is a run of white space (Unicode and Python's regex say so),
    // split before its last character; " \ufeff" is not, and stays one piece
    // (gpt-3-encoder's JavaScript \s would have it the other way round).
    QTest::newRow("next line U+0085 is white space") << utf8("a \xc2\x85x", 5) << Ids{64, 220, 126, 227, 87};
    QTest::newRow("byte order mark is not white space")
        << utf8("a \xef\xbb\xbfx", 6) << Ids{64, 27332, 119, 123, 87};
    QTest::newRow("punctuation run") << utf8("Hello world!!!", 14) << Ids{15496, 995, 10185};
    QTest::newRow("money") << utf8("$100.50", 7) << Ids{3, 3064, 13, 1120};
    QTest::newRow("end of text is plain text")
        << utf8("<|endoftext|>", 13) << Ids{27, 91, 437, 1659, 5239, 91, 29};
    QTest::newRow("empty") << utf8("", 0) << Ids{};
    QTest::newRow("64 a") << utf8("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 64)
                          << Ids{24794, 24794, 24794, 24794, 24794, 24794, 24794, 24794,
                                 24794, 24794, 24794, 24794, 24794, 24794, 24794, 24794};
    QTest::newRow("control bytes") << utf8(
        "\x01"
        "\x02"
        " \x7f"
        "",
        4) << Ids{189, 190, 220, 221};
    QTest::newRow("Arabic-Indic digits")
        << utf8("abc123def ٣٤", 14) << Ids{39305, 10163, 4299, 18923, 96, 149, 97};
    QTest::newRow("combining accent") << utf8(
        "e\xcc\x81"
        "té",
        6) << Ids{68, 136, 223, 83, 2634};
    QTest::newRow("apostrophe after space") << utf8("it 's", 5) << Ids{270, 705, 82};
}

void TestGpt2Tokenizer::table()
{
    QFETCH(QString, text);
    QFETCH(Ids, ids);
    QCOMPARE(gpt2_->encodeIds(text), ids);
    QCOMPARE(gpt2_->encodeUtf8(text.toUtf8()), ids);
    QCOMPARE(gpt2_->decode(ids).value(), text);
    QCOMPARE(gpt2_->decodeBytes(ids).value(), text.toUtf8());
}

void TestGpt2Tokenizer::piecesAndDisplay()
{
    const std::vector<attnlab::ModelToken> tokens = gpt2_->encode(QStringLiteral("Jane is\n\t🙂"));
    QCOMPARE(int(tokens.size()), 6);
    const Ids ids{41083, 318, 198, 197, 8582, 25081};
    const QStringList pieces{"Jane", "Ġis", "Ċ", "ĉ", "ðŁ", "ĻĤ"};
    const QStringList display{"Jane", "␣is", "↵", "⇥", "<0xF0><0x9F>", "<0x99><0x82>"};
    for (int i = 0; i < 6; ++i) {
        QCOMPARE(tokens[std::size_t(i)].id, ids[std::size_t(i)]);
        QCOMPARE(tokens[std::size_t(i)].piece, pieces[i]);
        QCOMPARE(tokens[std::size_t(i)].display, display[i]);
    }
    QCOMPARE(gpt2_->token(2634).display, QStringLiteral("é"));
    QCOMPARE(gpt2_->token(960).display, QStringLiteral("—"));
    QCOMPARE(gpt2_->token(50256).piece, QStringLiteral("<|endoftext|>"));
    QCOMPARE(gpt2_->tokenBytes(220), QByteArray(" "));
}

void TestGpt2Tokenizer::displayText_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("display");
    QTest::newRow("ASCII") << QByteArray("abc") << QStringLiteral("abc");
    QTest::newRow("spaces") << QByteArray(" a  ") << QStringLiteral("␣a␣␣");
    QTest::newRow("two-byte letter") << QByteArray("caf\xc3\xa9") << QStringLiteral("café");
    QTest::newRow("four-byte emoji") << QByteArray("\xf0\x9f\x99\x82") << QStringLiteral("🙂");
    QTest::newRow("first two bytes of a dash") << QByteArray("\xe2\x80") << QStringLiteral("<0xE2><0x80>");
    QTest::newRow("lone continuation byte") << QByteArray("a\x94") << QStringLiteral("a<0x94>");
    QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << QStringLiteral("<0xC0><0xAF>");
    QTest::newRow("overlong three bytes")
        << QByteArray("\xe0\x80\xaf") << QStringLiteral("<0xE0><0x80><0xAF>");
    QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << QStringLiteral("<0xED><0xA0><0x80>");
    QTest::newRow("above U+10FFFF") << QByteArray("\xf4\x90\x80\x80")
                                    << QStringLiteral("<0xF4><0x90><0x80><0x80>");
    QTest::newRow("control bytes") << QByteArray("\x01\x7f\r", 3) << QStringLiteral("<0x01><0x7F><0x0D>");
    QTest::newRow("NUL") << QByteArray("\0", 1) << QStringLiteral("<0x00>");
    QTest::newRow("C1 control") << QByteArray("\xc2\x85") << QStringLiteral("<0xC2><0x85>");
    QTest::newRow("no-break space") << QByteArray("\xc2\xa0") << QString(QChar(0xA0));
}

void TestGpt2Tokenizer::displayText()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, display);
    QCOMPARE(attnlab::Gpt2Tokenizer::displayText(bytes), display);
}

// Tiny vocabularies where the order of the merges decides: the pair of
// lowest rank first, every occurrence of it left to right, then look again.
void TestGpt2Tokenizer::handMadeMerges_data()
{
    QTest::addColumn<QByteArray>("vocabJson");
    QTest::addColumn<QByteArray>("merges");
    QTest::addColumn<QString>("text");
    QTest::addColumn<Ids>("ids");
    const QByteArray abc = vocab({{"ab", "256"}, {"bc", "257"}, {"aa", "258"}, {"aaa", "259"}});
    // bytes: 'a' = 97, 'b' = 98, 'c' = 99.
    QTest::newRow("ab before bc") << abc << QByteArray("#version: 0.2\na b\nb c\n") << "abc" << Ids{256, 99};
    QTest::newRow("bc before ab") << abc << QByteArray("#version: 0.2\nb c\na b\n") << "abc" << Ids{97, 257};
    QTest::newRow("no merges") << abc << QByteArray("#version: 0.2\n") << "abc" << Ids{97, 98, 99};
    QTest::newRow("overlapping pairs, left first")
        << abc << QByteArray("#version: 0.2\na a\n") << "aaa" << Ids{258, 97};
    QTest::newRow("four a, both pairs in one round")
        << abc << QByteArray("#version: 0.2\na a\naa a\n") << "aaaa" << Ids{258, 258};
    QTest::newRow("merged pair merges again")
        << abc << QByteArray("#version: 0.2\na a\naa a\n") << "aaa" << Ids{259};
    QTest::newRow("merged pair of lower rank merges next round")
        << abc << QByteArray("#version: 0.2\naa a\na a\n") << "aaa" << Ids{259};
    // "a a" is merged at both places before the lower-ranked "aa a" it forms
    // on the left is looked at.
    QTest::newRow("a pair formed in a round waits for the round's end")
        << abc << QByteArray("#version: 0.2\naa a\na a\n") << "aaaa" << Ids{258, 258};
    QTest::newRow("CRLF and no final line break")
        << abc << QByteArray("#version: 0.2\r\na b\r\nb c") << "abcbc" << Ids{256, 99, 257};
}

void TestGpt2Tokenizer::handMadeMerges()
{
    QFETCH(QByteArray, vocabJson);
    QFETCH(QByteArray, merges);
    QFETCH(QString, text);
    QFETCH(Ids, ids);
    const auto t = attnlab::Gpt2Tokenizer::fromData(view(vocabJson), view(merges));
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE(t->encodeIds(text), ids);
}

void TestGpt2Tokenizer::malformed_data()
{
    QTest::addColumn<QByteArray>("vocabJson");
    QTest::addColumn<QByteArray>("merges");
    QTest::addColumn<QString>("message");
    const QByteArray merges("#version: 0.2\n");
    const QByteArray good = vocab({{"ab", "256"}});
    QTest::newRow("not JSON") << QByteArray("{\"a\": 1") << merges
                              << "vocab.json: the file ends early (expected ',' or '}' in an object)";
    QTest::newRow("an array") << QByteArray("[1, 2]") << merges
                              << "vocab.json: expected an object of token -> id, found an array";
    QTest::newRow("no tokens") << QByteArray("{}") << merges << "vocab.json: the object has no tokens";
    QTest::newRow("id as a string")
        << vocab({{"ab", "\"256\""}}) << merges
        << "vocab.json line 1, entry 1: the id of \"ab\" is a string, not an integer";
    QTest::newRow("fractional id") << vocab({{"ab", "256.0"}}) << merges
                                   << "vocab.json line 1, entry 1: the id of \"ab\" is 256.0, not an integer";
    QTest::newRow("exponent id") << vocab({{"ab", "2e2"}}) << merges
                                 << "vocab.json line 1, entry 1: the id of \"ab\" is 2e2, not an integer";
    QTest::newRow("negative id")
        << vocab({{"ab", "-1"}}) << merges
        << "vocab.json line 1, entry 1: the id of \"ab\" is -1, outside 0..256 (the file "
           "has 257 tokens)";
    QTest::newRow("id past the end")
        << vocab({{"ab", "257"}}) << merges
        << "vocab.json line 1, entry 1: the id of \"ab\" is 257, outside 0..256 (the "
           "file has 257 tokens)";
    QTest::newRow("duplicate id")
        << vocab({{"ab", "7"}}) << merges
        << "vocab.json line 1, entry 9: the id 7 of \"ć\" is already the id of \"ab\" "
           "(entry 1)";
    QTest::newRow("duplicate token") << vocab({{"!", "256"}}) << merges
                                     << "vocab.json: line 1, column 332: the key \"!\" appears twice";
    QTest::newRow("empty token") << vocab({{"", "256"}}) << merges
                                 << "vocab.json line 1, entry 1: an empty token";
    QTest::newRow("not a byte character")
        << vocab({{"a€", "256"}}) << merges
        << "vocab.json line 1, entry 1: the token \"a€\" has U+20AC, which is not "
           "one of GPT-2's 256 byte characters";
    QTest::newRow("a raw space")
        << vocab({{"a b", "256"}}) << merges
        << "vocab.json line 1, entry 1: the token \"a b\" has U+0020, which is not one of "
           "GPT-2's 256 byte characters";
    QTest::newRow("control character escaped in the message")
        << QByteArray("{\"a\\nb\": 0}") << merges
        << "vocab.json line 1, entry 1: the token \"a\\x0ab\" has U+000A, which is not one of GPT-2's 256 "
           "byte "
           "characters";
    QTest::newRow("a byte missing") << QByteArray("{\"a\": 0}") << merges
                                    << "vocab.json: the byte 0x00 has no token (\"Ā\")";
    QTest::newRow("line on a later line")
        << QByteArray("{\n\"a\":\n 0.5}") << merges
        << "vocab.json line 3, entry 1: the id of \"a\" is 0.5, not an integer";
    QTest::newRow("empty merges.txt")
        << good << QByteArray()
        << "merges.txt: the file is empty (expected \"#version: ...\" and the merges)";
    QTest::newRow("no version line") << good << QByteArray("a b\n")
                                     << "merges.txt line 1: expected \"#version: ...\", found \"a b\"";
    QTest::newRow("one token") << good << QByteArray("#version: 0.2\na b\nab\n")
                               << "merges.txt line 3: \"ab\" is not two tokens separated by one space";
    QTest::newRow("three tokens") << good << QByteArray("#version: 0.2\na b c\n")
                                  << "merges.txt line 2: \"a b c\" is not two tokens separated by one space";
    QTest::newRow("two spaces") << good << QByteArray("#version: 0.2\na  b\n")
                                << "merges.txt line 2: \"a  b\" is not two tokens separated by one space";
    QTest::newRow("leading space") << good << QByteArray("#version: 0.2\n a\n")
                                   << "merges.txt line 2: \" a\" is not two tokens separated by one space";
    QTest::newRow("empty line") << good << QByteArray("#version: 0.2\n\na b\n")
                                << "merges.txt line 2: \"\" is not two tokens separated by one space";
    QTest::newRow("part not in the vocabulary")
        << good << QByteArray("#version: 0.2\nxy c\n") << "merges.txt line 2: \"xy\" is not in vocab.json";
    QTest::newRow("right part not in the vocabulary")
        << good << QByteArray("#version: 0.2\na xy\n") << "merges.txt line 2: \"xy\" is not in vocab.json";
    QTest::newRow("result not in the vocabulary")
        << good << QByteArray("#version: 0.2\na b\nb c\n")
        << "merges.txt line 3: the merge of \"b\" and \"c\" gives \"bc\", which is not in vocab.json";
    QTest::newRow("a merge twice") << good << QByteArray("#version: 0.2\na b\na b\n")
                                   << "merges.txt line 3: the merge \"a b\" is already on line 2";
    QTest::newRow("long line cut in the message")
        << good << QByteArray("#version: 0.2\n" + QByteArray(50, 'x') + "\n")
        << "merges.txt line 2: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\" is not two tokens separated "
           "by one "
           "space";
}

void TestGpt2Tokenizer::malformed()
{
    QFETCH(QByteArray, vocabJson);
    QFETCH(QByteArray, merges);
    QFETCH(QString, message);
    const auto t = attnlab::Gpt2Tokenizer::fromData(view(vocabJson), view(merges));
    QVERIFY(!t.ok());
    QCOMPARE(QString::fromStdString(t.error().message), message);
}

void TestGpt2Tokenizer::folder()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto missing = attnlab::Gpt2Tokenizer::fromFolder(dir.path());
    QVERIFY(!missing.ok());
    QVERIFY2(QString::fromStdString(missing.error().message).contains(QLatin1String("vocab.json")),
             missing.error().message.c_str());
    QFile v(dir.filePath(QStringLiteral("vocab.json")));
    QVERIFY(v.open(QIODevice::WriteOnly));
    v.write(vocab({{"ab", "256"}}));
    v.close();
    const auto noMerges = attnlab::Gpt2Tokenizer::fromFolder(dir.path());
    QVERIFY(!noMerges.ok());
    QVERIFY2(QString::fromStdString(noMerges.error().message).contains(QLatin1String("merges.txt")),
             noMerges.error().message.c_str());
    QFile m(dir.filePath(QStringLiteral("merges.txt")));
    QVERIFY(m.open(QIODevice::WriteOnly));
    m.write("#version: 0.2\na b\n");
    m.close();
    const auto t = attnlab::Gpt2Tokenizer::fromFolder(dir.path());
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE(t->vocabSize(), 257);
    QCOMPARE(t->mergeCount(), 1);
    QCOMPARE(t->encodeIds(QStringLiteral("abab a")), (Ids{256, 256, 32, 97}));
}

void TestGpt2Tokenizer::decodeRefusesUnknownIds()
{
    const auto high = gpt2_->decode({318, 50257});
    QVERIFY(!high.ok());
    QCOMPARE(QString::fromStdString(high.error().message),
             QStringLiteral("token id 50257 is not in the vocabulary (ids 0 to 50256)"));
    const auto negative = gpt2_->decodeBytes({-1});
    QVERIFY(!negative.ok());
    QCOMPARE(QString::fromStdString(negative.error().message),
             QStringLiteral("token id -1 is not in the vocabulary (ids 0 to 50256)"));
    // A piece that ends inside a character: its bytes, and U+FFFD for each as
    // text (QString::fromUtf8).
    QCOMPARE(gpt2_->decodeBytes({8582}).value(), QByteArray("\xf0\x9f"));
    QCOMPARE(gpt2_->decode({8582}).value(), QString(2, QChar(0xFFFD)));
}

// The cost is bounded by the input: one 50,000-byte word with no merge at
// all (U+0001 is the byte token "ā", no pair "ā ā"), one that merges all the
// way ("a" x 50,000 is "aaaa" 12,500 times, the ids from
// gpt2_bpe_reference.py), and a 100,000-character text made of one sentence
// repeated, whose ids are the sentence's repeated. The times are printed,
// not asserted.
void TestGpt2Tokenizer::longInputs()
{
    QElapsedTimer timer;
    timer.start();
    QCOMPARE(gpt2_->encodeIds(QString(50000, QChar(1))), Ids(50000, 189));
    const qint64 noMerge = timer.restart();
    QCOMPARE(gpt2_->encodeIds(QString(50000, QLatin1Char('a'))), Ids(12500, 24794));
    const qint64 allMerge = timer.restart();

    const QString sentence = QStringLiteral(" Jane is going to the cinema to watch a new");
    const Ids sentenceIds{12091, 318, 1016, 284, 262, 22041, 284, 2342, 257, 649};
    const int copies = 100000 / int(sentence.size()) + 1;
    Ids expected;
    for (int i = 0; i < copies; ++i)
        expected.insert(expected.end(), sentenceIds.begin(), sentenceIds.end());
    const QString text = sentence.repeated(copies);
    QVERIFY(text.size() >= 100000);
    timer.restart();
    const Ids ids = gpt2_->encodeIds(text);
    const qint64 longText = timer.elapsed();
    QCOMPARE(ids, expected);
    QCOMPARE(gpt2_->decode(ids).value(), text);
    qInfo("50,000 bytes without merges: %lld ms; 50,000 'a': %lld ms; %lld characters of text: %lld ms",
          noMerge, allMerge, qint64(text.size()), longText);
}

QTEST_APPLESS_MAIN(TestGpt2Tokenizer)
#include "tst_gpt2tokenizer.moc"
