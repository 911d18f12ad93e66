// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The model's parameters: seed, initialisation, d_model, d_k (slider and spin
// box), d_v, the scaling of the scores and the mask: the causal mask, and
// with it which earlier keys a query sees (all, a sliding window of W, or
// S sink tokens + a window of W, with their spin boxes). Each control
// sends its value to the session; when the session's parameters change from
// elsewhere (reset, settings) the controls follow without echoing back.
//
// The d_k slider is log-even over 1..1024 (attn::dkFromSliderPosition): each
// octave gets the same travel. An arrow key steps to the next d_k of the
// d_k lab's grid (1, 2, 3, ... then about 8 per octave), Page Up/Down double
// and halve d_k (in the spin box too), Home/End to 1 and 1024; the spin box
// takes every integer. A note
// beside the initialisation says whether q and k have the unit variance the
// √d_k argument assumes.

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFrame;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attnlab {

class HighlightFrame;

class HeadsControls;
class Session;

class ParameterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPanel(Session* session, QWidget* parent = nullptr);

    QSlider* dKSlider() const { return dKSlider_; }
    QPushButton* scalingDemoButton() const { return scalingDemo_; }

    // A control of the window's (the play button) after the d_k spin box,
    // inside the d_k frame and next in the Tab order.
    void addDkControl(QWidget* control);

    // Page Up (up) or Page Down from dK: twice or half of it, within 1..1024.
    static int pageStepDk(int dK, bool up);

    // A frame around the d_k controls, for lesson mode.
    void setDkHighlighted(bool highlighted);
    bool isDkHighlighted() const { return dKHighlighted_; }

signals:
    // The "Scaling demo" button; the window decides what the demo does.
    void scalingDemoRequested();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void syncFromSession();
    void onDkSliderAction(int action);
    void updateInitNote();
    void applyMask();  // the mask controls to the session

    Session* session_;
    QSpinBox* seed_;
    QComboBox* init_;
    QSpinBox* dModel_;
    HighlightFrame* dKFrame_;
    QWidget* lastDkControl_ = nullptr;
    QSlider* dKSlider_;
    QSpinBox* dK_;
    QSpinBox* dV_;
    QComboBox* scale_;
    QDoubleSpinBox* divisor_;
    QCheckBox* causal_;
    QComboBox* maskKind_;  // all earlier keys, sliding window, sink + window
    QSpinBox* maskWindow_;
    QSpinBox* maskSink_;
    QPushButton* regenerate_;
    QLabel* initNote_;
    QPushButton* scalingDemo_;
    HeadsControls* heads_;
    bool dKHighlighted_ = false;
};

}  // namespace attnlab
