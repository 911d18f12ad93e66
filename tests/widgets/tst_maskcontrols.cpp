// SPDX-License-Identifier: GPL-3.0-or-later
// The parameter panel's mask controls in the window, found by object name:
// the causal checkbox with the choice beside it (all earlier keys, sliding
// window W, sink S + window W) and its spin boxes, shown and enabled as the
// choice needs; each choice gives the session that mask, the three maps the
// engine's numbers for it bit for bit (hidden scaled entries -inf, which the
// heatmap hatches; weights 0), the statistics the engine's, the focused
// query's mixing only the keys it sees, and one undo step named for it.

#include "mainwindow.h"

#include "attention.h"
#include "attention_mask.h"
#include "documentcontroller.h"
#include "heatmapview.h"
#include "labresult.h"
#include "model.h"
#include "session.h"
#include "statistics.h"
#include "guitest.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <cmath>
#include <limits>

using guitest::find;
using namespace attnlab;

namespace {

attn::AttentionResult engine(const attn::AttentionMask& mask)
{
    const attn::Expected<attn::Model> model = attn::buildModel(attn::ModelConfig());
    if (!model)
        qFatal("buildModel: %s", model.error().message.c_str());
    attn::AttentionOptions options;
    options.setMask(mask);
    attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(model->X, model->Wq, model->Wk, model->Wv, options);
    if (!r)
        qFatal("computeAttention: %s", r.error().message.c_str());
    return r.value();
}

// Bit for bit, -inf included (a difference of two -inf is NaN).
bool sameValues(const attn::Matrix& got, const attn::Matrix& want)
{
    if (got.rows() != want.rows() || got.cols() != want.cols())
        return false;
    for (int i = 0; i < int(want.rows()); ++i)
        for (int j = 0; j < int(want.cols()); ++j) {
            const double g = got(i, j);
            if (!(g == want(i, j)) || std::signbit(g) != std::signbit(want(i, j)))
                return false;
        }
    return true;
}

}  // namespace

class TestMaskControls : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
    }
    void init() { QSettings().clear(); }
    void choicesGiveTheirMasks();

private:
    void compareWithEngine(MainWindow& window, const attn::AttentionMask& mask);
    QTemporaryDir settingsDir_;
};

void TestMaskControls::compareWithEngine(MainWindow& window, const attn::AttentionMask& mask)
{
    QVERIFY2(window.session()->inputs().options.effectiveMask() == mask, mask.name().c_str());
    const attn::AttentionResult want = engine(mask);
    auto* raw = find<HeatmapView>(window, QStringLiteral("rawScoresMap"));
    auto* scaled = find<HeatmapView>(window, QStringLiteral("scaledScoresMap"));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    QVERIFY(sameValues(raw->values(), want.scores));
    QVERIFY2(sameValues(scaled->values(), want.scaledMatrix()), mask.name().c_str());
    QVERIFY2(sameValues(weights->values(), want.weightsMatrix()), mask.name().c_str());
    // Hidden entries: -inf on the scaled map (drawn hatched), 0 weight.
    const int n = want.tokens();
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (mask.hides(i, j)) {
                QCOMPARE(scaled->values()(i, j), -std::numeric_limits<double>::infinity());
                QCOMPARE(weights->values()(i, j), 0.0);
            }
    // The statistics the window shows are the engine's for that mask.
    const std::shared_ptr<const LabResult> shown = window.session()->published();
    QVERIFY(shown);
    const attn::AttentionStats stats = attn::computeStatistics(want);
    for (int i = 0; i < n; ++i) {
        QCOMPARE(shown->stats().rows[std::size_t(i)].argMax, stats.rows[std::size_t(i)].argMax);
        QVERIFY(
            std::abs(shown->stats().rows[std::size_t(i)].entropyNats - stats.rows[std::size_t(i)].entropyNats)
            <= 1e-12);
    }
    QVERIFY(std::abs(shown->stats().rawMean - stats.rawMean)
            <= 1e-12 * std::max(1.0, std::abs(stats.rawMean)));
}

void TestMaskControls::choicesGiveTheirMasks()
{
    MainWindow window;
    QUndoStack* stack = window.documents()->undoStack();
    auto* causal = find<QCheckBox>(window, QStringLiteral("causalCheck"));
    auto* kind = find<QComboBox>(window, QStringLiteral("maskCombo"));
    auto* windowSpin = find<QSpinBox>(window, QStringLiteral("maskWindowSpin"));
    auto* sinkSpin = find<QSpinBox>(window, QStringLiteral("maskSinkSpin"));
    QVERIFY(!causal->isChecked());
    QVERIFY(!kind->isEnabled());
    QVERIFY(windowSpin->isHidden());
    QVERIFY(sinkSpin->isHidden());
    compareWithEngine(window, attn::AttentionMask::none());

    causal->setChecked(true);
    QVERIFY(kind->isEnabled());
    compareWithEngine(window, attn::AttentionMask::causal());
    QCOMPARE(stack->undoText(), QStringLiteral("Causal mask on"));

    kind->setCurrentIndex(kind->findData(int(attn::AttentionMask::Kind::Sliding)));
    QVERIFY(!windowSpin->isHidden());
    QVERIFY(sinkSpin->isHidden());
    windowSpin->setValue(2);
    compareWithEngine(window, attn::AttentionMask::sliding(2));
    QCOMPARE(stack->undoText(), QStringLiteral("Mask: sliding:2"));
    // The article's "first" (query 6) sees "dessert" and itself only.
    window.setFocusQuery(5);
    const QString mixing = find<QLabel>(window, QStringLiteral("focusMixingLabel"))->text();
    QVERIFY2(mixing.contains(QStringLiteral("v(dessert)")) && mixing.contains(QStringLiteral("v(first)"))
                 && !mixing.contains(QStringLiteral("v(Life)")) && !mixing.contains(QStringLiteral("v(eat)")),
             qPrintable(mixing));
    QVERIFY(
        find<QLabel>(window, QStringLiteral("scaleOperationLabel"))->text().contains(QStringLiteral("W 2")));

    kind->setCurrentIndex(kind->findData(int(attn::AttentionMask::Kind::SinkWindow)));
    QVERIFY(!sinkSpin->isHidden());
    sinkSpin->setValue(1);
    compareWithEngine(window, attn::AttentionMask::sinkWindow(1, 2));
    const QString sinkMixing = find<QLabel>(window, QStringLiteral("focusMixingLabel"))->text();
    QVERIFY2(sinkMixing.contains(QStringLiteral("v(Life)")) && !sinkMixing.contains(QStringLiteral("v(eat)")),
             qPrintable(sinkMixing));

    // Off: no mask, the choice kept for the next time.
    causal->setChecked(false);
    QVERIFY(!kind->isEnabled());
    compareWithEngine(window, attn::AttentionMask::none());
    causal->setChecked(true);
    compareWithEngine(window, attn::AttentionMask::sinkWindow(1, 2));

    // Undo walks back through the choices; the controls follow.
    stack->undo();
    compareWithEngine(window, attn::AttentionMask::none());
    QVERIFY(!causal->isChecked());
    stack->undo();
    compareWithEngine(window, attn::AttentionMask::sinkWindow(1, 2));
    QCOMPARE(kind->currentData().toInt(), int(attn::AttentionMask::Kind::SinkWindow));
    QCOMPARE(sinkSpin->value(), 1);
    QCOMPARE(windowSpin->value(), 2);
}

QTEST_MAIN(TestMaskControls)
#include "tst_maskcontrols.moc"
