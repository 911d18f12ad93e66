// SPDX-License-Identifier: GPL-3.0-or-later
// Random use of the real main window (offscreen): typing and erasing in the
// sentence field, the d_k slider (keys and setValue), the spin boxes, scale
// mode, causal mask, tokenizer and initialisation, matrix cells edited with
// random text through the table models, clicks on heatmap cells and arrow
// keys, undo and redo, tab switches. The seed is fixed, so a failure is
// reproducible. After every event: nothing crashed, no view shows NaN or
// +inf (-inf only marks masked cells), and the session's result and
// statistics are finite with each query's weights summing to 1.

#include "focusbars.h"
#include "mainwindow.h"

#include "documentcontroller.h"
#include "heatmapview.h"
#include "labdocument.h"
#include "matrixtablemodel.h"
#include "parameterpanel.h"
#include "pipelineview.h"
#include "guitest.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cmath>
#include <limits>
#include <random>

using namespace attnlab;

namespace {

constexpr int kEvents = 5000;
constexpr int kMaxTokens = 40;
constexpr int kMaxDim = 128;

// Empty when every map (if `views`) and the session's numbers are fine, else
// what is not.
QString problemIn(const MainWindow& w, bool views = true)
{
    for (const HeatmapView* v : views ? w.findChildren<HeatmapView*>() : QList<HeatmapView*>()) {
        const attn::Matrix& m = v->values();
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            const double x = m.data()[i];
            if (std::isnan(x) || x == std::numeric_limits<double>::infinity())
                return QStringLiteral("view %1 shows %2").arg(v->objectName()).arg(x);
        }
    }
    const Session& s = *w.session();
    const attn::AttentionResult& r = *s.published()->shown();
    if (!r.Q.allFinite() || !r.K.allFinite() || !r.V.allFinite() || !r.scores.allFinite()
        || !r.weightsMatrix().allFinite() || !r.context.allFinite())
        return QStringLiteral("the session's result is not finite");
    const attn::Matrix scaled = r.scaledMatrix();
    for (Eigen::Index i = 0; i < scaled.rows(); ++i)
        for (Eigen::Index j = 0; j < scaled.cols(); ++j) {
            const double x = scaled(i, j);
            if (!std::isfinite(x) && !(r.isMasked(int(i), int(j)) && x < 0))
                return QStringLiteral("scaled(%1, %2) = %3").arg(i).arg(j).arg(x);
        }
    for (int q = 0; q < r.tokens(); ++q)
        if (std::abs(attnlab::weightRowSum(*s.shownResult(), q) - 1.0) > 1e-9)
            return QStringLiteral("weights of query %1 sum to %2")
                .arg(q)
                .arg(attnlab::weightRowSum(*s.shownResult(), q));
    const attn::AttentionStats& st = s.published()->stats();
    for (double x : {st.rawMean, st.rawVariance, st.scaledMean, st.scaledVariance, st.meanMaxWeight,
                     st.meanEntropyNats, st.meanJacobianNorm})
        if (!std::isfinite(x))
            return QStringLiteral("a statistic is not finite");
    for (const attn::RowStats& row : st.rows)
        for (double x : {row.maxWeight, row.entropyNats})
            if (!std::isfinite(x))
                return QStringLiteral("a row statistic is not finite");
    return {};
}

// QTest::keyClick takes Latin-1 only: other scripts as key events with text.
void typeChar(QWidget* widget, QChar c)
{
    QKeyEvent press(QEvent::KeyPress, Qt::Key_unknown, Qt::NoModifier, QString(c));
    QCoreApplication::sendEvent(widget, &press);
    QKeyEvent release(QEvent::KeyRelease, Qt::Key_unknown, Qt::NoModifier, QString(c));
    QCoreApplication::sendEvent(widget, &release);
}

}  // namespace

class TestMonkey : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void randomEvents();

private:
    QTemporaryDir dir_;
};

void TestMonkey::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(dir_, QStringLiteral("Attention Lab monkey test")));
    QSettings().clear();
}

void TestMonkey::randomEvents()
{
    MainWindow w;
    // Nothing may block on a question.
    w.documents()->document()->setUnsavedPrompt(
        [](const QString&) { return LabDocument::UnsavedAnswer::Discard; });
    w.documents()->document()->setRecoveryPrompt([](const QDateTime&) { return false; });
    w.documents()->document()->setSavePathPrompt([] { return QString(); });
    w.documents()->document()->setAutosaveFolder(dir_.filePath(QStringLiteral("autosave")));
    w.resize(1024, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    Session* s = w.session();
    QLineEdit* sentence = guitest::find<QLineEdit>(w, QStringLiteral("sentenceEdit"));
    ParameterPanel* params = guitest::find<ParameterPanel>(w, QStringLiteral("parameterPanel"));
    QSlider* dKSlider = params->dKSlider();
    QSpinBox* dK = guitest::find<QSpinBox>(w, QStringLiteral("dKSpin"));
    auto* dModel = w.findChild<QSpinBox*>(QStringLiteral("dModelSpin"));
    auto* dV = w.findChild<QSpinBox*>(QStringLiteral("dVSpin"));
    auto* seed = w.findChild<QSpinBox*>(QStringLiteral("seedSpin"));
    auto* scale = w.findChild<QComboBox*>(QStringLiteral("scaleCombo"));
    auto* divisor = w.findChild<QDoubleSpinBox*>(QStringLiteral("divisorSpin"));
    auto* causal = w.findChild<QCheckBox*>(QStringLiteral("causalCheck"));
    auto* tokenizer = w.findChild<QComboBox*>(QStringLiteral("tokenizerCombo"));
    QComboBox* init = guitest::find<QComboBox>(w, QStringLiteral("initCombo"));
    QTabWidget* tabs = guitest::find<QTabWidget>(w, QStringLiteral("mapsTabs"));
    QVERIFY(dModel && dV && seed && scale && divisor && causal && tokenizer && init && tabs);
    QList<MatrixTableModel*> matrices;
    for (const char* name : {"matrixModelX", "matrixModelWq", "matrixModelWk", "matrixModelWv"})
        matrices.append(guitest::find<MatrixTableModel>(w, QLatin1String(name)));

    std::mt19937 rng(20261129);
    auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const char ascii[] = "abcdefghij klmnop qrstuv wxyz ,.!?";
    const QString characters = QStringLiteral("éß中שא ع");
    const QStringList cellTexts{"nan",      "inf", "-inf",  "1e308", "1e30", "-1e29",  "abc", "",
                                "4.9e-324", "-0",  " 2.5 ", "1,5",   "0x10", "1e-320", "--1"};
    QMap<int, int> counts;          // event kind -> how many sent
    QMap<int, qint64> nanoseconds;  // event kind -> time spent (reported, not asserted)
    QElapsedTimer clock;
    int sent = 0;

    // Keeps the lab within the sizes this test uses.
    auto capSizes = [&] {
        if (s->inputs().config.dK > kMaxDim)
            dK->setValue(kMaxDim);
        if (s->inputs().config.dV > kMaxDim)
            dV->setValue(kMaxDim);
        if (s->inputs().config.dModel > kMaxDim)
            dModel->setValue(kMaxDim);
    };

    for (int event = 0; event < kEvents; ++event) {
        const int kind = uniform(0, 17);
        ++counts[kind];
        clock.start();
        switch (kind) {
        case 0:
        case 1: {  // typing, or erasing when the sentence is long
            sentence->setFocus();
            if (s->published()->tokenCount() >= kMaxTokens || sentence->text().size() > 200)
                QTest::keyClick(sentence, Qt::Key_Backspace);
            else
                QTest::keyClick(sentence, ascii[uniform(0, int(sizeof ascii) - 2)]);
            break;
        }
        case 2: {  // a character outside Latin-1 through the text, or backspaces
            sentence->setFocus();
            if (uniform(0, 1) == 0) {
                for (int k = uniform(1, 6); k > 0; --k)
                    QTest::keyClick(sentence, Qt::Key_Backspace);
            } else if (s->published()->tokenCount() < kMaxTokens) {
                typeChar(sentence, characters.at(uniform(0, int(characters.size()) - 1)));
            }
            break;
        }
        case 3: {  // d_k slider keys
            static const Qt::Key keys[] = {Qt::Key_Left, Qt::Key_Right, Qt::Key_PageUp, Qt::Key_PageDown,
                                           Qt::Key_Home};
            dKSlider->setFocus();
            QTest::keyClick(dKSlider, keys[uniform(0, 4)]);
            capSizes();
            break;
        }
        case 4:  // d_k slider dragged to a position
            dKSlider->setValue(uniform(dKSlider->minimum(), dKSlider->maximum()));
            capSizes();
            break;
        case 5: {  // spin boxes
            switch (uniform(0, 3)) {
            case 0: dK->setValue(uniform(1, kMaxDim)); break;
            case 1: dModel->setValue(uniform(1, kMaxDim)); break;
            case 2: dV->setValue(uniform(1, kMaxDim)); break;
            default: seed->setValue(uniform(0, 1000)); break;
            }
            break;
        }
        case 6:  // scale mode and divisor
            if (uniform(0, 1) == 0)
                scale->setCurrentIndex(uniform(0, scale->count() - 1));
            else
                divisor->setValue(std::uniform_real_distribution<double>(-1.0, 100.0)(rng));
            break;
        case 7:  // causal mask, clicked
            QTest::mouseClick(causal, Qt::LeftButton, {}, QPoint(5, causal->height() / 2));
            break;
        case 8: tokenizer->setCurrentIndex(uniform(0, tokenizer->count() - 1)); break;
        case 9: init->setCurrentIndex(uniform(0, init->count() - 1)); break;
        case 10:
        case 11: {  // a matrix cell, random text
            MatrixTableModel* m = matrices.at(uniform(0, 3));
            if (m->rowCount() > 0 && m->columnCount() > 0) {
                const QModelIndex index =
                    m->index(uniform(0, m->rowCount() - 1), uniform(0, m->columnCount() - 1));
                QString text = cellTexts.at(uniform(0, int(cellTexts.size()) - 1));
                if (uniform(0, 2) == 0)
                    text = QString::number(std::normal_distribution<double>(0.0, 3.0)(rng), 'g', 17);
                m->setData(index, text, Qt::EditRole);
            }
            break;
        }
        case 12: {  // click a cell of a visible map
            QList<HeatmapView*> maps;
            for (HeatmapView* v : w.findChildren<HeatmapView*>())
                if (v->isVisible() && v->values().size() > 0)
                    maps.append(v);
            if (!maps.isEmpty()) {
                HeatmapView* v = maps.at(uniform(0, int(maps.size()) - 1));
                const QRect cell = v->cellRect(uniform(0, int(v->values().rows()) - 1),
                                               uniform(0, int(v->values().cols()) - 1));
                if (cell.isValid())
                    QTest::mouseClick(v, Qt::LeftButton, {}, cell.center());
            }
            break;
        }
        case 13: {  // arrow keys move the focused query
            QWidget* target = guitest::find<PipelineView>(w, QStringLiteral("pipelineView"));
            QTest::keyClick(target, uniform(0, 1) ? Qt::Key_Up : Qt::Key_Down);
            break;
        }
        case 14: w.documents()->undoStack()->undo(); break;
        case 15: w.documents()->undoStack()->redo(); break;
        case 16: tabs->setCurrentIndex(uniform(0, tabs->count() - 1)); break;
        default:
            if (uniform(0, 9) == 0)
                s->regenerate();
            else
                w.setFocusQuery(uniform(-2, kMaxTokens + 2));
            break;
        }
        ++sent;
        nanoseconds[kind] += clock.nsecsElapsed();
        capSizes();
        if (event % 25 == 24)  // repaints: the maps draw what they hold
            QCoreApplication::processEvents();
        s->waitForResult();
        // The session after every event, every map after every 10th.
        const QString problem = problemIn(w, event % 10 == 9);
        QVERIFY2(
            problem.isEmpty(),
            qPrintable(QStringLiteral("after event %1 (kind %2): %3").arg(event).arg(kind).arg(problem)));
    }
    QCoreApplication::processEvents();
    QVERIFY(problemIn(w).isEmpty());
    QVERIFY(s->published()->tokenCount() <= kMaxTokens + 6);
    QStringList perKind;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        perKind.append(QStringLiteral("%1:%2 (%3 ms)")
                           .arg(it.key())
                           .arg(it.value())
                           .arg(nanoseconds.value(it.key()) / 1000000));
    qInfo(
        "sent %d random events (kind:count %s); undo stack %d steps; final sentence has %d "
        "tokens, d_model %d, d_k %d, d_v %d",
        sent, qPrintable(perKind.join(' ')), w.documents()->undoStack()->count(),
        s->published()->tokenCount(), s->inputs().config.dModel, s->inputs().config.dK,
        s->inputs().config.dV);
    QCOMPARE(sent, kEvents);
}

QTEST_MAIN(TestMonkey)
#include "tst_monkey.moc"
