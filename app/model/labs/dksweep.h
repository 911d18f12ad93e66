// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The d_k "play" button's logic: steps d_k through the slider's log-even
// steps (attn::defaultScalingLabDks: 1, 2, 3, ..., 1024, about 8 an octave)
// up to 1024 and back down to 1, one step per interval, each once the
// previous step's result is current (a large one is computed in the worker),
// so that every view shows every step. stop() ends it where it is, and so
// does a d_k set by anyone else (the user moving the slider).
//
// Recording also writes each step's frame as a numbered PNG into a folder
// (frame_0001.png, frame_0002.png, ...; ffmpeg -i frame_%04d.png; the
// folder is made when missing). The frames are drawn by the frame maker the
// window's frame source gives when the recording starts, from the step's
// d_k alone (a lab of its own computes it: DkSweepSource), never from the
// screen: one frame per step, each of its own d_k's result, however slowly
// the window follows. A frame that cannot be written stops the sweep with
// failed(message).
//
// A sweep that runs to its end goes back to the d_k it started from.

#include "expected.h"

#include <QByteArray>
#include <QObject>
#include <QSize>
#include <QString>
#include <QTimer>

#include <functional>
#include <vector>

namespace attnlab {

class Session;

class DkSweep : public QObject {
    Q_OBJECT
public:
    explicit DkSweep(Session* session, QObject* parent = nullptr);

    // The d_k of each step: the grid up, then down without repeating 1024.
    static std::vector<int> sequence();
    static QString frameFileName(int frame);  // 1-based: "frame_0001.png"
    // The user's cells of W_q and W_k (typed or imported) that the sweep's
    // d_k = 1 has no room for: they are dropped on the way (an undo of the
    // sweep brings them back), so the button asks first.
    int userCellsDroppedAtDkOne() const;

    // Pause between two steps once a step is shown (default 120 ms).
    void setInterval(int milliseconds) { interval_ = milliseconds; }
    int interval() const { return interval_; }
    // The PNG bytes of the frame of step `step` (1-based) of `steps`, at
    // `dK`, `size` pixels (the maker's default size when empty).
    using FrameMaker =
        std::function<attn::Expected<QByteArray>(int dK, int step, int steps, const QSize& size)>;
    // Called as a recording starts, with the lab as it is then; the maker
    // it returns draws every frame of that recording.
    using FrameSource = std::function<FrameMaker()>;
    void setFrameSource(FrameSource source) { frameSource_ = std::move(source); }
    const FrameSource& frameSource() const { return frameSource_; }
    // The frames' size in pixels (empty, the default: the maker's own).
    void setFrameSize(const QSize& size) { frameSize_ = size; }

    bool isRunning() const { return running_; }
    bool isRecording() const { return running_ && !directory_.isEmpty(); }
    int step() const { return index_; }  // of sequence()
    int framesWritten() const { return framesWritten_; }
    QString frameDirectory() const { return directory_; }

public slots:
    void start();  // plays without writing frames
    // Plays and writes the frames into `directory` (made when missing); an
    // error, with nothing started, when it cannot be made or written to, or
    // there is no source.
    attn::Status startRecording(const QString& directory);
    void stop();

signals:
    void started();
    // After step `index` (d_k = dK) is on screen and its frame written.
    void stepped(int index, int dK);
    // completed: the whole sweep ran; false when stopped or failed.
    void finished(bool completed);
    void failed(const QString& message);

private:
    void begin(const QString& directory);
    void applyStep();
    void onResultChanged();
    void showStep();
    void finish(bool completed);

    Session* session_;
    QTimer timer_;
    FrameSource frameSource_;
    FrameMaker frameMaker_;
    QSize frameSize_;
    std::vector<int> sequence_;
    QString directory_;
    int interval_ = 120;
    int index_ = 0;
    int appliedDk_ = 0;  // the d_k the sweep last set
    int startDk_ = 0;    // where it goes back to at the end
    int framesWritten_ = 0;
    bool running_ = false;
    bool waiting_ = false;  // for the result of the current step
};

}  // namespace attnlab
