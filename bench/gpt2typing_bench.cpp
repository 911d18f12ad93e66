// SPDX-License-Identifier: GPL-3.0-or-later
#include "gpt2typing_bench.h"

#include "attentionworker.h"
#include "benchutil.h"
#include "gpt2open_bench.h"
#include "gpt2session.h"
#include "modelcontroller.h"
#include "modelgridview.h"
#include "windowwatch.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QKeyEvent>
#include <QLineEdit>
#include <QTemporaryDir>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace bench {

namespace {

// The Model tab's grid has painted the pass of the field's current text.
class ModelWatch : public QObject {
public:
    ModelWatch(attnlab::Gpt2Session* session, QWidget* grid, QLineEdit* field)
        : session_(session), grid_(grid), field_(field)
    {
        grid->installEventFilter(this);
        QObject::connect(session, &attnlab::Gpt2Session::resultChanged, this, [this] {
            delivered_ = true;
            painted_ = false;
        });
    }
    void arm()
    {
        delivered_ = false;
        painted_ = false;
    }
    bool done() const
    {
        return delivered_ && painted_ && !session_->isComputing() && session_->sentence() == field_->text()
               && int(session_->resultTokens().size()) == int(session_->tokens().size());
    }

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint && delivered_)
            painted_ = true;
        return false;
    }

private:
    attnlab::Gpt2Session* session_;
    QWidget* grid_;
    QLineEdit* field_;
    bool delivered_ = false;
    bool painted_ = false;
};

bool waitFor(const std::function<bool()>& done, int timeoutMs)
{
    QEventLoop loop;
    QTimer poll;
    poll.setTimerType(Qt::PreciseTimer);
    poll.setInterval(1);
    bool ok = false;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done()) {
            ok = true;
            loop.quit();
        }
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    poll.start();
    loop.exec();
    return ok;
}

// A key typed into the field as the keyboard would: press and release.
void typeKey(QLineEdit* field, QChar c)
{
    const int key =
        c == QLatin1Char(' ') ? int(Qt::Key_Space) : int(Qt::Key_A) + (c.toLower().unicode() - 'a');
    QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier, QString(c));
    QKeyEvent release(QEvent::KeyRelease, key, Qt::NoModifier, QString(c));
    QApplication::sendEvent(field, &press);
    QApplication::sendEvent(field, &release);
}

bool copyFile(const QString& from, const QString& to)
{
    QFile::remove(to);
    return QFile::copy(from, to);
}

}  // namespace

void runGpt2TypingBench(const char* tokenizerFolder, int runs)
{
    QTemporaryDir dir;
    if (!dir.isValid() || writeGpt2SmallFolder(dir.path()) == 0
        || !copyFile(QDir(QString::fromUtf8(tokenizerFolder)).filePath(QStringLiteral("vocab.json")),
                     dir.filePath(QStringLiteral("vocab.json")))
        || !copyFile(QDir(QString::fromUtf8(tokenizerFolder)).filePath(QStringLiteral("merges.txt")),
                     dir.filePath(QStringLiteral("merges.txt")))) {
        std::fprintf(stderr, "gpt2-typing: cannot write the checkpoint folder\n");
        return;
    }
    attnlab::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    settle(200);
    attnlab::ModelController* models = window.models();
    attnlab::Gpt2Session* session = models->session();
    auto* field = window.findChild<QLineEdit*>(QStringLiteral("sentenceEdit"));
    auto* grid = window.findChild<attnlab::ModelGridView*>(QStringLiteral("modelGrid"));
    if (!field || !grid) {
        std::fprintf(stderr, "gpt2-typing: no sentence field or model grid\n");
        return;
    }
    models->openModel(dir.path());
    if (!waitFor([&] { return session->hasModel() && !session->isLoading(); }, 120000)) {
        std::fprintf(stderr, "gpt2-typing: the model did not open\n");
        return;
    }
    ModelWatch watch(session, grid, field);

    // Sentences of about `words` tokens, then keys typed at their end.
    for (const int words : {31, 255}) {
        std::string text = "Jane is going to the cinema to watch a new";
        for (int i = 10; i < words; ++i)
            text += " word";
        watch.arm();
        field->setText(QString::fromStdString(text));
        if (!waitFor([&] { return watch.done(); }, 120000)) {
            std::printf("{\"case\":\"gpt2_typing_key\",\"n\":%d,\"error\":\"setup timed out\"}\n", words);
            continue;
        }
        settle(200);
        // The baseline: the pass alone over the tokens the window has now
        // plus one (the typed character makes a new piece or grows one).
        std::vector<int> ids;
        for (const attnlab::Gpt2Token& t : session->tokens())
            ids.push_back(t.id);
        ids.push_back(ids.back());
        attn::Gpt2Options options;
        options.topK = attnlab::Gpt2Session::kNextTokens;
        options.threads = attnlab::AttentionWorker::threads();
        const attn::Gpt2Weights& weights = session->model()->checkpoint.weights;
        const Timing engine = bench::measure([&] { (void)attn::runGpt2(weights, ids, options); }, 3, 0.5, 10);
        const int n = int(ids.size());

        // One key at a time: " x", then a backspace-free alternation that
        // keeps the length near n (each key is a new piece or a longer one).
        const QString keys = QStringLiteral(" abcdefghijklmnopqrstuvwxyz");
        std::vector<double> shown;
        double maxBlock = 0;
        int timeouts = 0;
        Heartbeat heartbeat;
        for (int i = 0; i < runs; ++i) {
            watch.arm();
            heartbeat.start();
            const Clock::time_point t0 = Clock::now();
            typeKey(field, keys[i % keys.size()]);
            if (waitFor([&] { return watch.done(); }, 30000))
                shown.push_back(msSince(t0));
            else
                ++timeouts;
            maxBlock = std::max(maxBlock, heartbeat.stop());
            settle(30);
        }
        const std::string tail = "\"engine_ms\":" + std::to_string(engine.medianMs)
                                 + ",\"target_gui_block_ms\":50,\"max_gui_block_ms\":";
        printCase("gpt2_typing_key", n, 768, summarise(shown),
                  tail + std::to_string(maxBlock) + ",\"timeouts\":" + std::to_string(timeouts));

        // Bursts of keys 40 ms apart: each supersedes the pass in flight.
        std::vector<double> lastShown;
        double burstBlock = 0;
        int burstTimeouts = 0;
        const int cancelledBefore = session->cancelledPasses();
        for (int b = 0; b < std::max(3, runs / 4); ++b) {
            watch.arm();
            heartbeat.start();
            Clock::time_point last;
            for (int k = 0; k < 8; ++k) {
                typeKey(field, keys[(b + k) % keys.size()]);
                last = Clock::now();
                if (k + 1 < 8)
                    settle(40);
            }
            if (waitFor([&] { return watch.done(); }, 30000))
                lastShown.push_back(msSince(last));
            else
                ++burstTimeouts;
            burstBlock = std::max(burstBlock, heartbeat.stop());
            settle(30);
        }
        printCase("gpt2_typing_burst", n, 768, summarise(lastShown),
                  tail + std::to_string(burstBlock) + ",\"timeouts\":" + std::to_string(burstTimeouts)
                      + ",\"interval_ms\":40,\"cancelled_passes\":"
                      + std::to_string(session->cancelledPasses() - cancelledBefore));
    }
}

}  // namespace bench
