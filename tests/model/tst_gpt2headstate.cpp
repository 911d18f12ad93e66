// SPDX-License-Identifier: GPL-3.0-or-later
// A GPT-2 head borrowed into the lab's Session (gpt2HeadState): for every
// reference case of both tiny checkpoints, layer 2 head 3 (1, 2 in code)
// computed by the Session's own engine from X = [LN1(h) | 1] and
// W = [W_slice ; b_slice] equals attn::gpt2Head (Q, K, V, raw scores,
// weights, context within 1e-12 of their size) and reference.json (weights
// 1e-5 absolute, scores 1e-4 relative); the tokens are GPT-2's ids. One
// undo step to borrow it, undone and redone; a cell edited stays borrowed
// and is counted; a redraw goes back to the lab's own parameters; a new
// sentence followed waits for the model's pass and merges with it into one
// step; no model, a pass in flight or a head out of range are refused with
// the session unchanged; a borrowed lab is refused by the lab file.

#include "gpt2cases.h"
#include "gpt2headstate.h"
#include "gpt2session.h"
#include "labfile.h"
#include "session.h"
#include "testdata.h"
#include "undorecorder.h"

#include <QSignalSpy>
#include <QUndoStack>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace attnlab;

namespace {

QString folder(const QString& name)
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/") + name;
}

bool open(Gpt2Session& gpt2, const QString& path)
{
    QSignalSpy opened(&gpt2, &Gpt2Session::modelOpened);
    gpt2.openModel(path);
    return opened.wait(10000);
}

bool setSentence(Gpt2Session& gpt2, const QString& sentence)
{
    QSignalSpy changed(&gpt2, &Gpt2Session::resultChanged);
    gpt2.setSentence(sentence);
    return changed.wait(10000) && !gpt2.isComputing();
}

// Largest |a - b| over max(1, largest |b|).
double relDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    const double size = std::max(1.0, b.size() ? b.cwiseAbs().maxCoeff() : 0.0);
    return testdata::maxAbsDiff(a, b) / size;
}

bool borrow(Session& lab, const Gpt2Session& gpt2, int layer, int head)
{
    const attn::Expected<LabState> state = gpt2HeadState(gpt2, layer, head, lab);
    if (!state) {
        qWarning("%s", state.error().message.c_str());
        return false;
    }
    return bool(lab.setState(*state));
}

}  // namespace

class TestGpt2HeadState : public QObject {
    Q_OBJECT
private slots:
    void equalsTheModelsHead_data() { gpt2cases::addReferenceRows(); }
    void equalsTheModelsHead();
    void undoAndRedo();
    void editedCellsStayBorrowed();
    void redrawGoesBackToTheOwnLab();
    void newSentenceFollowsTheModel();
    void newSentenceWithoutFollowerLeaves();
    void whatIfDivisorIsTheLabsScale();
    void refusals();
};

void TestGpt2HeadState::equalsTheModelsHead()
{
    QFETCH(QString, checkpoint);
    QFETCH(int, index);
    const QJsonObject c = gpt2cases::reference(checkpoint)["cases"].toArray()[index].toObject();
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(checkpoint)));
    QVERIFY(setSentence(gpt2, c["sentence"].toString()));
    // Layer 2, head 3; the F16 checkpoint has two heads a layer: its last.
    const int h = std::min(2, gpt2.config().nHead - 1);
    Session lab;
    QVERIFY(borrow(lab, gpt2, 1, h));
    QVERIFY(lab.isBorrowed());
    QCOMPARE(lab.borrowed().model, checkpoint);
    QCOMPARE(lab.borrowed().layer, 1);
    QCOMPARE(lab.borrowed().head, h);
    QCOMPARE(lab.editedCells(), 0);

    const attn::Gpt2Config& config = gpt2.config();
    const int hd = config.headDim();
    const int n = int(c["token_ids"].toArray().size());
    QCOMPARE(lab.tokenCount(), n);
    for (int i = 0; i < n; ++i)
        QCOMPARE(lab.tokenIds()[i], c["token_ids"].toArray()[i].toInt());
    QCOMPARE(lab.config().dModel, config.nEmbd + 1);
    QCOMPARE(lab.config().dK, hd);
    QCOMPARE(lab.config().dV, hd);
    QCOMPARE(lab.resultDK(), hd);
    QVERIFY(lab.options().causal);
    QCOMPARE(lab.options().scale, attn::ScaleMode::SqrtDk);
    QCOMPARE(lab.result().divisor, std::sqrt(double(hd)));
    // The bias column and the bias rows.
    const attn::Matrix& X = lab.matrix(MatrixId::X);
    QCOMPARE(X.col(config.nEmbd).minCoeff(), 1.0);
    QCOMPARE(X.col(config.nEmbd).maxCoeff(), 1.0);
    const attn::Gpt2Block& block = gpt2.model()->checkpoint.weights.blocks[1];
    QCOMPARE(lab.matrix(MatrixId::Wq)(config.nEmbd, 0), double(block.attnBias.data[h * hd]));
    QCOMPARE(lab.matrix(MatrixId::Wv)(config.nEmbd, hd - 1),
             double(block.attnBias.data[2 * config.nEmbd + (h + 1) * hd - 1]));
    QCOMPARE(lab.matrix(MatrixId::Wk)(3, 1),
             double(block.attnWeight.data[3 * 3 * config.nEmbd + config.nEmbd + h * hd + 1]));

    const attn::Expected<attn::AttentionResult> head =
        attn::gpt2Head(gpt2.model()->checkpoint.weights, *gpt2.result(), 1, h);
    QVERIFY(head);
    const attn::AttentionResult& r = lab.result();
    QVERIFY2(relDiff(r.Q, head->Q) <= 1e-12, qPrintable(QString::number(relDiff(r.Q, head->Q))));
    QVERIFY(relDiff(r.K, head->K) <= 1e-12);
    QVERIFY(relDiff(r.V, head->V) <= 1e-12);
    QVERIFY2(relDiff(r.scores, head->scores) <= 1e-12,
             qPrintable(QString::number(relDiff(r.scores, head->scores))));
    QVERIFY(testdata::maxAbsDiff(r.weightsMatrix(), head->weightsMatrix()) <= 1e-12);
    QVERIFY(relDiff(r.context, head->context) <= 1e-12);

    const QJsonObject ref = c["layers"].toArray()[1].toObject()["heads"].toArray()[h].toObject();
    QVERIFY(testdata::maxAbsDiff(r.weightsMatrix(), testdata::toMatrix(ref["weights"])) <= 1e-5);
    const attn::Matrix scores = testdata::toMatrix(ref["scores"]);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j)
            QVERIFY2(std::abs(r.scores(i, j) - scores(i, j)) <= 1e-4 * std::max(1.0, std::abs(scores(i, j))),
                     qPrintable(QStringLiteral("score (%1, %2)").arg(i).arg(j)));
    for (int i = 0; i < n; ++i)
        QVERIFY(std::abs(lab.weightSum(i) - 1.0) <= 1e-12);
    QVERIFY(lab.borrowedNotice().startsWith(
        QStringLiteral("GPT-2 layer 2, head %1 of %2").arg(h + 1).arg(checkpoint)));
}

void TestGpt2HeadState::undoAndRedo()
{
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2-lmhead-f16"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    Session lab;
    QUndoStack stack;
    UndoRecorder recorder(&lab, &stack);
    const attn::Matrix ownX = lab.matrix(MatrixId::X);
    const attn::ModelConfig own = lab.config();
    QSignalSpy notices(&lab, &Session::matrixNotice);
    QVERIFY(borrow(lab, gpt2, 1, 1));
    QCOMPARE(stack.count(), 1);
    QCOMPARE(stack.text(0), QStringLiteral("Show GPT-2 layer 2, head 2"));
    QVERIFY(!notices.isEmpty());
    QVERIFY(notices.last().at(0).toString().contains(QStringLiteral("column of ones")));
    const attn::Matrix scores = lab.result().scores;

    stack.undo();
    QVERIFY(!lab.isBorrowed());
    QCOMPARE(lab.config().sentence, own.sentence);
    QCOMPARE(lab.config().dModel, own.dModel);
    QCOMPARE(lab.matrix(MatrixId::X), ownX);
    QVERIFY(!lab.options().causal);
    QVERIFY(notices.last().at(0).toString().isEmpty());

    stack.redo();
    QVERIFY(lab.isBorrowed());
    QCOMPARE(lab.borrowed().head, 1);
    QCOMPARE(lab.result().scores, scores);
    QCOMPARE(lab.tokenCount(), 6);
    QCOMPARE(lab.tokens().front(), QStringLiteral("Jane"));
    QCOMPARE(lab.tokens().back(), QStringLiteral("␣cinema"));
}

void TestGpt2HeadState::editedCellsStayBorrowed()
{
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    Session lab;
    QUndoStack stack;
    UndoRecorder recorder(&lab, &stack);
    QVERIFY(borrow(lab, gpt2, 1, 2));
    const attn::Matrix before = lab.result().scores;
    const double was = lab.matrix(MatrixId::Wq)(16, 0);  // the bias of q's first column
    QVERIFY(lab.setMatrixCell(MatrixId::Wq, 16, 0, was + 1.0));
    QVERIFY(lab.isBorrowed());
    QCOMPARE(lab.editedCells(), 1);
    QVERIFY(lab.borrowedNotice().contains(QStringLiteral("1 cell edited by you")));
    // q_i gains k_i's first entry: S(i, j) grows by k_j[0].
    const attn::Matrix& K = lab.result().K;
    for (int i = 0; i < lab.tokenCount(); ++i)
        for (int j = 0; j < lab.tokenCount(); ++j)
            QVERIFY(std::abs(lab.result().scores(i, j) - (before(i, j) + K(j, 0))) <= 1e-12);
    QCOMPARE(stack.count(), 2);
    stack.undo();
    QVERIFY(lab.isBorrowed());
    QCOMPARE(lab.editedCells(), 0);
    QCOMPARE(lab.result().scores, before);
    QVERIFY(!lab.borrowedNotice().contains(QStringLiteral("edited")));
}

void TestGpt2HeadState::redrawGoesBackToTheOwnLab()
{
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    Session lab;
    lab.setDK(5);
    QVERIFY(borrow(lab, gpt2, 0, 1));
    QCOMPARE(lab.config().dK, 4);
    QSignalSpy notices(&lab, &Session::matrixNotice);
    lab.setSeed(7);
    QVERIFY(!lab.isBorrowed());
    QCOMPARE(lab.config().seed, quint64(7));
    QCOMPARE(lab.config().dK, 5);  // the lab's own, from before
    QCOMPARE(lab.config().dModel, 16);
    QCOMPARE(lab.config().sentence, std::string("Jane is going to the cinema"));
    QVERIFY(!lab.options().causal);
    QCOMPARE(lab.tokenCount(), 6);
    QCOMPARE(lab.tokens().back(), QStringLiteral("cinema"));
    QVERIFY(!notices.isEmpty());
    QVERIFY(notices.last().at(0).toString().isEmpty());
    QCOMPARE(lab.borrowedNotice(), QString());
}

void TestGpt2HeadState::newSentenceFollowsTheModel()
{
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going")));
    Session lab;
    lab.setFollowsModel(true);
    QUndoStack stack;
    UndoRecorder recorder(&lab, &stack);
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QCOMPARE(stack.count(), 1);
    lab.setSentence(QStringLiteral("Jane is going to the cinema"));
    QVERIFY(lab.isBorrowed());
    QVERIFY(lab.awaitsBorrow());
    QCOMPARE(lab.tokenCount(), 3);  // the head shown until the pass comes
    QCOMPARE(stack.count(), 1);
    QVERIFY(lab.borrowedNotice().contains(QStringLiteral("Waiting")));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QVERIFY(!lab.awaitsBorrow());
    QCOMPARE(lab.tokenCount(), 6);
    QCOMPARE(stack.count(), 2);
    QCOMPARE(stack.text(1), QStringLiteral("Edit the sentence"));
    const attn::Expected<attn::AttentionResult> head =
        attn::gpt2Head(gpt2.model()->checkpoint.weights, *gpt2.result(), 1, 2);
    QVERIFY(relDiff(lab.result().scores, head->scores) <= 1e-12);
    stack.undo();
    QVERIFY(lab.isBorrowed());
    QCOMPARE(lab.tokenCount(), 3);
    QCOMPARE(lab.config().sentence, std::string("Jane is going"));
    // Released (the model refused the sentence): the lab's own, at once.
    lab.setSentence(QStringLiteral("a b"));
    QVERIFY(lab.awaitsBorrow());
    lab.releaseBorrowed();
    QVERIFY(!lab.isBorrowed());
    QCOMPARE(lab.tokenCount(), 2);
    QCOMPARE(lab.config().dModel, 16);
}

void TestGpt2HeadState::newSentenceWithoutFollowerLeaves()
{
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going")));
    Session lab;
    QVERIFY(borrow(lab, gpt2, 1, 2));
    lab.setSentence(QStringLiteral("Life is short"));
    QVERIFY(!lab.isBorrowed());
    QVERIFY(!lab.awaitsBorrow());
    QCOMPARE(lab.tokenCount(), 3);
    QCOMPARE(lab.tokens().front(), QStringLiteral("Life"));
    QCOMPARE(lab.config().dModel, 16);
}

void TestGpt2HeadState::whatIfDivisorIsTheLabsScale()
{
    Gpt2Session gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    gpt2.selectHead(1, 2);
    QSignalSpy changed(&gpt2, &Gpt2Session::resultChanged);
    QVERIFY(gpt2.setScale(attn::ScaleMode::None, 1.0, Gpt2Scope::ThisHead));
    QVERIFY(changed.wait(10000));
    Session lab;
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QCOMPARE(lab.options().scale, attn::ScaleMode::None);
    QCOMPARE(lab.result().divisor, 1.0);
    QVERIFY(testdata::maxAbsDiff(lab.result().weightsMatrix(), gpt2.head(1, 2)->weightsMatrix()) <= 1e-12);
    QVERIFY(gpt2.setScale(attn::ScaleMode::Custom, 3.5, Gpt2Scope::ThisHead));
    QVERIFY(changed.wait(10000));
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QCOMPARE(lab.options().scale, attn::ScaleMode::Custom);
    QCOMPARE(lab.options().customDivisor, 3.5);
    QVERIFY(testdata::maxAbsDiff(lab.result().weightsMatrix(), gpt2.head(1, 2)->weightsMatrix()) <= 1e-12);
    // Head 1 of the same layer kept sqrt(head_dim).
    QVERIFY(borrow(lab, gpt2, 1, 1));
    QCOMPARE(lab.options().scale, attn::ScaleMode::SqrtDk);
}

void TestGpt2HeadState::refusals()
{
    Session lab;
    const LabState own = lab.state();
    Gpt2Session gpt2;
    attn::Expected<LabState> none = gpt2HeadState(gpt2, 1, 2, lab);
    QVERIFY(!none);
    QVERIFY(QString::fromStdString(none.error().message).contains(QStringLiteral("open a model")));
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(!gpt2HeadState(gpt2, 1, 2, lab));  // no pass yet
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane")));
    const attn::Expected<LabState> outside = gpt2HeadState(gpt2, 2, 0, lab);
    QVERIFY(!outside);
    QCOMPARE(QString::fromStdString(outside.error().message),
             QStringLiteral("The model has no layer 3, head 1: it has 2 layers of 4 heads."));
    QVERIFY(!gpt2HeadState(gpt2, 0, 4, lab));
    QVERIFY(!gpt2HeadState(gpt2, -1, 0, lab));
    gpt2.setSentence(QStringLiteral("Jane is"));
    QVERIFY(gpt2.isComputing());
    const attn::Expected<LabState> busy = gpt2HeadState(gpt2, 0, 0, lab);
    QVERIFY(!busy);
    QVERIFY(QString::fromStdString(busy.error().message).contains(QStringLiteral("still computing")));
    QCOMPARE(lab.state().X, own.X);
    QVERIFY(!lab.isBorrowed());
    QTRY_VERIFY_WITH_TIMEOUT(!gpt2.isComputing(), 10000);
    QVERIFY(borrow(lab, gpt2, 0, 0));
    const attn::Status saved = validateLabState(lab.state());
    QVERIFY(!saved);
    QVERIFY(QString::fromStdString(saved.error().message).contains(QStringLiteral("GPT-2 layer 1, head 1")));
    // An import of another shape is refused; the head stays.
    QVERIFY(!lab.setMatrix(MatrixId::Wq, attn::Matrix::Zero(17, 3)));
    QVERIFY(lab.isBorrowed());
    QCOMPARE(lab.config().dK, 4);
}

QTEST_GUILESS_MAIN(TestGpt2HeadState)
#include "tst_gpt2headstate.moc"
