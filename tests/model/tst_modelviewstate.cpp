// SPDX-License-Identifier: GPL-3.0-or-later
// The Model tab's model and what-ifs as part of the lab (ModelViewState)
// over the tiny reference checkpoints: the view object's "model" written
// from one session opens the same folder in another and sets the same
// divisors, mask, QK-norm, temperature, selection and ablation, with no
// undo step and in one pass, whose logits are those of a pass run here
// with the same options, bit for bit; a folder already open is not read
// again; a missing or unreadable folder and a malformed object are each
// refused in one line, the rest of the lab (its ablation) still read.

#include "ablationundo.h"
#include "demomodel.h"
#include "modelsession.h"
#include "modelsessionwait.h"
#include "modelviewstate.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <atomic>
#include <memory>

using namespace attnlab;

namespace {

const QString kGpt2 = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
const QString kQwen3 = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/llama/tiny-qwen3");
const QString kSentence = QStringLiteral("The cat sat on the mat. The cat");

bool open(ModelSession& session, const QString& folder)
{
    QSignalSpy opened(&session, &ModelSession::modelOpened);
    session.openModel(folder);
    return opened.wait(10000) && modeltest::settle(session);
}

// A lab's model side: a session, its undo stack, the ablation and the view
// state, as the window holds them; `passes` counts the passes started.
struct Lab {
    ModelSession session;
    QUndoStack stack;
    AblationUndo ablation{&session, &stack};
    ModelViewState state{&session, &ablation};
    std::shared_ptr<std::atomic<int>> passes = std::make_shared<std::atomic<int>>(0);
    Lab()
    {
        session.setSentence(kSentence);
        session.setPassHook([passes = passes] { ++*passes; });
    }
};

// The pass run here with `options`: the intact logits and, with heads
// ablated, those of the pass without them.
attn::RowVector runHere(const ModelSession& session, attn::DecoderRunOptions options,
                        const std::vector<attn::HeadIndex>& ablated = {},
                        attn::HeadAblation kind = attn::HeadAblation::Zero)
{
    if (!ablated.empty())
        options.headOutput = attn::ablationHook(ablated, kind);
    const attn::Expected<attn::DecoderResult> r =
        session.model()->decoder->run(modeltest::ids(session), options);
    return r.ok() ? r->lastLogits : attn::RowVector();
}

QJsonObject viewWith(const QByteArray& model)
{
    QJsonObject view = QJsonDocument::fromJson("{\"model\": " + model + "}").object();
    view.insert(QStringLiteral("model_ablation"),
                QJsonObject{{QStringLiteral("heads"), QJsonArray{QJsonArray{0, 1}}},
                            {QStringLiteral("mode"), QStringLiteral("zero")},
                            {QStringLiteral("model"), QStringLiteral("tiny-gpt2")}});
    return view;
}

}  // namespace

class TestModelViewState : public QObject {
    Q_OBJECT
private slots:
    void roundTrip();
    void openFolderIsNotReadAgain();
    void qkNormRoundTrip();
    void withoutModelAsBefore();
    void demoByName();
    void missingFolder_data();
    void missingFolder();
    void supersededByAnother();
    void malformed_data();
    void malformed();
};

void TestModelViewState::roundTrip()
{
    // The lab saved: layer 1 head 0 divides by 2.5, layer 0 by 1, the last
    // 3 tokens seen, temperature 0.7, L2 H3 selected, L1 H2 ablated (mean).
    Lab saved;
    QVERIFY(open(saved.session, kGpt2));
    ModelSession& a = saved.session;
    a.selectHead(1, 0);
    QVERIFY(a.setScale(attn::ScaleMode::Custom, 2.5, ScaleScope::ThisHead));
    a.selectHead(0, 3);
    QVERIFY(a.setScale(attn::ScaleMode::None, 0.0, ScaleScope::ThisLayer));
    QVERIFY(a.setMaskWhatIf(attn::AttentionMask::sliding(3)));
    QVERIFY(a.setTemperature(0.7));
    a.selectHead(1, 2);
    QVERIFY(a.setAblation({{0, 1}}, attn::HeadAblation::Mean));
    QVERIFY(modeltest::settle(a));
    QJsonObject view;
    saved.state.saveTo(&view);
    const QJsonObject model = view.value(QStringLiteral("model")).toObject();
    QCOMPARE(model.value(QStringLiteral("folder")).toString(), QFileInfo(kGpt2).absoluteFilePath());
    QCOMPARE(QJsonDocument(model.value(QStringLiteral("divisors")).toArray()).toJson(QJsonDocument::Compact),
             QByteArray(R"([["none","none","none","none"],[2.5,"sqrt-dk","sqrt-dk","sqrt-dk"]])"));
    QCOMPARE(model.value(QStringLiteral("mask")).toString(), QStringLiteral("sliding:3"));
    QCOMPARE(model.value(QStringLiteral("temperature")).toDouble(), 0.7);
    QVERIFY(!model.contains(QStringLiteral("qk_norm_removed")));
    QCOMPARE(model.value(QStringLiteral("selected")).toArray(), (QJsonArray{1, 2}));
    QVERIFY(view.contains(QStringLiteral("model_ablation")));

    // Through the file's bytes into a lab with no model open.
    const QJsonObject read = QJsonDocument::fromJson(QJsonDocument(view).toJson()).object();
    Lab reopened;
    ModelSession& b = reopened.session;
    QSignalSpy opened(&b, &ModelSession::modelOpened);
    QSignalSpy messages(&reopened.state, &ModelViewState::message);
    reopened.state.loadFrom(read);
    QCOMPARE(reopened.state.pendingFolder(), QFileInfo(kGpt2).absoluteFilePath());
    QVERIFY(opened.wait(10000));
    QVERIFY(modeltest::settle(b));
    QVERIFY(messages.isEmpty());
    QCOMPARE(QFileInfo(b.modelFolder()).canonicalFilePath(), QFileInfo(kGpt2).canonicalFilePath());
    QVERIFY(b.divisors().values == a.divisors().values);
    QVERIFY(b.scaleModes() == a.scaleModes());
    QVERIFY(b.maskWhatIf() == a.maskWhatIf());
    QCOMPARE(b.temperature(), 0.7);
    QCOMPARE(b.selectedLayer(), 1);
    QCOMPARE(b.selectedHead(), 2);
    QCOMPARE(b.selectedScaleMode(), attn::ScaleMode::SqrtDk);
    QCOMPARE(int(b.ablatedHeads().size()), 1);
    QCOMPARE(b.ablation(), attn::HeadAblation::Mean);
    QCOMPARE(reopened.stack.count(), 0);   // no undo step
    QCOMPARE(reopened.passes->load(), 1);  // what-ifs, selection and ablation in the first pass

    // The options built here from the numbers, not from the session.
    attn::DecoderRunOptions options;
    options.divisors = attn::HeadDivisors::standard(b.config());
    QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 2.5, b.config().headDim, 1, 0));
    QVERIFY(options.divisors.set(attn::ScaleMode::None, 0.0, b.config().headDim, 0, -1));
    options.mask = attn::AttentionMask::sliding(3);
    const attn::RowVector intact = runHere(b, options);
    QVERIFY(intact.size() > 0);
    QVERIFY(b.result()->lastLogits == intact);
    QVERIFY(b.ablatedLogits() == runHere(b, options, {{0, 1}}, attn::HeadAblation::Mean));
    QVERIFY(b.ablatedLogits() != intact);
    QVERIFY(a.result()->lastLogits == intact);
    // The next tokens at the saved temperature.
    QCOMPARE(b.nextTokens().front().probability, attn::topTokens(intact, 10, 0.7).front().probability);
}

void TestModelViewState::openFolderIsNotReadAgain()
{
    Lab saved;
    QVERIFY(open(saved.session, kGpt2));
    QVERIFY(saved.session.setScale(attn::ScaleMode::Custom, 4.0, ScaleScope::AllLayers));
    saved.session.selectHead(0, 2);
    QJsonObject view;
    saved.state.saveTo(&view);
    QCOMPARE(view.value(QStringLiteral("model")).toObject().value(QStringLiteral("divisors")).toDouble(),
             4.0);

    Lab lab;
    QVERIFY(open(lab.session, kGpt2));
    const int before = lab.passes->load();
    QSignalSpy progress(&lab.session, &ModelSession::loadProgress);
    lab.state.loadFrom(view);
    QVERIFY(progress.isEmpty());  // not read again: set at once
    QVERIFY(lab.state.pendingFolder().isEmpty());
    QCOMPARE(lab.session.selectedDivisor(), 4.0);
    QCOMPARE(lab.session.selectedHead(), 2);
    QVERIFY(modeltest::settle(lab.session));
    QCOMPARE(lab.passes->load(), before + 1);
    attn::DecoderRunOptions options;
    options.divisors = attn::HeadDivisors::standard(lab.session.config());
    QVERIFY(options.divisors.set(attn::ScaleMode::Custom, 4.0, lab.session.config().headDim));
    QVERIFY(lab.session.result()->lastLogits == runHere(lab.session, options));
}

void TestModelViewState::qkNormRoundTrip()
{
    Lab saved;
    QVERIFY(open(saved.session, kQwen3));
    QVERIFY(saved.session.setQkNormRemoved(true));
    QVERIFY(saved.session.setScale(attn::ScaleMode::None, 0.0, ScaleScope::AllLayers));
    QJsonObject view;
    saved.state.saveTo(&view);
    const QJsonObject model = view.value(QStringLiteral("model")).toObject();
    QCOMPARE(model.value(QStringLiteral("qk_norm_removed")).toBool(), true);
    QCOMPARE(model.value(QStringLiteral("divisors")).toString(), QStringLiteral("none"));
    QVERIFY(!model.contains(QStringLiteral("temperature")));

    // Reopened over another model: Qwen3 replaces GPT-2.
    Lab lab;
    QVERIFY(open(lab.session, kGpt2));
    const int before = lab.passes->load();
    QSignalSpy opened(&lab.session, &ModelSession::modelOpened);
    lab.state.loadFrom(view);
    QVERIFY(opened.wait(10000));
    QVERIFY(modeltest::settle(lab.session));
    QVERIFY(lab.session.qkNormRemoved());
    // One pass, over Qwen3's ids: none over GPT-2's left from before.
    QCOMPARE(lab.passes->load(), before + 1);
    QCOMPARE(lab.session.cancelledPasses(), 0);
    attn::DecoderRunOptions options;
    options.divisors = attn::HeadDivisors::standard(lab.session.config());
    QVERIFY(options.divisors.set(attn::ScaleMode::None, 0.0, lab.session.config().headDim));
    options.skipQkNorm = true;
    const attn::RowVector without = runHere(lab.session, options);
    QVERIFY(lab.session.result()->lastLogits == without);
    options.skipQkNorm = false;
    QVERIFY(runHere(lab.session, options) != without);
}

void TestModelViewState::withoutModelAsBefore()
{
    Lab lab;
    QVERIFY(open(lab.session, kGpt2));
    QVERIFY(lab.session.setTemperature(2.0));
    QVERIFY(lab.session.setMaskWhatIf(attn::AttentionMask::sliding(2)));
    QJsonObject view = viewWith("{}");
    view.remove(QStringLiteral("model"));
    QSignalSpy progress(&lab.session, &ModelSession::loadProgress);
    QSignalSpy messages(&lab.state, &ModelViewState::message);
    lab.state.loadFrom(view);
    QVERIFY(progress.isEmpty());
    QVERIFY(messages.isEmpty());
    QCOMPARE(lab.session.temperature(), 2.0);
    QVERIFY(lab.session.maskWhatIf() == attn::AttentionMask::sliding(2));
    QCOMPARE(int(lab.session.ablatedHeads().size()), 1);  // the ablation, as before
}

void TestModelViewState::demoByName()
{
    const attn::Expected<QString> demo = demoModelFolder();
    QVERIFY(demo.ok());
    Lab saved;
    QVERIFY(open(saved.session, demo.value()));
    QJsonObject view;
    saved.state.saveTo(&view);
    const QJsonObject model = view.value(QStringLiteral("model")).toObject();
    // The demo by its name, nothing else but the selection: no what-if set.
    QCOMPARE(model.value(QStringLiteral("folder")).toString(), QStringLiteral("demo"));
    QCOMPARE(model.keys(), (QStringList{QStringLiteral("folder"), QStringLiteral("selected")}));

    Lab lab;
    QVERIFY(open(lab.session, kGpt2));
    QSignalSpy opened(&lab.session, &ModelSession::modelOpened);
    lab.state.loadFrom(view);
    QVERIFY(opened.wait(10000));
    QCOMPARE(QFileInfo(lab.session.modelFolder()).canonicalFilePath(),
             QFileInfo(demo.value()).canonicalFilePath());
}

void TestModelViewState::missingFolder_data()
{
    QTest::addColumn<bool>("exists");
    QTest::newRow("no such folder") << false;
    QTest::newRow("a folder that is no model") << true;
}

void TestModelViewState::missingFolder()
{
    QFETCH(bool, exists);
    QTemporaryDir empty;
    const QString folder = exists ? empty.path() : empty.filePath(QStringLiteral("gone"));
    Lab lab;
    QVERIFY(open(lab.session, kGpt2));
    QVERIFY(lab.session.setTemperature(2.0));
    QSignalSpy messages(&lab.state, &ModelViewState::message);
    QSignalSpy failed(&lab.session, &ModelSession::loadFailed);
    QJsonObject model{{QStringLiteral("folder"), folder}, {QStringLiteral("temperature"), 0.5}};
    lab.state.loadFrom(viewWith(QJsonDocument(model).toJson()));
    if (exists)
        QVERIFY(failed.wait(10000));
    QCOMPARE(messages.count(), 1);
    const QString line = messages.first().first().toString();
    QVERIFY2(line.contains(folder) && !line.contains(QLatin1Char('\n')), qPrintable(line));
    // The Model tab as it was: the same model, temperature and no ablation.
    QCOMPARE(QFileInfo(lab.session.modelFolder()).canonicalFilePath(), QFileInfo(kGpt2).canonicalFilePath());
    QCOMPARE(lab.session.temperature(), 2.0);
    QVERIFY(lab.session.ablatedHeads().empty());
    QVERIFY(lab.state.pendingFolder().isEmpty());
}

// Another model opened while the lab's is read (--model beside a lab):
// that one stays, and one line says the lab's what-ifs were not applied.
void TestModelViewState::supersededByAnother()
{
    Lab lab;
    QSignalSpy messages(&lab.state, &ModelViewState::message);
    QJsonObject model{{QStringLiteral("folder"), kGpt2}, {QStringLiteral("temperature"), 0.5}};
    lab.state.loadFrom(viewWith(QJsonDocument(model).toJson()));
    QVERIFY(open(lab.session, kQwen3));
    QCOMPARE(QFileInfo(lab.session.modelFolder()).canonicalFilePath(), QFileInfo(kQwen3).canonicalFilePath());
    QCOMPARE(messages.count(), 1);
    const QString line = messages.first().first().toString();
    QVERIFY2(line.contains(kGpt2) && line.contains(QStringLiteral("not applied"))
                 && !line.contains(QLatin1Char('\n')),
             qPrintable(line));
    QCOMPARE(lab.session.temperature(), 1.0);
    QVERIFY(lab.session.ablatedHeads().empty());
    QVERIFY(lab.state.pendingFolder().isEmpty());
}

void TestModelViewState::malformed_data()
{
    QTest::addColumn<QByteArray>("model");
    QTest::newRow("not an object") << QByteArray("\"gpt2\"");
    QTest::newRow("folder a number") << QByteArray(R"({"folder": 3})");
    QTest::newRow("divisor 0") << QByteArray(R"({"folder": "F", "divisors": 0})");
    QTest::newRow("divisor negative")
        << QByteArray(R"({"folder": "F", "divisors": [[1, 2, 3, -1], [1, 1, 1, 1]]})");
    QTest::newRow("divisor NaN as text") << QByteArray(R"({"folder": "F", "divisors": "nan"})");
    QTest::newRow("ragged divisors") << QByteArray(R"({"folder": "F", "divisors": [[1, 2], [1]]})");
    QTest::newRow("unknown mask") << QByteArray(R"({"folder": "F", "mask": "window:8"})");
    QTest::newRow("mask none") << QByteArray(R"({"folder": "F", "mask": "none"})");
    QTest::newRow("temperature 0") << QByteArray(R"({"folder": "F", "temperature": 0})");
    QTest::newRow("temperature text") << QByteArray(R"({"folder": "F", "temperature": "hot"})");
    QTest::newRow("qk_norm_removed text") << QByteArray(R"({"folder": "F", "qk_norm_removed": "yes"})");
    QTest::newRow("selected half a head") << QByteArray(R"({"folder": "F", "selected": [0.5, 1]})");
    // Well formed, but not for this model.
    QTest::newRow("divisors of 3 layers") << QByteArray(R"({"folder": "F", "divisors": [[1], [1], [1]]})");
    QTest::newRow("QK-norm on GPT-2") << QByteArray(R"({"folder": "F", "qk_norm_removed": true})");
    QTest::newRow("head beyond the model") << QByteArray(R"({"folder": "F", "selected": [0, 9]})");
}

void TestModelViewState::malformed()
{
    QFETCH(QByteArray, model);
    Lab lab;
    QVERIFY(open(lab.session, kGpt2));
    QVERIFY(lab.session.setTemperature(2.0));
    QSignalSpy messages(&lab.state, &ModelViewState::message);
    QSignalSpy ablationMessages(&lab.ablation, &AblationUndo::message);
    QSignalSpy progress(&lab.session, &ModelSession::loadProgress);
    lab.state.loadFrom(viewWith(model.replace("\"F\"", "\"" + kGpt2.toUtf8() + "\"")));
    QCOMPARE(messages.count(), 1);
    QVERIFY(ablationMessages.isEmpty());
    QVERIFY(progress.isEmpty());
    // The what-ifs as they were; the rest of the lab (its ablation) read.
    QCOMPARE(lab.session.temperature(), 2.0);
    QVERIFY(lab.session.qkNormRemoved() == false);
    QCOMPARE(lab.session.selectedDivisor(), std::sqrt(double(lab.session.config().headDim)));
    QCOMPARE(int(lab.session.ablatedHeads().size()), 1);
    QCOMPARE(lab.stack.count(), 0);
}

QTEST_MAIN(TestModelViewState)
#include "tst_modelviewstate.moc"
