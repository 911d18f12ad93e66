// SPDX-License-Identifier: GPL-3.0-or-later
// The main window for screen readers and keyboard users: every focusable
// control has an accessible name, Tab reaches the parameters and the maps,
// the focused query moves with the arrow keys alone, and every menu has a
// mnemonic.

#include "mainwindow.h"

#include "attention.h"
#include "focuspanel.h"
#include "heatmapview.h"
#include "model.h"
#include "guitest.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using guitest::find;

using namespace attnlab;

namespace {

bool isControl(const QWidget* w)
{
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QComboBox*>(w)
           || qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QLineEdit*>(w)
           || qobject_cast<const QAbstractSlider*>(w) || qobject_cast<const QAbstractItemView*>(w)
           || qobject_cast<const HeatmapView*>(w);
}

QString describe(const QWidget* w)
{
    return QStringLiteral("%1 \"%2\"").arg(QLatin1String(w->metaObject()->className()), w->objectName());
}

}  // namespace

class TestAccessibility : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void focusableControlsHaveAccessibleNames();
    void tabReachesParametersAndMaps();
    void arrowKeysMoveTheFocusedQueryFromTheKeyboard();
    void menuTitlesHaveMnemonics();

private:
    // Shows the window active, with the keyboard focus in the sentence field.
    bool showWithSentenceFocused(MainWindow& window);
    // Presses Tab from the focus widget until `target` has the focus or the
    // chain comes back to where it started; returns the widgets passed.
    QList<QWidget*> tabUntil(const QWidget* target);

    QTemporaryDir settingsDir_;
};

void TestAccessibility::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestAccessibility::init()
{
    QSettings().clear();
}

bool TestAccessibility::showWithSentenceFocused(MainWindow& window)
{
    window.restoreSettings();
    window.show();
    window.activateWindow();
    if (!QTest::qWaitForWindowActive(&window))
        return false;
    auto* sentence = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    sentence->setFocus(Qt::OtherFocusReason);
    return QApplication::focusWidget() == sentence;
}

QList<QWidget*> TestAccessibility::tabUntil(const QWidget* target)
{
    // A table moves through its cells first and hands Tab on after the last.
    QList<QWidget*> passed;
    QWidget* const start = QApplication::focusWidget();
    for (int i = 0; i < 1000; ++i) {
        QWidget* current = QApplication::focusWidget();
        if (!current || current == target)
            break;
        QTest::keyClick(current, Qt::Key_Tab);
        QWidget* next = QApplication::focusWidget();
        if (!next || next == start)
            break;
        if (!passed.contains(next))
            passed.append(next);
    }
    return passed;
}

void TestAccessibility::focusableControlsHaveAccessibleNames()
{
    MainWindow window;
    QVERIFY(showWithSentenceFocused(window));
    int checked = 0;
    for (QWidget* w : window.findChildren<QWidget*>()) {
        // A widget whose focus goes to another (a spin box's line edit) is
        // announced through that one.
        if (!w->isVisible() || !(w->focusPolicy() & Qt::TabFocus) || w->focusProxy() || !isControl(w))
            continue;
        QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(w);
        QVERIFY2(iface, qPrintable(describe(w)));
        QVERIFY2(!iface->text(QAccessible::Name).trimmed().isEmpty(),
                 qPrintable(describe(w) + QStringLiteral(" has no accessible name")));
        ++checked;
    }
    // Sentence, tokenizer, tokens are not a control type here; the two
    // parameter rows alone hold 11 controls, the scores page 4 more.
    QVERIFY2(checked >= 15, qPrintable(QString::number(checked)));

    // Heatmaps are named by their titles.
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    QCOMPARE(QAccessible::queryAccessibleInterface(weights)->text(QAccessible::Name), weights->title());
    QCOMPARE(QAccessible::queryAccessibleInterface(find<QSpinBox>(window, QStringLiteral("dKSpin")))
                 ->text(QAccessible::Name),
             QStringLiteral("d_k"));
}

void TestAccessibility::tabReachesParametersAndMaps()
{
    MainWindow window;
    QVERIFY(showWithSentenceFocused(window));
    const QList<QWidget*> chain = tabUntil(nullptr);
    auto position = [&chain](QWidget* w) { return chain.indexOf(w); };
    auto* dK = find<QSpinBox>(window, QStringLiteral("dKSpin"));
    auto* dKSlider = find<QSlider>(window, QStringLiteral("dKSlider"));
    auto* causal = find<QCheckBox>(window, QStringLiteral("causalCheck"));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    for (QWidget* w : std::initializer_list<QWidget*>{dK, dKSlider, causal, weights})
        QVERIFY2(position(w) >= 0, qPrintable(describe(w) + QStringLiteral(" not reached by Tab")));
    // Reading order: the model row (slider before its spin box, then d_v),
    // the attention row, then the maps.
    QVERIFY(position(dKSlider) < position(dK));
    QVERIFY(position(dK) < position(find<QSpinBox>(window, QStringLiteral("dVSpin"))));
    QVERIFY(position(find<QSpinBox>(window, QStringLiteral("dVSpin")))
            < position(find<QComboBox>(window, QStringLiteral("scaleCombo"))));
    QVERIFY(position(causal) < position(weights));
    QVERIFY(position(find<HeatmapView>(window, QStringLiteral("rawScoresMap"))) < position(weights));
}

void TestAccessibility::arrowKeysMoveTheFocusedQueryFromTheKeyboard()
{
    MainWindow window;
    QVERIFY(showWithSentenceFocused(window));
    auto* weights = find<HeatmapView>(window, QStringLiteral("weightsMap"));
    tabUntil(weights);
    QCOMPARE(QApplication::focusWidget(), weights);
    QCOMPARE(window.focusQuery(), 1);  // the article's "is"

    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Down);
    QCOMPARE(window.focusQuery(), 2);
    QCOMPARE(find<FocusPanel>(window, QStringLiteral("focusPanel"))->query(), 2);
    QCOMPARE(weights->focusRow(), 2);
    attn::Expected<attn::Model> model = attn::buildModel(attn::ModelConfig());
    QVERIFY(model);
    const attn::Expected<attn::AttentionResult> r =
        attn::computeAttention(model.value().X, model.value().Wq, model.value().Wk, model.value().Wv, {});
    QVERIFY(r);
    QVector<double> row;
    for (int j = 0; j < r.value().scores.cols(); ++j)
        row.append(r.value().scores(2, j));
    QCOMPARE(find<FocusPanel>(window, QStringLiteral("focusPanel"))->scoreBarValues(), row);

    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);
    QCOMPARE(window.focusQuery(), 0);
    QCOMPARE(QApplication::focusWidget(), weights);  // the keys did not move the focus away
}

void TestAccessibility::menuTitlesHaveMnemonics()
{
    MainWindow window;
    const QList<QAction*> menus = window.menuBar()->actions();
    QVERIFY(menus.size() >= 4);
    for (QAction* menu : menus) {
        if (menu->isSeparator())
            continue;
        QVERIFY2(menu->text().contains(QLatin1Char('&')), qPrintable(menu->text()));
        // Every entry of the menu has one too.
        if (menu->menu())
            for (QAction* entry : menu->menu()->actions())
                if (!entry->isSeparator())
                    QVERIFY2(entry->text().contains(QLatin1Char('&')),
                             qPrintable(menu->text() + QStringLiteral(" / ") + entry->text()));
    }
}

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
