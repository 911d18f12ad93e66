// SPDX-License-Identifier: GPL-3.0-or-later
// Hugging Face tokenizer.json (tokenizerjson.h): every case of the shared
// reference's tokenization/gpt2.json with tiny-llama's tokenizer.json (GPT-2's
// BPE as ByteLevel with its own regex, merges as "a b") and of qwen3.json
// with tiny-qwen3's (Qwen3's own: NFC, a Split regex then ByteLevel, merges
// as pairs, 26 added tokens) gives exactly the reference ids (from
// @lenml/tokenizers, a JavaScript port of Hugging Face's tokenizers);
// decode(encode(s)) gives s back (NFC-normalised for Qwen3); the GPT-2
// tokenizer.json agrees with Gpt2Tokenizer (vocab.json and merges.txt) on
// every reference sentence and token; hand-made files hold the added-token
// options, ignore_merges, add_prefix_space and the BOS; every refusal is
// one line naming the file and the key.

#include "bytelevelbpe.h"
#include "gpt2tokenizer.h"
#include "tokenizerjson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using Ids = std::vector<int>;
Q_DECLARE_METATYPE(Ids)

namespace {

const QString kLlamaDir = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/llama/");
const QString kGpt2Dir = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/");

std::shared_ptr<const attnlab::TokenizerJson> readFolder(const QString& folder)
{
    QFile tokenizer(folder + QStringLiteral("/tokenizer.json"));
    QFile config(folder + QStringLiteral("/tokenizer_config.json"));
    if (!tokenizer.open(QIODevice::ReadOnly) || !config.open(QIODevice::ReadOnly))
        qFatal("cannot open the tokenizer files in %s", qPrintable(folder));
    const QByteArray t = tokenizer.readAll();
    const QByteArray c = config.readAll();
    auto read = attnlab::TokenizerJson::fromData(std::string_view(t.constData(), std::size_t(t.size())),
                                                 std::string_view(c.constData(), std::size_t(c.size())));
    if (!read)
        qFatal("%s: %s", qPrintable(folder), read.error().message.c_str());
    return *read;
}

QJsonArray cases(const char* file)
{
    QFile f(kLlamaDir + QStringLiteral("tokenization/") + QLatin1String(file));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", file);
    return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("cases")).toArray();
}

Ids idsOf(const QJsonArray& array)
{
    Ids ids;
    for (const QJsonValue& v : array)
        ids.push_back(v.toInt());
    return ids;
}

// A row name on one line.
QByteArray rowName(const QString& text)
{
    QString name = text.left(40);
    name.replace(QLatin1Char('\n'), QLatin1String("\\n")).replace(QLatin1Char('\r'), QLatin1String("\\r"));
    name.replace(QLatin1Char('\t'), QLatin1String("\\t"));
    return name.toUtf8();
}

QString byteChar(int b)
{
    return QString(QChar(attnlab::byteLevelCharacters()[std::size_t(b)]));
}

// A small byte-level BPE: the 256 byte tokens (ids 0..255, the byte's
// value), then "ab" (256), "abc" (257), "Ġa" (258), "Ġab" (259); merges by
// rank "Ġ a", "a b", "ab c", "Ġa b".
// With `pairs`, the merges are written as ["a", "b"].
QJsonObject smallTokenizer(bool pairs = false)
{
    QJsonObject vocab;
    for (int b = 0; b < 256; ++b)
        vocab.insert(byteChar(b), b);
    vocab.insert(QStringLiteral("ab"), 256);
    vocab.insert(QStringLiteral("abc"), 257);
    vocab.insert(QStringLiteral("Ġa"), 258);
    vocab.insert(QStringLiteral("Ġab"), 259);
    QJsonArray merges;
    for (const auto& [l, r] :
         {std::pair<const char*, const char*>{"Ġ", "a"}, {"a", "b"}, {"ab", "c"}, {"Ġa", "b"}}) {
        if (pairs)
            merges.append(QJsonArray{QString::fromUtf8(l), QString::fromUtf8(r)});
        else
            merges.append(QString::fromUtf8(l) + QLatin1Char(' ') + QString::fromUtf8(r));
    }
    QJsonObject model{{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}, {"byte_fallback", false}};
    return QJsonObject{{"version", "1.0"},
                       {"normalizer", QJsonValue::Null},
                       {"pre_tokenizer",
                        QJsonObject{{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
                       {"added_tokens", QJsonArray{}},
                       {"model", model}};
}

attn::Expected<std::shared_ptr<const attnlab::TokenizerJson>> fromJson(const QJsonObject& json,
                                                                       const QByteArray& config = {})
{
    const QByteArray bytes = QJsonDocument(json).toJson(QJsonDocument::Compact);
    return attnlab::TokenizerJson::fromData(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                            std::string_view(config.constData(), std::size_t(config.size())));
}

QJsonObject addedToken(int id, const QString& content, bool special = true)
{
    return QJsonObject{{"id", id},        {"content", content},     {"single_word", false}, {"lstrip", false},
                       {"rstrip", false}, {"normalized", !special}, {"special", special}};
}

QJsonObject withModel(QJsonObject json, const QString& key, const QJsonValue& value)
{
    QJsonObject model = json.value(QStringLiteral("model")).toObject();
    model.insert(key, value);
    json.insert(QStringLiteral("model"), model);
    return json;
}

}  // namespace

class TestTokenizerJson : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void referenceCases_data();
    void referenceCases();
    void sameAsGpt2Tokenizer_data();
    void sameAsGpt2Tokenizer();
    void gpt2VocabularyAlike();
    void idsOutsideVocabulary();
    void tokensAndBos();
    void mergeForms();
    void ignoreMerges();
    void llama3SplitPattern();
    void prefixSpaceAndSplitString();
    void addedTokenOptions_data();
    void addedTokenOptions();
    void normalizedAddedToken();
    void configAddsTokensAndBos();
    void folder();
    void refused_data();
    void refused();
    void refusedFiles();
    void longText();

private:
    std::shared_ptr<const attnlab::TokenizerJson> gpt2_;
    std::shared_ptr<const attnlab::TokenizerJson> qwen3_;
};

void TestTokenizerJson::initTestCase()
{
    gpt2_ = readFolder(kLlamaDir + QStringLiteral("tiny-llama"));
    qwen3_ = readFolder(kLlamaDir + QStringLiteral("tiny-qwen3"));
    QCOMPARE(gpt2_->vocabSize(), 50257);
    QCOMPARE(gpt2_->modelVocabSize(), 50257);
    QCOMPARE(gpt2_->mergeCount(), 50000);
    QCOMPARE(gpt2_->addedTokenCount(), 0);  // <|endoftext|> is model.vocab's 50256
    QCOMPARE(qwen3_->modelVocabSize(), 151643);
    QCOMPARE(qwen3_->addedTokenCount(), 26);
    QCOMPARE(qwen3_->vocabSize(), 151669);
    QCOMPARE(qwen3_->mergeCount(), 151387);
}

void TestTokenizerJson::referenceCases_data()
{
    QTest::addColumn<bool>("qwen");
    QTest::addColumn<QString>("text");
    QTest::addColumn<Ids>("ids");
    int count = 0;
    for (const char* file : {"gpt2.json", "qwen3.json"}) {
        const bool qwen = QLatin1String(file) == QLatin1String("qwen3.json");
        for (const QJsonValue& c : cases(file)) {
            const QString text = c[QStringLiteral("text")].toString();
            QTest::newRow((QByteArray(file) + ": " + rowName(text)).constData())
                << qwen << text << idsOf(c[QStringLiteral("ids")].toArray());
            ++count;
        }
    }
    QCOMPARE(count, 22 + 22);
}

void TestTokenizerJson::referenceCases()
{
    QFETCH(bool, qwen);
    QFETCH(QString, text);
    QFETCH(Ids, ids);
    const attnlab::ModelTokenizer& tokenizer = qwen ? *qwen3_ : *gpt2_;
    QCOMPARE(tokenizer.encodeIds(text), ids);
    // Back to the text (Qwen3 normalises to NFC first: "e" + U+0301 comes
    // back as "é").
    const QString expected = qwen ? text.normalized(QString::NormalizationForm_C) : text;
    QCOMPARE(tokenizer.decode(ids).value(), expected);
    const std::vector<attnlab::ModelToken> tokens = tokenizer.encode(text);
    QCOMPARE(tokens.size(), ids.size());
    for (std::size_t i = 0; i < tokens.size(); ++i)
        QCOMPARE(tokens[i].id, ids[i]);
}

// The GPT-2 tokenizer.json and GPT-2's vocab.json + merges.txt give the same
// ids (text holding "<|endoftext|>" aside: tokenizer.json makes it the added
// token, vocab.json knows no added tokens).
void TestTokenizerJson::sameAsGpt2Tokenizer_data()
{
    QTest::addColumn<QString>("text");
    int count = 0;
    for (const QJsonValue& c : cases("gpt2.json")) {
        const QString text = c[QStringLiteral("text")].toString();
        if (text.contains(QStringLiteral("<|endoftext|>")))
            continue;
        QTest::newRow(rowName(text).constData()) << text;
        ++count;
    }
    for (const char* checkpoint : {"tiny-gpt2", "tiny-gpt2-lmhead-f16"}) {
        QFile file(kGpt2Dir + QLatin1String(checkpoint) + QStringLiteral("/reference.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        for (const QJsonValue& c :
             QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("cases")).toArray()) {
            QTest::newRow((QByteArray(checkpoint) + ": " + rowName(c[QStringLiteral("sentence")].toString()))
                              .constData())
                << c[QStringLiteral("sentence")].toString();
            ++count;
        }
    }
    QCOMPARE(count, 21 + 9);
}

void TestTokenizerJson::sameAsGpt2Tokenizer()
{
    static const attnlab::Gpt2Tokenizer gpt2 =
        attnlab::Gpt2Tokenizer::fromFolder(kGpt2Dir + QStringLiteral("tiny-gpt2")).value();
    QFETCH(QString, text);
    const Ids ids = gpt2.encodeIds(text);
    QVERIFY(!ids.empty() || text.isEmpty());
    QCOMPARE(gpt2_->encodeIds(text), ids);
}

void TestTokenizerJson::gpt2VocabularyAlike()
{
    const attnlab::Gpt2Tokenizer gpt2 =
        attnlab::Gpt2Tokenizer::fromFolder(kGpt2Dir + QStringLiteral("tiny-gpt2")).value();
    QCOMPARE(gpt2_->vocabSize(), gpt2.vocabSize());
    for (int id = 0; id < gpt2.vocabSize(); ++id) {
        if (gpt2_->token(id).piece != gpt2.token(id).piece || gpt2_->tokenBytes(id) != gpt2.tokenBytes(id))
            QFAIL(qPrintable(QStringLiteral("token %1 differs").arg(id)));
    }
}

// A model's vocab_size may exceed its tokenizer's (Qwen2.5: 151936 logits,
// 151665 tokens) and its top logits may name such ids: shown, never thrown.
void TestTokenizerJson::idsOutsideVocabulary()
{
    const attnlab::Gpt2Tokenizer gpt2 =
        attnlab::Gpt2Tokenizer::fromFolder(kGpt2Dir + QStringLiteral("tiny-gpt2")).value();
    // Qwen3's vocab_size is 151936, its tokenizer.json 151669 tokens.
    QCOMPARE(qwen3_->token(151935).display, QStringLiteral("<id 151935>"));
    QCOMPARE(qwen3_->token(151935).id, 151935);
    QVERIFY(qwen3_->token(151935).piece.isEmpty());
    QVERIFY(qwen3_->tokenBytes(151669).isEmpty());
    for (const int id : {50257, 96858, -1}) {
        QCOMPARE(gpt2_->token(id).display, QStringLiteral("<id %1>").arg(id));
        QCOMPARE(gpt2.token(id).display, QStringLiteral("<id %1>").arg(id));
        QVERIFY(gpt2.tokenBytes(id).isEmpty());
        QVERIFY(!gpt2_->decode({id}).ok());  // decoding still names the id as an error
    }
    QCOMPARE(gpt2_->token(50256).display, gpt2.token(50256).display);  // the last id is still a token
    QVERIFY(gpt2_->token(50256).display != QStringLiteral("<id 50256>"));
}

void TestTokenizerJson::tokensAndBos()
{
    QCOMPARE(qwen3_->name(), QStringLiteral("byte-level BPE (tokenizer.json)"));
    // "<|im_start|>user" : the added token, then "user".
    const std::vector<attnlab::ModelToken> tokens = qwen3_->encode(QStringLiteral("<|im_start|>user hi"));
    QCOMPARE(int(tokens.size()), 3);
    QCOMPARE(tokens[0].id, 151644);
    QCOMPARE(tokens[0].piece, QStringLiteral("<|im_start|>"));
    QCOMPARE(tokens[0].display, QStringLiteral("<|im_start|>"));
    QCOMPARE(tokens[2].piece, QStringLiteral("Ġhi"));
    QCOMPARE(tokens[2].display, QStringLiteral("␣hi"));
    // 374 is "Ġis" in both (qwen3.json's "... is special").
    QCOMPARE(qwen3_->token(374).piece, QStringLiteral("Ġis"));
    QCOMPARE(qwen3_->tokenBytes(151668), QByteArray("</think>"));
    // Neither file adds a BOS: GPT-2's add_bos_token is false, Qwen3's too.
    QCOMPARE(gpt2_->bosTokenId(), -1);
    QCOMPARE(qwen3_->bosTokenId(), -1);
    const attn::Expected<QString> unknown = qwen3_->decode({374, 151669});
    QVERIFY(!unknown.ok());
    QCOMPARE(QString::fromStdString(unknown.error().message),
             QStringLiteral("token id 151669 is not in the vocabulary (ids 0 to 151668)"));
}

// Merges as "a b" and as ["a", "b"] read alike: "abc" is a, b -> ab (rank
// 1), ab, c -> abc (rank 2); " ab" is Ġ, a -> Ġa (rank 0), Ġa, b -> Ġab; in
// " abc" the lower rank Ġ a wins over a b, so no "abc" forms.
void TestTokenizerJson::mergeForms()
{
    for (const bool pairs : {false, true}) {
        const auto t = fromJson(smallTokenizer(pairs));
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE((*t)->encodeIds(QStringLiteral("abc ab abd")), (Ids{257, 259, 259, 'd'}));
        QCOMPARE((*t)->encodeIds(QStringLiteral("cab")), (Ids{'c', 256}));
        QCOMPARE((*t)->encodeIds(QStringLiteral(" abc")), (Ids{259, 'c'}));
        QCOMPARE((*t)->mergeCount(), 4);
        QCOMPARE((*t)->vocabSize(), 260);
    }
}

// "xyz" is in the vocabulary but no merge makes it: with ignore_merges it is
// one token, without it three.
void TestTokenizerJson::ignoreMerges()
{
    QJsonObject json = smallTokenizer();
    QJsonObject model = json[QStringLiteral("model")].toObject();
    QJsonObject vocab = model[QStringLiteral("vocab")].toObject();
    vocab.insert(QStringLiteral("xyz"), 260);
    model.insert(QStringLiteral("vocab"), vocab);
    json.insert(QStringLiteral("model"), model);
    const auto plain = fromJson(json);
    QVERIFY(plain.ok());
    QCOMPARE((*plain)->encodeIds(QStringLiteral("xyz")), (Ids{'x', 'y', 'z'}));
    const auto ignoring = fromJson(withModel(json, QStringLiteral("ignore_merges"), true));
    QVERIFY(ignoring.ok());
    QCOMPARE((*ignoring)->encodeIds(QStringLiteral("xyz")), (Ids{260}));
    QCOMPARE((*ignoring)->encodeIds(QStringLiteral("xyzz")), (Ids{'x', 'y', 'z', 'z'}));
}

// Llama 3's Split pattern: digits in threes, contractions in any case, and
// of two spaces before a word, the first alone (\s+(?!\S)). Extra tokens
// "34" (260), "'S" (261), "ĠĠ" (262) with merges "3 4", "' S", "Ġ Ġ" show
// where the pieces end; GPT-2's ByteLevel regex cuts "12345" as one piece.
void TestTokenizerJson::llama3SplitPattern()
{
    QJsonObject json = smallTokenizer();
    QJsonObject model = json[QStringLiteral("model")].toObject();
    QJsonObject vocab = model[QStringLiteral("vocab")].toObject();
    vocab.insert(QStringLiteral("34"), 260);
    vocab.insert(QStringLiteral("'S"), 261);
    vocab.insert(QStringLiteral("ĠĠ"), 262);
    QJsonArray merges = model[QStringLiteral("merges")].toArray();
    merges.append(QStringLiteral("3 4"));
    merges.append(QStringLiteral("' S"));
    merges.append(QStringLiteral("Ġ Ġ"));
    model.insert(QStringLiteral("vocab"), vocab);
    model.insert(QStringLiteral("merges"), merges);
    json.insert(QStringLiteral("model"), model);
    const auto gpt2 = fromJson(json);
    QVERIFY(gpt2.ok());
    QCOMPARE((*gpt2)->encodeIds(QStringLiteral("12345")), (Ids{'1', '2', 260, '5'}));

    const QString llama3 = QStringLiteral(
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
        "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
        "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
    json.insert(
        QStringLiteral("pre_tokenizer"),
        QJsonObject{{"type", "Sequence"},
                    {"pretokenizers", QJsonArray{QJsonObject{{"type", "Split"},
                                                             {"pattern", QJsonObject{{"Regex", llama3}}},
                                                             {"behavior", "Isolated"},
                                                             {"invert", false}},
                                                 QJsonObject{{"type", "ByteLevel"},
                                                             {"add_prefix_space", false},
                                                             {"trim_offsets", true},
                                                             {"use_regex", false}}}}});
    const auto t = fromJson(withModel(json, QStringLiteral("ignore_merges"), true));
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE((*t)->encodeIds(QStringLiteral("12345 it'S  ok")),
             (Ids{'1', '2', '3', '4', '5', ' ', 'i', 't', 261, ' ', ' ', 'o', 'k'}));
    QCOMPARE((*t)->encodeIds(QStringLiteral("a   b")), (Ids{'a', 262, ' ', 'b'}));
}

// add_prefix_space puts "Ġ" before each piece that lacks a space; a Split
// on a literal string ("String") isolates it.
void TestTokenizerJson::prefixSpaceAndSplitString()
{
    QJsonObject json = smallTokenizer();
    json.insert(QStringLiteral("pre_tokenizer"),
                QJsonObject{{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}});
    const auto prefixed = fromJson(json);
    QVERIFY(prefixed.ok());
    QCOMPARE((*prefixed)->encodeIds(QStringLiteral("ab")), (Ids{259}));
    QCOMPARE((*prefixed)->encodeIds(QStringLiteral(" ab")), (Ids{259}));
    json.insert(
        QStringLiteral("pre_tokenizer"),
        QJsonObject{{"type", "Sequence"},
                    {"pretokenizers", QJsonArray{QJsonObject{{"type", "Split"},
                                                             {"pattern", QJsonObject{{"String", "b"}}},
                                                             {"behavior", "Isolated"},
                                                             {"invert", false}},
                                                 QJsonObject{{"type", "ByteLevel"},
                                                             {"add_prefix_space", false},
                                                             {"use_regex", false}}}}});
    const auto split = fromJson(json);
    QVERIFY2(split.ok(), split.ok() ? "" : split.error().message.c_str());
    QCOMPARE((*split)->encodeIds(QStringLiteral("abc")), (Ids{'a', 'b', 'c'}));
    // Without use_regex nothing else cuts: " a c" is one piece, "Ġa" then " c".
    QCOMPARE((*split)->encodeIds(QStringLiteral(" a c")), (Ids{258, ' ', 'c'}));
}

void TestTokenizerJson::addedTokenOptions_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("text");
    QTest::addColumn<Ids>("ids");
    // <m> is 260, <m>> 261.
    QTest::newRow("plain") << QString() << QStringLiteral("a <m> b") << Ids{'a', ' ', 260, ' ', 'b'};
    QTest::newRow("inside a word") << QString() << QStringLiteral("x<m>y") << Ids{'x', 260, 'y'};
    QTest::newRow("lstrip") << QStringLiteral("lstrip") << QStringLiteral("a  <m> b")
                            << Ids{'a', 260, ' ', 'b'};
    QTest::newRow("rstrip") << QStringLiteral("rstrip") << QStringLiteral("a <m>  b")
                            << Ids{'a', ' ', 260, 'b'};
    QTest::newRow("single_word, alone")
        << QStringLiteral("single_word") << QStringLiteral("a <m> b") << Ids{'a', ' ', 260, ' ', 'b'};
    QTest::newRow("single_word, in a word")
        << QStringLiteral("single_word") << QStringLiteral("x<m>") << Ids{'x', '<', 'm', '>'};
    QTest::newRow("longest first") << QString() << QStringLiteral("<m>><m>") << Ids{261, 260};
}

void TestTokenizerJson::addedTokenOptions()
{
    QFETCH(QString, option);
    QFETCH(QString, text);
    QFETCH(Ids, ids);
    QJsonObject json = smallTokenizer();
    QJsonObject m = addedToken(260, QStringLiteral("<m>"));
    if (!option.isEmpty())
        m.insert(option, true);
    json.insert(QStringLiteral("added_tokens"), QJsonArray{m, addedToken(261, QStringLiteral("<m>>"))});
    const auto t = fromJson(json);
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE((*t)->vocabSize(), 262);
    QCOMPARE((*t)->encodeIds(text), ids);
}

// A normalized added token is found after the normalizer (NFC): "é" typed
// as e + U+0301 matches the token "é"; a raw one (normalized false) is not.
void TestTokenizerJson::normalizedAddedToken()
{
    const QString composed = QString(QChar(0xE9));
    const QString decomposed = QStringLiteral("e") + QChar(0x301);
    for (const bool normalized : {true, false}) {
        QJsonObject json = smallTokenizer();
        json.insert(QStringLiteral("normalizer"), QJsonObject{{"type", "NFC"}});
        json.insert(QStringLiteral("added_tokens"), QJsonArray{addedToken(260, composed, !normalized)});
        const auto t = fromJson(json);
        QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
        QCOMPARE((*t)->encodeIds(composed), Ids{260});
        // 0xC3 0xA9 are é's UTF-8 bytes, the byte tokens of the normalised text.
        QCOMPARE((*t)->encodeIds(decomposed), normalized ? Ids{260} : (Ids{0xC3, 0xA9}));
    }
}

// tokenizer_config.json's added_tokens_decoder adds what tokenizer.json
// lacks; its add_bos_token and bos_token name the BOS; without
// add_bos_token, a TemplateProcessing post-processor's first special token.
void TestTokenizerJson::configAddsTokensAndBos()
{
    QJsonObject json = smallTokenizer();
    json.insert(QStringLiteral("added_tokens"), QJsonArray{addedToken(260, QStringLiteral("<s>"))});
    const QByteArray config = R"({"add_bos_token": true, "bos_token": {"content": "<s>"},
        "added_tokens_decoder": {"260": {"content": "<s>", "special": true},
                                 "261": {"content": "</s>", "special": true, "normalized": false}}})";
    const auto t = fromJson(json, config);
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE((*t)->vocabSize(), 262);
    QCOMPARE((*t)->bosTokenId(), 260);
    QCOMPARE((*t)->encodeIds(QStringLiteral("<s>ab</s>")), (Ids{260, 256, 261}));

    json.insert(
        QStringLiteral("post_processor"),
        QJsonObject{
            {"type", "Sequence"},
            {"processors",
             QJsonArray{
                 QJsonObject{{"type", "ByteLevel"}},
                 QJsonObject{{"type", "TemplateProcessing"},
                             {"single", QJsonArray{QJsonObject{{"SpecialToken", QJsonObject{{"id", "<s>"}}}},
                                                   QJsonObject{{"Sequence", QJsonObject{{"id", "A"}}}}}}}}}});
    const auto templated = fromJson(json);
    QVERIFY(templated.ok());
    QCOMPARE((*templated)->bosTokenId(), 260);
    const auto notAdded = fromJson(json, R"({"add_bos_token": false, "bos_token": "<s>"})");
    QVERIFY(notAdded.ok());
    QCOMPARE((*notAdded)->bosTokenId(), -1);
}

void TestTokenizerJson::folder()
{
    const auto t = attnlab::readTokenizerJson(kLlamaDir + QStringLiteral("tiny-qwen3"));
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    QCOMPARE((*t)->vocabSize(), 151669);
    QCOMPARE((*t)->encodeIds(QStringLiteral("Life is short, eat dessert first")),
             (Ids{25749, 374, 2805, 11, 8180, 42749, 1156}));
    // Without tokenizer_config.json.
    QTemporaryDir dir;
    QVERIFY(
        QFile::copy(kLlamaDir + QStringLiteral("tiny-llama/tokenizer.json"), dir.filePath("tokenizer.json")));
    const auto alone = attnlab::readTokenizerJson(dir.path());
    QVERIFY2(alone.ok(), alone.ok() ? "" : alone.error().message.c_str());
    QCOMPARE((*alone)->encodeIds(QStringLiteral("the cinema")), (Ids{1169, 22041}));
}

void TestTokenizerJson::refused_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("message");
    const auto doc = [](const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); };
    const QJsonObject base = smallTokenizer();

    QTest::newRow("not JSON") << QByteArray("vocab: 1") << QByteArray()
                              << "tokenizer.json: line 1, column 1: unexpected character 'v'";
    QTest::newRow("not an object") << QByteArray("[1, 2]") << QByteArray()
                                   << "tokenizer.json: expected a JSON object, found an array";
    QJsonObject noModel = base;
    noModel.remove(QStringLiteral("model"));
    QTest::newRow("no model") << doc(noModel) << QByteArray()
                              << "tokenizer.json: no \"model\" (the vocabulary and merges)";
    for (const char* type : {"Unigram", "WordPiece", "WordLevel"})
        QTest::newRow(type) << doc(withModel(base, QStringLiteral("type"), QLatin1String(type)))
                            << QByteArray()
                            << QStringLiteral(
                                   "tokenizer.json: model type \"%1\" is not supported (supported: BPE "
                                   "with byte-level pre-tokenization)")
                                   .arg(QLatin1String(type));
    QTest::newRow("byte_fallback")
        << doc(withModel(base, QStringLiteral("byte_fallback"), true)) << QByteArray()
        << "tokenizer.json: model.byte_fallback is true (SentencePiece-style BPE, as "
           "Llama 2 and Gemma use) is not supported (supported: BPE with byte-level "
           "pre-tokenization)";
    QJsonObject metaspace = base;
    metaspace.insert(QStringLiteral("pre_tokenizer"),
                     QJsonObject{{"type", "Metaspace"}, {"replacement", "▁"}});
    QTest::newRow("Metaspace")
        << doc(metaspace) << QByteArray()
        << "tokenizer.json: pre_tokenizer \"Metaspace\" is not supported (SentencePiece-style, "
           "as Llama 2 and Gemma write it; supported: ByteLevel, or a Sequence of Split regexes "
           "then ByteLevel, as GPT-2, SmolLM2, Llama 3 and Qwen write them)";
    QJsonObject removed = base;
    removed.insert(
        QStringLiteral("pre_tokenizer"),
        QJsonObject{{"type", "Sequence"},
                    {"pretokenizers", QJsonArray{QJsonObject{{"type", "Split"},
                                                             {"pattern", QJsonObject{{"Regex", "\\s+"}}},
                                                             {"behavior", "Removed"}},
                                                 QJsonObject{{"type", "ByteLevel"}}}}});
    QTest::newRow("Split Removed")
        << doc(removed) << QByteArray()
        << "tokenizer.json: pre_tokenizer.pretokenizers[0].behavior \"Removed\" is not "
           "supported (supported: Isolated)";
    QJsonObject lowercase = base;
    lowercase.insert(QStringLiteral("normalizer"),
                     QJsonObject{{"type", "Sequence"},
                                 {"normalizers", QJsonArray{QJsonObject{{"type", "NFC"}},
                                                            QJsonObject{{"type", "Lowercase"}}}}});
    QTest::newRow("unknown normalizer") << doc(lowercase) << QByteArray()
                                        << "tokenizer.json: normalizer \"Lowercase\" is not supported "
                                           "(supported: NFC, NFD, NFKC, NFKD or none)";
    QTest::newRow("merge of an unknown token")
        << doc(withModel(base, QStringLiteral("merges"), QJsonArray{"a b", "ab q"})) << QByteArray()
        << "tokenizer.json: model.merges[1] (line 1): the merge of \"ab\" and \"q\" gives \"abq\", which is "
           "not in "
           "model.vocab";
    QTest::newRow("merge naming no token")
        << doc(withModel(base, QStringLiteral("merges"), QJsonArray{QJsonArray{"a", "zz"}})) << QByteArray()
        << "tokenizer.json: model.merges[0] (line 1): \"zz\" is not in model.vocab";
    QTest::newRow("merge of three")
        << doc(withModel(base, QStringLiteral("merges"), QJsonArray{"a b c"})) << QByteArray()
        << "tokenizer.json: model.merges[0] (line 1): \"a b c\" is not two tokens separated by one space";
    QJsonObject gapVocab = base[QStringLiteral("model")].toObject()[QStringLiteral("vocab")].toObject();
    gapVocab.insert(QStringLiteral("abc"), 300);
    QTest::newRow("vocab id out of range")
        << doc(withModel(base, QStringLiteral("vocab"), gapVocab)) << QByteArray()
        << "tokenizer.json: model.vocab (line 1): the id of \"abc\" is 300, not one of 0..259 (the "
           "vocabulary has "
           "260 tokens)";
    QJsonObject twiceVocab = gapVocab;
    twiceVocab.insert(QStringLiteral("abc"), 256);
    QTest::newRow("vocab id twice")
        << doc(withModel(base, QStringLiteral("vocab"), twiceVocab)) << QByteArray()
        << "tokenizer.json: model.vocab (line 1): the id 256 of \"abc\" is already the "
           "id of \"ab\"";
    QJsonObject gapAdded = base;
    gapAdded.insert(QStringLiteral("added_tokens"), QJsonArray{addedToken(261, QStringLiteral("<x>"))});
    QTest::newRow("added id gap")
        << doc(gapAdded) << QByteArray()
        << "tokenizer.json: no token has the id 260 (model.vocab has 0..259; added_tokens "
           "go up to 261; the ids must run without a gap)";
    QJsonObject clash = base;
    clash.insert(QStringLiteral("added_tokens"), QJsonArray{addedToken(256, QStringLiteral("<x>"))});
    QTest::newRow("added id of another token") << doc(clash) << QByteArray()
                                               << "tokenizer.json: added_tokens[0] (line 1): \"<x>\" has the "
                                                  "id 256, which model.vocab gives to \"ab\"";
    QJsonObject noByte = base[QStringLiteral("model")].toObject()[QStringLiteral("vocab")].toObject();
    noByte.remove(byteChar(0xE2));
    noByte.insert(QStringLiteral("xyz"), 0xE2);
    QTest::newRow("a byte without a token")
        << doc(withModel(base, QStringLiteral("vocab"), noByte)) << QByteArray()
        << "tokenizer.json: model.vocab: the byte 0xE2 has no token (\"â\"), which byte-level BPE needs";
    QTest::newRow("config not an object")
        << doc(base) << QByteArray("[]") << "tokenizer_config.json: expected a JSON object, found an array";
    QTest::newRow("config token clash")
        << doc(base) << QByteArray(R"({"added_tokens_decoder": {"256": {"content": "<x>"}}})")
        << "tokenizer_config.json: added_tokens_decoder[\"256\"] (line 1): \"<x>\" has the id 256, which "
           "model.vocab "
           "gives to \"ab\"";
}

void TestTokenizerJson::refused()
{
    QFETCH(QByteArray, file);
    QFETCH(QByteArray, config);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QFile f(dir.filePath(QStringLiteral("tokenizer.json")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(file);
    f.close();
    if (!config.isEmpty()) {
        QFile c(dir.filePath(QStringLiteral("tokenizer_config.json")));
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(config);
    }
    const auto t = attnlab::readTokenizerJson(dir.path());
    QVERIFY(!t.ok());
    QCOMPARE(QString::fromStdString(t.error().message), message);
}

void TestTokenizerJson::refusedFiles()
{
    QTemporaryDir dir;
    const auto missing = attnlab::readTokenizerJson(dir.path());
    QVERIFY(!missing.ok());
    QCOMPARE(QString::fromStdString(missing.error().message),
             QStringLiteral("tokenizer.json: no such file in ") + QDir::toNativeSeparators(dir.path()));
    // Larger than the cap: refused from its size, unread (a sparse file).
    QFile big(dir.filePath(QStringLiteral("tokenizer.json")));
    QVERIFY(big.open(QIODevice::WriteOnly));
    QVERIFY(big.resize(attnlab::kMaxTokenizerFileBytes + 1));
    big.close();
    const auto tooBig = attnlab::readTokenizerJson(dir.path());
    QVERIFY(!tooBig.ok());
    QCOMPARE(
        QString::fromStdString(tooBig.error().message),
        QStringLiteral(
            "tokenizer.json: more than 64 MiB is larger than any tokenizer.json can be (at most 64 MiB)"));
}

// A 2,000-word text: the same ids as the pieces encoded one by one (what
// the pre-tokenizer does not join), and the round trip.
void TestTokenizerJson::longText()
{
    QString text;
    const QStringList words = QStringLiteral(
                                  "Jane is going to the cinema to watch a new film; 3.14159 don't "
                                  "中文 emoji 😀 naïve résumé")
                                  .split(QLatin1Char(' '));
    for (int i = 0; i < 2000; ++i)
        text += (i ? QStringLiteral(" ") : QString()) + words[i % words.size()];
    for (const auto& tokenizer : {gpt2_, qwen3_}) {
        const Ids ids = tokenizer->encodeIds(text);
        QVERIFY(ids.size() >= 2000);
        QCOMPARE(tokenizer->decode(ids).value(), text);
        Ids joined;
        for (int i = 0; i < words.size(); ++i) {
            const Ids part = tokenizer->encodeIds((i ? QStringLiteral(" ") : QString()) + words[i]);
            joined.insert(joined.end(), part.begin(), part.end());
        }
        const Ids first(ids.begin(), ids.begin() + std::ptrdiff_t(joined.size()));
        QCOMPARE(first, joined);
    }
}

QTEST_GUILESS_MAIN(TestTokenizerJson)
#include "tst_tokenizerjson.moc"
