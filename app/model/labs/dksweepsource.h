// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The numbers of each frame of a d_k sweep, computed for that frame alone:
// a lab of its own (a Session of its own, set from the lab the sweep
// starts from) is stepped through the sweep's d_k and gives, at each, the
// snapshot the exporters draw. Nothing on screen is read, so a frame shows
// the result computed at its own d_k however fast the window follows.
//
// The steps are taken in the order asked, as the window's slider takes
// them: at d_k = 1 the user's cells of W_q and W_k beyond the first column
// are dropped, as they are on screen.

#include "attentionsnapshot.h"
#include "expected.h"
#include "labfile.h"

#include <QString>

#include <memory>

namespace attnlab {

class Session;

class DkSweepSource {
public:
    // The lab to sweep; its own d_k is where a window's sweep returns.
    explicit DkSweepSource(const LabState& start);
    ~DkSweepSource();
    DkSweepSource(const DkSweepSource&) = delete;
    DkSweepSource& operator=(const DkSweepSource&) = delete;

    // Whether the start lab computes; the message when it does not.
    const attn::Status& status() const { return status_; }
    // The snapshot at `dK`: the lab with that d_k, computed here, on this
    // thread; an error naming d_k when it does not compute.
    attn::Expected<AttentionSnapshot> at(int dK);

    // "d_k = 64": what a frame's title says.
    static QString title(int dK);

private:
    std::unique_ptr<Session> session_;
    attn::Status status_;
};

// The snapshot the exporters draw of a session's current result (the
// config describing what is shown, even when a newer request was refused).
AttentionSnapshot sessionSnapshot(const Session& session);

}  // namespace attnlab
