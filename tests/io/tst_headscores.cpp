// SPDX-License-Identifier: GPL-3.0-or-later
// The head-type scores of both reference checkpoints read through
// readModelFolder (tests/data/gpt2/*), for every sentence of their
// reference.json, against the definitions written as plain loops
// (tests/common/plainheadscores.h) over the reference's own float64 NumPy
// weights, within 1e-12; and head_scores.json as written
// (headlabexport.h), parsed back: every score the core's, null where
// undefined, the ranking, the probe's and the ablation's keys.

#include "gpt2cases.h"
#include "head_scores.h"
#include "headlabexport.h"
#include "modelattentionexport.h"
#include "modelfamilies.h"
#include "plainheadscores.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <sstream>
#include <vector>

namespace {

using namespace plainheadscores;

// The engine's weights against NumPy's: within about 1e-16 (tst_gpt2reference).
constexpr double kReferenceTolerance = 1e-12;

QString folderOf(const QString& checkpoint)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/") + checkpoint;
}

std::vector<int> idsOf(const QJsonObject& c)
{
    std::vector<int> ids;
    for (const QJsonValue& id : c["token_ids"].toArray())
        ids.push_back(id.toInt());
    return ids;
}

// The reference case's pass through the folder's model.
struct Pass {
    attnlab::ModelFolder model;
    attn::DecoderResult result;
};

Pass passOf(const QString& checkpoint, const std::vector<int>& ids,
            const attn::DecoderRunOptions& options = {})
{
    attn::Expected<attnlab::ModelFolder> model = attnlab::readModelFolder(folderOf(checkpoint));
    if (!model)
        qFatal("readModelFolder: %s", model.error().message.c_str());
    attn::Expected<attn::DecoderResult> result = model->decoder->run(ids, options);
    if (!result)
        qFatal("run: %s", result.error().message.c_str());
    return {std::move(model).value(), std::move(result).value()};
}

QJsonObject written(const Pass& pass, const attn::HeadScoreTable& table, const attnlab::ModelHeadLab& lab)
{
    std::ostringstream out;
    attnlab::writeHeadScoresJson(out, pass.model, pass.result, "sqrt-dk", table, lab);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("head_scores.json: %s", qPrintable(error.errorString()));
    return doc.object();
}

// The file's score: null, or the core's double exactly (shortest round trip).
bool sameScore(const QJsonValue& value, const Scores& score)
{
    if (!score)
        return value.isNull();
    return value.isDouble() && value.toDouble() == *score;
}

}  // namespace

class TestHeadScoresExport : public QObject {
    Q_OBJECT

private slots:
    void againstReference_data();
    void againstReference();
    void fileHoldsTheCoreNumbers();
    void headLabKeys();
};

void TestHeadScoresExport::againstReference_data()
{
    gpt2cases::addReferenceRows();
}

void TestHeadScoresExport::againstReference()
{
    QFETCH(QString, checkpoint);
    QFETCH(int, index);
    const QJsonObject ref = gpt2cases::reference(checkpoint);
    const QJsonObject c = ref["cases"].toArray()[index].toObject();
    const std::vector<int> ids = idsOf(c);
    const Pass pass = passOf(checkpoint, ids);
    const auto table = attn::headScores(*pass.model.decoder, pass.result);
    QVERIFY(table.ok());
    const attn::HeadScoreKeys keys = attn::headScoreKeys(ids);
    const QJsonArray layers = c["layers"].toArray();
    QCOMPARE(table->layers, int(layers.size()));
    for (int l = 0; l < table->layers; ++l) {
        const QJsonArray heads = layers[l].toObject()["heads"].toArray();
        QCOMPARE(table->heads, int(heads.size()));
        for (int h = 0; h < table->heads; ++h) {
            const attn::Matrix a = testdata::toMatrix(heads[h].toObject()["weights"]);
            const QString where = QStringLiteral("layer %1 head %2").arg(l).arg(h);
            // The pass's scores against the loops over NumPy's weights.
            compareWithPlain(table->at(l, h), a, ids, kReferenceTolerance, where);
            // The core's scores of NumPy's weights: the same sums, in the same order.
            compareWithPlain(attn::headTypeScores(a, keys), a, ids, 0.0, where + QStringLiteral(" (matrix)"));
            if (QTest::currentTestFailed())
                return;
        }
    }
}

void TestHeadScoresExport::fileHoldsTheCoreNumbers()
{
    // "I'm sure it's 2026, isn't it?": " it" twice, so every score but
    // none is defined; "Life is short, eat dessert first" has no repeat.
    for (const int index : {2, 1}) {
        const QJsonObject c =
            gpt2cases::reference(QStringLiteral("tiny-gpt2"))["cases"].toArray()[index].toObject();
        const std::vector<int> ids = idsOf(c);
        const Pass pass = passOf(QStringLiteral("tiny-gpt2"), ids);
        const attn::HeadScoreTable table = attn::headScores(*pass.model.decoder, pass.result).value();
        const QJsonObject json = written(pass, table, {});

        QCOMPARE(json["model"].toObject()["model_type"].toString(), QStringLiteral("gpt2"));
        QCOMPARE(json["token_ids"].toArray(), c["token_ids"].toArray());
        QCOMPARE(json["scale"].toObject()["mode"].toString(), QStringLiteral("sqrt-dk"));
        QVERIFY(!json.contains("probe"));
        QVERIFY(!json.contains("ablated"));
        const QJsonArray layers = json["layers"].toArray();
        QCOMPARE(int(layers.size()), 2);
        int nulls = 0;
        for (int l = 0; l < 2; ++l) {
            const QJsonArray heads = layers[l].toObject()["heads"].toArray();
            QCOMPARE(int(heads.size()), 4);
            for (int h = 0; h < 4; ++h) {
                const QJsonObject head = heads[h].toObject();
                QCOMPARE(head.keys(),
                         (QStringList{"duplicate_token", "first_token", "induction", "previous_token"}));
                for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
                    const QJsonValue value = head[QLatin1String(attn::headScoreName(kind))];
                    QVERIFY2(
                        sameScore(value, table.at(l, h)[kind]),
                        qPrintable(QStringLiteral("%1.%2 %3").arg(l).arg(h).arg(attn::headScoreName(kind))));
                    nulls += value.isNull();
                }
            }
        }
        // No repeated token: duplicate_token and induction are null in all 8 heads.
        QCOMPARE(nulls, index == 1 ? 16 : 0);

        const QJsonObject ranking = json["ranking"].toObject();
        for (const attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
            const QJsonArray ranked = ranking[QLatin1String(attn::headScoreName(kind))].toArray();
            const std::vector<attn::HeadIndex> expected = attn::rankHeads(table, kind);
            QCOMPARE(int(ranked.size()), int(expected.size()));
            double previous = INFINITY;
            for (int i = 0; i < ranked.size(); ++i) {
                const QJsonArray at = ranked[i].toArray();
                QCOMPARE(at[0].toInt(), expected[std::size_t(i)].layer);
                QCOMPARE(at[1].toInt(), expected[std::size_t(i)].head);
                const double score = *table.at(at[0].toInt(), at[1].toInt())[kind];
                QVERIFY(score <= previous);
                previous = score;
            }
        }
    }
}

void TestHeadScoresExport::headLabKeys()
{
    const std::vector<int> ids = attn::repeatedSpanIds(4, 7, attn::repeatProbeIdRange(50257)).value();
    const Pass pass = passOf(QStringLiteral("tiny-gpt2"), ids);
    const attn::HeadScoreTable table = attn::headScores(*pass.model.decoder, pass.result).value();
    attnlab::ModelHeadLab lab;
    lab.ablated = {{1, 2}, {0, 3}};
    lab.ablation = attn::HeadAblation::Mean;
    lab.intactTop = pass.result.top;
    lab.probe = attnlab::RepeatProbeRun{4, 7, attn::repeatProbeIdRange(50257), {10.25, 0.5}};
    const QJsonObject json = written(pass, table, lab);
    QCOMPARE(json["ablated"].toArray(), (QJsonArray{QJsonArray{1, 2}, QJsonArray{0, 3}}));
    QCOMPARE(json["ablation"].toString(), QStringLiteral("mean"));
    QVERIFY(!json.contains("next_token_intact"));  // model_attention.json's
    const QJsonObject probe = json["probe"].toObject();
    QCOMPARE(probe["kind"].toString(), QStringLiteral("repeat"));
    QCOMPARE(probe["span"].toInt(), 4);
    QCOMPARE(probe["seed"].toInt(), 7);
    QCOMPARE(probe["id_low"].toInt(), 1000);
    QCOMPARE(probe["id_high"].toInt(), 20000);
    QCOMPARE(probe["loss_first"].toDouble(), 10.25);
    QCOMPARE(probe["loss_second"].toDouble(), 0.5);

    // model_attention.json carries the same keys and the intact next tokens.
    std::ostringstream out;
    attnlab::writeModelAttentionJson(out, pass.model, pass.result, "sqrt-dk", nullptr, &lab);
    const QJsonObject model = QJsonDocument::fromJson(QByteArray::fromStdString(out.str())).object();
    QCOMPARE(model["ablated"], json["ablated"]);
    QCOMPARE(model["probe"], json["probe"]);
    const QJsonArray intact = model["next_token_intact"].toArray();
    QCOMPARE(int(intact.size()), int(pass.result.top.size()));
    QCOMPARE(intact[0].toObject()["id"].toInt(), pass.result.top[0].id);
    QCOMPARE(intact[0].toObject()["probability"].toDouble(), pass.result.top[0].probability);
    // Without a lab, none of them.
    std::ostringstream plain;
    attnlab::writeModelAttentionJson(plain, pass.model, pass.result, "sqrt-dk");
    const QJsonObject none = QJsonDocument::fromJson(QByteArray::fromStdString(plain.str())).object();
    for (const char* key : {"ablated", "ablation", "next_token_intact", "probe"})
        QVERIFY(!none.contains(QLatin1String(key)));
}

QTEST_GUILESS_MAIN(TestHeadScoresExport)
#include "tst_headscores.moc"
