// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab in ModelSession over the tiny reference checkpoint
// (tests/data/gpt2/tiny-gpt2): the scores the session shows are core's
// (attn::headScores of a pass run here) bit for bit and, for previous-token
// and first-token, a plain loop over the shown weights; a score no row
// defines is empty (nullopt, NaN in the table), not 0; the ablated
// next tokens are attn::compareNextTokens of the intact pass and a pass
// run here through attn::ablationHook, zero and mean; a newer ablation
// supersedes an older one; a head out of range is refused.

#include "head_scores.h"
#include "modelsession.h"
#include "modelsessionwait.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <vector>

using attnlab::ModelSession;

namespace {

QString tinyFolder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

bool open(ModelSession& session)
{
    QSignalSpy opened(&session, &ModelSession::modelOpened);
    session.openModel(tinyFolder());
    return opened.wait(10000);
}

using modeltest::ids;
using modeltest::settle;

attn::DecoderResult runHere(const ModelSession& session, attn::HeadOutputHook hook = {})
{
    attn::DecoderRunOptions options;
    options.topK = ModelSession::kNextTokens;
    options.headOutput = std::move(hook);
    attn::Expected<attn::DecoderResult> r = session.model()->decoder->run(ids(session), options);
    if (!r)
        qFatal("%s", r.error().message.c_str());
    return std::move(r.value());
}

const QString kRepeated = QStringLiteral("The cat sat on the mat. The cat sat on the mat.");

}  // namespace

class TestModelHeadLab : public QObject {
    Q_OBJECT
private slots:
    void scoresAreCores();
    void emptyScoresAreEmpty();
    void ablationIsCores_data();
    void ablationIsCores();
    void newerAblationWins();
    void headOutOfRangeIsRefused();
};

void TestModelHeadLab::scoresAreCores()
{
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kRepeated);
    QVERIFY(settle(session));
    const attn::DecoderResult here = runHere(session);
    const attn::Expected<attn::HeadScoreTable> core = attn::headScores(*session.model()->decoder, here);
    QVERIFY(core.ok());
    const attn::HeadScoreTable& shown = session.headScores();
    QCOMPARE(shown.layers, 2);
    QCOMPARE(shown.heads, 4);
    const int n = here.tokens();
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h)
            for (attn::HeadScoreKind kind : attn::kAllHeadScoreKinds) {
                const std::optional<double>& a = shown.at(l, h)[kind];
                const std::optional<double>& b = core->at(l, h)[kind];
                QVERIFY(a.has_value());  // the sentence repeats, so every score is defined
                QCOMPARE(*a, *b);        // bit for bit
                QCOMPARE(session.headScoreMatrix(kind)(l, h), *a);
            }
    // previous-token and first-token by a plain loop over the shown weights.
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            const attn::AttentionResult* head = session.head(l, h);
            double previous = 0.0, first = 0.0;
            for (int i = 1; i < n; ++i) {
                previous += head->weights(i, i - 1);
                first += head->weights(i, 0);
            }
            QVERIFY(std::abs(*shown.at(l, h).previousToken - previous / (n - 1)) <= 1e-12);
            QVERIFY(std::abs(*shown.at(l, h).firstToken - first / (n - 1)) <= 1e-12);
        }
    // The ranking is core's, largest first.
    const std::vector<attn::HeadIndex> ranked = session.rankedHeads(attn::HeadScoreKind::Induction);
    const std::vector<attn::HeadIndex> expected = attn::rankHeads(*core, attn::HeadScoreKind::Induction);
    QCOMPARE(ranked.size(), std::size_t(8));
    for (std::size_t i = 0; i < ranked.size(); ++i) {
        QCOMPARE(ranked[i].layer, expected[i].layer);
        QCOMPARE(ranked[i].head, expected[i].head);
    }
}

void TestModelHeadLab::emptyScoresAreEmpty()
{
    ModelSession session;
    QVERIFY(open(session));
    // No token repeats: duplicate-token and induction are defined by no row.
    session.setSentence(QStringLiteral("A quick brown fox"));
    QVERIFY(settle(session));
    const attn::HeadScoreTable& shown = session.headScores();
    QCOMPARE(int(shown.values.size()), 8);
    for (const attn::HeadTypeScores& s : shown.values) {
        QVERIFY(!s.duplicateToken.has_value());
        QVERIFY(!s.induction.has_value());
        QVERIFY(s.previousToken.has_value());
    }
    QVERIFY(std::isnan(session.headScoreMatrix(attn::HeadScoreKind::Induction)(1, 2)));
    QVERIFY(session.rankedHeads(attn::HeadScoreKind::DuplicateToken).empty());
    // One token: nothing is defined.
    session.setSentence(QStringLiteral("Hello"));
    QVERIFY(settle(session));
    QCOMPARE(session.result()->tokens(), 1);
    for (const attn::HeadTypeScores& s : session.headScores().values)
        for (attn::HeadScoreKind kind : attn::kAllHeadScoreKinds)
            QVERIFY(!s[kind].has_value());
}

void TestModelHeadLab::ablationIsCores_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("zero") << int(attn::HeadAblation::Zero);
    QTest::newRow("mean") << int(attn::HeadAblation::Mean);
}

void TestModelHeadLab::ablationIsCores()
{
    QFETCH(int, mode);
    const auto kind = attn::HeadAblation(mode);
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kRepeated);
    QVERIFY(settle(session));
    QVERIFY(session.nextTokenChanges().empty());  // nothing ablated: no second pass
    const std::vector<attn::HeadIndex> heads = {{1, 3}, {0, 2}};
    QVERIFY(session.setAblation(heads, kind).ok());
    QVERIFY(session.isComputing());
    QVERIFY(settle(session));
    QCOMPARE(int(session.resultAblatedHeads().size()), 2);
    QCOMPARE(session.resultAblatedHeads()[0].layer, 0);  // layer-major
    QVERIFY(session.isAblated(1, 3) && session.isAblated(0, 2) && !session.isAblated(0, 0));

    const attn::DecoderResult intact = runHere(session);
    const attn::DecoderResult ablated = runHere(session, attn::ablationHook(heads, kind));
    QVERIFY(session.result()->lastLogits == intact.lastLogits);  // the intact pass is untouched
    const std::vector<attn::NextTokenChange> expected =
        attn::compareNextTokens(intact.lastLogits, ablated.lastLogits, ModelSession::kNextTokens, 1.0);
    const std::vector<attn::NextTokenChange>& shown = session.nextTokenChanges();
    QCOMPARE(shown.size(), expected.size());
    QVERIFY(shown.size() >= std::size_t(ModelSession::kNextTokens));
    bool changed = false;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        QCOMPARE(shown[i].id, expected[i].id);
        QCOMPARE(shown[i].intactProbability, expected[i].intactProbability);
        QCOMPARE(shown[i].ablatedProbability, expected[i].ablatedProbability);
        QCOMPARE(shown[i].ablatedLogit, expected[i].ablatedLogit);
        changed = changed || shown[i].change() != 0.0;
    }
    QVERIFY(changed);  // the heads matter to the prediction
    // At another temperature, at once and without a pass.
    QVERIFY(session.setTemperature(2.0).ok());
    QVERIFY(!session.isComputing());
    const std::vector<attn::NextTokenChange> hot =
        attn::compareNextTokens(intact.lastLogits, ablated.lastLogits, ModelSession::kNextTokens, 2.0);
    QCOMPARE(session.nextTokenChanges().front().ablatedProbability, hot.front().ablatedProbability);
    // No head: back to the intact model alone.
    QVERIFY(session.setAblation({}, kind).ok());
    QVERIFY(settle(session));
    QVERIFY(session.nextTokenChanges().empty());
    QVERIFY(session.resultAblatedHeads().empty());
}

void TestModelHeadLab::newerAblationWins()
{
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kRepeated);
    QVERIFY(settle(session));
    QSignalSpy changed(&session, &ModelSession::resultChanged);
    QVERIFY(session.toggleAblated(0, 0).ok());
    QVERIFY(session.toggleAblated(1, 1).ok());
    QVERIFY(session.toggleAblated(0, 0).ok());  // off again: only L2 H2 stays
    QVERIFY(settle(session));
    QVERIFY(QTest::qWaitFor([&] { return session.resultAblatedHeads().size() == 1; }, 10000));
    QCOMPARE(session.resultAblatedHeads()[0].layer, 1);
    QCOMPARE(session.resultAblatedHeads()[0].head, 1);
    const attn::DecoderResult ablated =
        runHere(session, attn::ablationHook({{1, 1}}, attn::HeadAblation::Zero));
    QVERIFY(session.ablatedLogits() == ablated.lastLogits);
    QVERIFY(changed.count() >= 1);
}

void TestModelHeadLab::headOutOfRangeIsRefused()
{
    ModelSession session;
    QVERIFY(!session.setAblation({{0, 0}}, attn::HeadAblation::Zero).ok());  // no model
    QVERIFY(open(session));
    session.setSentence(kRepeated);
    QVERIFY(settle(session));
    const attn::Status bad = session.setAblation({{0, 0}, {2, 0}}, attn::HeadAblation::Zero);
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.error().message).contains(QStringLiteral("layer 3 head 1")));
    QVERIFY(session.ablatedHeads().empty());
    QVERIFY(!session.isComputing());
}

QTEST_GUILESS_MAIN(TestModelHeadLab)
#include "tst_modelheadlab.moc"
