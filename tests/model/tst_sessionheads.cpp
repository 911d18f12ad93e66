// SPDX-License-Identifier: GPL-3.0-or-later
// The session's multi-head part: the article's h = 3 heads through the
// session (against raschka_self_attention.json's multi_head_derived), a head
// selected as the session's head without computing, an edit of one head,
// the split layout's d_k = E / h, undo and a lab's state, and large work in
// the worker giving the numbers the engine gives on its own, its selected
// head sent ahead of the rest (Session::preview) with the same numbers, and
// a seed step looked ahead (the next step's numbers those of a fresh draw).
#include "session.h"
#include "undocommands.h"
#include "undorecorder.h"

#include "attention.h"
#include "model.h"
#include "multihead.h"
#include "multihead_init.h"
#include "testconfigs.h"
#include "testdata.h"

#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

using namespace attnlab;

namespace {

bool same(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

bool sameHead(const attn::AttentionResult& a, const attn::AttentionResult& b)
{
    return same(a.Q, b.Q) && same(a.K, b.K) && same(a.V, b.V) && same(a.scores, b.scores)
           && same(a.weightsMatrix(), b.weightsMatrix()) && same(a.context, b.context);
}

}  // namespace

class TestSessionHeads : public QObject {
    Q_OBJECT
private slots:
    void articleHeadsThroughTheSession();
    void selectingAHeadComputesNothing();
    void editingTheSelectedHead();
    void splitLayoutFollowsDModel();
    void splitRefusesAnIndivisibleH();
    void undoCoversHeadsAndEdits();
    void cellStepsKeepTheirHead();
    void stepsKeepTheirSnapshots();
    void redrawInFlightIsOneStep();
    void stateRoundTrip();
    void largeWorkInTheWorker();
    void theSelectedHeadComesFirst();
    void oneHeadAgainIsTheSingleHead();
    void aSeedStepLooksOneStepAhead();
};

void TestSessionHeads::articleHeadsThroughTheSession()
{
    const QJsonObject mh = testdata::readJson("raschka_self_attention.json")["multi_head_derived"].toObject();
    Session session;
    QSignalSpy results(&session, &Session::resultChanged);
    session.setHeadCount(3);
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(results.count(), 1);
    QCOMPARE(session.published()->headCount(), 3);
    const auto multi = session.published()->heads();
    QVERIFY(multi);
    for (int i = 0; i < 3; ++i) {
        session.selectHead(i);
        QCOMPARE(session.inputs().selectedHead, i);
        // torch.rand is bit-exact: the session's W_q is head i's W_query^T.
        QVERIFY(same(session.inputs().matrix(MatrixId::Wq),
                     testdata::toMatrix(mh["multihead_W_query"].toArray()[i]).transpose()));
        QVERIFY(same(session.inputs().matrix(MatrixId::Wk),
                     testdata::toMatrix(mh["multihead_W_key"].toArray()[i]).transpose()));
        QVERIFY(same(session.inputs().matrix(MatrixId::Wv),
                     testdata::toMatrix(mh["multihead_W_value"].toArray()[i]).transpose()));
        // PyTorch's float32 weights, as tst_multihead holds them.
        QVERIFY(testdata::maxAbsDiff(session.published()->shown()->weightsMatrix(),
                                     testdata::toMatrix(mh["weights"].toArray()[i]))
                < 1e-6);
        QVERIFY(testdata::maxAbsDiff(session.published()->shown()->Q.row(1),
                                     testdata::toMatrix(mh["multihead_query_2"].toArray()[i]))
                < 2e-6);
        QCOMPARE(session.published()->dK(), 24);
    }
}

void TestSessionHeads::selectingAHeadComputesNothing()
{
    Session session;
    session.setHeadCount(3);
    const auto multi = session.published()->heads();
    QSignalSpy selected(&session, &Session::headSelected);
    QSignalSpy results(&session, &Session::resultChanged);
    session.selectHead(2);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(selected.first().first().toInt(), 2);
    QCOMPARE(results.count(), 1);
    // The same result object: the head is shown, not computed again.
    QCOMPARE(session.published()->heads().get(), multi.get());
    QCOMPARE(&*session.published()->shown(), &multi->heads[2]);
    QCOMPARE(session.published()->stats().meanEntropyNats, multi->stats[2].meanEntropyNats);
    session.selectHead(2);  // already selected
    session.selectHead(3);  // no such head
    session.selectHead(-1);
    QCOMPARE(selected.count(), 1);
    QCOMPARE(session.inputs().selectedHead, 2);
}

void TestSessionHeads::editingTheSelectedHead()
{
    Session session;
    session.setHeadCount(3);
    const auto before = session.published()->heads();
    session.selectHead(1);
    QVERIFY(session.setMatrixCell(MatrixId::Wk, 2, 5, 0.75));
    QCOMPARE(session.inputs().editedCells, 1);
    const attn::MultiHeadParams& params = session.inputs().multiHead;
    QCOMPARE(params.head(1).Wk(2, 5), 0.75);
    QCOMPARE(session.inputs().matrix(MatrixId::Wk)(2, 5), 0.75);
    const auto after = session.published()->heads();
    QVERIFY(after.get() != before.get());
    // The other heads are as they were; head 2 is the single-head pass
    // over its edited weights.
    QVERIFY(same(after->heads[0].weightsMatrix(), before->heads[0].weightsMatrix()));
    QVERIFY(same(after->heads[2].weightsMatrix(), before->heads[2].weightsMatrix()));
    const attn::HeadWeights w = params.head(1);
    const attn::Expected<attn::AttentionResult> alone = attn::computeAttention(
        session.inputs().matrix(MatrixId::X), w.Wq, w.Wk, w.Wv, session.inputs().options);
    QVERIFY(alone.ok());
    QVERIFY(same(after->heads[1].weightsMatrix(), alone->weightsMatrix()));
    QVERIFY(!same(after->heads[1].weightsMatrix(), before->heads[1].weightsMatrix()));
    // What the views redraw: head 1 alone, against the result it replaced only.
    QCOMPARE(session.published()->headsChangedSince(before.get()),
             std::optional<std::vector<int>>(std::vector<int>{1}));
    QVERIFY(!session.published()->headsChangedSince(nullptr));
    // Another head selected: its own weights; the edit still counts.
    session.selectHead(0);
    QVERIFY(session.inputs().matrix(MatrixId::Wk)(2, 5) != 0.75);
    QCOMPARE(session.inputs().editedCells, 1);
    QCOMPARE(session.inputs().userCells.count(), 0);
    // An X edit reaches every head.
    QVERIFY(session.setMatrixCell(MatrixId::X, 0, 0, 2.0));
    QCOMPARE(session.inputs().editedCells, 2);
    QVERIFY(!session.published()->headsChangedSince(after.get()));  // every head changed
    for (int i = 0; i < 3; ++i)
        QCOMPARE(session.published()->heads()->heads[std::size_t(i)].Q(0, 0),
                 (session.inputs().matrix(MatrixId::X).row(0) * session.inputs().multiHead.head(i).Wq.col(0))(
                     0, 0));
}

void TestSessionHeads::splitLayoutFollowsDModel()
{
    Session session;
    attn::HeadsConfig heads;
    heads.heads = 4;
    heads.layout = attn::HeadLayout::Split;
    heads.torchInit = true;
    session.setHeadsConfig(heads);
    QVERIFY2(session.problem().isEmpty(), qPrintable(session.problem()));
    QCOMPARE(session.inputs().config.dK, 4);
    QCOMPARE(session.inputs().config.dV, 4);
    QCOMPARE(session.published()->dK(), 4);
    QCOMPARE(session.published()->headCount(), 4);
    // nn.MultiheadAttention's own initialisation, over the session's X.
    const attn::SplitHeads torch = attn::drawTorchMha(123, 16, 4);
    QVERIFY(same(session.inputs().multiHead.split.inProjWeight, torch.inProjWeight));
    const attn::Expected<attn::MultiHeadResult> alone =
        attn::computeMultiHead(session.inputs().matrix(MatrixId::X), torch, session.inputs().options);
    QVERIFY(alone.ok());
    QVERIFY(same(session.published()->heads()->output, alone->output));
    QVERIFY(same(session.published()->heads()->weightsAverage, alone->weightsAverage));
    session.selectHead(3);
    QVERIFY(same(session.inputs().matrix(MatrixId::Wv), torch.head(3).Wv));
    // d_model 16 -> 32: head_dim follows.
    session.setDModel(32);
    QCOMPARE(session.inputs().config.dK, 8);
    QCOMPARE(session.published()->dK(), 8);
    QCOMPARE(session.inputs().selectedHead, 3);
    // An edit of head 4's W_q lands in in_proj_weight's row 3 * 8 + col.
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 5, 2, -0.5));
    QCOMPARE(session.inputs().multiHead.split.inProjWeight(3 * 8 + 2, 5), -0.5);
}

void TestSessionHeads::splitRefusesAnIndivisibleH()
{
    Session session;
    attn::HeadsConfig heads;
    heads.heads = 4;
    heads.layout = attn::HeadLayout::Split;
    session.setHeadsConfig(heads);
    QCOMPARE(session.published()->headCount(), 4);
    session.setHeadCount(3);
    QVERIFY(session.problem().contains(QStringLiteral("do not divide E = 16")));
    // The last good lab stays on display.
    QCOMPARE(session.published()->headCount(), 4);
    QCOMPARE(session.published()->dK(), 4);
    session.setHeadCount(8);
    QVERIFY(session.problem().isEmpty());
    QCOMPARE(session.published()->dK(), 2);
}

void TestSessionHeads::undoCoversHeadsAndEdits()
{
    Session session;
    QUndoStack stack;
    UndoRecorder recorder(&session, &stack);
    session.setHeadCount(3);
    QCOMPARE(stack.count(), 1);
    QCOMPARE(stack.text(0), QStringLiteral("3 heads"));
    session.selectHead(2);
    QCOMPARE(stack.count(), 1);  // choosing a head is not an edit
    const double drawn = session.inputs().matrix(MatrixId::Wv)(1, 1);
    QVERIFY(session.setMatrixCell(MatrixId::Wv, 1, 1, 9.0));
    QCOMPARE(stack.count(), 2);
    QCOMPARE(stack.text(1), QStringLiteral("Edit W_v(2, 2) of head 3"));
    session.selectHead(0);
    stack.undo();
    QCOMPARE(session.published()->headCount(), 3);
    QCOMPARE(session.inputs().selectedHead, 0);  // the user's choice stays
    QCOMPARE(session.inputs().multiHead.head(2).Wv(1, 1), drawn);
    QCOMPARE(session.inputs().editedCells, 0);
    stack.undo();
    QVERIFY(!session.published()->heads());
    QCOMPARE(session.published()->headCount(), 1);
    stack.redo();
    stack.redo();
    QCOMPARE(session.published()->headCount(), 3);
    QCOMPARE(session.inputs().multiHead.head(2).Wv(1, 1), 9.0);
    QCOMPARE(session.inputs().editedCells, 1);
}

// Typed cells are CellCommands (two values, no copy of the lab), each in
// its own head; undo and redo set them in that head while the head shown
// stays the user's, and a later snapshot step starts from the cells as they
// are.
void TestSessionHeads::cellStepsKeepTheirHead()
{
    Session session;
    QUndoStack stack;
    UndoRecorder recorder(&session, &stack);
    attn::HeadsConfig split;
    split.heads = 4;
    split.layout = attn::HeadLayout::Split;
    session.setHeadsConfig(split);
    QCOMPARE(stack.count(), 1);
    const double drawnX = session.inputs().model.X(0, 0);
    QVERIFY(drawnX != 0.5);
    QVERIFY(session.setMatrixCell(MatrixId::X, 0, 0, 0.5));  // from the seed's draw
    QCOMPARE(stack.count(), 2);
    const auto* fromDraw = dynamic_cast<const CellCommand*>(stack.command(1));
    QVERIFY(fromDraw);
    QVERIFY(fromDraw->fromDraw());
    QCOMPARE(fromDraw->text(), QStringLiteral("Edit X(1, 1)"));
    // The recorder keeps the cell over the draw, not the matrices.
    QVERIFY(recorder.current().drawn);
    QCOMPARE(int(recorder.current().cells.size()), 1);
    QCOMPARE(recorder.current().cells[0].value, 0.5);
    session.selectHead(2);
    const attn::Matrix inProj = session.inputs().multiHead.split.inProjWeight;
    const double k = session.inputs().matrix(MatrixId::Wk)(3, 1);
    QVERIFY(session.setMatrixCell(MatrixId::Wk, 3, 1, -2.0));
    session.selectHead(0);
    const double q = session.inputs().matrix(MatrixId::Wq)(0, 2);
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 0, 2, 3.0));
    QCOMPARE(stack.count(), 4);
    const auto* first = dynamic_cast<const CellCommand*>(stack.command(2));
    QVERIFY(first);
    QCOMPARE(first->text(), QStringLiteral("Edit W_k(4, 2) of head 3"));
    QCOMPARE(first->edit().before, k);
    QCOMPARE(stack.text(3), QStringLiteral("Edit W_q(1, 3) of head 1"));
    // W_k^3(3, 1) is in_proj_weight(E + 2 * head_dim + 1, 3) (E = 16, head_dim 4).
    QCOMPARE(session.inputs().multiHead.split.inProjWeight(16 + 8 + 1, 3), -2.0);

    session.selectHead(1);
    stack.undo();
    stack.undo();
    QCOMPARE(session.inputs().selectedHead, 1);
    QVERIFY(same(session.inputs().multiHead.split.inProjWeight, inProj));
    QCOMPARE(session.inputs().model.X(0, 0), 0.5);
    // The shown head's result is the whole pass's over the restored cells.
    const attn::MultiHeadResult whole = *attn::computeMultiHead(
        session.inputs().model.X, session.inputs().multiHead.split, session.inputs().options);
    QVERIFY(same(session.published()->heads()->output, whole.output));
    QVERIFY(same(session.published()->shown()->scores, whole.heads[1].scores));
    stack.redo();
    QCOMPARE(session.inputs().selectedHead, 1);
    QCOMPARE(session.inputs().multiHead.head(2).Wk(3, 1), -2.0);
    QCOMPARE(session.inputs().multiHead.head(0).Wq(0, 2), q);

    // The next step's "before" holds the cells as they are now.
    session.setHeadCount(2);
    QCOMPARE(stack.count(), 4);  // the redone W_q step was dropped by the new step
    stack.undo();
    QCOMPARE(session.published()->headCount(), 4);
    QCOMPARE(session.inputs().multiHead.head(2).Wk(3, 1), -2.0);
    QCOMPARE(session.inputs().multiHead.head(0).Wq(0, 2), q);
    QCOMPARE(session.inputs().model.X(0, 0), 0.5);

    // Undoing the first cell goes back to the seed's draw: no cell counts as
    // edited, as after a snapshot step; redo types it again.
    stack.undo();
    QCOMPARE(session.inputs().multiHead.head(2).Wk(3, 1), k);
    stack.undo();
    QCOMPARE(stack.index(), 1);
    QCOMPARE(session.inputs().model.X(0, 0), drawnX);
    QCOMPARE(session.inputs().editedCells, 0);
    QVERIFY(recorder.current().drawn);
    QVERIFY(recorder.current().cells.empty());
    QCOMPARE(session.published()->headCount(), 4);
    QCOMPARE(session.inputs().selectedHead, 1);
    stack.redo();
    QCOMPARE(session.inputs().model.X(0, 0), 0.5);
    QCOMPARE(session.inputs().editedCells, 1);
    QCOMPARE(session.inputs().selectedHead, 1);
    QCOMPARE(stack.count(), 4);
}

// A snapshot step and the recorder share the lab it recorded; a cell typed
// afterwards changes the recorder's copy only, so undoing both and redoing
// the step gives the lab as the step left it, and redoing the cell again.
// (A lab whose W_v was imported whole: its snapshots hold the matrices.)
void TestSessionHeads::stepsKeepTheirSnapshots()
{
    Session session;
    QUndoStack stack;
    UndoRecorder recorder(&session, &stack);
    session.setHeadCount(3);
    session.selectHead(1);
    QVERIFY(
        session.setMatrix(MatrixId::Wv, attn::Matrix(session.inputs().matrix(MatrixId::Wv).array() + 0.5)));
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 1, 2, 4.0));
    QVERIFY(!recorder.current().drawn);                   // the lab holds matrices now
    session.setCausal(!session.inputs().options.causal);  // a snapshot step of the whole lab
    const int afterStep = stack.count();
    const double x = session.inputs().model.X(1, 1);
    QVERIFY(session.setMatrixCell(MatrixId::X, 1, 1, -3.0));
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 0, 0, 5.0));
    QCOMPARE(stack.count(), afterStep + 2);
    // The step's own snapshot is as the step left it.
    const auto* step = dynamic_cast<const SnapshotCommand*>(stack.command(afterStep - 1));
    QVERIFY(step);
    QCOMPARE(step->text(), QStringLiteral("Causal mask on"));
    QCOMPARE(step->after().lab.X(1, 1), x);
    QCOMPARE(step->after().lab.multiHead.head(1).Wq(1, 2), 4.0);
    QVERIFY(step->after().lab.multiHead.head(1).Wq(0, 0) != 5.0);
    stack.undo();
    stack.undo();
    stack.undo();  // the mask step
    QCOMPARE(session.inputs().model.X(1, 1), x);
    stack.redo();  // the mask step: its lab, without the cells typed after it
    QCOMPARE(session.inputs().model.X(1, 1), x);
    QVERIFY(session.inputs().multiHead.head(1).Wq(0, 0) != 5.0);
    QCOMPARE(session.inputs().multiHead.head(1).Wq(1, 2), 4.0);
    stack.redo();
    stack.redo();
    QCOMPARE(session.inputs().model.X(1, 1), -3.0);
    QCOMPARE(session.inputs().multiHead.head(1).Wq(0, 0), 5.0);
    // A step after the cells starts from them.
    session.setCausal(!session.inputs().options.causal);
    stack.undo();
    QCOMPARE(session.inputs().model.X(1, 1), -3.0);
    QCOMPARE(session.inputs().multiHead.head(1).Wq(0, 0), 5.0);
}

// A seed step computed by the worker (320 tokens, 2 heads of 32) with a
// typed cell kept: one undo step, made when the redraw came, that takes the
// seed and the cell's draw back together.
void TestSessionHeads::redrawInFlightIsOneStep()
{
    Session session;
    QUndoStack stack;
    UndoRecorder recorder(&session, &stack);
    attn::ModelConfig config;
    QStringList words;
    for (int i = 0; i < 320; ++i)
        words << QStringLiteral("w%1").arg(i);
    config.sentence = words.join(QLatin1Char(' ')).toStdString();
    config.dModel = 64;
    attn::HeadsConfig split;
    split.heads = 2;
    split.layout = attn::HeadLayout::Split;
    session.setParameters(config, attn::AttentionOptions(), split);
    session.waitForResult();
    QVERIFY(session.problem().isEmpty());
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 0, 0, 3.0));
    session.waitForResult();
    const int steps = stack.count();
    const attn::Matrix x = session.inputs().model.X;
    session.setSeed(124);
    QVERIFY(session.isRedrawing());
    QCOMPARE(stack.count(), steps);  // nothing yet: the matrices are the old seed's
    session.waitForResult();
    QCOMPARE(stack.count(), steps + 1);
    QCOMPARE(stack.text(steps), QStringLiteral("Seed 124"));
    QCOMPARE(session.inputs().multiHead.head(0).Wq(0, 0), 3.0);  // the typed cell kept
    QVERIFY(!same(session.inputs().model.X, x));
    stack.undo();
    session.waitForResult();
    QCOMPARE(session.inputs().config.seed, std::uint64_t(123));
    QVERIFY(same(session.inputs().model.X, x));
    QCOMPARE(session.inputs().multiHead.head(0).Wq(0, 0), 3.0);
}

void TestSessionHeads::stateRoundTrip()
{
    Session a;
    attn::HeadsConfig heads;
    heads.heads = 2;
    heads.outputProjection = true;
    a.setHeadsConfig(heads);
    a.selectHead(1);
    QVERIFY(a.setMatrixCell(MatrixId::Wq, 0, 0, 1.5));
    const LabState state = a.inputs().state();
    QCOMPARE(state.heads, heads);
    QCOMPARE(state.selectedHead, 1);
    Session b;
    QSignalSpy selected(&b, &Session::headSelected);
    QVERIFY(b.setState(state));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(b.inputs().selectedHead, 1);
    QCOMPARE(b.inputs().heads, heads);
    QCOMPARE(b.inputs().editedCells, 1);
    QVERIFY(same(b.published()->heads()->output, a.published()->heads()->output));
    QVERIFY(same(b.published()->heads()->concat, a.published()->heads()->concat));
    QCOMPARE(b.published()->heads()->output.cols(), 16);  // W_o (2 d_v, d_model)
    // A wrong shape for the selected head is refused, nothing changed.
    LabState wrong = state;
    wrong.Wq = attn::Matrix::Zero(16, 3);
    QVERIFY(!b.setState(wrong));
    QCOMPARE(b.inputs().selectedHead, 1);
    QCOMPARE(b.inputs().matrix(MatrixId::Wq)(0, 0), 1.5);
}

void TestSessionHeads::largeWorkInTheWorker()
{
    Session session;
    const auto [config, heads] = testconfigs::largeSplitHeads();
    QSignalSpy results(&session, &Session::resultChanged);
    session.setParameters(config, {}, heads);
    QVERIFY(session.isComputing());
    QVERIFY(results.wait(60000));
    QCOMPARE(session.published()->headCount(), 8);
    QCOMPARE(session.published()->tokenCount(), 600);
    const attn::Expected<attn::MultiHeadResult> alone = attn::computeMultiHead(
        session.inputs().matrix(MatrixId::X), session.inputs().multiHead.split, session.inputs().options);
    QVERIFY(alone.ok());
    QVERIFY(same(session.published()->heads()->weightsAverage, alone->weightsAverage));
    QVERIFY(same(session.published()->heads()->output, alone->output));
    // A cell edit at this size is the worker's too.
    session.selectHead(5);
    const auto beforeEdit = session.published()->heads();
    QCOMPARE(session.published()->headsChangedSince(beforeEdit.get()),
             std::optional<std::vector<int>>(std::vector<int>()));
    QVERIFY(session.setMatrixCell(MatrixId::Wk, 3, 1, 0.25));
    QVERIFY(session.isComputing());
    QVERIFY(results.wait(60000));
    // The views redraw head 5, whose numbers are new, and keep the others'.
    QCOMPARE(session.published()->headsChangedSince(beforeEdit.get()),
             std::optional<std::vector<int>>(std::vector<int>{5}));
    for (int i : {0, 1, 2, 3, 4, 6, 7})
        QVERIFY(
            sameHead(session.published()->heads()->heads[std::size_t(i)], beforeEdit->heads[std::size_t(i)]));
    QCOMPARE(session.inputs().selectedHead, 5);
    QCOMPARE(session.inputs().matrix(MatrixId::Wk)(3, 1), 0.25);
    const attn::HeadWeights w = session.inputs().multiHead.head(5);
    QCOMPARE(w.Wk(3, 1), 0.25);
    // The head shown is head 5 (the preview sent ahead of it, or head 5 itself).
    QVERIFY(sameHead(*session.published()->shown(), session.published()->heads()->heads[5]));
    // Two heads edited while the first edit computes: head 6's alone,
    // superseded by heads 6 and 3 over the same result. The numbers are
    // the whole pass's over the edited parameters, bit for bit.
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 0, 0, 1.5));
    session.selectHead(2);
    QVERIFY(session.setMatrixCell(MatrixId::Wv, 7, 7, -1.5));
    QVERIFY(session.isComputing());
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), 60000);
    QCOMPARE(session.inputs().multiHead.head(5).Wq(0, 0), 1.5);
    QCOMPARE(session.inputs().multiHead.head(2).Wv(7, 7), -1.5);
    const attn::Expected<attn::MultiHeadResult> whole = attn::computeMultiHead(
        session.inputs().matrix(MatrixId::X), session.inputs().multiHead.split, session.inputs().options);
    QVERIFY(whole.ok());
    const auto shown = session.published()->heads();
    QVERIFY(same(shown->output, whole->output));
    QVERIFY(same(shown->weightsAverage, whole->weightsAverage));
    for (int i = 0; i < 8; ++i)
        QVERIFY(same(shown->heads[std::size_t(i)].scores, whole->heads[std::size_t(i)].scores));
    QCOMPARE(session.inputs().editedCells, 3);
    // A seed step draws every head again.
    session.setSeed(session.inputs().config.seed + 1);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), 60000);
    QVERIFY(session.published()->heads() != shown);
    QVERIFY(!session.published()->headsChangedSince(shown.get()));
}

namespace {

// What one step of a large session showed: the preview (if one came before
// the result) and the order of the two signals.
struct StepSeen {
    std::shared_ptr<const attn::AttentionResult> preview;
    QStringList order;
};

// Connected for as long as `context` lives.
void watchStep(Session* session, StepSeen* seen, QObject* context)
{
    QObject::connect(session, &Session::previewChanged, context, [session, seen] {
        seen->order.append(session->requests().preview() ? QStringLiteral("preview")
                                                         : QStringLiteral("dropped"));
        if (session->requests().preview()) {
            seen->preview = session->requests().preview();
            // What the maps read meanwhile.
            QCOMPARE(session->shownResult(), session->requests().preview());
            QVERIFY(session->isComputing());
        }
    });
    QObject::connect(session, &Session::resultChanged, context, [session, seen] {
        seen->order.append(QStringLiteral("result"));
        QVERIFY(!session->requests().preview());
    });
}

}  // namespace

void TestSessionHeads::theSelectedHeadComesFirst()
{
    if (!attn::headAloneExact(attn::HeadLayout::Split))
        QSKIP("The split layout's head alone is not bit for bit the pass's head without the AVX2 kernels.");
    Session session;
    const auto [config, heads] = testconfigs::largeSplitHeads();
    QSignalSpy results(&session, &Session::resultChanged);
    session.setParameters(config, {}, heads);
    QVERIFY(results.wait(60000));
    session.selectHead(5);
    QVERIFY(session.setMatrixCell(MatrixId::X, 2, 2, 0.5));  // a user's cell the seed step keeps
    QVERIFY(results.wait(60000));

    // A cell of the selected head: that head alone first, then the whole pass.
    {
        StepSeen seen;
        QObject context;
        watchStep(&session, &seen, &context);
        QVERIFY(session.setMatrixCell(MatrixId::Wq, 3, 1, 0.25));
        QVERIFY(results.wait(60000));
        QCOMPARE(seen.order, QStringList({"preview", "result"}));
        QVERIFY(seen.preview);
        // The result's head is the preview itself, and its numbers are the
        // engine's whole pass's head 5 over the edited weights.
        QCOMPARE(&*session.published()->shown(), seen.preview.get());
        QCOMPARE(session.shownResult(), session.published()->shown());
        const attn::Expected<attn::MultiHeadResult> whole = attn::computeMultiHead(
            session.inputs().matrix(MatrixId::X), session.inputs().multiHead.split, session.inputs().options);
        QVERIFY(whole.ok());
        QCOMPARE(session.inputs().multiHead.head(5).Wq(3, 1), 0.25);
        QVERIFY(sameHead(*seen.preview, whole->heads[5]));
        QVERIFY(sameHead(session.published()->heads()->heads[5], whole->heads[5]));
    }
    // Not wanted (the Heads tab): the whole pass alone.
    {
        StepSeen seen;
        QObject context;
        watchStep(&session, &seen, &context);
        session.requests().setPreviewWanted(false);
        QVERIFY(session.setMatrixCell(MatrixId::Wq, 3, 2, -0.25));
        QVERIFY(results.wait(60000));
        QCOMPARE(seen.order, QStringList({"result"}));
        session.requests().setPreviewWanted(true);
    }
    // A seed step: X and head 5 drawn alone, with the user's cells laid back.
    {
        StepSeen seen;
        QObject context;
        watchStep(&session, &seen, &context);
        session.setSeed(session.inputs().config.seed + 1);
        QVERIFY(results.wait(60000));
        QCOMPARE(seen.order, QStringList({"preview", "result"}));
        QCOMPARE(session.inputs().matrix(MatrixId::X)(2, 2), 0.5);
        QCOMPARE(session.inputs().multiHead.head(5).Wq(3, 1), 0.25);
        const attn::Expected<attn::MultiHeadResult> whole = attn::computeMultiHead(
            session.inputs().matrix(MatrixId::X), session.inputs().multiHead.split, session.inputs().options);
        QVERIFY(whole.ok());
        QVERIFY(sameHead(*seen.preview, whole->heads[5]));
        QCOMPARE(&*session.published()->shown(), seen.preview.get());
    }
    // The Article's draw is one stream: no head alone, so no preview.
    {
        StepSeen seen;
        QObject context;
        watchStep(&session, &seen, &context);
        attn::ModelConfig article = session.inputs().config;
        article.init = attn::InitMode::Article;
        session.setParameters(article, session.inputs().options, session.inputs().heads);
        QVERIFY(results.wait(60000));
        QCOMPARE(seen.order, QStringList({"result"}));
    }
}

void TestSessionHeads::oneHeadAgainIsTheSingleHead()
{
    Session session;
    const attn::Matrix single = session.published()->shown()->weightsMatrix();
    session.setHeadCount(3);
    QVERIFY(!same(session.published()->shown()->weightsMatrix(), single));
    session.setHeadCount(1);
    QVERIFY(!session.published()->heads());
    QCOMPARE(session.published()->headCount(), 1);
    QVERIFY(same(session.published()->shown()->weightsMatrix(), single));
    const attn::Expected<attn::Model> model = attn::buildModel(session.inputs().config);
    QVERIFY(same(session.inputs().matrix(MatrixId::Wq), model->Wq));
    QVERIFY(session.inputs().state().multiHead.headCount() == 0);
}

namespace {

// The session's lab is the seed's fresh draw for its config with the
// user's cells of X laid over it, and shows the engine's whole pass over it.
void checkDrawnWithCells(const Session& session, const std::vector<std::pair<int, double>>& diagonal)
{
    attn::Expected<attn::Model> model = attn::buildModel(session.inputs().config);
    QVERIFY(model.ok());
    for (const auto& [i, value] : diagonal)
        model->X(i, i) = value;
    QVERIFY(same(session.inputs().matrix(MatrixId::X), model->X));
    const attn::SplitHeads split =
        attn::packSplitHeads(attn::drawIndependentHeads(session.inputs().config, 8));
    QVERIFY(same(session.inputs().multiHead.split.inProjWeight, split.inProjWeight));
    QVERIFY(same(session.inputs().multiHead.split.outProjWeight, split.outProjWeight));
    const attn::Expected<attn::MultiHeadResult> whole =
        attn::computeMultiHead(model->X, split, session.inputs().options);
    QVERIFY(whole.ok());
    const auto shown = session.published()->heads();
    QVERIFY(same(shown->output, whole->output));
    QVERIFY(same(shown->weightsAverage, whole->weightsAverage));
    for (int i = 0; i < 8; ++i)
        QVERIFY(sameHead(shown->heads[std::size_t(i)], whole->heads[std::size_t(i)]));
}

}  // namespace

// After a seed step by one the worker computes the next step ahead; the
// next step takes it, with the numbers of a fresh draw of that seed (the
// user's cells laid over it); anything else changed drops it.
void TestSessionHeads::aSeedStepLooksOneStepAhead()
{
    Session session;
    const auto [config, heads] = testconfigs::largeSplitHeads();
    QSignalSpy results(&session, &Session::resultChanged);
    session.setParameters(config, {}, heads);
    QVERIFY(results.wait(60000));
    QVERIFY(session.setMatrixCell(MatrixId::X, 2, 2, 0.5));
    QVERIFY(results.wait(60000));
    const std::uint64_t seed = session.inputs().config.seed;
    // A seed set, not stepped: nothing is looked ahead.
    session.setSeed(seed + 5);
    QVERIFY(results.wait(60000));
    QTest::qWait(300);
    QVERIFY(!session.requests().lookAheadReady());
    session.setSeed(seed);
    QVERIFY(results.wait(60000));

    // Up: seed + 1, then seed + 2 from the look-ahead.
    session.setSeed(seed + 1);
    QVERIFY(results.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(session.requests().lookAheadReady(), 60000);
    const int taken = session.requests().lookAheadsTaken();
    session.setSeed(seed + 2);
    QVERIFY(results.wait(60000));
    QCOMPARE(session.requests().lookAheadsTaken(), taken + 1);
    QCOMPARE(session.inputs().config.seed, seed + 2);
    checkDrawnWithCells(session, {{2, 0.5}});

    // Another cell typed meanwhile: the look-ahead of seed + 3 is dropped
    // and the step draws with both cells.
    QTRY_VERIFY_WITH_TIMEOUT(session.requests().lookAheadReady(), 60000);
    QVERIFY(session.setMatrixCell(MatrixId::X, 3, 3, -0.25));
    QVERIFY(!session.requests().lookAheadReady());
    QVERIFY(results.wait(60000));
    session.setSeed(seed + 3);
    QVERIFY(results.wait(60000));
    QCOMPARE(session.requests().lookAheadsTaken(), taken + 1);
    checkDrawnWithCells(session, {{2, 0.5}, {3, -0.25}});

    // Down: the look-ahead follows the step's direction.
    session.setSeed(seed + 2);
    QVERIFY(results.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(session.requests().lookAheadReady(), 60000);
    session.setSeed(seed + 1);
    QVERIFY(results.wait(60000));
    QCOMPARE(session.requests().lookAheadsTaken(), taken + 2);
    QCOMPARE(session.inputs().config.seed, seed + 1);
    checkDrawnWithCells(session, {{2, 0.5}, {3, -0.25}});

    // Stepped again at once, the look-ahead taken in flight (or not yet
    // started): that seed's numbers all the same, and no request dropped.
    QSignalSpy dropped(&session, &Session::resultDropped);
    session.setSeed(seed);
    QVERIFY(results.wait(60000));
    QCoreApplication::processEvents();  // the paint's note: the look-ahead starts
    session.setSeed(seed - 1);
    QTRY_VERIFY_WITH_TIMEOUT(!session.isComputing(), 60000);
    QCOMPARE(session.inputs().config.seed, seed - 1);
    QCOMPARE(dropped.count(), 0);
    checkDrawnWithCells(session, {{2, 0.5}, {3, -0.25}});

    // Turned off, none is kept.
    QTRY_VERIFY_WITH_TIMEOUT(session.requests().lookAheadReady(), 60000);
    session.requests().setLookAheadWanted(false);
    QVERIFY(!session.requests().lookAheadReady());
}

QTEST_MAIN(TestSessionHeads)
#include "tst_sessionheads.moc"
