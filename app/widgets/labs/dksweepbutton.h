// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The "Play d_k" button beside the d_k slider: a click plays the d_k sweep
// (DkSweep) or stops it; its menu plays it and saves the frames as numbered
// PNGs into a folder chosen in a dialog, asking before frames already there
// are replaced. What happened is announced by message().

#include <QToolButton>

#include <functional>

namespace attnlab {

class DkSweep;

class DkSweepButton : public QToolButton {
    Q_OBJECT
public:
    explicit DkSweepButton(DkSweep* sweep, QWidget* parent = nullptr);

    // The folder dialog, replaceable for tests; empty when cancelled.
    void setFolderPrompt(std::function<QString()> prompt) { folderPrompt_ = std::move(prompt); }
    // Asked before replacing frames; true to go on.
    void setReplacePrompt(std::function<bool(const QString& folder)> prompt)
    {
        replacePrompt_ = std::move(prompt);
    }

    // Asked before a sweep that would drop `cells` of the user's W_q and
    // W_k cells on the way; true to play.
    void setDropPrompt(std::function<bool(int cells)> prompt) { dropPrompt_ = std::move(prompt); }

signals:
    void message(const QString& text);

private:
    void toggle();
    bool mayDropUserCells();
    void record();
    void updateLook();

    DkSweep* sweep_;
    std::function<QString()> folderPrompt_;
    std::function<bool(const QString&)> replacePrompt_;
    std::function<bool(int)> dropPrompt_;
};

}  // namespace attnlab
