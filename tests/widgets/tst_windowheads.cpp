// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-head attention in the window: the heads row of the parameter panel
// drives the session; the Heads tab shows every head; a click on a head's
// tile makes it the head of the pipeline, the matrix editors and the focus
// panel; the split layout's d_k follows d_model / h; undo takes it back;
// at sizes the worker computes, the pipeline's maps and the focus panel
// show the selected head before the other heads are done.
#include "focuspanel.h"
#include "documentcontroller.h"
#include "guitest.h"
#include "headgridview.h"
#include "headspanel.h"
#include "heatmapview.h"
#include "mainwindow.h"
#include "matrixtablemodel.h"
#include "mhastatefiles.h"
#include "pipelineview.h"
#include "session.h"
#include "testconfigs.h"
#include "testdata.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using guitest::find;
using namespace attnlab;

class TestWindowHeads : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void threeHeadsAndAClick();
    void splitLayoutInThePanel();
    void undoTheHeads();
    void importModuleState_data();
    void importModuleState();
    void badModuleStateKeepsTheLab();
    void theShownHeadFirst();

private:
    QTemporaryDir settingsDir_;
};

void TestWindowHeads::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestWindowHeads::threeHeadsAndAClick()
{
    const QJsonObject mh = testdata::readJson("raschka_self_attention.json")["multi_head_derived"].toObject();
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 800));
    QVERIFY(window);
    Session* session = window->session();
    auto* selected = find<QSpinBox>(*window, QStringLiteral("selectedHeadSpin"));
    QVERIFY(!selected->isEnabled());
    find<QSpinBox>(*window, QStringLiteral("headsSpin"))->setValue(3);
    QCOMPARE(session->published()->headCount(), 3);
    QVERIFY(selected->isEnabled());
    QCOMPARE(selected->maximum(), 3);
    QVERIFY(find<QLabel>(*window, QStringLiteral("headsNote"))
                ->text()
                .contains(QStringLiteral("concat 3 × 28 = 84")));

    // The Heads tab: every head, the session's result (and no head sent
    // ahead of the others, which that tab would only wait longer for).
    auto* panel = guitest::find<HeadsPanel>(*window, QStringLiteral("headsPanel"));
    auto* tabs = window->findChild<PipelineView*>(QStringLiteral("pipelineView"))->tabs();
    QVERIFY(session->requests().previewWanted());
    // Hidden, the panel keeps the result for later and its grid holds none.
    QVERIFY(!panel->isVisible());
    QCOMPARE(panel->result().get(), session->published()->heads().get());
    QVERIFY(!panel->grid()->result());
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->widget(i)->isAncestorOf(panel) || tabs->widget(i) == panel)
            tabs->setCurrentIndex(i);
    QTRY_VERIFY(panel->isVisible());
    QVERIFY(!session->requests().previewWanted());
    QCOMPARE(panel->result().get(), session->published()->heads().get());
    HeadGridView* grid = panel->grid();
    QCOMPARE(grid->result().get(), session->published()->heads().get());
    QCOMPARE(grid->headCount(), 3);

    // A click on head 3's tile: the session's head, everywhere.
    QTest::mouseClick(grid, Qt::LeftButton, {}, grid->tileMapRect(2).center());
    QCOMPARE(session->inputs().selectedHead, 2);
    QCOMPARE(selected->value(), 3);
    QCOMPARE(grid->selectedHead(), 2);
    const attn::Matrix wq = testdata::toMatrix(mh["multihead_W_query"].toArray()[2]).transpose();
    MatrixTableModel* editor = find<MatrixTableModel>(*window, QStringLiteral("matrixModelWq"));
    QCOMPARE(editor->data(editor->index(3, 5), Qt::EditRole).toDouble(), wq(3, 5));
    auto* weights = guitest::find<HeatmapView>(*window, QStringLiteral("weightsMap"));
    const attn::Matrix ref = testdata::toMatrix(mh["weights"].toArray()[2]);
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            QVERIFY(std::abs(weights->value(i, j) - ref(i, j)) < 1e-6);

    // The spin box picks a head too.
    selected->setValue(1);
    QCOMPARE(session->inputs().selectedHead, 0);
    QCOMPARE(grid->selectedHead(), 0);
    QVERIFY(std::abs(weights->value(1, 4) - testdata::toMatrix(mh["weights"].toArray()[0])(1, 4)) < 1e-6);

    // An edit of head 1's W_q: its tile and the average are drawn again,
    // heads 2 and 3 keep theirs.
    const HeatmapRenderer* head2 = &grid->renderer().tileMap(1);
    const HeatmapRenderer* head1 = &grid->renderer().tileMap(0);
    QVERIFY(editor->setData(editor->index(0, 0), 2.5, Qt::EditRole));
    QTRY_COMPARE(grid->result().get(), session->published()->heads().get());
    QCOMPARE(&grid->renderer().tileMap(1), head2);
    QVERIFY(&grid->renderer().tileMap(0) != head1);
    const attn::Matrix w0 = session->published()->heads()->heads[0].weightsMatrix();
    QCOMPARE(grid->renderer().value(0, 1, 4), w0(1, 4));
    QVERIFY(std::abs(w0(1, 4) - testdata::toMatrix(mh["weights"].toArray()[0])(1, 4)) > 1e-6);
}

void TestWindowHeads::splitLayoutInThePanel()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    Session* session = window->session();
    auto* dK = find<QSpinBox>(*window, QStringLiteral("dKSpin"));
    auto* heads = find<QSpinBox>(*window, QStringLiteral("headsSpin"));
    auto* layout = find<QComboBox>(*window, QStringLiteral("headLayoutCombo"));
    auto* outputProjection = find<QCheckBox>(*window, QStringLiteral("outputProjectionCheck"));
    auto* torchInit = find<QCheckBox>(*window, QStringLiteral("torchInitCheck"));
    auto* note = find<QLabel>(*window, QStringLiteral("headsNote"));
    heads->setValue(4);
    layout->setCurrentIndex(layout->findData(int(attn::HeadLayout::Split)));
    QCOMPARE(session->inputs().heads.layout, attn::HeadLayout::Split);
    QVERIFY(session->problem().isEmpty());
    QCOMPARE(dK->value(), 4);
    QVERIFY(!dK->isEnabled());
    QVERIFY(outputProjection->isChecked());
    QVERIFY(!outputProjection->isEnabled());
    QVERIFY(torchInit->isVisible());
    QVERIFY(note->text().contains(QStringLiteral("16 / 4 = 4")));
    // h = 3 does not divide 16: said, and the last good lab stays.
    heads->setValue(3);
    QVERIFY(note->text().contains(QStringLiteral("does not divide")));
    QCOMPARE(session->published()->headCount(), 4);
    heads->setValue(2);
    QCOMPARE(dK->value(), 8);
    QCOMPARE(session->published()->dK(), 8);
    // Back to independent heads: d_k is the user's again.
    layout->setCurrentIndex(layout->findData(int(attn::HeadLayout::Independent)));
    QVERIFY(dK->isEnabled());
    QVERIFY(!torchInit->isVisible());
}

void TestWindowHeads::undoTheHeads()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1280, 800));
    QVERIFY(window);
    Session* session = window->session();
    auto* heads = find<QSpinBox>(*window, QStringLiteral("headsSpin"));
    auto* outputProjection = find<QCheckBox>(*window, QStringLiteral("outputProjectionCheck"));
    heads->setValue(3);
    outputProjection->setChecked(true);
    QVERIFY(session->published()->heads()->hasOutput());
    QTest::keyClick(window.get(), Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(!session->inputs().heads.outputProjection);
    QVERIFY(!outputProjection->isChecked());
    QTest::keyClick(window.get(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(session->published()->headCount(), 1);
    QCOMPARE(heads->value(), 1);
    QVERIFY(!session->published()->heads());
}

// Sets the window to case `c`'s sentence, width and mask and writes its
// x.npy and state folder into dir.
bool prepareCase(MainWindow* window, const QJsonObject& c, const QString& dir)
{
    Session* session = window->session();
    attn::ModelConfig config = session->inputs().config;
    config.sentence = c["sentence"].toString().toStdString();
    config.dModel = c["E"].toInt();
    attn::AttentionOptions options = session->inputs().options;
    options.causal = c["causal"].toBool();
    session->setParameters(config, options, session->inputs().heads);
    if (!session->problem().isEmpty())
        return false;
    find<QSpinBox>(*window, QStringLiteral("headsSpin"))->setValue(c["h"].toInt());
    return QDir(dir).mkdir("state") && mhatest::writeCaseState(c, dir)
           && window->documents()->importMatrix(MatrixId::X, dir + "/x.npy", false).ok();
}

void TestWindowHeads::importModuleState_data()
{
    QTest::addColumn<int>("index");
    for (int i = 0; i < mhatest::torchCaseCount(); ++i) {
        const QJsonObject c = mhatest::torchCase(i);
        QTest::addRow("case %d: E=%d h=%d", i, c["E"].toInt(), c["h"].toInt()) << i;
    }
}

// File > Import nn.MultiheadAttention state over the case's X: every head,
// the average and the output are PyTorch's (float32 within 1e-5, the
// float64 recomputation within 1e-12); one undo step takes it back.
void TestWindowHeads::importModuleState()
{
    QFETCH(int, index);
    const QJsonObject c = mhatest::torchCase(index);
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    Session* session = window->session();
    QTemporaryDir dir;
    QVERIFY(prepareCase(window.get(), c, dir.path()));
    const attn::HeadsConfig before = session->inputs().heads;
    const attn::Matrix x = session->inputs().model.X;
    QCOMPARE(testdata::maxAbsDiff(x, testdata::toMatrix(c["x"])), 0.0);

    const attn::Status imported = window->documents()->importMhaState(dir.filePath("state"));
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
    QTRY_VERIFY(session->published()->heads());
    const int h = c["h"].toInt();
    QCOMPARE(session->inputs().heads.layout, attn::HeadLayout::Split);
    QCOMPARE(session->published()->headCount(), h);
    QCOMPARE(find<QSpinBox>(*window, QStringLiteral("dKSpin"))->value(), c["E"].toInt() / h);
    const attn::MultiHeadResult& r = *session->published()->heads();
    const QJsonObject f = c["float64"].toObject();
    QVERIFY(testdata::maxAbsDiff(r.output, testdata::toMatrix(c["attn_output"])) < 1e-5);
    QVERIFY(testdata::maxAbsDiff(r.output, testdata::toMatrix(f["attn_output"])) < 1e-12);
    QVERIFY(testdata::maxAbsDiff(r.weightsAverage, testdata::toMatrix(c["attn_weights_average"])) < 1e-5);
    for (int i = 0; i < h; ++i) {
        const attn::Matrix weights = r.heads[std::size_t(i)].weightsMatrix();
        QVERIFY(testdata::maxAbsDiff(weights, testdata::toMatrix(c["attn_weights_per_head"].toArray()[i]))
                < 1e-5);
        QVERIFY(
            testdata::maxAbsDiff(weights, testdata::toMatrix(f["heads"].toArray()[i].toObject()["weights"]))
            < 1e-12);
    }
    // The module's parameters exactly, and X untouched.
    QCOMPARE(testdata::maxAbsDiff(session->inputs().multiHead.split.inProjWeight,
                                  testdata::toMatrix(c["in_proj_weight"])),
             0.0);
    QCOMPARE(testdata::maxAbsDiff(session->inputs().model.X, x), 0.0);

    QTest::keyClick(window.get(), Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(session->inputs().heads == before);
    QCOMPARE(testdata::maxAbsDiff(session->inputs().model.X, x), 0.0);
}

// A state folder that does not fit: the file and the expected shape named,
// the lab as it was.
void TestWindowHeads::badModuleStateKeepsTheLab()
{
    const QJsonObject c = mhatest::torchCase(2);  // E = 32, h = 8
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    Session* session = window->session();
    QTemporaryDir dir;
    QVERIFY(prepareCase(window.get(), c, dir.path()));
    const LabState before = session->inputs().state();
    const QString state = dir.filePath("state");
    QVERIFY(mhatest::writeNpyFile(state + "/in_proj_weight.npy",
                                  testdata::toMatrix(c["in_proj_weight"]).transpose()));
    attn::Status imported = window->documents()->importMhaState(state);
    QVERIFY(!imported.ok());
    QCOMPARE(QString::fromStdString(imported.error().message),
             QStringLiteral("state: in_proj_weight.npy has shape (32, 96) but (96, 32) = (3E, E) for E = 32 "
                            "was expected"));
    QVERIFY(QFile::remove(state + "/out_proj.bias.npy"));
    QVERIFY(mhatest::writeNpyFile(state + "/in_proj_weight.npy", testdata::toMatrix(c["in_proj_weight"])));
    imported = window->documents()->importMhaState(state);
    QVERIFY(!imported.ok());
    QVERIFY2(
        QString::fromStdString(imported.error().message)
            .endsWith(QStringLiteral("out_proj.bias.npy is missing; expected shape (32,) = (E,) for E = 32")),
        imported.error().message.c_str());
    // h = 3 cannot split E = 32.
    find<QSpinBox>(*window, QStringLiteral("headsSpin"))->setValue(3);
    QCOMPARE(session->published()->headCount(), 3);
    imported = window->documents()->importMhaState(state);
    QVERIFY(!imported.ok());
    QVERIFY2(QString::fromStdString(imported.error().message)
                 .contains(QStringLiteral("3 heads do not divide E = 32")),
             imported.error().message.c_str());
    QCOMPARE(session->published()->headCount(), 3);
    QCOMPARE(session->inputs().heads.layout, attn::HeadLayout::Independent);
    QCOMPARE(testdata::maxAbsDiff(session->inputs().model.X, before.X), 0.0);
}

void TestWindowHeads::theShownHeadFirst()
{
    const std::unique_ptr<MainWindow> window = guitest::shownWindow<MainWindow>(QSize(1024, 700));
    QVERIFY(window);
    Session* session = window->session();
    const auto [config, heads] = testconfigs::largeSplitHeads();
    QSignalSpy results(session, &Session::resultChanged);
    session->setParameters(config, {}, heads);
    QVERIFY(results.wait(60000));
    session->selectHead(3);
    QVERIFY(session->requests().previewWanted());  // the pipeline tab is shown

    // Connected after the window's views: when the preview comes, they show it.
    auto* weights = guitest::find<HeatmapView>(*window, QStringLiteral("weightsMap"));
    auto* q = guitest::find<HeatmapView>(*window, QStringLiteral("focusQueryVector"));
    const int focused = guitest::find<FocusPanel>(*window, QStringLiteral("focusPanel"))->query();
    std::shared_ptr<const attn::AttentionResult> preview;
    bool mapsShowedIt = false;
    connect(session, &Session::previewChanged, this, [&] {
        if (!session->requests().preview())
            return;
        preview = session->requests().preview();
        const attn::Matrix w = preview->weightsMatrix();
        mapsShowedIt = session->isComputing() && weights->value(5, 7) == w(5, 7)
                       && weights->value(599, 0) == w(599, 0) && q->value(0, 2) == preview->Q(focused, 2);
    });
    MatrixTableModel* editor = find<MatrixTableModel>(*window, QStringLiteral("matrixModelWq"));
    QVERIFY(editor->setData(editor->index(0, 2), QStringLiteral("2.5"), Qt::EditRole));
    QVERIFY(results.wait(60000));
    disconnect(session, &Session::previewChanged, this, nullptr);
    QVERIFY(preview);
    QVERIFY(mapsShowedIt);
    QCOMPARE(session->inputs().multiHead.head(3).Wq(0, 2), 2.5);
    // The result's head 3 is that preview, and the maps still show it.
    QCOMPARE(session->published()->shown(), preview);
    const attn::Matrix w = session->published()->heads()->heads[3].weightsMatrix();
    QCOMPARE(weights->value(5, 7), w(5, 7));
    QVERIFY((preview->weightsMatrix().array() == w.array()).all());
}

QTEST_MAIN(TestWindowHeads)
#include "tst_windowheads.moc"
