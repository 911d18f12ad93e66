// SPDX-License-Identifier: GPL-3.0-or-later
// The window by keyboard alone, on the real widgets: Undo and Redo from any
// widget (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y) with no ambiguous shortcut, a Tab
// cycle that visits every focusable widget and comes back without ever
// staying on one, a visible focus on each, the lesson leaving the focus on a
// widget that is on screen, mnemonics that clash neither with a menu nor
// with each other, and Page Up/Down doubling and halving d_k.

#include "mainwindow.h"

#include "exportdialog.h"
#include "heatmapview.h"
#include "importdialog.h"
#include "lessonpanel.h"
#include "parameterpanel.h"
#include "guitest.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QGroupBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSlider>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <map>

using guitest::find;
using namespace attnlab;

namespace {

QString describe(const QWidget* w)
{
    return w ? QStringLiteral("%1 \"%2\"").arg(QLatin1String(w->metaObject()->className()), w->objectName())
             : QStringLiteral("nothing");
}

// The mnemonic letter of a text ("&File" -> 'f'), 0 if none ("&&" is an '&').
QChar mnemonic(const QString& text)
{
    for (int i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != QLatin1Char('&'))
            continue;
        if (text[i + 1] == QLatin1Char('&')) {
            ++i;
            continue;
        }
        return text[i + 1].toLower();
    }
    return QChar();
}

// Every widget that Tab should reach: on screen, enabled, taking Tab focus
// itself (not through a proxy), in this window.
QList<QWidget*> tabStops(QWidget& window)
{
    QList<QWidget*> stops;
    for (QWidget* w : window.findChildren<QWidget*>())
        if (w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus) && !w->focusProxy()
            && w->window() == &window)
            stops.append(w);
    return stops;
}

// Alt+letter owners on screen in `root`: buttons, labels with a buddy, the
// tabs of visible tab bars, group boxes; each with where it is.
std::multimap<QChar, QString> shownMnemonics(QWidget& root)
{
    std::multimap<QChar, QString> owners;
    const auto add = [&owners](const QString& text, const QString& where) {
        const QChar c = mnemonic(text);
        if (!c.isNull())
            owners.emplace(c, where + QStringLiteral(" \"") + text + QLatin1Char('"'));
    };
    for (QWidget* w : root.findChildren<QWidget*>()) {
        if (!w->isVisible() || qobject_cast<QMenu*>(w->window()))
            continue;
        if (auto* b = qobject_cast<QAbstractButton*>(w))
            add(b->text(), describe(w));
        else if (auto* l = qobject_cast<QLabel*>(w); l && l->buddy())
            add(l->text(), describe(w));
        else if (auto* g = qobject_cast<QGroupBox*>(w))
            add(g->title(), describe(w));
        else if (auto* bar = qobject_cast<QTabBar*>(w))
            for (int i = 0; i < bar->count(); ++i)
                add(bar->tabText(i), describe(w));
    }
    return owners;
}

QString clashes(const std::multimap<QChar, QString>& owners)
{
    QStringList found;
    for (auto it = owners.begin(); it != owners.end();) {
        const auto range = owners.equal_range(it->first);
        if (std::distance(range.first, range.second) > 1) {
            QStringList who;
            for (auto j = range.first; j != range.second; ++j)
                who.append(j->second);
            found.append(
                QStringLiteral("Alt+%1: %2").arg(it->first.toUpper(), who.join(QStringLiteral(", "))));
        }
        it = range.second;
    }
    return found.join(QLatin1Char('\n'));
}

}  // namespace

class TestKeyboard : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void undoRedoFromAnyWidget_data();
    void undoRedoFromAnyWidget();
    void aFieldKeepsItsOwnUndo();
    void noAmbiguousShortcuts();
    void tabCyclesThroughEveryWidget();
    void focusIsVisible();
    void lessonLeavesTheFocusOnScreen();
    void mnemonicsDoNotClash();
    void dialogMnemonicsDoNotClash();
    void pageKeysDoubleAndHalveDk_data();
    void pageKeysDoubleAndHalveDk();

private:
    bool showActive(MainWindow& window);
    // Presses `key` from the focus widget until the focus comes back to
    // where it started; the widgets passed in order (the start last).
    // *stuck: a press that left the focus where it was.
    QList<QWidget*> cycle(Qt::Key key, QWidget** stuck);

    QTemporaryDir settingsDir_;
};

void TestKeyboard::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(settingsDir_, QStringLiteral("Attention Lab")));
}

void TestKeyboard::init()
{
    QSettings().clear();
}

bool TestKeyboard::showActive(MainWindow& window)
{
    window.restoreSettings();
    window.resize(1400, 900);
    window.show();
    window.activateWindow();
    return QTest::qWaitForWindowActive(&window);
}

QList<QWidget*> TestKeyboard::cycle(Qt::Key key, QWidget** stuck)
{
    *stuck = nullptr;
    QList<QWidget*> passed;
    QWidget* const start = QApplication::focusWidget();
    for (int i = 0; i < 400; ++i) {
        QWidget* before = QApplication::focusWidget();
        QTest::keyClick(before, key);
        QWidget* after = QApplication::focusWidget();
        if (after == before) {
            *stuck = before;
            break;
        }
        passed.append(after);
        if (after == start)
            break;
    }
    return passed;
}

void TestKeyboard::undoRedoFromAnyWidget_data()
{
    QTest::addColumn<QString>("widget");
    QTest::newRow("sentence field") << QStringLiteral("sentenceEdit");
    QTest::newRow("d_k spin box") << QStringLiteral("dKSpin");
    QTest::newRow("seed spin box") << QStringLiteral("seedSpin");
    QTest::newRow("d_k slider") << QStringLiteral("dKSlider");
    QTest::newRow("weights map") << QStringLiteral("weightsMap");
}

void TestKeyboard::undoRedoFromAnyWidget()
{
    QFETCH(QString, widget);
    MainWindow window;
    QVERIFY(showActive(window));
    Session* s = window.session();
    const int before = s->inputs().config.dK;
    s->setDK(before * 2);
    QCOMPARE(s->inputs().config.dK, before * 2);
    auto* target = find<QWidget>(window, widget);
    target->setFocus(Qt::TabFocusReason);
    QCOMPARE(QApplication::focusWidget(), target);

    QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(s->inputs().config.dK, before);
    QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(s->inputs().config.dK, before * 2);
    QTest::keyClick(target, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(s->inputs().config.dK, before);
    QTest::keyClick(target, Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(s->inputs().config.dK, before * 2);
    // The widget kept the keyboard focus.
    QCOMPARE(QApplication::focusWidget(), target);
}

void TestKeyboard::aFieldKeepsItsOwnUndo()
{
    // Typed text is the field's to undo first; once its history is empty the
    // keys go on to the lab.
    MainWindow window;
    QVERIFY(showActive(window));
    Session* s = window.session();
    s->setDK(40);
    auto* sentence = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    sentence->setFocus(Qt::TabFocusReason);
    sentence->end(false);
    const QString text = sentence->text();
    QTest::keyClick(sentence, Qt::Key_X);
    QCOMPARE(sentence->text(), text + QLatin1Char('x'));
    QVERIFY(sentence->isUndoAvailable());
    QTest::keyClick(sentence, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(sentence->text(), text);
    QCOMPARE(s->inputs().config.dK, 40);  // the field's undo, not the lab's
}

void TestKeyboard::noAmbiguousShortcuts()
{
    MainWindow window;
    QVERIFY(showActive(window));
    // Every key sequence is bound once in the window.
    std::map<QString, QStringList> bound;
    for (QAction* a : window.findChildren<QAction*>())
        for (const QKeySequence& k : a->shortcuts())
            bound[k.toString()].append(a->text());
    for (QShortcut* sc : window.findChildren<QShortcut*>())
        for (const QKeySequence& k : sc->keys())
            bound[k.toString()].append(sc->objectName());
    for (const auto& [key, owners] : bound)
        QVERIFY2(owners.size() == 1,
                 qPrintable(key + QStringLiteral(": ") + owners.join(QStringLiteral(", "))));
    auto* redo = find<QAction>(window, QStringLiteral("redoAction"));
    QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Y)));

    // And Qt says nothing about an ambiguous one when the keys are pressed.
    static QStringList messages;
    messages.clear();
    const QtMessageHandler old = qInstallMessageHandler(
        [](QtMsgType, const QMessageLogContext&, const QString& m) { messages.append(m); });
    window.session()->setDK(48);
    QWidget* map = find<QWidget>(window, QStringLiteral("weightsMap"));
    map->setFocus();
    QTest::keyClick(map, Qt::Key_Z, Qt::ControlModifier);
    QTest::keyClick(map, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QTest::keyClick(map, Qt::Key_Z, Qt::ControlModifier);
    QTest::keyClick(map, Qt::Key_Y, Qt::ControlModifier);
    qInstallMessageHandler(old);
    QCOMPARE(window.session()->inputs().config.dK, 48);
    for (const QString& m : messages)
        QVERIFY2(!m.contains(QLatin1String("mbiguous")), qPrintable(m));
}

void TestKeyboard::tabCyclesThroughEveryWidget()
{
    MainWindow window;
    QVERIFY(showActive(window));
    auto* sentence = find<QLineEdit>(window, QStringLiteral("sentenceEdit"));
    sentence->setFocus(Qt::OtherFocusReason);
    const QList<QWidget*> stops = tabStops(window);
    QVERIFY2(stops.size() >= 20, qPrintable(QString::number(stops.size())));
    for (Qt::Key key : {Qt::Key_Tab, Qt::Key_Backtab}) {
        QWidget* stuck = nullptr;
        const QList<QWidget*> passed = cycle(key, &stuck);
        QVERIFY2(!stuck, qPrintable(QStringLiteral("stuck on ") + describe(stuck)));
        QVERIFY2(!passed.isEmpty() && passed.last() == sentence,
                 qPrintable(QStringLiteral("did not come back, ended on ")
                            + describe(passed.isEmpty() ? nullptr : passed.last())));
        for (QWidget* w : stops)
            QVERIFY2(passed.contains(w), qPrintable(describe(w) + QStringLiteral(" not reached")));
        // Each widget once per round.
        QCOMPARE(QSet<QWidget*>(passed.cbegin(), passed.cend()).size(), passed.size());
    }
}

void TestKeyboard::focusIsVisible()
{
    // Each widget Tab reaches looks different with the focus than without.
    MainWindow window;
    QVERIFY(showActive(window));
    find<QLineEdit>(window, QStringLiteral("sentenceEdit"))->setFocus(Qt::OtherFocusReason);
    const int stops = int(tabStops(window).size());
    for (int i = 0; i < stops; ++i) {
        QWidget* w = QApplication::focusWidget();
        const QImage focused = w->grab().toImage();
        QTest::keyClick(w, Qt::Key_Tab);
        QVERIFY(QApplication::focusWidget() != w);
        const QImage unfocused = w->grab().toImage();
        QVERIFY2(focused != unfocused, qPrintable(describe(w) + QStringLiteral(" shows no focus")));
    }
}

void TestKeyboard::lessonLeavesTheFocusOnScreen()
{
    MainWindow window;
    QVERIFY(showActive(window));
    auto* lesson = find<LessonPanel>(window, QStringLiteral("lessonPanel"));
    find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    QTRY_VERIFY(lesson->isVisible());
    // Alt+N is Next and, on the last step, Finish, from wherever the focus is
    // (the d_k step puts it on the d_k slider).
    for (int i = 0; i < 20 && lesson->isVisible(); ++i) {
        const int step = lesson->step();
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_N, Qt::AltModifier);
        // A mnemonic clicks the button after its press animation.
        QTRY_VERIFY(lesson->step() != step || !lesson->isVisible());
        QWidget* focus = QApplication::focusWidget();
        QVERIFY2(focus && focus->isVisible(),
                 qPrintable(QStringLiteral("step %1: focus on hidden ").arg(i) + describe(focus)));
    }
    QVERIFY(!lesson->isVisible());  // Finish closed it
    QWidget* focus = QApplication::focusWidget();
    QVERIFY2(focus && focus->isVisible(), qPrintable(describe(focus)));

    // Finish pressed with the focus on it: the focus leaves the closed dock
    // for a widget on screen.
    find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    QTRY_VERIFY(lesson->isVisible());
    auto* next = find<QPushButton>(window, QStringLiteral("lessonNextButton"));
    for (int i = 0; i < 20 && QString(next->text()).remove(QLatin1Char('&')) != QLatin1String("Finish"); ++i)
        next->click();
    next->setFocus(Qt::TabFocusReason);
    QTest::keyClick(next, Qt::Key_Space);
    QTRY_VERIFY(!lesson->isVisible());
    focus = QApplication::focusWidget();
    QVERIFY2(focus && focus->isVisible(), qPrintable(describe(focus)));
}

void TestKeyboard::mnemonicsDoNotClash()
{
    MainWindow window;
    QVERIFY(showActive(window));
    QSet<QChar> menuKeys;
    for (QAction* menu : window.menuBar()->actions()) {
        if (menu->isSeparator())
            continue;
        const QChar c = mnemonic(menu->text());
        QVERIFY2(!c.isNull(), qPrintable(menu->text()));
        QVERIFY2(!menuKeys.contains(c), qPrintable(menu->text()));
        menuKeys.insert(c);
        // Within a menu each entry has its own letter.
        QSet<QChar> entries;
        for (QAction* entry : menu->menu()->actions()) {
            const QChar e = mnemonic(entry->text());
            if (entry->isSeparator() || e.isNull())
                continue;
            QVERIFY2(!entries.contains(e), qPrintable(menu->text() + QStringLiteral(" / ") + entry->text()));
            entries.insert(e);
        }
    }
    // What is on screen at once, in each state the window can be in.
    auto* tabs = find<QTabWidget>(window, QStringLiteral("mapsTabs"));
    auto* matrices = find<QDockWidget>(window, QStringLiteral("matricesDock"));
    const auto check = [&](const QString& state) {
        QApplication::processEvents();
        const std::multimap<QChar, QString> owners = shownMnemonics(window);
        QVERIFY2(owners.size() >= 10, qPrintable(state));
        for (const auto& [c, who] : owners)
            QVERIFY2(!menuKeys.contains(c),
                     qPrintable(state + QStringLiteral(": ") + who + QStringLiteral(" takes a menu's key")));
        const QString found = clashes(owners);
        QVERIFY2(found.isEmpty(), qPrintable(state + QStringLiteral(":\n") + found));
    };
    for (int t = 0; t < tabs->count(); ++t) {
        tabs->setCurrentIndex(t);
        check(QStringLiteral("maps tab %1").arg(t));
    }
    tabs->setCurrentIndex(0);
    matrices->raise();
    check(QStringLiteral("matrices dock"));
    find<QAction>(window, QStringLiteral("lessonModeAction"))->trigger();
    QTRY_VERIFY(find<LessonPanel>(window, QStringLiteral("lessonPanel"))->isVisible());
    check(QStringLiteral("lesson, first step"));
    auto* next = find<QPushButton>(window, QStringLiteral("lessonNextButton"));
    for (int i = 0; i < 20 && QString(next->text()).remove(QLatin1Char('&')) != QLatin1String("Finish"); ++i)
        next->click();
    QVERIFY(find<LessonPanel>(window, QStringLiteral("lessonPanel"))->isVisible());
    check(QStringLiteral("lesson, last step"));
}

void TestKeyboard::dialogMnemonicsDoNotClash()
{
    MainWindow window;
    ExportDialog exportDialog(&window);
    ImportDialog importDialog(window.session(), &window);
    for (QDialog* d : std::initializer_list<QDialog*>{&exportDialog, &importDialog}) {
        d->show();
        QVERIFY(QTest::qWaitForWindowExposed(d));
        const QString found = clashes(shownMnemonics(*d));
        QVERIFY2(found.isEmpty(), qPrintable(d->windowTitle() + QStringLiteral(":\n") + found));
        d->hide();
    }
}

void TestKeyboard::pageKeysDoubleAndHalveDk_data()
{
    QTest::addColumn<QString>("widget");
    QTest::addColumn<int>("start");
    QTest::addColumn<int>("key");
    QTest::addColumn<int>("expected");
    for (const QString& w : {QStringLiteral("dKSlider"), QStringLiteral("dKSpin")}) {
        const QByteArray n = w.toLatin1();
        QTest::newRow(n + " 24 up") << w << 24 << int(Qt::Key_PageUp) << 48;
        QTest::newRow(n + " 3 up") << w << 3 << int(Qt::Key_PageUp) << 6;
        QTest::newRow(n + " 37 up") << w << 37 << int(Qt::Key_PageUp) << 74;
        QTest::newRow(n + " 600 up stops at 1024") << w << 600 << int(Qt::Key_PageUp) << 1024;
        QTest::newRow(n + " 1024 up") << w << 1024 << int(Qt::Key_PageUp) << 1024;
        QTest::newRow(n + " 24 down") << w << 24 << int(Qt::Key_PageDown) << 12;
        QTest::newRow(n + " 5 down") << w << 5 << int(Qt::Key_PageDown) << 3;
        QTest::newRow(n + " 1000 down") << w << 1000 << int(Qt::Key_PageDown) << 500;
        QTest::newRow(n + " 1 down") << w << 1 << int(Qt::Key_PageDown) << 1;
    }
}

void TestKeyboard::pageKeysDoubleAndHalveDk()
{
    QFETCH(QString, widget);
    QFETCH(int, start);
    QFETCH(int, key);
    QFETCH(int, expected);
    MainWindow window;
    QVERIFY(showActive(window));
    Session* s = window.session();
    s->setDK(start);
    QCOMPARE(s->inputs().config.dK, start);
    auto* target = find<QWidget>(window, widget);
    target->setFocus(Qt::TabFocusReason);
    QTest::keyClick(target, Qt::Key(key));
    QCOMPARE(s->inputs().config.dK, expected);
    QCOMPARE(find<QSpinBox>(window, QStringLiteral("dKSpin"))->value(), expected);
    // And back the other way.
    QTest::keyClick(target, key == Qt::Key_PageUp ? Qt::Key_PageDown : Qt::Key_PageUp);
    QCOMPARE(s->inputs().config.dK, ParameterPanel::pageStepDk(expected, key != Qt::Key_PageUp));
}

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
