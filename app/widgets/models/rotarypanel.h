// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// RoPE made visible (issue 38): the Model tab's "RoPE" page of the head
// lab and the larger window it opens. For the selected head of the last
// pass, RotaryRenderer draws the raw scores without and with the rotation
// side by side and the rotation's angles, with the frequencies under them
// (the numbers: attn::DecoderModel::rotaryHead through
// selectedRotaryHead). A model with learned positions (GPT-2) gets a line
// saying so. The view follows the session's result and selection; it
// recomputes only while shown.

#include "rotaryrenderer.h"

#include <QWidget>

class QDialog;
class QPushButton;

namespace attnlab {

class ModelSession;

class RotaryView : public QWidget {
    Q_OBJECT
public:
    explicit RotaryView(QWidget* parent = nullptr);
    RotaryRenderer& renderer() { return renderer_; }
    const RotaryRenderer& renderer() const { return renderer_; }
    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;  // tooltips
    void changeEvent(QEvent* event) override;

private:
    RotaryRenderer renderer_;
};

class RotaryPanel : public QWidget {
    Q_OBJECT
public:
    // `larger`: a button opens the same view in a window of its own.
    RotaryPanel(ModelSession* session, bool larger, QWidget* parent = nullptr);
    RotaryView* view() const { return view_; }
    // The window the button opened (null before).
    QDialog* window() const { return window_; }

public slots:
    // The session's result or selection changed (drawn now if shown, else when shown).
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void openWindow();

    ModelSession* session_;
    RotaryView* view_;
    QPushButton* open_ = nullptr;
    QDialog* window_ = nullptr;
    bool stale_ = true;
};

}  // namespace attnlab
