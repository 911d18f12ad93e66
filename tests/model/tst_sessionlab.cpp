// SPDX-License-Identifier: GPL-3.0-or-later
// A multi-head session saved as a lab file (version 2) and opened into
// another session: the same heads, the same selected head, the same
// numbers; an edited cell of the selected head survives. Both layouts.
#include "labfile.h"
#include "labheads.h"
#include "session.h"

#include "multihead.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace attnlab;

namespace {

bool same(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

}  // namespace

Q_DECLARE_METATYPE(attn::HeadsConfig)

class TestSessionLab : public QObject {
    Q_OBJECT
private slots:
    void saveThenOpen_data();
    void saveThenOpen();
};

void TestSessionLab::saveThenOpen_data()
{
    QTest::addColumn<attn::HeadsConfig>("heads");
    QTest::addColumn<int>("selected");
    attn::HeadsConfig article;
    article.heads = 3;
    QTest::newRow("article, 3 heads, head 2") << article << 1;
    attn::HeadsConfig wo = article;
    wo.outputProjection = true;
    QTest::newRow("3 heads and W_o, head 3") << wo << 2;
    attn::HeadsConfig split;
    split.heads = 4;
    split.layout = attn::HeadLayout::Split;
    split.torchInit = true;
    QTest::newRow("torch-mha, 4 heads, head 4") << split << 3;
}

void TestSessionLab::saveThenOpen()
{
    QFETCH(attn::HeadsConfig, heads);
    QFETCH(int, selected);
    Session a;
    a.setHeadsConfig(heads);
    QVERIFY2(a.problem().isEmpty(), qPrintable(a.problem()));
    a.selectHead(selected);
    QVERIFY(a.setMatrixCell(MatrixId::Wk, 1, 0, -0.75));
    const LabState state = a.inputs().state();
    QVERIFY2(validateLabState(state).ok(),
             validateLabState(state).ok() ? "" : validateLabState(state).error().message.c_str());

    QTemporaryDir dir;
    const QString path = dir.filePath("heads.attnlab");
    const attn::Status saved = saveLabFile(path, state);
    QVERIFY2(saved.ok(), saved.ok() ? "" : saved.error().message.c_str());
    const attn::Expected<LabState> opened = readLabFile(path);
    QVERIFY2(opened.ok(), opened.ok() ? "" : opened.error().message.c_str());
    QVERIFY(opened->warnings.empty());
    QCOMPARE(opened->heads, heads);
    QCOMPARE(opened->selectedHead, selected);

    Session b;
    QVERIFY(b.setState(opened.value()));
    QCOMPARE(b.inputs().heads, heads);
    QCOMPARE(b.inputs().selectedHead, selected);
    QCOMPARE(b.inputs().matrix(MatrixId::Wk)(1, 0), -0.75);
    const auto ra = a.published()->heads(), rb = b.published()->heads();
    QVERIFY(ra && rb);
    QCOMPARE(rb->headCount(), heads.heads);
    for (int i = 0; i < heads.heads; ++i)
        QVERIFY(same(rb->heads[std::size_t(i)].weightsMatrix(), ra->heads[std::size_t(i)].weightsMatrix()));
    QVERIFY(same(rb->weightsAverage, ra->weightsAverage));
    QVERIFY(same(rb->concat, ra->concat));
    QVERIFY(same(rb->output, ra->output));
    QVERIFY(same(b.published()->shown()->weightsMatrix(), a.published()->shown()->weightsMatrix()));
    // The file's export is the session's numbers too.
    const auto snapshot = computeLabSnapshot(opened.value());
    QVERIFY(snapshot.ok());
    QVERIFY(same(snapshot->result.weightsAverage, ra->weightsAverage));
    QVERIFY(same(snapshot->result.output, ra->output));
}

QTEST_GUILESS_MAIN(TestSessionLab)
#include "tst_sessionlab.moc"
