// SPDX-License-Identifier: GPL-3.0-or-later
// The opened model follows the lab (ModelFollower, app/model): the lab's
// Session owns the sentence and the model reads it, when typed (before the
// lab redraws), set by a state and at the start; a borrowed head follows
// each new pass of the model to the same layer and head, equal to
// modelHeadState of that pass; an edited head, or a pass over another
// sentence, is left as it is.

#include "modelheadstate.h"
#include "modelsession.h"
#include "modelfollower.h"
#include "session.h"

#include <QSignalSpy>
#include <QtTest>

using namespace attnlab;

namespace {

const QString kTiny = QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");

// Waits for the model's pass over its current sentence to show.
bool passShown(ModelSession& model)
{
    QSignalSpy changed(&model, &ModelSession::resultChanged);
    return (model.result() && !model.isComputing()) || (changed.wait(10000) && !model.isComputing());
}

// A lab on the cinema sentence showing head (layer, head) of tiny-gpt2's
// pass over it, the model following the lab.
struct Borrowed {
    Session lab;
    ModelSession model;
    ModelFollower follower{&model, &lab};
    attn::Expected<LabState> first = attn::Error{"not borrowed"};

    bool borrow(int layer, int head)
    {
        lab.setSentence(QStringLiteral("Jane is going to the cinema"));
        QSignalSpy opened(&model, &ModelSession::modelOpened);
        model.openModel(kTiny);
        if (!opened.wait(10000) || !passShown(model))
            return false;
        first = modelHeadState(model, layer, head, lab);
        return first.ok() && lab.setState(first.value()).ok() && lab.inputs().borrowed.active();
    }
};

}  // namespace

class TestModelFollower : public QObject {
    Q_OBJECT
private slots:
    void theModelReadsTheLabsSentence();
    void aBorrowedHeadFollowsThePasses();
    void anEditedHeadStays();
};

void TestModelFollower::theModelReadsTheLabsSentence()
{
    Session lab;
    lab.setSentence(QStringLiteral("Jane is going"));
    ModelSession model;
    ModelFollower follower(&model, &lab);
    QCOMPARE(model.sentence(), QStringLiteral("Jane is going"));

    // Typed: the model has the sentence as the lab is told (sentenceChanged
    // comes before parametersChanged and the lab's redraw).
    QString seenFirst;
    connect(&lab, &Session::sentenceChanged, &lab, [&] { seenFirst = model.sentence(); });
    lab.setSentence(QStringLiteral("Jane is going to the cinema"));
    QCOMPARE(seenFirst, QStringLiteral("Jane is going to the cinema"));
    QCOMPARE(model.sentence(), QStringLiteral("Jane is going to the cinema"));

    // A sentence given to the model alone is the lab's again at the lab's
    // next change of parameters.
    model.setSentence(QStringLiteral("something else"));
    lab.setSeed(lab.inputs().config.seed + 1);
    QCOMPARE(model.sentence(), QStringLiteral("Jane is going to the cinema"));
}

void TestModelFollower::aBorrowedHeadFollowsThePasses()
{
    Borrowed b;
    QVERIFY(b.borrow(1, 2));
    Session& lab = b.lab;
    ModelSession& model = b.model;

    // A new sentence: the lab keeps the head, waiting, then shows the same
    // layer and head of the model's pass over it.
    lab.setSentence(QStringLiteral("Jane is going to the cinema to watch"));
    QVERIFY(lab.inputs().awaitingBorrow);
    QVERIFY(QTest::qWaitFor([&] { return !lab.inputs().awaitingBorrow; }, 10000));
    QVERIFY(lab.inputs().borrowed.active());
    QCOMPARE(lab.inputs().borrowed.layer, 1);
    QCOMPARE(lab.inputs().borrowed.head, 2);
    QCOMPARE(lab.inputs().borrowed.identity, model.model()->identity);
    const attn::Expected<LabState> now = modelHeadState(model, 1, 2, lab);
    QVERIFY(now.ok());
    QVERIFY(attn::sameBits(lab.inputs().matrix(MatrixId::X), now->X));
    QVERIFY(attn::sameBits(lab.inputs().matrix(MatrixId::Wq), now->Wq));
    QCOMPARE(int(lab.inputs().matrix(MatrixId::X).rows()), int(model.resultTokens().size()));
}

void TestModelFollower::anEditedHeadStays()
{
    Borrowed b;
    QVERIFY(b.borrow(0, 1));
    Session& lab = b.lab;
    ModelSession& model = b.model;
    QVERIFY(lab.setMatrixCell(MatrixId::Wq, 0, 0, 0.5).ok());
    QCOMPARE(lab.inputs().editedCells, 1);
    const attn::Matrix edited = lab.inputs().matrix(MatrixId::Wq);

    // A what-if divisor makes a new pass over the same sentence: the edited
    // head is the user's and stays.
    QSignalSpy changed(&model, &ModelSession::resultChanged);
    model.setScale(attn::ScaleMode::None, 1.0, ScaleScope::AllLayers);
    QVERIFY(changed.wait(10000));
    QVERIFY(lab.inputs().borrowed.active());
    QVERIFY(attn::sameBits(lab.inputs().matrix(MatrixId::Wq), edited));
    QCOMPARE(lab.inputs().options.scale, b.first->options.scale);
}

QTEST_MAIN(TestModelFollower)
#include "tst_modelfollower.moc"
