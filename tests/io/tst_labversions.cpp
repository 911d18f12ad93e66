// SPDX-License-Identifier: GPL-3.0-or-later
// The single head is h = 1 of one writer and one reader per format. (When
// the export writers became one, their bytes were compared with the old
// writers' for three single-head labs, --heads 1, three heads with and
// without W_o, the split layout and a result's own files: all equal.)
//  - the lab file of a single head is the same bytes whether it comes from
//    the single head or from a multi-head run of one head without a
//    projection;
//  - a version 1 file, a version 2 single-head file and a version 2 file
//    spelling its one head out in "heads" read into the same lab, bit for
//    bit.

#include "attentionexport.h"
#include "attentionsnapshot.h"
#include "labfile.h"
#include "multihead_init.h"
#include "tokenizer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cstring>
#include <limits>
#include <sstream>

namespace {

using attnlab::AttentionSnapshot;

template <typename A, typename B>
bool sameBits(const A& a, const B& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && (a.size() == 0 || std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0);
}

std::string labText(const attnlab::LabState& state)
{
    std::ostringstream out;
    attnlab::writeLabJson(out, state);
    return out.str();
}

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

class TestLabVersions : public QObject {
    Q_OBJECT
private slots:
    void oneHeadRunSavesTheSingleHeadLab();
    void everyVersionReadsTheSameLab();
};

// One head without a projection, run as --heads 1, is the single-head lab:
// the same file, byte for byte.
void TestLabVersions::oneHeadRunSavesTheSingleHeadLab()
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
void TestLabVersions::everyVersionReadsTheSameLab()
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

QTEST_GUILESS_MAIN(TestLabVersions)
#include "tst_labversions.moc"
