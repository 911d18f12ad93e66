// SPDX-License-Identifier: GPL-3.0-or-later
// Session with thousands of tokens: the work runs in the worker thread, the
// delivered numbers are the engine's, a newer request supersedes older ones
// and edits apply to the requested parameters; a look-ahead is taken only
// by a request for the same work. Nothing here measures time;
// the timeouts only stop a hung test.

#include "session.h"

#include "attentionworker.h"

#include "cellsource.h"
#include "resultcells.h"

#include "attention.h"
#include "model.h"
#include "scaling_lab.h"
#include "statistics.h"
#include "testconfigs.h"

#include <QSignalSpy>
#include <QtTest>

#include <memory>
#include <string>

using namespace attnlab;

namespace {

constexpr int kHangGuardMs = 300000;

using testconfigs::largeConfig;

// The engine called directly on the matrices the config draws (edited as given).
attn::AttentionResult engineResult(const attn::Model& model, const attn::AttentionOptions& options)
{
    attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(model.X, model.Wq, model.Wk, model.Wv, options);
    return r ? r.value() : attn::AttentionResult();
}

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

}  // namespace

class TestAsync : public QObject {
    Q_OBJECT
private slots:
    void largeWorkRunsInWorkerAndMatchesEngine();
    void rapidDkChangesShowOnlyTheLast();
    void optionChangeWhileRedrawing();
    void editWaitsForRequestedParameters();
    void lessonSizeStaysImmediate();
    void setStateDropsTheComputationInFlight();
    void workerSamplesWhereTheMapsDraw();
    void everySupersededRequestIsDropped();
    void sameWorkComparesAllARedrawReads();
};

void TestAsync::largeWorkRunsInWorkerAndMatchesEngine()
{
    Session session;
    QSignalSpy results(&session, &Session::resultChanged);
    const attn::ModelConfig config = largeConfig(2048);
    session.setParameters(config, attn::AttentionOptions());
    // Above kAsyncWork: nothing delivered yet, the article example still shown.
    QVERIFY(session.isComputing());
    QCOMPARE(results.count(), 0);
    QCOMPARE(session.published()->tokenCount(), 6);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QCOMPARE(results.count(), 1);
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(session.published()->tokenCount(), 2048);

    attn::Expected<attn::Model> model = attn::buildModel(config);
    QVERIFY(model);
    QVERIFY(sameMatrix(session.inputs().model.X, model->X));
    QVERIFY(sameMatrix(session.inputs().model.Wq, model->Wq));
    const attn::AttentionResult expected = engineResult(*model, attn::AttentionOptions());
    const attn::AttentionResult& got = *session.published()->shown();
    QVERIFY(sameMatrix(got.Q, expected.Q));
    QVERIFY(sameMatrix(got.scores, expected.scores));
    QVERIFY(sameMatrix(got.scaledMatrix(), expected.scaledMatrix()));
    QVERIFY(sameMatrix(got.weightsMatrix(), expected.weightsMatrix()));
    QVERIFY(sameMatrix(got.context, expected.context));
    QCOMPARE(got.divisor, 8.0);  // sqrt(64)
    const attn::AttentionStats stats = attn::computeStatistics(expected);
    QCOMPARE(session.published()->stats().rawVariance, stats.rawVariance);
    QCOMPARE(session.published()->stats().meanEntropyNats, stats.meanEntropyNats);
    const attn::ScalingComparison comparison = attn::compareScaling(expected);
    QVERIFY(sameMatrix(session.published()->comparison()->weightsUnscaled, comparison.weightsUnscaled));
    QCOMPARE(session.published()->comparison()->meanMaxRaw, comparison.meanMaxRaw);
}

void TestAsync::rapidDkChangesShowOnlyTheLast()
{
    Session session;
    const attn::ModelConfig config = largeConfig(2048);
    session.setParameters(config, attn::AttentionOptions());
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);

    QList<int> shownDk;
    connect(&session, &Session::resultChanged, this, [&] { shownDk.append(session.published()->dK()); });
    // Four slider steps before the event loop runs again: the worker may
    // finish some of them, but only the last request's result is shown.
    for (int dK : {40, 48, 56, 72})
        session.setDK(dK);
    QCOMPARE(session.inputs().config.dK, 72);
    QVERIFY(session.isComputing());
    QCOMPARE(session.published()->dK(), 64);  // the old result until the new one is in
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QCOMPARE(shownDk, QList<int>{72});

    attn::ModelConfig last = config;
    last.dK = 72;
    attn::Expected<attn::Model> model = attn::buildModel(last);
    QVERIFY(model);
    const attn::AttentionResult expected = engineResult(*model, attn::AttentionOptions());
    QVERIFY(sameMatrix(session.published()->shown()->weightsMatrix(), expected.weightsMatrix()));
    QVERIFY(sameMatrix(session.published()->shown()->context, expected.context));
    QCOMPARE(session.published()->shown()->divisor, std::sqrt(72.0));
}

void TestAsync::optionChangeWhileRedrawing()
{
    Session session;
    const attn::ModelConfig config = largeConfig(1024);
    session.setParameters(config, attn::AttentionOptions());
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);

    // A d_k change (redraw) and then the mask (recompute) before either is in:
    // the result has both.
    session.setDK(32);
    session.setCausal(true);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    attn::ModelConfig last = config;
    last.dK = 32;
    attn::Expected<attn::Model> model = attn::buildModel(last);
    QVERIFY(model);
    attn::AttentionOptions causal;
    causal.causal = true;
    const attn::AttentionResult expected = engineResult(*model, causal);
    QVERIFY(session.published()->shown()->causal);
    QCOMPARE(session.published()->dK(), 32);
    QVERIFY(sameMatrix(session.published()->shown()->weightsMatrix(), expected.weightsMatrix()));
    QCOMPARE(session.published()->shown()->weights(0, 1), 0.0);

    // The mask alone over the same matrices: a recomputation in the worker.
    session.setCausal(false);
    QVERIFY(session.isComputing());
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QVERIFY(sameMatrix(session.published()->shown()->weightsMatrix(),
                       engineResult(*model, attn::AttentionOptions()).weightsMatrix()));
}

void TestAsync::editWaitsForRequestedParameters()
{
    Session session;
    const attn::ModelConfig config = largeConfig(1024);
    session.setParameters(config, attn::AttentionOptions());
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QSignalSpy dropped(&session, &Session::resultDropped);

    session.setDK(80);
    QVERIFY(session.isComputing());
    // The edit finishes the d_k change first, so it lands in the new matrices.
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 2, 79, 0.5));
    QVERIFY(!session.isComputing());
    QCOMPARE(session.published()->dK(), 80);
    QCOMPARE(session.inputs().matrix(MatrixId::Wq)(2, 79), 0.5);
    QCOMPARE(session.inputs().editedCells, 1);

    attn::ModelConfig last = config;
    last.dK = 80;
    attn::Expected<attn::Model> model = attn::buildModel(last);
    QVERIFY(model);
    model->Wq(2, 79) = 0.5;
    QVERIFY(sameMatrix(session.published()->shown()->scores,
                       engineResult(*model, attn::AttentionOptions()).scores));
    // Nothing stale arrives later.
    QSignalSpy results(&session, &Session::resultChanged);
    QTRY_COMPARE_WITH_TIMEOUT(dropped.count(), 1, kHangGuardMs);  // the worker's request, superseded
    QCOMPARE(results.count(), 0);
    QCOMPARE(session.published()->dK(), 80);
}

void TestAsync::setStateDropsTheComputationInFlight()
{
    // A whole new state (an opened lab, an undo step) replaces what was
    // being computed: the old request's result never shows, the new state's
    // numbers are the engine's. A refused state leaves the request running.
    Session session;
    const attn::ModelConfig config = largeConfig(1024);
    session.setParameters(config, attn::AttentionOptions());
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QList<int> shownDk;
    connect(&session, &Session::resultChanged, this, [&] { shownDk.append(session.published()->dK()); });
    QSignalSpy dropped(&session, &Session::resultDropped);

    session.setDK(96);
    QVERIFY(session.isComputing());
    LabState bad = session.inputs().state();
    bad.X.resize(3, 3);  // not the shape the config gives
    QVERIFY(!session.setState(bad).ok());
    QVERIFY(session.isComputing());  // still on its way

    session.setDK(80);
    QVERIFY(session.isComputing());
    attn::ModelConfig small;  // the article example
    attn::Expected<attn::Model> model = attn::buildModel(small);
    QVERIFY(model);
    LabState state;
    state.config = small;
    state.X = model->X;
    state.Wq = model->Wq;
    state.Wk = model->Wk;
    state.Wv = model->Wv;
    QVERIFY(session.setState(state).ok());
    QVERIFY(!session.isComputing());
    QCOMPARE(shownDk, QList<int>{24});
    // Both requests (96, superseded by 80; 80, by the state) are dropped.
    QTRY_COMPARE_WITH_TIMEOUT(dropped.count(), 2, kHangGuardMs);
    QCOMPARE(shownDk, QList<int>{24});
    QCOMPARE(session.published()->dK(), 24);
    QVERIFY(sameMatrix(session.published()->shown()->scores,
                       engineResult(*model, attn::AttentionOptions()).scores));
}

void TestAsync::workerSamplesWhereTheMapsDraw()
{
    // The pipeline's maps report their pictures' sizes; the worker takes the
    // scores and weights at those cells while it has each row, bit for bit
    // the numbers the result gives (masked cells included). A picture with a
    // pixel per cell needs no samples.
    Session session;
    session.setSampleSizes({{300, 250}, {290, 250}, {2000, 1500}});
    attn::AttentionOptions options;
    options.causal = true;
    session.setParameters(largeConfig(1024), options);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QCOMPARE(session.published()->tokenCount(), 1024);
    const std::shared_ptr<ResultSampleCache> samples =
        (session.published()->presampled() ? session.published()->samples() : nullptr);
    QVERIFY(samples);
    QCOMPARE(int(samples->grids.size()), 2);
    const attn::AttentionResult& r = *session.published()->shown();
    for (const SampleGrid& g : samples->grids) {
        QCOMPARE(g.rowAt, cellsAtPixels(1024, 250));
        QCOMPARE(g.colAt, cellsAtPixels(1024, int(g.colAt.size())));
        for (std::size_t y = 0; y < g.rowAt.size(); ++y) {
            for (std::size_t x = 0; x < g.colAt.size(); ++x) {
                const int i = g.rowAt[y], j = g.colAt[x];
                const std::size_t at = y * g.colAt.size() + x;
                if (g.scores[at] != r.scores(i, j) || g.weights[at] != r.weights(i, j))
                    QFAIL(qPrintable(QStringLiteral("cell (%1, %2)").arg(i).arg(j)));
            }
        }
    }
    // Maps drawn from these samples show the result's weights.
    std::vector<double> shown(250 * 300);
    resultCells(session.published()->shown(), ResultMap::Weights, samples)
        ->sample(samples->grids[0].rowAt, samples->grids[0].colAt, shown.data());
    QCOMPARE(shown, samples->grids[0].weights);
    // Without the worker's samples the maps read the cells themselves (two
    // halves of the rows at once at this size): the result's numbers too.
    for (const ResultMap map : {ResultMap::Scores, ResultMap::Scaled, ResultMap::Weights}) {
        std::vector<double> read(250 * 300, -1.0);
        const std::vector<int>& rows = samples->grids[0].rowAt;
        const std::vector<int>& cols = samples->grids[0].colAt;
        resultCells(session.published()->shown(), map)->sample(rows, cols, read.data());
        int wrong = 0;
        for (std::size_t y = 0; y < rows.size(); ++y)
            for (std::size_t x = 0; x < cols.size(); ++x) {
                const int i = rows[y], j = cols[x];
                const double want = map == ResultMap::Scores   ? r.scores(i, j)
                                    : map == ResultMap::Scaled ? r.scaled(i, j)
                                                               : r.weights(i, j);
                wrong += read[y * cols.size() + x] != want;
            }
        QCOMPARE(wrong, 0);
    }

    // Without sizes (maps drawing every cell), nothing is sampled.
    session.setSampleSizes({});
    session.setDK(70);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), kHangGuardMs);
    QCOMPARE(session.published()->dK(), 70);
    QVERIFY(!(session.published()->presampled() ? session.published()->samples() : nullptr));
}

void TestAsync::lessonSizeStaysImmediate()
{
    Session session;
    QSignalSpy results(&session, &Session::resultChanged);
    session.setDK(30);
    QVERIFY(!session.isComputing());
    QCOMPARE(results.count(), 1);
    QCOMPARE(session.published()->dK(), 30);
}

void TestAsync::everySupersededRequestIsDropped()
{
    // Each request the worker is given ends in one signal: the three
    // superseded d_k steps in resultDropped() (stopped within a panel of
    // rows if they were running, or never started), the last in
    // resultChanged(). Destroying the session mid-computation returns.
    auto session = std::make_unique<Session>();
    session->setParameters(largeConfig(2048), attn::AttentionOptions());
    QTRY_VERIFY_WITH_TIMEOUT(!session->isComputing(), kHangGuardMs);
    QSignalSpy dropped(session.get(), &Session::resultDropped);
    QSignalSpy results(session.get(), &Session::resultChanged);
    for (int dK : {40, 48, 56, 72})
        session->setDK(dK);
    QTRY_COMPARE_WITH_TIMEOUT(results.count(), 1, kHangGuardMs);
    QTRY_COMPARE_WITH_TIMEOUT(dropped.count(), 3, kHangGuardMs);
    QCOMPARE(session->published()->dK(), 72);
    QVERIFY(!session->isComputing());

    // Superseded by the same request done at once (an edit waiting).
    session->setDK(64);
    QVERIFY(session->isComputing());
    session->waitForResult();
    QCOMPARE(session->published()->dK(), 64);
    QTRY_COMPARE_WITH_TIMEOUT(dropped.count(), 4, kHangGuardMs);
    QCOMPARE(results.count(), 2);

    session->setDK(80);
    QVERIFY(session->isComputing());
    session.reset();  // aborts the computation in flight and joins the worker
}

// A look-ahead is taken only by a request for the same work: every field a
// redraw reads counts (a kept cell's value to the bit), the generation and
// the preview do not.
void TestAsync::sameWorkComparesAllARedrawReads()
{
    AttentionWorker::Job a;
    a.redraw = true;
    a.keep = true;
    a.config = largeConfig(600);
    a.heads.heads = 8;
    a.heads.layout = attn::HeadLayout::Split;
    attn::Expected<attn::Model> model = attn::buildModel(a.config);
    QVERIFY(model.ok());
    a.model = model.value();
    a.cells = UserCells::none(a.model);
    a.cells.mask[0](2, 2) = true;
    a.model.X(2, 2) = 0.0;
    a.sampleSizes = {QSize(300, 300)};
    AttentionWorker::Job b = a;
    b.generation = 7;
    b.preview = true;
    QVERIFY(sameWork(a, b));
    using Change = std::function<void(AttentionWorker::Job&)>;
    const std::vector<std::pair<const char*, Change>> changes = {
        {"seed", [](AttentionWorker::Job& j) { ++j.config.seed; }},
        {"sentence", [](AttentionWorker::Job& j) { j.config.sentence += " more"; }},
        {"tokenizer", [](AttentionWorker::Job& j) { j.config.tokenizer = attn::TokenizerMode::Punctuation; }},
        {"d_model", [](AttentionWorker::Job& j) { j.config.dModel += 8; }},
        {"d_k", [](AttentionWorker::Job& j) { ++j.config.dK; }},
        {"d_v", [](AttentionWorker::Job& j) { ++j.config.dV; }},
        {"init", [](AttentionWorker::Job& j) { j.config.init = attn::InitMode::StandardNormal; }},
        {"scale", [](AttentionWorker::Job& j) { j.options.scale = attn::ScaleMode::None; }},
        {"divisor", [](AttentionWorker::Job& j) { j.options.customDivisor = 2.0; }},
        {"causal", [](AttentionWorker::Job& j) { j.options.causal = true; }},
        {"keep", [](AttentionWorker::Job& j) { j.keep = false; }},
        {"comparison", [](AttentionWorker::Job& j) { j.comparison = true; }},
        {"heads", [](AttentionWorker::Job& j) { j.heads.heads = 4; }},
        {"layout", [](AttentionWorker::Job& j) { j.heads.layout = attn::HeadLayout::Independent; }},
        {"selected head", [](AttentionWorker::Job& j) { j.selectedHead = 3; }},
        {"kept cell -0", [](AttentionWorker::Job& j) { j.model.X(2, 2) = -0.0; }},
        {"a W cell", [](AttentionWorker::Job& j) { j.model.Wq(0, 1) += 1e-9; }},
        {"cells", [](AttentionWorker::Job& j) { j.cells.mask[1](0, 0) = true; }},
        {"tokens", [](AttentionWorker::Job& j) { j.model.tokenization.ids[0] += 1; }},
        {"a recompute", [](AttentionWorker::Job& j) { j.redraw = false; }},
    };
    for (const auto& [name, change] : changes) {
        AttentionWorker::Job c = a;
        change(c);
        if (sameWork(a, c) || sameWork(c, a))
            QFAIL(qPrintable(QStringLiteral("the same work despite another %1").arg(QLatin1String(name))));
    }
    // The single head's pass samples for the maps, the heads' does not.
    AttentionWorker::Job single = a;
    single.heads = attn::HeadsConfig();
    AttentionWorker::Job resampled = single;
    resampled.sampleSizes = {QSize(300, 299)};
    QVERIFY(!sameWork(single, resampled));
    resampled = a;
    resampled.sampleSizes.clear();
    QVERIFY(sameWork(a, resampled));
    // Without kept cells the model is not read.
    AttentionWorker::Job fresh = a;
    fresh.keep = false;
    AttentionWorker::Job other = fresh;
    other.model = attn::Model();
    other.cells = UserCells();
    QVERIFY(sameWork(fresh, other));
}

QTEST_MAIN(TestAsync)
#include "tst_async.moc"
