// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab's A/B difference maps (ModelComparison) over the tiny
// reference checkpoint tests/data/gpt2/tiny-gpt2 (2 layers of 4 heads),
// each against both passes run again here with DecoderModel::run and
// subtracted entry by entry in a plain loop:
// - intact vs ablated: with no head ablated B - A is 0 everywhere (and its
//   colour limit 1); with layer 0's head 1 ablated, layer 1's heads and the
//   rollout are the ablated pass's minus the intact pass's, and layer 0's
//   heads (before the ablation acts) are 0;
// - scaled vs unscaled: divisor 1 minus sqrt(head_dim) in every head, the
//   same whatever divisor the session's what-if has;
// - another sentence of the same token count: its pass minus this one's,
//   labels "a/b" where the tokens differ; another count is a one-line
//   problem and no map;
// - nothing is computed while not wanted.

#include "lens_rollout.h"
#include "modelcomparison.h"
#include "modelsession.h"

#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <vector>

using attnlab::ComparedMap;
using attnlab::ComparisonKind;
using attnlab::ModelComparison;
using attnlab::ModelSession;

namespace {

const QString kSentence = QStringLiteral("The cat sat on the mat because");

bool open(ModelSession& session)
{
    QSignalSpy opened(&session, &ModelSession::modelOpened);
    session.openModel(QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2"));
    return opened.wait(10000);
}

bool settle(ModelSession& session)
{
    return QTest::qWaitFor([&] { return !session.isComputing(); }, 10000) && session.result();
}

// The comparison's outcome for what it was asked last: a map or a problem.
bool settle(ModelComparison& comparison)
{
    return QTest::qWaitFor([&] { return !comparison.isComputing(); }, 20000)
           && (comparison.difference().size() > 0 || !comparison.problem().isEmpty());
}

std::vector<int> idsOf(const ModelSession& session, const QString& text)
{
    return session.model()->tokenizer->encodeIds(text);
}

attn::DecoderResult runHere(const ModelSession& session, const std::vector<int>& ids,
                            const attn::HeadDivisors& divisors, attn::HeadOutputHook hook = {})
{
    attn::DecoderRunOptions options;
    options.divisors = divisors;
    options.headOutput = std::move(hook);
    attn::Expected<attn::DecoderResult> r = session.model()->decoder->run(ids, options);
    if (!r)
        qFatal("%s", r.error().message.c_str());
    return std::move(r.value());
}

// B - A of head (layer, head)'s weights, entry by entry.
attn::Matrix headDifference(const attn::DecoderResult& a, const attn::DecoderResult& b, int layer, int head)
{
    const attn::AttentionResult& x = a.layers[std::size_t(layer)].heads[std::size_t(head)];
    const attn::AttentionResult& y = b.layers[std::size_t(layer)].heads[std::size_t(head)];
    const int n = x.tokens();
    attn::Matrix d(n, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            d(i, j) = y.weights(i, j) - x.weights(i, j);
    return d;
}

attn::Matrix rolloutDifference(const attn::DecoderModel& model, const attn::DecoderResult& a,
                               const attn::DecoderResult& b)
{
    const attn::Matrix ra = attn::attentionRollout(model, a).value();
    const attn::Matrix rb = attn::attentionRollout(model, b).value();
    attn::Matrix d(ra.rows(), ra.cols());
    for (Eigen::Index i = 0; i < ra.rows(); ++i)
        for (Eigen::Index j = 0; j < ra.cols(); ++j)
            d(i, j) = rb(i, j) - ra(i, j);
    return d;
}

// Exactly equal, entry by entry (the same passes, the same subtraction).
bool same(const attn::Matrix& got, const attn::Matrix& want)
{
    if (got.rows() != want.rows() || got.cols() != want.cols())
        return false;
    for (Eigen::Index i = 0; i < got.rows(); ++i)
        for (Eigen::Index j = 0; j < got.cols(); ++j)
            if (got(i, j) != want(i, j))
                return false;
    return true;
}

}  // namespace

class TestModelComparison : public QObject {
    Q_OBJECT
private slots:
    void intactVsAblated();
    void scaledVsUnscaled();
    void otherSentence();
    void notWantedNotComputed();
};

void TestModelComparison::intactVsAblated()
{
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    ModelComparison comparison(&session);
    session.selectHead(1, 2);
    comparison.setWanted(true);
    QVERIFY(settle(comparison));
    const int n = int(session.resultTokens().size());
    // Nothing ablated: B is A.
    QCOMPARE(int(comparison.difference().rows()), n);
    QVERIFY(same(comparison.difference(), attn::Matrix::Zero(n, n)));
    QCOMPARE(comparison.largestChange(), 0.0);
    QCOMPARE(comparison.colorLimit(), 1.0);
    QVERIFY(comparison.caption().contains(QStringLiteral("no head is ablated")));
    comparison.setMap(ComparedMap::Rollout);
    QVERIFY(settle(comparison));
    QVERIFY(same(comparison.difference(), attn::Matrix::Zero(n, n)));

    QVERIFY(session.setAblation({{0, 1}}, attn::HeadAblation::Zero));
    QVERIFY(settle(session));
    QVERIFY(settle(comparison));
    const std::vector<int> ids = idsOf(session, kSentence);
    const attn::HeadDivisors standard = session.model()->decoder->standardDivisors();
    const attn::DecoderResult intact = runHere(session, ids, standard);
    const attn::DecoderResult ablated =
        runHere(session, ids, standard, attn::ablationHook({{0, 1}}, attn::HeadAblation::Zero));
    const attn::Matrix rollout = rolloutDifference(*session.model()->decoder, intact, ablated);
    QVERIFY(same(comparison.difference(), rollout));
    QVERIFY(comparison.largestChange() > 1e-6);
    QCOMPARE(comparison.largestChange(), rollout.cwiseAbs().maxCoeff());
    QCOMPARE(comparison.colorLimit(), comparison.largestChange());
    comparison.setMap(ComparedMap::SelectedHead);
    QVERIFY(settle(comparison));
    const attn::Matrix head = headDifference(intact, ablated, 1, 2);
    QVERIFY(same(comparison.difference(), head));
    QVERIFY(head.cwiseAbs().maxCoeff() > 1e-6);
    QVERIFY(comparison.caption().contains(QStringLiteral("without L1 H2 (zero)")));
    // A and B are the two maps themselves.
    QVERIFY(same(comparison.mapA(), intact.layers[1].heads[2].weightsMatrix()));
    QVERIFY(same(comparison.mapB(), ablated.layers[1].heads[2].weightsMatrix()));
    // Layer 0's heads come before the ablated head's output: 0.
    session.selectHead(0, 3);
    QVERIFY(settle(comparison));
    QVERIFY(same(comparison.difference(), attn::Matrix::Zero(n, n)));
    QVERIFY(comparison.caption().contains(QStringLiteral("comes before")));
}

void TestModelComparison::scaledVsUnscaled()
{
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    ModelComparison comparison(&session);
    comparison.setKind(ComparisonKind::ScaledVsUnscaled);
    session.selectHead(1, 3);
    comparison.setWanted(true);
    QVERIFY(settle(comparison));
    const std::vector<int> ids = idsOf(session, kSentence);
    const attn::HeadDivisors standard = session.model()->decoder->standardDivisors();
    attn::HeadDivisors one = standard;
    QVERIFY(one.set(attn::ScaleMode::None, 0.0, session.config().headDim));
    const attn::DecoderResult scaled = runHere(session, ids, standard);
    const attn::DecoderResult unscaled = runHere(session, ids, one);
    const attn::Matrix want = headDifference(scaled, unscaled, 1, 3);
    QVERIFY(want.cwiseAbs().maxCoeff() > 1e-6);
    QVERIFY(same(comparison.difference(), want));
    QVERIFY(comparison.caption().contains(QStringLiteral("unscaled (÷ 1) − scaled")));
    // Another head: the same two passes, kept.
    session.selectHead(0, 0);
    QVERIFY(settle(comparison));
    QVERIFY(same(comparison.difference(), headDifference(scaled, unscaled, 0, 0)));
    // The session's own what-if (÷ 1 on layer 1) does not move A or B.
    session.selectHead(1, 0);
    QVERIFY(session.setScale(attn::ScaleMode::None, 0.0, attnlab::ScaleScope::ThisLayer));
    QVERIFY(settle(session));
    QVERIFY(settle(comparison));
    QVERIFY(same(comparison.difference(), headDifference(scaled, unscaled, 1, 0)));
    comparison.setMap(ComparedMap::Rollout);
    QVERIFY(settle(comparison));
    QVERIFY(same(comparison.difference(), rolloutDifference(*session.model()->decoder, scaled, unscaled)));
}

void TestModelComparison::otherSentence()
{
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    const QString other = QStringLiteral("The dog sat on the rug because");
    const std::vector<int> idsA = idsOf(session, kSentence);
    const std::vector<int> idsB = idsOf(session, other);
    QCOMPARE(idsB.size(), idsA.size());
    ModelComparison comparison(&session);
    comparison.setKind(ComparisonKind::OtherSentence);
    comparison.setWanted(true);
    QVERIFY(settle(comparison));
    QVERIFY(comparison.problem().contains(QStringLiteral("Type another sentence")));
    QCOMPARE(comparison.difference().size(), Eigen::Index(0));

    session.selectHead(1, 1);
    comparison.setOtherSentence(other);
    QVERIFY(settle(comparison));
    QVERIFY(comparison.problem().isEmpty());
    const attn::HeadDivisors standard = session.model()->decoder->standardDivisors();
    const attn::DecoderResult a = runHere(session, idsA, standard);
    const attn::DecoderResult b = runHere(session, idsB, standard);
    QVERIFY(same(comparison.difference(), headDifference(a, b, 1, 1)));
    // Labels: this sentence's tokens, "a/b" where the other differs.
    const QStringList labels = comparison.labels();
    QCOMPARE(labels.size(), qsizetype(idsA.size()));
    for (std::size_t i = 0; i < idsA.size(); ++i) {
        const QString mine = session.vocabularyToken(idsA[i]).display;
        const QString theirs = session.vocabularyToken(idsB[i]).display;
        QCOMPARE(labels[qsizetype(i)], idsA[i] == idsB[i] ? mine : mine + QLatin1Char('/') + theirs);
    }
    QVERIFY(labels.join(QString()).contains(QLatin1Char('/')));

    comparison.setOtherSentence(QStringLiteral("Too short"));
    QVERIFY(settle(comparison));
    QVERIFY2(comparison.problem().contains(QStringLiteral("equal length")), qPrintable(comparison.problem()));
    QCOMPARE(comparison.problem().count(QLatin1Char('\n')), 0);
    QCOMPARE(comparison.difference().size(), Eigen::Index(0));
}

void TestModelComparison::notWantedNotComputed()
{
    ModelSession session;
    QVERIFY(open(session));
    session.setSentence(kSentence);
    QVERIFY(settle(session));
    ModelComparison comparison(&session);
    comparison.setKind(ComparisonKind::ScaledVsUnscaled);
    session.selectHead(1, 1);
    QTest::qWait(50);
    QVERIFY(!comparison.isComputing());
    QCOMPARE(comparison.difference().size(), Eigen::Index(0));
    comparison.setWanted(true);
    QVERIFY(settle(comparison));
    QVERIFY(comparison.difference().size() > 0);
}

QTEST_GUILESS_MAIN(TestModelComparison)
#include "tst_modelcomparison.moc"
