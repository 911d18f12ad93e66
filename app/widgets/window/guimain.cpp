// SPDX-License-Identifier: GPL-3.0-or-later
#include "guimain.h"

#include "mainwindow.h"
#include "modelcontroller.h"

#include <QApplication>
#include <QIcon>
#include <QTimer>

#include <chrono>
#include <cstdio>
#include <utility>

namespace attnlab {
namespace {

// --exit-after-first-paint (for attention-lab-bench): once the window has
// painted with its result (not one still computing), print the steady clock's
// time in nanoseconds as "ATTNLAB_FIRST_PAINT_NS=..." and quit. With
// --screenshot FILE.png it also saves the window as the application rendered
// it (the README's picture).
class FirstPaintExit : public QObject {
public:
    FirstPaintExit(MainWindow* window, QString screenshot) : window_(window), shot_(std::move(screenshot)) {}

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (!fired_ && event->type() == QEvent::Paint && watched->isWidgetType()
            && static_cast<QWidget*>(watched)->window() == window_
            && window_->session()->published()->computed() && !window_->session()->isComputing()) {
            fired_ = true;
            // A zero timer runs after the paint in progress has finished.
            QTimer::singleShot(0, this, [this] {
                if (!shot_.isEmpty() && !window_->grab().save(shot_))
                    std::fprintf(stderr, "attention-lab: cannot write the screenshot '%s'\n",
                                 qPrintable(shot_));
                const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                    std::chrono::steady_clock::now().time_since_epoch());
                std::printf("ATTNLAB_FIRST_PAINT_NS=%lld\n", static_cast<long long>(ns.count()));
                std::fflush(stdout);
                QCoreApplication::exit(0);
            });
        }
        return false;
    }

private:
    MainWindow* window_;
    QString shot_;
    bool fired_ = false;
};

}  // namespace

int runGui(int argc, char** argv, const WindowStart& start, const GuiBenchSwitches& bench)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("AttentionLab"));
    QApplication::setApplicationName(QStringLiteral("Attention Lab"));
    QApplication::setApplicationVersion(QStringLiteral(ATTNLAB_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.attentionlab.AttentionLab"));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("io.github.attentionlab.AttentionLab")));
    MainWindow window;
    window.restoreSettings(start);
    if (start.model)
        window.models()->showModel(start.model);
    FirstPaintExit firstPaintExit(&window, bench.screenshot);
    if (bench.exitAfterFirstPaint)
        app.installEventFilter(&firstPaintExit);
    window.show();
    // Once the window is up: the autosave of a run that did not close.
    if (!bench.exitAfterFirstPaint)
        QTimer::singleShot(0, &window, &MainWindow::offerRecovery);
    return app.exec();
}

}  // namespace attnlab
