// SPDX-License-Identifier: GPL-3.0-or-later
// The undo history's snapshots of a lab whose matrices are the seed's draw
// with some of the user's cells: they keep the cells (LabSnapshot::cells),
// not the matrices, and undo and redo give every state back bit for bit
// (X, every head's parameters, the single head's W_q, W_k, W_v), through
// seed steps that keep the cells, cells in several heads and parameter
// changes; a lab that is not the draw with a few cells (a matrix imported
// whole, a module's own biases) keeps its matrices as before.
#include "session.h"
#include "undocommands.h"
#include "undorecorder.h"

#include "headparams.h"
#include "matrix.h"
#include "testconfigs.h"

#include <QUndoStack>
#include <QtTest>

#include <vector>

using namespace attnlab;

Q_DECLARE_METATYPE(attn::HeadsConfig)

namespace {

// The same lab to the bit: parameters, X and the weights (every head's with
// several; W_q, W_k, W_v are then the selected head's copy, and the head
// selected is the user's choice, not the history's).
bool sameLab(const LabState& a, const LabState& b)
{
    if (!(a.config == b.config) || !(a.options == b.options) || a.heads != b.heads
        || !attn::sameBits(a.X, b.X))
        return false;
    if (!a.heads.multiHead())
        return attn::sameBits(a.Wq, b.Wq) && attn::sameBits(a.Wk, b.Wk) && attn::sameBits(a.Wv, b.Wv);
    const attn::MultiHeadParams& p = a.multiHead;
    const attn::MultiHeadParams& q = b.multiHead;
    if (p.layout != q.layout || p.headCount() != q.headCount())
        return false;
    if (p.layout == attn::HeadLayout::Split)
        return attn::sameBits(p.split.inProjWeight, q.split.inProjWeight)
               && attn::sameBits(p.split.inProjBias, q.split.inProjBias)
               && attn::sameBits(p.split.outProjWeight, q.split.outProjWeight)
               && attn::sameBits(p.split.outProjBias, q.split.outProjBias);
    for (int i = 0; i < p.headCount(); ++i) {
        const attn::HeadWeights x = p.head(i), y = q.head(i);
        if (!attn::sameBits(x.Wq, y.Wq) || !attn::sameBits(x.Wk, y.Wk) || !attn::sameBits(x.Wv, y.Wv))
            return false;
    }
    return attn::sameBits(p.independent.Wo, q.independent.Wo);
}

// The recorder's snapshot of the session now, made into a lab, is the
// session's state.
bool snapshotIsTheState(const UndoRecorder& recorder, const Session& session)
{
    const attn::Expected<LabState> lab = snapshotLab(recorder.current());
    return lab && sameLab(lab.value(), session.inputs().state());
}

// Every step of `stack` holds no matrices.
bool noMatricesKept(const QUndoStack& stack)
{
    for (int i = 0; i < stack.count(); ++i)
        if (const auto* step = dynamic_cast<const SnapshotCommand*>(stack.command(i)))
            for (const LabSnapshot* s : {&step->before(), &step->after()})
                if (s->lab.X.size() != 0 || s->lab.Wq.size() != 0 || s->lab.multiHead.headCount() != 0)
                    return false;
    return true;
}

}  // namespace

class TestUndoRecorder : public QObject {
    Q_OBJECT
private slots:
    void cellsOverTheDrawGiveEveryStateBack_data();
    void cellsOverTheDrawGiveEveryStateBack();
    void seedStepsOfAnEditedLabInTheWorker();
    void labsOtherThanTheDrawKeepTheirMatrices();
};

void TestUndoRecorder::cellsOverTheDrawGiveEveryStateBack_data()
{
    QTest::addColumn<attn::HeadsConfig>("heads");
    QTest::addColumn<int>("init");  // attn::InitMode
    const int unitVariance = int(attn::InitMode::UnitVariance);
    QTest::newRow("one head") << attn::HeadsConfig() << unitVariance;
    QTest::newRow("one head, article") << attn::HeadsConfig() << int(attn::InitMode::Article);
    attn::HeadsConfig independent;
    independent.heads = 3;
    independent.outputProjection = true;
    QTest::newRow("3 independent heads, W_o") << independent << unitVariance;
    QTest::newRow("3 independent heads, W_o, article") << independent << int(attn::InitMode::Article);
    attn::HeadsConfig split;
    split.heads = 4;
    split.layout = attn::HeadLayout::Split;
    QTest::newRow("4 split heads") << split << unitVariance;
    split.torchInit = true;
    QTest::newRow("4 split heads, torch-mha") << split << unitVariance;
}

void TestUndoRecorder::cellsOverTheDrawGiveEveryStateBack()
{
    QFETCH(attn::HeadsConfig, heads);
    QFETCH(int, init);
    Session session;
    attn::ModelConfig config;
    config.sentence = testconfigs::numberedSentence(12);
    config.init = attn::InitMode(init);
    config.dModel = 16;
    config.dK = config.dV = 4;
    session.setParameters(config, attn::AttentionOptions(), heads);
    QVERIFY(session.problem().isEmpty());
    QUndoStack stack;
    UndoRecorder recorder(&session, &stack);
    const bool multi = heads.multiHead();

    // The state after each step, as the session holds it then.
    std::vector<LabState> states{session.inputs().state()};
    const auto step = [&] {
        QVERIFY(session.problem().isEmpty());
        QCOMPARE(stack.index(), int(states.size()));
        QVERIFY(snapshotIsTheState(recorder, session));
        QVERIFY(recorder.current().drawn);
        QCOMPARE(int(recorder.current().cells.size()), session.inputs().editedCells);
        states.push_back(session.inputs().state());
    };
    QVERIFY(session.setMatrixCell(MatrixId::X, 2, 3, 0.5));  // over the draw
    step();
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 1, 1, -1.25));
    step();
    QVERIFY(session.setMatrixCell(MatrixId::X, 2, 3, -0.0));  // the same cell again
    step();
    session.setSeed(124);  // the cells kept over the new draw
    step();
    QCOMPARE(session.inputs().editedCells, 2);
    QCOMPARE(int(recorder.current().cells.size()), 2);
    if (multi) {
        session.selectHead(2);
        QVERIFY(session.setMatrixCell(MatrixId::Wk, 0, 2, 2.0));  // a second head's cell
        step();
        session.selectHead(1);  // the cells of heads 1 and 3 read from the draw's differences
        QVERIFY(snapshotIsTheState(recorder, session));
    }
    session.setCausal(true);
    step();
    session.setSeed(125);
    step();
    QVERIFY(session.setMatrixCell(MatrixId::Wv, 3, 0, 7.0));
    step();
    // W_q and W_k grow (in the split layout with d_model); their cells stay.
    if (heads.layout == attn::HeadLayout::Split)
        session.setDModel(20);
    else
        session.setDK(6);
    step();
    QVERIFY(noMatricesKept(stack));

    const int shown = session.inputs().selectedHead;
    for (int i = int(states.size()) - 2; i >= 0; --i) {
        stack.undo();
        QCOMPARE(stack.index(), i);
        QVERIFY2(sameLab(session.inputs().state(), states[std::size_t(i)]),
                 qPrintable(QStringLiteral("undo to %1").arg(i)));
        QCOMPARE(session.inputs().selectedHead, shown);
        QVERIFY(snapshotIsTheState(recorder, session));
    }
    QCOMPARE(session.inputs().editedCells, 0);
    for (int i = 1; i < int(states.size()); ++i) {
        stack.redo();
        QVERIFY2(sameLab(session.inputs().state(), states[std::size_t(i)]),
                 qPrintable(QStringLiteral("redo to %1").arg(i)));
    }
    // The result is the pass over the restored parameters.
    const LabState last = session.inputs().state();
    Session fresh;
    QVERIFY(fresh.setState(last));
    QVERIFY(attn::sameBits(fresh.published()->shown()->scores, session.published()->shown()->scores));
    QVERIFY(attn::sameBits(fresh.published()->shown()->context, session.published()->shown()->context));
}

// The window's case: a seed step of an edited 600-token lab of 8 split
// heads is computed in the worker; its step keeps the cells, not the lab.
void TestUndoRecorder::seedStepsOfAnEditedLabInTheWorker()
{
    Session session;
    session.requests().setLookAheadWanted(false);
    QUndoStack stack;
    UndoRecorder recorder(&session, &stack);
    const testconfigs::SplitHeads large = testconfigs::largeSplitHeads();
    session.setParameters(large.config, attn::AttentionOptions(), large.heads);
    session.waitForResult();
    session.selectHead(3);
    QVERIFY(session.setMatrixCell(MatrixId::Wq, 5, 1, 0.75));
    QVERIFY(session.setMatrixCell(MatrixId::X, 599, 63, -2.5));
    session.waitForResult();
    const LabState edited = session.inputs().state();
    const int before = stack.count();
    for (int seed = 124; seed <= 126; ++seed) {
        session.setSeed(std::uint64_t(seed));
        QVERIFY(session.isRedrawing());
        QTRY_VERIFY(!session.isComputing());
        QCOMPARE(stack.count(), before + seed - 123);
        QCOMPARE(stack.text(stack.count() - 1), QStringLiteral("Seed %1").arg(seed));
        QVERIFY(snapshotIsTheState(recorder, session));
        QCOMPARE(session.inputs().multiHead.head(3).Wq(5, 1), 0.75);
        QCOMPARE(session.inputs().model.X(599, 63), -2.5);
    }
    QVERIFY(noMatricesKept(stack));
    for (int i = 0; i < 3; ++i)
        stack.undo();
    session.waitForResult();
    QVERIFY(sameLab(session.inputs().state(), edited));
}

void TestUndoRecorder::labsOtherThanTheDrawKeepTheirMatrices()
{
    // W_v imported whole: more cells than a quarter of the lab.
    Session single;
    QUndoStack stack;
    UndoRecorder recorder(&single, &stack);
    const LabState drawn = single.inputs().state();
    QVERIFY(single.setMatrix(MatrixId::Wv, attn::Matrix(drawn.Wv.array() * 0.5 + 0.25)));
    QVERIFY(!recorder.current().drawn);
    const auto* import = dynamic_cast<const SnapshotCommand*>(stack.command(stack.count() - 1));
    QVERIFY(import);
    QVERIFY(import->before().drawn);
    QVERIFY(!import->after().drawn);
    QVERIFY(sameLab(import->after().lab, single.inputs().state()));

    // A module's biases are not the draw's: no cell says so.
    Session heads;
    QUndoStack headsStack;
    UndoRecorder headsRecorder(&heads, &headsStack);
    attn::HeadsConfig split;
    split.heads = 2;
    split.layout = attn::HeadLayout::Split;
    heads.setHeadsConfig(split);
    const LabState before = heads.inputs().state();
    attn::SplitHeads module = before.multiHead.split;
    module.outProjBias(1) = 0.125;
    QVERIFY(heads.setState(withSplitHeads(before, module)));
    QVERIFY(!heads.cellsOverDraw());
    QVERIFY(!headsRecorder.current().drawn);
    const LabState imported = heads.inputs().state();
    headsStack.undo();
    QVERIFY(sameLab(heads.inputs().state(), before));
    headsStack.redo();
    QVERIFY(sameLab(heads.inputs().state(), imported));
}

QTEST_MAIN(TestUndoRecorder)
#include "tst_undorecorder.moc"
