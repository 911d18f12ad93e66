// SPDX-License-Identifier: GPL-3.0-or-later
// A GPT-2 head borrowed into the lab's Session (modelHeadState): for every
// reference case of both tiny checkpoints, layer 2 head 3 (1, 2 in code)
// computed by the Session's own engine from X = [LN1(h) | 1] and
// W = [W_slice ; b_slice] equals attn::gpt2Head (Q, K, V, raw scores,
// weights, context within 1e-12 of their size) and reference.json (weights
// 1e-5 absolute, scores 1e-4 relative); the tokens are GPT-2's ids. One
// undo step to borrow it, undone and redone; a cell edited stays borrowed
// and is counted; a redraw goes back to the lab's own parameters; a new
// sentence followed waits for the model's pass and merges with it into one
// step; no model, a pass in flight or a head out of range are refused with
// the session unchanged; a borrowed lab is refused by the lab file. A head
// of GPT-2 XL's width (n_embd 1600, X 1601 wide) fits the pipeline and its
// scores equal a plain loop; an X over the entry budget is refused by name.

#include "focusbars.h"
#include "gpt2.h"
#include "gpt2folder.h"
#include "gpt2cases.h"
#include "modelheadstate.h"
#include "modelsession.h"
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

bool open(ModelSession& gpt2, const QString& path)
{
    QSignalSpy opened(&gpt2, &ModelSession::modelOpened);
    gpt2.openModel(path);
    return opened.wait(10000);
}

bool setSentence(ModelSession& gpt2, const QString& sentence)
{
    QSignalSpy changed(&gpt2, &ModelSession::resultChanged);
    gpt2.setSentence(sentence);
    return changed.wait(10000) && !gpt2.isComputing();
}

// Largest |a - b| over max(1, largest |b|).
double relDiff(const attn::Matrix& a, const attn::Matrix& b)
{
    const double size = std::max(1.0, b.size() ? b.cwiseAbs().maxCoeff() : 0.0);
    return testdata::maxAbsDiff(a, b) / size;
}

bool borrow(Session& lab, const ModelSession& gpt2, int layer, int head)
{
    const attn::Expected<LabState> state = modelHeadState(gpt2, layer, head, lab);
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
    void gpt2XlWidthFits();
};

void TestGpt2HeadState::equalsTheModelsHead()
{
    QFETCH(QString, checkpoint);
    QFETCH(int, index);
    const QJsonObject c = gpt2cases::reference(checkpoint)["cases"].toArray()[index].toObject();
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(checkpoint)));
    QVERIFY(setSentence(gpt2, c["sentence"].toString()));
    // Layer 2, head 3; the F16 checkpoint has two heads a layer: its last.
    const int h = std::min(2, gpt2.config().heads - 1);
    Session lab;
    QVERIFY(borrow(lab, gpt2, 1, h));
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().borrowed.model, checkpoint);
    QCOMPARE(lab.inputs().borrowed.layer, 1);
    QCOMPARE(lab.inputs().borrowed.head, h);
    QCOMPARE(lab.inputs().editedCells, 0);

    const attn::Gpt2Config& config = attnlab::gpt2Weights(*gpt2.model())->config;
    const int hd = config.headDim();
    const int n = int(c["token_ids"].toArray().size());
    QCOMPARE(lab.published()->tokenCount(), n);
    for (int i = 0; i < n; ++i)
        QCOMPARE(lab.published()->ids()[i], c["token_ids"].toArray()[i].toInt());
    QCOMPARE(lab.inputs().config.dModel, config.nEmbd + 1);
    QCOMPARE(lab.inputs().config.dK, hd);
    QCOMPARE(lab.inputs().config.dV, hd);
    QCOMPARE(lab.published()->dK(), hd);
    QVERIFY(lab.inputs().options.causal);
    QCOMPARE(lab.inputs().options.scale, attn::ScaleMode::SqrtDk);
    QCOMPARE(lab.published()->shown()->divisor, std::sqrt(double(hd)));
    // The bias column and the bias rows.
    const attn::Matrix& X = lab.inputs().matrix(MatrixId::X);
    QCOMPARE(X.col(config.nEmbd).minCoeff(), 1.0);
    QCOMPARE(X.col(config.nEmbd).maxCoeff(), 1.0);
    const attn::Gpt2Block& block = attnlab::gpt2Weights(*gpt2.model())->blocks[1];
    QCOMPARE(lab.inputs().matrix(MatrixId::Wq)(config.nEmbd, 0), double(block.attnBias.data[h * hd]));
    QCOMPARE(lab.inputs().matrix(MatrixId::Wv)(config.nEmbd, hd - 1),
             double(block.attnBias.data[2 * config.nEmbd + (h + 1) * hd - 1]));
    QCOMPARE(lab.inputs().matrix(MatrixId::Wk)(3, 1),
             double(block.attnWeight.data[3 * 3 * config.nEmbd + config.nEmbd + h * hd + 1]));

    const attn::Expected<attn::AttentionResult> head =
        attn::gpt2Head(*attnlab::gpt2Weights(*gpt2.model()), *gpt2.result(), 1, h);
    QVERIFY(head);
    const attn::AttentionResult& r = *lab.published()->shown();
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
        QVERIFY(std::abs(attnlab::weightRowSum(*lab.shownResult(), i) - 1.0) <= 1e-12);
    QVERIFY(lab.inputs().borrowedNotice().startsWith(
        QStringLiteral("GPT-2 layer 2, head %1 of %2").arg(h + 1).arg(checkpoint)));
}

void TestGpt2HeadState::undoAndRedo()
{
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2-lmhead-f16"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    Session lab;
    QUndoStack stack;
    UndoRecorder recorder(&lab, &stack);
    const attn::Matrix ownX = lab.inputs().matrix(MatrixId::X);
    const attn::ModelConfig own = lab.inputs().config;
    QSignalSpy notices(&lab, &Session::matrixNotice);
    QVERIFY(borrow(lab, gpt2, 1, 1));
    QCOMPARE(stack.count(), 1);
    QCOMPARE(stack.text(0), QStringLiteral("Show GPT-2 layer 2, head 2"));
    QVERIFY(!notices.isEmpty());
    QVERIFY(notices.last().at(0).toString().contains(QStringLiteral("column of ones")));
    const attn::Matrix scores = lab.published()->shown()->scores;

    stack.undo();
    QVERIFY(!lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().config.sentence, own.sentence);
    QCOMPARE(lab.inputs().config.dModel, own.dModel);
    QCOMPARE(lab.inputs().matrix(MatrixId::X), ownX);
    QVERIFY(!lab.inputs().options.causal);
    QVERIFY(notices.last().at(0).toString().isEmpty());

    stack.redo();
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().borrowed.head, 1);
    QCOMPARE(lab.published()->shown()->scores, scores);
    QCOMPARE(lab.published()->tokenCount(), 6);
    QCOMPARE(lab.published()->tokens().front(), QStringLiteral("Jane"));
    QCOMPARE(lab.published()->tokens().back(), QStringLiteral("␣cinema"));
}

void TestGpt2HeadState::editedCellsStayBorrowed()
{
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    Session lab;
    QUndoStack stack;
    UndoRecorder recorder(&lab, &stack);
    QVERIFY(borrow(lab, gpt2, 1, 2));
    const attn::Matrix before = lab.published()->shown()->scores;
    const double was = lab.inputs().matrix(MatrixId::Wq)(16, 0);  // the bias of q's first column
    QVERIFY(lab.setMatrixCell(MatrixId::Wq, 16, 0, was + 1.0));
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().editedCells, 1);
    QVERIFY(lab.inputs().borrowedNotice().contains(QStringLiteral("1 cell edited by you")));
    // q_i gains k_i's first entry: S(i, j) grows by k_j[0].
    const attn::Matrix& K = lab.published()->shown()->K;
    for (int i = 0; i < lab.published()->tokenCount(); ++i)
        for (int j = 0; j < lab.published()->tokenCount(); ++j)
            QVERIFY(std::abs(lab.published()->shown()->scores(i, j) - (before(i, j) + K(j, 0))) <= 1e-12);
    QCOMPARE(stack.count(), 2);
    stack.undo();
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().editedCells, 0);
    QCOMPARE(lab.published()->shown()->scores, before);
    QVERIFY(!lab.inputs().borrowedNotice().contains(QStringLiteral("edited")));
}

void TestGpt2HeadState::redrawGoesBackToTheOwnLab()
{
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    Session lab;
    lab.setDK(5);
    QVERIFY(borrow(lab, gpt2, 0, 1));
    QCOMPARE(lab.inputs().config.dK, 4);
    QSignalSpy notices(&lab, &Session::matrixNotice);
    lab.setSeed(7);
    QVERIFY(!lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().config.seed, quint64(7));
    QCOMPARE(lab.inputs().config.dK, 5);  // the lab's own, from before
    QCOMPARE(lab.inputs().config.dModel, 16);
    QCOMPARE(lab.inputs().config.sentence, std::string("Jane is going to the cinema"));
    QVERIFY(!lab.inputs().options.causal);
    QCOMPARE(lab.published()->tokenCount(), 6);
    QCOMPARE(lab.published()->tokens().back(), QStringLiteral("cinema"));
    QVERIFY(!notices.isEmpty());
    QVERIFY(notices.last().at(0).toString().isEmpty());
    QCOMPARE(lab.inputs().borrowedNotice(), QString());
}

void TestGpt2HeadState::newSentenceFollowsTheModel()
{
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going")));
    Session lab;
    lab.setFollowsModel(true);
    QUndoStack stack;
    UndoRecorder recorder(&lab, &stack);
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QCOMPARE(stack.count(), 1);
    lab.setSentence(QStringLiteral("Jane is going to the cinema"));
    QVERIFY(lab.inputs().borrowed.active());
    QVERIFY(lab.inputs().awaitingBorrow);
    QCOMPARE(lab.published()->tokenCount(), 3);  // the head shown until the pass comes
    QCOMPARE(stack.count(), 1);
    QVERIFY(lab.inputs().borrowedNotice().contains(QStringLiteral("Waiting")));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QVERIFY(!lab.inputs().awaitingBorrow);
    QCOMPARE(lab.published()->tokenCount(), 6);
    QCOMPARE(stack.count(), 2);
    QCOMPARE(stack.text(1), QStringLiteral("Edit the sentence"));
    const attn::Expected<attn::AttentionResult> head =
        attn::gpt2Head(*attnlab::gpt2Weights(*gpt2.model()), *gpt2.result(), 1, 2);
    QVERIFY(relDiff(lab.published()->shown()->scores, head->scores) <= 1e-12);
    stack.undo();
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.published()->tokenCount(), 3);
    QCOMPARE(lab.inputs().config.sentence, std::string("Jane is going"));
    // Released (the model refused the sentence): the lab's own, at once.
    lab.setSentence(QStringLiteral("a b"));
    QVERIFY(lab.inputs().awaitingBorrow);
    lab.releaseBorrowed();
    QVERIFY(!lab.inputs().borrowed.active());
    QCOMPARE(lab.published()->tokenCount(), 2);
    QCOMPARE(lab.inputs().config.dModel, 16);
}

void TestGpt2HeadState::newSentenceWithoutFollowerLeaves()
{
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going")));
    Session lab;
    QVERIFY(borrow(lab, gpt2, 1, 2));
    lab.setSentence(QStringLiteral("Life is short"));
    QVERIFY(!lab.inputs().borrowed.active());
    QVERIFY(!lab.inputs().awaitingBorrow);
    QCOMPARE(lab.published()->tokenCount(), 3);
    QCOMPARE(lab.published()->tokens().front(), QStringLiteral("Life"));
    QCOMPARE(lab.inputs().config.dModel, 16);
}

void TestGpt2HeadState::whatIfDivisorIsTheLabsScale()
{
    ModelSession gpt2;
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane is going to the cinema")));
    gpt2.selectHead(1, 2);
    QSignalSpy changed(&gpt2, &ModelSession::resultChanged);
    QVERIFY(gpt2.setScale(attn::ScaleMode::None, 1.0, ScaleScope::ThisHead));
    QVERIFY(changed.wait(10000));
    Session lab;
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QCOMPARE(lab.inputs().options.scale, attn::ScaleMode::None);
    QCOMPARE(lab.published()->shown()->divisor, 1.0);
    QVERIFY(testdata::maxAbsDiff(lab.published()->shown()->weightsMatrix(), gpt2.head(1, 2)->weightsMatrix())
            <= 1e-12);
    QVERIFY(gpt2.setScale(attn::ScaleMode::Custom, 3.5, ScaleScope::ThisHead));
    QVERIFY(changed.wait(10000));
    QVERIFY(borrow(lab, gpt2, 1, 2));
    QCOMPARE(lab.inputs().options.scale, attn::ScaleMode::Custom);
    QCOMPARE(lab.inputs().options.customDivisor, 3.5);
    QVERIFY(testdata::maxAbsDiff(lab.published()->shown()->weightsMatrix(), gpt2.head(1, 2)->weightsMatrix())
            <= 1e-12);
    // Head 1 of the same layer kept sqrt(head_dim).
    QVERIFY(borrow(lab, gpt2, 1, 1));
    QCOMPARE(lab.inputs().options.scale, attn::ScaleMode::SqrtDk);
}

void TestGpt2HeadState::refusals()
{
    Session lab;
    const LabState own = lab.inputs().state();
    ModelSession gpt2;
    attn::Expected<LabState> none = modelHeadState(gpt2, 1, 2, lab);
    QVERIFY(!none);
    QVERIFY(QString::fromStdString(none.error().message).contains(QStringLiteral("open a model")));
    QVERIFY(open(gpt2, folder(QStringLiteral("tiny-gpt2"))));
    QVERIFY(!modelHeadState(gpt2, 1, 2, lab));  // no pass yet
    QVERIFY(setSentence(gpt2, QStringLiteral("Jane")));
    const attn::Expected<LabState> outside = modelHeadState(gpt2, 2, 0, lab);
    QVERIFY(!outside);
    QCOMPARE(QString::fromStdString(outside.error().message),
             QStringLiteral("The model has no layer 3, head 1: it has 2 layers of 4 heads."));
    QVERIFY(!modelHeadState(gpt2, 0, 4, lab));
    QVERIFY(!modelHeadState(gpt2, -1, 0, lab));
    gpt2.setSentence(QStringLiteral("Jane is"));
    QVERIFY(gpt2.isComputing());
    const attn::Expected<LabState> busy = modelHeadState(gpt2, 0, 0, lab);
    QVERIFY(!busy);
    QVERIFY(QString::fromStdString(busy.error().message).contains(QStringLiteral("still computing")));
    QCOMPARE(lab.inputs().state().X, own.X);
    QVERIFY(!lab.inputs().borrowed.active());
    QTRY_VERIFY_WITH_TIMEOUT(!gpt2.isComputing(), 10000);
    QVERIFY(borrow(lab, gpt2, 0, 0));
    const attn::Status saved = validateLabState(lab.inputs().state());
    QVERIFY(!saved);
    QVERIFY(QString::fromStdString(saved.error().message).contains(QStringLiteral("GPT-2 layer 1, head 1")));
    // An import of another shape is refused; the head stays.
    QVERIFY(!lab.setMatrix(MatrixId::Wq, attn::Matrix::Zero(17, 3)));
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().config.dK, 4);
}

namespace {

// A borrowed head as modelHeadState makes it (borrowedHeadState): X =
// [rows | 1] (n, e + 1) and W_q, W_k, W_v (e + 1, hd), of deterministic
// values in [-1, 1].
LabState wideHead(const Session& lab, int n, int e, int hd)
{
    auto original = std::make_shared<attn::Model>();
    for (int i = 0; i < n; ++i) {
        original->tokenization.tokens.push_back("t" + std::to_string(i));
        original->tokenization.ids.push_back(i);
    }
    const auto value = [](long long k) { return std::sin(0.37 * double(k) + 0.11); };
    original->X.resize(n, e + 1);
    for (int i = 0; i < n; ++i)
        for (int c = 0; c <= e; ++c)
            original->X(i, c) = c == e ? 1.0 : value(1LL * i * e + c);
    attn::Matrix* w[] = {&original->Wq, &original->Wk, &original->Wv};
    for (int m = 0; m < 3; ++m) {
        w[m]->resize(e + 1, hd);
        for (int r = 0; r <= e; ++r)
            for (int c = 0; c < hd; ++c)
                (*w[m])(r, c) = value(7919LL * (m + 1) + 1LL * r * hd + c) / 8;
    }
    return borrowedHeadState(std::move(original), QStringLiteral("gpt2-xl"), 0, 0, std::sqrt(double(hd)),
                             std::string(), lab);
}

}  // namespace

void TestGpt2HeadState::gpt2XlWidthFits()
{
    Session lab;
    const int n = 6, e = 1600, hd = 64;
    const LabState xl = wideHead(lab, n, e, hd);
    const attn::Status set = lab.setState(xl);
    QVERIFY2(set, set ? "" : set.error().message.c_str());
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().config.dModel, 1601);
    // Raw scores by a plain loop: q_i . k_j with q = x W_q, k = x W_k.
    const attn::Matrix& X = xl.X;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            double s = 0;
            for (int c = 0; c < hd; ++c) {
                double q = 0, k = 0;
                for (int r = 0; r <= e; ++r) {
                    q += X(i, r) * xl.Wq(r, c);
                    k += X(j, r) * xl.Wk(r, c);
                }
                s += q * k;
            }
            QVERIFY2(
                std::abs(lab.published()->shown()->scores(i, j) - s) <= 1e-12 * std::max(1.0, std::abs(s)),
                qPrintable(QStringLiteral("score (%1, %2): %3 against %4")
                               .arg(i)
                               .arg(j)
                               .arg(lab.published()->shown()->scores(i, j), 0, 'g', 17)
                               .arg(s, 0, 'g', 17)));
        }
        QVERIFY(std::abs(attnlab::weightRowSum(*lab.shownResult(), i) - 1.0) <= 1e-12);
    }
    QCOMPARE(lab.published()->shown()->divisor, 8.0);

    // 2620 tokens at 1601: 4,194,620 entries, over 4096 x 1024 = 4,194,304.
    Session other;
    const attn::Status tooMany = other.setState(wideHead(other, 2620, e, hd));
    QVERIFY(!tooMany);
    QCOMPARE(
        QString::fromStdString(tooMany.error().message),
        QStringLiteral("GPT-2 layer 1, head 1 does not fit the pipeline: X of 2620 tokens at d_model 1601 "
                       "would hold 4194620 entries; at most 4194304 are allowed, so at d_model 1601 at "
                       "most 2619 tokens."));
    QVERIFY(!other.inputs().borrowed.active());
}

QTEST_GUILESS_MAIN(TestGpt2HeadState)
#include "tst_gpt2headstate.moc"
