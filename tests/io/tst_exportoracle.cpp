// SPDX-License-Identifier: GPL-3.0-or-later
// The single head is h = 1 of one writer and one reader per format:
//  - the export (attention.json, CSV, .npy) of a single-head run is, byte
//    for byte, what the single-head writer wrote before (legacyexport.cpp,
//    the writers as they were, run on the same numbers), and so is a
//    multi-head run's (--heads, one head too) and a result's own files;
//  - the lab file of a single head is the same bytes whether it comes from
//    the single head or from a multi-head run of one head without a
//    projection;
//  - a version 1 file, a version 2 single-head file and a version 2 file
//    spelling its one head out in "heads" read into the same lab, bit for
//    bit.

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "labfile.h"
#include "legacyexport.h"
#include "multihead_init.h"
#include "tokenizer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cstring>
#include <limits>
#include <map>
#include <sstream>

namespace {

using attnlab::AttentionSnapshot;

template <typename A, typename B>
bool sameBits(const A& a, const B& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && (a.size() == 0 || std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0);
}

// Each file's name and bytes, in the order given.
std::vector<std::pair<std::string, std::string>> contents(const std::vector<attnlab::OutputFile>& files)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const attnlab::OutputFile& f : files) {
        std::ostringstream bytes;
        f.write(bytes);
        out.emplace_back(f.name, bytes.str());
    }
    return out;
}

void compareFiles(const std::vector<attnlab::OutputFile>& now, const std::vector<attnlab::OutputFile>& before)
{
    const auto a = contents(now), b = contents(before);
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(a[i].first, b[i].first);
        QVERIFY2(a[i].second == b[i].second, a[i].first.c_str());
    }
}

// The single head as it was computed and held before: buildModel and the
// engine's pass with statistics, straight from core.
legacy::SingleSnapshot legacySingle(const attn::ModelConfig& config, const attn::AttentionOptions& options)
{
    legacy::SingleSnapshot s;
    s.config = config;
    s.options = options;
    s.model = attn::buildModel(config).value();
    if (!attn::computeAttentionWithStatistics(s.model.X, s.model.Wq, s.model.Wk, s.model.Wv, options,
                                              &s.result, &s.stats))
        qFatal("the engine refused the case");
    return s;
}

// A multi-head run as the multi-head snapshot held it: head 1 the focus.
legacy::MultiSnapshot legacyMulti(const AttentionSnapshot& s)
{
    legacy::MultiSnapshot m;
    m.focus.config = s.config;
    m.focus.options = s.options;
    m.focus.model.tokenization = s.tokens;
    m.focus.model.X = s.X;
    m.focus.model.Wq = s.weights.front().Wq;
    m.focus.model.Wk = s.weights.front().Wk;
    m.focus.model.Wv = s.weights.front().Wv;
    m.focus.result = s.result.heads.front();
    m.focus.stats = s.result.stats.front();
    m.layout = s.result.layout;
    m.headInit = s.headInit;
    m.weights = s.weights;
    m.Wo = s.Wo;
    m.split = s.split;
    m.result = s.result;
    return m;
}

std::string newJson(const AttentionSnapshot& s)
{
    std::ostringstream out;
    attnlab::writeAttentionJson(out, s);
    return out.str();
}

std::string labText(const attnlab::LabState& state)
{
    std::ostringstream out;
    attnlab::writeLabJson(out, state);
    return out.str();
}

const attnlab::ExportFormats kNumbers{true, true, true, false, false, false};

attn::ModelConfig smallConfig()
{
    attn::ModelConfig config;
    config.sentence = "the cat, the \"hat\"";
    config.tokenizer = attn::TokenizerMode::Punctuation;
    config.seed = 7;
    config.dModel = 5;
    config.dK = 3;
    config.dV = 4;
    config.init = attn::InitMode::StandardNormal;
    return config;
}

}  // namespace

class TestExportOracle : public QObject {
    Q_OBJECT
private slots:
    void singleHeadExportIsTodays_data();
    void singleHeadExportIsTodays();
    void multiHeadExportIsTodays_data();
    void multiHeadExportIsTodays();
    void resultFilesAreTodays();
    void oneHeadRunSavesTheSingleHeadLab();
    void everyVersionReadsTheSameLab();
};

void TestExportOracle::singleHeadExportIsTodays_data()
{
    QTest::addColumn<int>("which");
    QTest::newRow("article") << 0;
    QTest::newRow("causal, custom divisor") << 1;
    QTest::newRow("no scaling, 64-bit seed") << 2;
}

// h = 1: attention.json's keys and bytes, and every CSV and .npy file, as
// the single-head writer wrote them, on numbers computed apart.
void TestExportOracle::singleHeadExportIsTodays()
{
    QFETCH(int, which);
    attn::ModelConfig config;
    attn::AttentionOptions options;
    if (which == 1) {
        config = smallConfig();
        options.scale = attn::ScaleMode::Custom;
        options.customDivisor = 2.5;
        options.causal = true;
    } else if (which == 2) {
        config.sentence = "one two three four";
        config.seed = ~std::uint64_t(0) - 5;
        config.init = attn::InitMode::UnitVariance;
        options.scale = attn::ScaleMode::None;
    }
    const attn::Expected<AttentionSnapshot> now = attnlab::computeSnapshot(config, options);
    QVERIFY(now.ok());
    QCOMPARE(now->headCount(), 1);
    QVERIFY(!now->multiHeadRun);
    const legacy::SingleSnapshot before = legacySingle(config, options);
    std::ostringstream json;
    legacy::writeAttentionJson(json, before);
    QVERIFY(json.str().size() > 1000);
    QCOMPARE(newJson(now.value()), json.str());
    compareFiles(attnlab::attentionExportFiles(now.value(), kNumbers),
                 legacy::attentionExportFiles(before, kNumbers));
    // The keys a reader of today's files finds, in today's order.
    const QJsonObject read = QJsonDocument::fromJson(QByteArray::fromStdString(json.str())).object();
    QCOMPARE(read["num_heads"].toInt(), 1);
    QVERIFY(!read.contains("head_init"));
    QCOMPARE(read["heads"].toArray().size(), 1);
    QCOMPARE(read["concat"], read["context"]);
    QCOMPARE(read["weights_average"], read["weights"]);
}

void TestExportOracle::multiHeadExportIsTodays_data()
{
    QTest::addColumn<int>("heads");
    QTest::addColumn<bool>("split");
    QTest::addColumn<bool>("projection");
    QTest::newRow("--heads 1") << 1 << false << false;
    QTest::newRow("3 heads") << 3 << false << false;
    QTest::newRow("3 heads, W_o") << 3 << false << true;
    QTest::newRow("split, 2 heads, torch-mha") << 2 << true << true;
}

// A multi-head run's export, one head too, as the multi-head writer wrote it.
void TestExportOracle::multiHeadExportIsTodays()
{
    QFETCH(int, heads);
    QFETCH(bool, split);
    QFETCH(bool, projection);
    attn::ModelConfig config = smallConfig();
    attn::AttentionOptions options;
    options.causal = split;
    attn::Tokenization tokens = attn::tokenizeFor(config).value();
    attn::Matrix X = attn::drawEmbeddings(config, tokens);
    attn::Expected<AttentionSnapshot> now = attn::Error{""};
    if (split) {
        config.dModel = 4;
        X = attn::drawEmbeddings(config, tokens);
        now = attnlab::computeMultiHeadSnapshot(config, options, tokens, X,
                                                attn::drawTorchMha(3, 4, heads, true), "torch-mha");
    } else {
        attn::IndependentHeads params;
        params.heads = attn::drawIndependentHeads(config, heads);
        if (projection)
            params.Wo = attn::drawOutputProjection(config, heads);
        now = attnlab::computeMultiHeadSnapshot(config, options, tokens, X, std::move(params), "normal");
    }
    QVERIFY2(now.ok(), now.ok() ? "" : now.error().message.c_str());
    QVERIFY(now->multiHeadRun);
    QCOMPARE(now->headCount(), heads);
    const legacy::MultiSnapshot before = legacyMulti(now.value());
    std::ostringstream json;
    legacy::writeMultiHeadJson(json, before);
    QCOMPARE(newJson(now.value()), json.str());
    compareFiles(attnlab::attentionExportFiles(now.value(), kNumbers),
                 legacy::multiHeadExportFiles(before, kNumbers));
    const QJsonObject read = QJsonDocument::fromJson(QByteArray::fromStdString(json.str())).object();
    QCOMPARE(read["num_heads"].toInt(), heads);
    QVERIFY(read.contains("head_init"));
}

// The window's files of a result alone (no parameters).
void TestExportOracle::resultFilesAreTodays()
{
    const attn::ModelConfig config = smallConfig();
    attn::IndependentHeads params;
    params.heads = attn::drawIndependentHeads(config, 2);
    params.Wo = attn::drawOutputProjection(config, 2);
    attn::Tokenization tokens = attn::tokenizeFor(config).value();
    const attn::Matrix X = attn::drawEmbeddings(config, tokens);
    const auto run = attnlab::computeMultiHeadSnapshot(config, {}, tokens, X, std::move(params), "normal");
    QVERIFY(run.ok());
    compareFiles(attnlab::multiHeadResultFiles(run->result, tokens.tokens, kNumbers),
                 legacy::multiHeadResultFiles(run->result, tokens.tokens, kNumbers));
    QCOMPARE(attnlab::multiHeadMatrixCsv(run->result.concat, tokens.tokens, false),
             legacy::multiHeadMatrixCsv(run->result.concat, tokens.tokens, false));
}

// One head without a projection, run as --heads 1, is the single-head lab:
// the same file, byte for byte.
void TestExportOracle::oneHeadRunSavesTheSingleHeadLab()
{
    const attn::ModelConfig config = smallConfig();
    const auto single = attnlab::computeSnapshot(config, {});
    QVERIFY(single.ok());
    attn::IndependentHeads one;
    one.heads.push_back(single->headWeights());
    const auto run = attnlab::computeMultiHeadSnapshot(config, {}, single->tokens, single->X, one, "normal");
    QVERIFY(run.ok());
    const QJsonObject view{{"focus_query", 1}};
    const attnlab::LabState a = attnlab::labStateFromSnapshot(single.value(), view);
    const attnlab::LabState b = attnlab::labStateFromSnapshot(run.value(), view);
    QVERIFY(!a.heads.multiHead() && !b.heads.multiHead());
    const std::string text = labText(a);
    QCOMPARE(labText(b), text);
    // Today's version 2 file of a single head: no "heads".
    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
    QCOMPARE(json["version"].toInt(), 2);
    QVERIFY(!json.contains("heads"));
    QCOMPARE(json.keys().size(), 18);
    // And the single head's export is the same numbers through either pass.
    const auto again = attnlab::computeLabSnapshot(b);
    QVERIFY(again.ok());
    QVERIFY(sameBits(again->head().weightsMatrix(), run->head().weightsMatrix()));
    QVERIFY(sameBits(again->head().context, run->head().context));
    QVERIFY(sameBits(run->result.weightsAverage, run->head().weightsMatrix()));
    QVERIFY(sameBits(run->result.concat, run->head().context));
}

// Version 1, version 2 of a single head and version 2 spelling its one head
// out in "heads": one lab, bit for bit.
void TestExportOracle::everyVersionReadsTheSameLab()
{
    const auto single = attnlab::computeSnapshot(smallConfig(), {});
    QVERIFY(single.ok());
    attnlab::LabState state = attnlab::labStateFromSnapshot(single.value(), QJsonObject{{"focus_query", 3}});
    state.X(1, 2) = -0.0;
    state.X(2, 3) = std::numeric_limits<double>::denorm_min();
    state.Wk(0, 1) = 0.1 + 0.2;
    const std::string version2 = labText(state);
    // Version 1: the same keys with "version": 1.
    std::string version1 = version2;
    const std::size_t at = version1.find("\"version\": 2");
    QVERIFY(at != std::string::npos);
    version1.replace(at, 12, "\"version\": 1");
    // Version 2 with "heads": one independent head, no projection, its
    // projections a copy of the top-level ones (Qt writes doubles in their
    // shortest round-trip form), before "view".
    const QJsonObject json = QJsonDocument::fromJson(QByteArray::fromStdString(version2)).object();
    QJsonObject heads{{"count", 1},
                      {"layout", "independent"},
                      {"output_projection", false},
                      {"torch_init", false},
                      {"selected", 1}};
    heads["head_weights"] =
        QJsonArray{QJsonObject{{"W_q", json["W_q"]}, {"W_k", json["W_k"]}, {"W_v", json["W_v"]}}};
    std::string spelled = version2;
    const std::size_t view = spelled.find("\"view\"");
    QVERIFY(view != std::string::npos);
    spelled.insert(
        view, "\"heads\": " + QJsonDocument(heads).toJson(QJsonDocument::Compact).toStdString() + ",\n  ");

    const attn::Expected<attnlab::LabState> labs[] = {
        attnlab::parseLab(version1), attnlab::parseLab(version2), attnlab::parseLab(spelled)};
    for (const auto& lab : labs) {
        QVERIFY2(lab.ok(), lab.ok() ? "" : lab.error().message.c_str());
        QVERIFY2(lab->warnings.empty(), lab->warnings.empty() ? "" : lab->warnings.front().c_str());
        QVERIFY(!lab->heads.multiHead());
        QVERIFY(lab->heads == attn::HeadsConfig());
        QCOMPARE(lab->multiHead.headCount(), 0);
        QCOMPARE(lab->selectedHead, 0);
        QCOMPARE(lab->config.sentence, state.config.sentence);
        QCOMPARE(lab->config.seed, state.config.seed);
        QCOMPARE(lab->config.dK, state.config.dK);
        QCOMPARE(int(lab->config.init), int(state.config.init));
        QCOMPARE(int(lab->config.tokenizer), int(state.config.tokenizer));
        QCOMPARE(int(lab->options.scale), int(state.options.scale));
        QCOMPARE(lab->options.causal, state.options.causal);
        QVERIFY(sameBits(lab->X, state.X) && sameBits(lab->Wq, state.Wq));
        QVERIFY(sameBits(lab->Wk, state.Wk) && sameBits(lab->Wv, state.Wv));
        QCOMPARE(lab->view, state.view);
        // Written again: today's version 2 file, byte for byte.
        QCOMPARE(labText(lab.value()), version2);
    }
    QVERIFY(std::signbit(labs[2]->X(1, 2)));
}

QTEST_GUILESS_MAIN(TestExportOracle)
#include "tst_exportoracle.moc"
