// SPDX-License-Identifier: GPL-3.0-or-later
// The head lab's ablation as part of the lab (AblationUndo) over the tiny
// GPT-2 checkpoint: each change is one undo step; undo and redo set the
// heads and mode back and the pass runs again (its ablated logits those of
// a pass run here through attn::ablationHook); the view object's
// "model_ablation" round-trips and is applied without an undo step, at
// once or, before a model is open, once one opens; a malformed or
// out-of-range one, or one saved with another model, is refused with one
// line and leaves no head ablated;
// opening another model clears the ablation without a step.

#include "ablationundo.h"
#include "modelsession.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

using namespace attnlab;

namespace {

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

bool heads(const ModelSession& session, std::vector<std::pair<int, int>> expected)
{
    const std::vector<attn::HeadIndex>& shown = session.ablatedHeads();
    if (shown.size() != expected.size())
        return false;
    for (std::size_t i = 0; i < shown.size(); ++i)
        if (shown[i].layer != expected[i].first || shown[i].head != expected[i].second)
            return false;
    return true;
}

// The ablated pass shown is one run here without the session's heads.
bool ablatedPassIsRunHere(const ModelSession& session)
{
    std::vector<int> ids;
    for (const ModelToken& t : session.resultTokens())
        ids.push_back(t.id);
    attn::DecoderRunOptions options;
    options.headOutput = attn::ablationHook(session.ablatedHeads(), session.ablation());
    const attn::Expected<attn::DecoderResult> r = session.model()->decoder->run(ids, options);
    return r.ok() && session.ablatedLogits() == r->lastLogits;
}

}  // namespace

class TestAblationUndo : public QObject {
    Q_OBJECT
private slots:
    void undoAndRedo();
    void viewRoundTrip();
    void badViewIsRefused();
    void anotherModelClears();
};

void TestAblationUndo::undoAndRedo()
{
    ModelSession session;
    QUndoStack stack;
    AblationUndo undo(&session, &stack);
    QVERIFY(open(session));
    session.setSentence(QStringLiteral("The cat sat on the mat."));
    QVERIFY(settle(session));
    QVERIFY(session.setAblation({{1, 2}}, attn::HeadAblation::Zero).ok());
    QVERIFY(session.toggleAblated(0, 1).ok());
    QVERIFY(session.setAblation(session.ablatedHeads(), attn::HeadAblation::Mean).ok());
    QCOMPARE(stack.count(), 3);
    QCOMPARE(stack.text(0), QStringLiteral("Ablate L2 H3 (zero)"));
    QCOMPARE(stack.text(2), QStringLiteral("Ablate L1 H2, L2 H3 (mean)"));
    // The same choice again is no step.
    QVERIFY(session.setAblation({{1, 2}, {0, 1}}, attn::HeadAblation::Mean).ok());
    QCOMPARE(stack.count(), 3);
    QVERIFY(settle(session));
    QVERIFY(ablatedPassIsRunHere(session));

    stack.undo();
    QVERIFY(heads(session, {{0, 1}, {1, 2}}));
    QCOMPARE(session.ablation(), attn::HeadAblation::Zero);
    QVERIFY(settle(session));
    QVERIFY(ablatedPassIsRunHere(session));
    stack.undo();
    QVERIFY(heads(session, {{1, 2}}));
    stack.undo();
    QVERIFY(session.ablatedHeads().empty());
    QVERIFY(settle(session));
    QVERIFY(session.resultAblatedHeads().empty());
    QCOMPARE(stack.count(), 3);  // undoing pushed nothing
    stack.redo();
    stack.redo();
    stack.redo();
    QVERIFY(heads(session, {{0, 1}, {1, 2}}));
    QCOMPARE(session.ablation(), attn::HeadAblation::Mean);
    QVERIFY(settle(session));
    QVERIFY(ablatedPassIsRunHere(session));
    // A new change after an undo drops the redo steps, as every edit does.
    stack.undo();
    QVERIFY(session.setAblation({}, attn::HeadAblation::Zero).ok());
    QCOMPARE(stack.count(), 3);
    QCOMPARE(stack.text(2), QStringLiteral("Ablate no head"));
}

void TestAblationUndo::viewRoundTrip()
{
    QJsonObject view;
    {
        ModelSession session;
        QUndoStack stack;
        AblationUndo undo(&session, &stack);
        QVERIFY(open(session));
        undo.saveTo(&view);
        QVERIFY(!view.contains(QLatin1String(AblationUndo::kViewKey)));  // nothing ablated: no key
        QVERIFY(session.setAblation({{1, 3}, {0, 0}}, attn::HeadAblation::Mean).ok());
        undo.saveTo(&view);
    }
    // Through the file's text, as a saved lab holds it.
    const QByteArray text = QJsonDocument(view).toJson(QJsonDocument::Compact);
    QCOMPARE(QJsonDocument::fromJson(text).object().value(QLatin1String(AblationUndo::kViewKey)).toObject(),
             QJsonDocument::fromJson(R"({"heads": [[0, 0], [1, 3]], "mode": "mean", "model": "tiny-gpt2"})")
                 .object());
    const QJsonObject read = QJsonDocument::fromJson(text).object();

    // A model open: applied at once, no undo step.
    {
        ModelSession session;
        QUndoStack stack;
        AblationUndo undo(&session, &stack);
        QVERIFY(open(session));
        session.setSentence(QStringLiteral("The cat sat on the mat."));
        undo.loadFrom(read);
        QVERIFY(heads(session, {{0, 0}, {1, 3}}));
        QCOMPARE(session.ablation(), attn::HeadAblation::Mean);
        QCOMPARE(stack.count(), 0);
        QVERIFY(settle(session));
        QVERIFY(ablatedPassIsRunHere(session));
        // A lab without the key: no head ablated.
        undo.loadFrom(QJsonObject());
        QVERIFY(session.ablatedHeads().empty());
        QCOMPARE(stack.count(), 0);
        // Changes after a load are steps again.
        QVERIFY(session.toggleAblated(0, 0).ok());
        QCOMPARE(stack.count(), 1);
    }
    // No model yet: it waits, is saved as read, and applies once one opens.
    {
        ModelSession session;
        QUndoStack stack;
        AblationUndo undo(&session, &stack);
        undo.loadFrom(read);
        QJsonObject again;
        undo.saveTo(&again);
        const QJsonObject expected{
            {QLatin1String(AblationUndo::kViewKey), read.value(QLatin1String(AblationUndo::kViewKey))}};
        QCOMPARE(again, expected);
        QVERIFY(open(session));
        QVERIFY(heads(session, {{0, 0}, {1, 3}}));
        QCOMPARE(session.ablation(), attn::HeadAblation::Mean);
        QCOMPARE(stack.count(), 0);
    }
}

void TestAblationUndo::badViewIsRefused()
{
    ModelSession session;
    QUndoStack stack;
    AblationUndo undo(&session, &stack);
    QVERIFY(open(session));
    QSignalSpy message(&undo, &AblationUndo::message);
    const auto view = [](const char* json) {
        return QJsonObject{{QLatin1String(AblationUndo::kViewKey), QJsonDocument::fromJson(json).object()}};
    };
    QVERIFY(session.setAblation({{0, 0}}, attn::HeadAblation::Zero).ok());
    undo.loadFrom(view(R"({"heads": [[0]], "mode": "zero"})"));
    QCOMPARE(message.count(), 1);
    QVERIFY(message.last().first().toString().contains(QStringLiteral("[layer, head]")));
    QVERIFY(session.ablatedHeads().empty());
    undo.loadFrom(view(R"({"heads": [[0, 1]], "mode": "half"})"));
    QCOMPARE(message.count(), 2);
    QVERIFY(message.last().first().toString().contains(QStringLiteral("\"zero\" or \"mean\"")));
    undo.loadFrom(view(R"({"heads": [[0, 1.5]], "mode": "zero"})"));
    QCOMPARE(message.count(), 3);
    // A head the model does not have (2 layers x 4 heads).
    undo.loadFrom(view(R"({"heads": [[0, 1], [5, 0]], "mode": "zero"})"));
    QCOMPARE(message.count(), 4);
    QVERIFY(message.last().first().toString().contains(QStringLiteral("layer 6 head 1")));
    QVERIFY(session.ablatedHeads().empty());
    // Saved with another model: its L1 H2 is not this one's.
    undo.loadFrom(view(R"({"heads": [[0, 1]], "mode": "zero", "model": "gpt2"})"));
    QCOMPARE(message.count(), 5);
    QVERIFY2(message.last().first().toString().contains(
                 QStringLiteral("saved with the model “gpt2”, and “tiny-gpt2”")),
             qPrintable(message.last().first().toString()));
    QVERIFY(session.ablatedHeads().empty());
    undo.loadFrom(view(R"({"heads": [[0, 1]], "mode": "zero", "model": 3})"));
    QCOMPARE(message.count(), 6);
    QVERIFY(message.last().first().toString().contains(QStringLiteral("folder's name")));
    QVERIFY(session.ablatedHeads().empty());
    // Its own model's name, or none (a file from before the name was written): applied.
    undo.loadFrom(view(R"({"heads": [[0, 1]], "mode": "zero", "model": "tiny-gpt2"})"));
    QVERIFY(heads(session, {{0, 1}}));
    undo.loadFrom(view(R"({"heads": [[1, 2]], "mode": "zero"})"));
    QVERIFY(heads(session, {{1, 2}}));
    QCOMPARE(message.count(), 6);
    QCOMPARE(stack.count(), 1);  // the one change made by hand
}

void TestAblationUndo::anotherModelClears()
{
    ModelSession session;
    QUndoStack stack;
    AblationUndo undo(&session, &stack);
    QVERIFY(open(session));
    QVERIFY(session.setAblation({{1, 1}}, attn::HeadAblation::Zero).ok());
    QCOMPARE(stack.count(), 1);
    QVERIFY(open(session));
    QVERIFY(session.ablatedHeads().empty());
    QCOMPARE(stack.count(), 1);
    // Undo goes back from the cleared state, not from a stale one.
    stack.undo();
    QVERIFY(session.ablatedHeads().empty());
}

QTEST_GUILESS_MAIN(TestAblationUndo)
#include "tst_ablationundo.moc"
