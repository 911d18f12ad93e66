// SPDX-License-Identifier: GPL-3.0-or-later
// Saved labs (.attnlab): save then open gives the very same state (every
// matrix bit for bit, every option, the view) and the same attention; newer
// and version-less files read with a warning; broken, mistyped or
// inconsistent files are refused with a message naming the field; a save that
// fails or crashes midway leaves the existing file as it was. Also the exact
// JSON reader the lab file uses.

#include "attentionsnapshot.h"
#include "jsonvalue.h"
#include "labfile.h"
#include "matrixio.h"
#include "stagedwrite.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace {

using Edit = std::function<void(attnlab::LabState&)>;

bool sameBits(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0;
}

QByteArray readFile(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(bytes);
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot, QDir::Name);
}

std::string labText(const attnlab::LabState& state)
{
    std::ostringstream out;
    attnlab::writeLabJson(out, state);
    return out.str();
}

attnlab::LabState labFor(const attn::ModelConfig& config, const attn::AttentionOptions& options,
                         const QJsonObject& view = {})
{
    const auto snapshot = attnlab::computeSnapshot(config, options);
    if (!snapshot)
        qFatal("%s", snapshot.error().message.c_str());
    return attnlab::labStateFromSnapshot(snapshot.value(), view);
}

// "a b" with d_model = d_k = d_v = 2: a lab small enough to edit by hand.
attnlab::LabState smallLab()
{
    attn::ModelConfig config;
    config.sentence = "a b";
    config.dModel = 2;
    config.dK = 2;
    config.dV = 2;
    return labFor(config, attn::AttentionOptions());
}

}  // namespace

Q_DECLARE_METATYPE(Edit)
Q_DECLARE_METATYPE(attn::ModelConfig)
Q_DECLARE_METATYPE(attn::AttentionOptions)

class TestLabFile : public QObject {
    Q_OBJECT
private slots:
    void saveThenOpenIsIdentical_data();
    void saveThenOpenIsIdentical();
    void fileLayout();
    void versions_data();
    void versions();
    void versionOneFilesOpen_data();
    void versionOneFilesOpen();
    void badFields_data();
    void badFields();
    void badText_data();
    void badText();
    void fileErrorsNameTheFile();
    void invalidStateIsNotSaved();
    void failedWriteKeepsOldFile();
    void crashDuringSaveKeepsOldFile();
    void readOnlyDirectoryKeepsOldFile();
    void matricesThroughCsvExactly();
    void jsonNumbersExact_data();
    void jsonNumbersExact();
};

void TestLabFile::saveThenOpenIsIdentical_data()
{
    QTest::addColumn<attn::ModelConfig>("config");
    QTest::addColumn<attn::AttentionOptions>("options");
    QTest::addColumn<QJsonObject>("view");
    QTest::addColumn<Edit>("edit");

    QTest::newRow("article example") << attn::ModelConfig() << attn::AttentionOptions() << QJsonObject()
                                     << Edit();

    attn::ModelConfig other;
    other.sentence = "The cat sat. The \"dog\" ran, \xc3\xa9t\xc3\xa9!";
    other.tokenizer = attn::TokenizerMode::Punctuation;
    other.seed = std::numeric_limits<std::uint64_t>::max();
    other.dModel = 5;
    other.dK = 3;
    other.dV = 7;
    other.init = attn::InitMode::UnitVariance;
    attn::AttentionOptions custom;
    custom.scale = attn::ScaleMode::Custom;
    custom.customDivisor = 1.0 / 3.0;
    custom.causal = true;
    const QJsonObject view{{"focus_row", 3},
                           {"shared_range", true},
                           {"range", QJsonArray{-1.5, 2.25}},
                           {"panel", QJsonObject{{"name", "weights"}, {"zoom", 0.1}}}};
    QTest::newRow("punctuation, causal, custom divisor, largest seed, view")
        << other << custom << view << Edit();

    attn::AttentionOptions none;
    none.scale = attn::ScaleMode::None;
    QTest::newRow("hand edits: -0.0, denormal, 1/3, 1e30")
        << attn::ModelConfig() << none << QJsonObject() << Edit([](attnlab::LabState& s) {
               s.X(0, 0) = -0.0;
               s.X(5, 15) = std::numeric_limits<double>::denorm_min();
               s.Wq(3, 4) = 1.0 / 3.0;
               s.Wk(0, 0) = -1e30;
               s.Wv(15, 27) = 123456789.123456789;
           });
    attn::ModelConfig normal;
    normal.init = attn::InitMode::StandardNormal;
    normal.dModel = 1;
    normal.dK = 1;
    normal.dV = 1;
    normal.seed = 0;
    QTest::newRow("normal init, all dimensions 1")
        << normal << attn::AttentionOptions() << QJsonObject() << Edit();
}

void TestLabFile::saveThenOpenIsIdentical()
{
    QFETCH(attn::ModelConfig, config);
    QFETCH(attn::AttentionOptions, options);
    QFETCH(QJsonObject, view);
    QFETCH(Edit, edit);

    attnlab::LabState state = labFor(config, options, view);
    if (edit)
        edit(state);
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    const attn::Status saved = attnlab::saveLabFile(path, state);
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().message.c_str());
    QCOMPARE(entries(dir.path()), QStringList{"lab.attnlab"});

    const auto opened = attnlab::readLabFile(path);
    QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
    const attnlab::LabState& back = opened.value();
    QVERIFY(back.warnings.empty());
    QCOMPARE(back.config.sentence, state.config.sentence);
    QVERIFY(back.config.tokenizer == state.config.tokenizer);
    QCOMPARE(back.config.seed, state.config.seed);
    QCOMPARE(back.config.dModel, state.config.dModel);
    QCOMPARE(back.config.dK, state.config.dK);
    QCOMPARE(back.config.dV, state.config.dV);
    QVERIFY(back.config.init == state.config.init);
    QVERIFY(back.options.scale == state.options.scale);
    QCOMPARE(back.options.customDivisor, state.options.customDivisor);
    QCOMPARE(back.options.causal, state.options.causal);
    QVERIFY(sameBits(back.X, state.X));
    QVERIFY(sameBits(back.Wq, state.Wq));
    QVERIFY(sameBits(back.Wk, state.Wk));
    QVERIFY(sameBits(back.Wv, state.Wv));
    QCOMPARE(back.view, state.view);

    // The same attention, bit for bit, from the saved and the opened state.
    const auto before = attnlab::computeLabSnapshot(state);
    const auto after = attnlab::computeLabSnapshot(back);
    QVERIFY(before.ok() && after.ok());
    QCOMPARE(after->tokens.tokens, before->tokens.tokens);
    QVERIFY(sameBits(after->head().scores, before->head().scores));
    QVERIFY(sameBits(after->head().weightsMatrix(), before->head().weightsMatrix()));
    QVERIFY(sameBits(after->head().context, before->head().context));
    QCOMPARE(after->head().divisor, before->head().divisor);

    // Saving the opened lab again gives the same bytes.
    QCOMPARE(labText(back), labText(state));
}

// Any JSON reader can read it; the fields are named as documented.
void TestLabFile::fileLayout()
{
    const attnlab::LabState state = labFor(attn::ModelConfig(), attn::AttentionOptions());
    QJsonParseError error;
    const QJsonObject json =
        QJsonDocument::fromJson(QByteArray::fromStdString(labText(state)), &error).object();
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(json["format"].toString(), QString("attention-lab"));
    QCOMPARE(json["version"].toInt(), 2);
    QVERIFY(!json.contains("heads"));  // a single head: version 1's keys
    QCOMPARE(json["app_version"].toString(), QString(ATTNLAB_VERSION));
    QCOMPARE(json["sentence"].toString(), QString("Life is short, eat dessert first"));
    QCOMPARE(json["tokenizer"].toString(), QString("article"));
    QCOMPARE(json["seed"].toInt(), 123);
    QCOMPARE(json["d_model"].toInt(), 16);
    QCOMPARE(json["d_k"].toInt(), 24);
    QCOMPARE(json["d_v"].toInt(), 28);
    QCOMPARE(json["init"].toString(), QString("article"));
    QCOMPARE(json["scale_mode"].toString(), QString("sqrt-dk"));
    QCOMPARE(json["causal"].toBool(true), false);
    QCOMPARE(json["X"].toArray().size(), 6);
    QCOMPARE(json["X"].toArray()[0].toArray().size(), 16);
    QCOMPARE(json["W_v"].toArray().size(), 16);
    QCOMPARE(json["W_v"].toArray()[0].toArray().size(), 28);
    QCOMPARE(json["W_q"].toArray()[2].toArray()[5].toDouble(), state.Wq(2, 5));
    QVERIFY(json["view"].isObject());
}

void TestLabFile::versions_data()
{
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("warning");
    QTest::newRow("version 1 naming \"heads\", a version 2 key")
        << "\"version\": 2,"
        << "\"version\": 1, \"heads\": 4, \"layer_norm\": {\"eps\": 1e-5},"
        << "unknown fields were left out: \"heads\", \"layer_norm\"";
    QTest::newRow("no version") << "\"version\": 2,"
                                << ""
                                << "the file names no \"version\"; it was read as version 1";
    QTest::newRow("unknown field in version 1") << "\"version\": 2,"
                                                << "\"version\": 1, \"colour\": \"red\","
                                                << "unknown fields were left out: \"colour\"";
    QTest::newRow("unknown field in version 2") << "\"version\": 2,"
                                                << "\"version\": 2, \"colour\": \"red\","
                                                << "unknown fields were left out: \"colour\"";
}

// What the version knows is read as usual; the warning says what was not.
void TestLabFile::versions()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, warning);
    const attnlab::LabState state = smallLab();
    QString text = QString::fromStdString(labText(state));
    QVERIFY(text.contains(from));
    text.replace(from, to);
    const auto read = attnlab::parseLab(text.toStdString());
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QCOMPARE(read->warnings.size(), std::size_t(1));
    QCOMPARE(QString::fromStdString(read->warnings.front()), warning);
    QVERIFY(sameBits(read->X, state.X));
    QVERIFY(sameBits(read->Wv, state.Wv));
}

// The presets, written as version 1: they open without a warning, and a
// single-head lab saved now is the same text but for the version (and the
// view's layout).
void TestLabFile::versionOneFilesOpen_data()
{
    QTest::addColumn<QString>("name");
    for (const char* name : {"article-example", "jane-cinema", "scaling-demo"})
        QTest::newRow(name) << QString(name);
}

void TestLabFile::versionOneFilesOpen()
{
    QFETCH(QString, name);
    const QString path = ATTNLAB_SOURCE_DIR "/resources/presets/" + name + ".attnlab";
    QByteArray text = readFile(path);
    QVERIFY(text.contains("\"version\": 1,\n"));
    const auto opened = attnlab::readLabFile(path);
    QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
    QVERIFY(opened->warnings.empty());
    QVERIFY(!opened->heads.multiHead());
    QCOMPARE(opened->multiHead.headCount(), 0);
    QVERIFY(attnlab::computeLabSnapshot(opened.value()).ok());
    text.replace("\"version\": 1,\n", "\"version\": 2,\n");
    text.replace("\"app_version\": \"0.1.0\"", "\"app_version\": \"" ATTNLAB_VERSION "\"");
    // Up to the view, which the presets lay out by hand.
    const QByteArray saved = QByteArray::fromStdString(labText(opened.value()));
    QVERIFY(text.indexOf("\"view\"") > 0);
    QCOMPARE(saved.left(saved.indexOf("\"view\"")), text.left(text.indexOf("\"view\"")));
    QCOMPARE(QJsonDocument::fromJson(saved).object()["view"], QJsonDocument::fromJson(text).object()["view"]);
}

// A valid small lab with one field changed (through QJsonObject) or removed.
void TestLabFile::badFields_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QJsonValue>("value");  // undefined: the key is removed
    QTest::addColumn<QString>("message");
    const QJsonValue removed(QJsonValue::Undefined);
    QTest::newRow("format missing") << "format" << removed
                                    << "not an Attention Lab file: \"format\" must be \"attention-lab\"";
    QTest::newRow("format other")
        << "format" << QJsonValue("word-lab")
        << "not an Attention Lab file: \"format\" must be \"attention-lab\", not \"word-lab\"";
    QTest::newRow("version a string") << "version" << QJsonValue("1") << "must be a number, not a string";
    QTest::newRow("version 0") << "version" << QJsonValue(0)
                               << "must be a whole number from 1 to 1073741824, not 0";
    QTest::newRow("version 1.5") << "version" << QJsonValue(1.5) << "not 1.5";
    QTest::newRow("version 3, newer")
        << "version" << QJsonValue(3)
        << "the file is version 3, written by a newer Attention Lab (" ATTNLAB_VERSION
           "); this Attention Lab (" ATTNLAB_VERSION ") reads versions 1 to 2";
    QTest::newRow("sentence missing") << "sentence" << removed << "the field \"sentence\" is missing";
    QTest::newRow("sentence a number")
        << "sentence" << QJsonValue(3) << "\"sentence\" (line 5) must be a string, not a number";
    QTest::newRow("sentence without tokens")
        << "sentence" << QJsonValue(" , ") << "\"sentence\": The sentence has no tokens";
    QTest::newRow("tokenizer unknown") << "tokenizer" << QJsonValue("bpe")
                                       << "\"tokenizer\" must be \"article\" or \"punctuation\", not \"bpe\"";
    QTest::newRow("seed negative")
        << "seed" << QJsonValue(-1)
        << "\"seed\" (line 7) must be a whole number from 0 to 18446744073709551615, not -1";
    QTest::newRow("seed fractional") << "seed" << QJsonValue(1.5)
                                     << "\"seed\" (line 7) must be a whole number";
    QTest::newRow("seed as digits in a string") << "seed" << QJsonValue("x12") << "\"seed\" (line 7) must be";
    QTest::newRow("d_model missing") << "d_model" << removed << "the field \"d_model\" is missing";
    QTest::newRow("d_k a string") << "d_k" << QJsonValue("2")
                                  << "\"d_k\" (line 9) must be a number, not a string";
    QTest::newRow("d_k zero") << "d_k" << QJsonValue(0)
                              << "\"d_k\" (line 9) must be a whole number from 1 to 1024, not 0";
    QTest::newRow("d_v too large") << "d_v" << QJsonValue(5000)
                                   << "\"d_v\" (line 10) must be a whole number from 1 to 1024, not 5000";
    QTest::newRow("init unknown")
        << "init" << QJsonValue("xavier")
        << "\"init\" must be \"article\", \"normal\" or \"unit-variance\", not \"xavier\"";
    QTest::newRow("scale mode unknown")
        << "scale_mode" << QJsonValue("half")
        << "\"scale_mode\" must be \"sqrt-dk\", \"none\" or \"custom\", not \"half\"";
    QTest::newRow("causal a string") << "causal" << QJsonValue("yes")
                                     << "\"causal\" (line 14) must be true or false, not a string";
    QTest::newRow("X missing") << "X" << removed << "the field \"X\" is missing";
    QTest::newRow("X an object") << "X" << QJsonValue(QJsonObject{{"a", 1}})
                                 << "\"X\" (line 15) must be an array, not an object";
    QTest::newRow("X flat")
        << "X" << QJsonValue(QJsonArray{1, 2})
        << "\"X\" (line 15) must be an array of rows, each an array of numbers; it is a flat array";
    QTest::newRow("X empty")
        << "X" << QJsonValue(QJsonArray{})
        << "\"X\" (line 15) must be an array of rows, each an array of numbers; it is empty";
    QTest::newRow("X ragged") << "X" << QJsonValue(QJsonArray{QJsonArray{1, 2}, QJsonArray{3}})
                              << "\"X\" row 2 (line 17) has 1 numbers but row 1 has 2";
    QTest::newRow("X row of nothing")
        << "X" << QJsonValue(QJsonArray{QJsonArray{}, QJsonArray{}}) << "\"X\" row 1 (line 16) is empty";
    QTest::newRow("X a row not an array")
        << "X" << QJsonValue(QJsonArray{QJsonArray{1, 2}, 7})
        << "\"X\" row 2 (line 17) must be an array of numbers, not a number";
    QTest::newRow("X entry a string") << "X" << QJsonValue(QJsonArray{QJsonArray{1, "2"}, QJsonArray{3, 4}})
                                      << "\"X\" row 1 (line 16), entry 2 must be a number, not a string";
    QTest::newRow("X entry null") << "X"
                                  << QJsonValue(QJsonArray{QJsonArray{1, 2}, QJsonArray{QJsonValue(), 4}})
                                  << "\"X\" row 2 (line 17), entry 1 must be a number, not null";
    QTest::newRow("X rows do not match the tokens")
        << "X" << QJsonValue(QJsonArray{QJsonArray{1, 2}, QJsonArray{3, 4}, QJsonArray{5, 6}})
        << "\"X\" is (3, 2) but must be (2, 2): 2 tokens of \"sentence\" x d_model";
    QTest::newRow("sentence edited, X not")
        << "sentence" << QJsonValue("a b c")
        << "\"X\" is (2, 2) but must be (3, 2): 3 tokens of \"sentence\" x d_model";
    QTest::newRow("d_model edited, X not")
        << "d_model" << QJsonValue(3)
        << "\"X\" is (2, 2) but must be (2, 3): 2 tokens of \"sentence\" x d_model";
    QTest::newRow("W_q too wide") << "W_q" << QJsonValue(QJsonArray{QJsonArray{1, 2, 3}, QJsonArray{4, 5, 6}})
                                  << "\"W_q\" is (2, 3) but must be (2, 2): d_model x d_k";
    QTest::newRow("d_v edited, W_v not")
        << "d_v" << QJsonValue(3) << "\"W_v\" is (2, 2) but must be (2, 3): d_model x d_v";
    QTest::newRow("W_k entry too large")
        << "W_k" << QJsonValue(QJsonArray{QJsonArray{1, 2}, QJsonArray{3, 1e31}})
        << "W_k, row 2, column 2: 1e+31 is too large";
    QTest::newRow("view an array") << "view" << QJsonValue(QJsonArray{1})
                                   << "\"view\" (line 31) must be an object, not an array";
}

void TestLabFile::badFields()
{
    QFETCH(QString, key);
    QFETCH(QJsonValue, value);
    QFETCH(QString, message);
    QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(labText(smallLab()))).object();
    QVERIFY(json.contains(key));
    if (value.isUndefined())
        json.remove(key);
    else
        json[key] = value;
    // One key per line in the order of the writer, as a person would edit it.
    std::ostringstream text;
    text << "{\n";
    const QStringList order = {"format",  "version", "app_version", "sentence", "tokenizer",  "seed",
                               "d_model", "d_k",     "d_v",         "init",     "scale_mode", "scale_divisor",
                               "causal",  "X",       "W_q",         "W_k",      "W_v",        "view"};
    bool first = true;
    for (const QString& k : order) {
        if (!json.contains(k)) {
            text << "\n";  // keeps the line numbers of the other fields
            continue;
        }
        const QJsonValue v = json[k];
        QByteArray encoded;
        if (v.isArray() && !v.toArray().isEmpty() && v.toArray().first().isArray()) {
            // A matrix: one row per line.
            encoded = "[";
            for (const QJsonValue& row : v.toArray()) {
                QByteArray line = QJsonDocument(QJsonArray{row}).toJson(QJsonDocument::Compact);
                encoded += (encoded.size() > 1 ? ",\n" : "\n") + line.mid(1, line.size() - 2);
            }
            encoded += "\n]";
        } else if (v.isArray() || v.isObject()) {
            encoded = v.isArray() ? QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact)
                                  : QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact);
        } else {
            encoded = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
            encoded = encoded.mid(1, encoded.size() - 2);
        }
        text << (first ? "" : ",\n") << "\"" << k.toStdString() << "\": " << encoded.toStdString();
        first = false;
    }
    text << "\n}\n";
    const auto read = attnlab::parseLab(text.str());
    QVERIFY2(!read.ok(), text.str().c_str());
    QVERIFY2(QString::fromStdString(read.error().message).contains(message),
             (read.error().message + "\n" + text.str()).c_str());
}

void TestLabFile::badText_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    const QByteArray valid = QByteArray::fromStdString(labText(smallLab()));
    QTest::newRow("empty") << QByteArray() << "not a readable lab file: the file is empty";
    QTest::newRow("blank") << QByteArray(" \n\n") << "the file is empty";
    QTest::newRow("truncated") << valid.left(valid.size() / 2)
                               << "not a readable lab file: the file ends early";
    QTest::newRow("not JSON") << QByteArray("hello")
                              << "not a readable lab file: line 1, column 1: unexpected character 'h'";
    QTest::newRow("an array") << QByteArray("[1, 2]")
                              << "not a lab file: the JSON document is an array, not an object";
    QTest::newRow("trailing comma") << QByteArray("{\"format\": \"attention-lab\",}")
                                    << "line 1, column 28: expected a key in double quotes";
    QTest::newRow("duplicate key") << QByteArray("{\"a\": 1,\n \"a\": 2}")
                                   << "line 2, column 2: the key \"a\" appears twice";
    QTest::newRow("text after the document") << valid + "{}"
                                             << "text after the end of the JSON document";
    QTest::newRow("number out of range") << QByteArray(valid).replace("\"seed\": 123", "\"seed\": 1e400")
                                         << "the number 1e400 is out of the range of a double";
    QTest::newRow("NaN is no JSON") << QByteArray(valid).replace("\"causal\": false", "\"causal\": NaN")
                                    << "unexpected character 'N'";
    QTest::newRow("line break in a string")
        << QByteArray("{\"sentence\": \"a\nb\"}")
        << "line 1, column 16: a line break or control character inside a string";
}

void TestLabFile::badText()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    const auto read = attnlab::parseLab(text.toStdString());
    QVERIFY(!read.ok());
    QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());
}

void TestLabFile::fileErrorsNameTheFile()
{
    QTemporaryDir dir;
    const auto missing = attnlab::readLabFile(dir.filePath("gone.attnlab"));
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().message.rfind("cannot open '", 0) == 0, missing.error().message.c_str());

    writeFile(dir.filePath("empty.attnlab"), QByteArray());
    const auto empty = attnlab::readLabFile(dir.filePath("empty.attnlab"));
    QVERIFY(!empty.ok());
    QCOMPARE(QString::fromStdString(empty.error().message),
             QString("empty.attnlab: not a readable lab file: the file is empty"));
}

void TestLabFile::invalidStateIsNotSaved()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    writeFile(path, "old content\n");
    attnlab::LabState state = smallLab();
    state.X = attn::Matrix::Zero(3, 2);
    const attn::Status saved = attnlab::saveLabFile(path, state);
    QVERIFY(!saved.ok());
    QCOMPARE(QString::fromStdString(saved.error().message),
             QString("the lab cannot be saved: \"X\" is (3, 2) but must be (2, 2): 2 tokens of "
                     "\"sentence\" x d_model"));
    QCOMPARE(readFile(path), QByteArray("old content\n"));
}

// The writer fails halfway (a full disk, say): the old file stays, no
// temporary file is left.
void TestLabFile::failedWriteKeepsOldFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    QVERIFY(attnlab::saveLabFile(path, smallLab()).ok());
    const QByteArray old = readFile(path);
    const std::string replacement = labText(labFor(attn::ModelConfig(), attn::AttentionOptions()));
    const attn::Status status = attnlab::writeFileAtomically(path, [&](std::ostream& out) {
        out.write(replacement.data(), std::streamsize(replacement.size() / 2));
        out.setstate(std::ios::badbit);
    });
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.rfind("cannot write '", 0) == 0, status.error().message.c_str());
    QCOMPARE(readFile(path), old);
    QCOMPARE(entries(dir.path()), QStringList{"lab.attnlab"});
    QVERIFY(attnlab::readLabFile(path).ok());
}

// A real crash: a child process dies in the middle of writing the new lab.
void TestLabFile::crashDuringSaveKeepsOldFile()
{
#ifdef Q_OS_UNIX
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    QVERIFY(attnlab::saveLabFile(path, smallLab()).ok());
    const QByteArray old = readFile(path);
    attn::ModelConfig wide;
    wide.dModel = wide.dK = wide.dV = 64;
    const std::string replacement = labText(labFor(wide, attn::AttentionOptions()));
    QVERIFY(replacement.size() > 100000);  // more than the stream's buffer: bytes reach the disk

    const pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        attnlab::writeFileAtomically(path, [&](std::ostream& out) {
            out.write(replacement.data(), std::streamsize(replacement.size() - 10));
            out.flush();
            _exit(42);
        });
        _exit(0);
    }
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 42);  // it died inside the writer

    QCOMPARE(readFile(path), old);
    const auto opened = attnlab::readLabFile(path);
    QVERIFY(opened.ok());
    QVERIFY(sameBits(opened->X, smallLab().X));
    // Whatever the crash left (an unnamed O_TMPFILE leaves nothing, a named
    // temporary stays beside it), it is not in the lab file's place.
    const QStringList left = entries(dir.path());
    QVERIFY(left.contains("lab.attnlab"));
    for (const QString& name : left)
        QVERIFY2(name == "lab.attnlab" || name.startsWith("lab.attnlab."), qPrintable(name));
#else
    QSKIP("needs fork()");
#endif
}

void TestLabFile::readOnlyDirectoryKeepsOldFile()
{
#ifdef Q_OS_UNIX
    if (geteuid() == 0)
        QSKIP("root may write into a read-only directory");
    QTemporaryDir dir;
    const QString path = dir.filePath("lab.attnlab");
    QVERIFY(attnlab::saveLabFile(path, smallLab()).ok());
    const QByteArray old = readFile(path);
    QVERIFY(chmod(QFile::encodeName(dir.path()).constData(), 0555) == 0);
    const attn::Status status =
        attnlab::saveLabFile(path, labFor(attn::ModelConfig(), attn::AttentionOptions()));
    chmod(QFile::encodeName(dir.path()).constData(), 0755);
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.rfind("cannot write '", 0) == 0, status.error().message.c_str());
    QCOMPARE(readFile(path), old);
#else
    QSKIP("POSIX permissions");
#endif
}

// The lab's matrices through the labelled CSV table, bit for bit.
void TestLabFile::matricesThroughCsvExactly()
{
    attnlab::LabState state = labFor(attn::ModelConfig(), attn::AttentionOptions());
    state.X(1, 2) = -0.0;
    state.X(2, 3) = std::numeric_limits<double>::denorm_min();
    const auto snapshot = attnlab::computeLabSnapshot(state);
    QVERIFY(snapshot.ok());
    const attn::Matrix weights = snapshot->head().weightsMatrix();
    for (const attn::Matrix* m :
         std::initializer_list<const attn::Matrix*>{&state.X, &state.Wq, &state.Wk, &state.Wv, &weights}) {
        std::ostringstream out;
        attnlab::writeMatrixCsv(out, *m, attnlab::indexLabels(int(m->rows())),
                                attnlab::indexLabels(int(m->cols())), "row");
        const auto back = attnlab::readMatrixCsv(out.str());
        QVERIFY(back.ok());
        QVERIFY(sameBits(back->values, *m));
    }
}

void TestLabFile::jsonNumbersExact_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("value");
    QTest::newRow("negative zero") << "-0.0" << -0.0;
    QTest::newRow("integer negative zero") << "-0" << -0.0;
    QTest::newRow("0.1") << "0.1" << 0.1;
    QTest::newRow("2^53 + 1 rounds to even") << "9007199254740993" << 9007199254740992.0;
    QTest::newRow("smallest denormal") << "5e-324" << std::numeric_limits<double>::denorm_min();
    QTest::newRow("largest") << "1.7976931348623157e308" << std::numeric_limits<double>::max();
    QTest::newRow("exponent sign") << "-2.5E+3" << -2500.0;
}

void TestLabFile::jsonNumbersExact()
{
    QFETCH(QString, text);
    QFETCH(double, value);
    const auto parsed = attnlab::parseJson(("[" + text + ", " + text + "]").toStdString());
    QVERIFY(parsed.ok());
    QVERIFY(parsed->allNumbers());
    const double got = parsed->numbers()[1];
    QVERIFY(std::memcmp(&got, &value, sizeof got) == 0);
}

QTEST_APPLESS_MAIN(TestLabFile)
#include "tst_labfile.moc"
