#pragma once
// The model's parameters: seed, initialisation, d_model, d_k (slider and spin
// box), d_v, the scaling of the scores and the causal mask. Each control
// sends its value to the session; when the session's parameters change from
// elsewhere (reset, settings) the controls follow without echoing back.

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attnlab {

class Session;

class ParameterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPanel(Session* session, QWidget* parent = nullptr);

    QSlider* dKSlider() const { return dKSlider_; }

private:
    void syncFromSession();

    Session* session_;
    QSpinBox* seed_;
    QComboBox* init_;
    QSpinBox* dModel_;
    QSlider* dKSlider_;
    QSpinBox* dK_;
    QSpinBox* dV_;
    QComboBox* scale_;
    QDoubleSpinBox* divisor_;
    QCheckBox* causal_;
    QPushButton* regenerate_;
};

}  // namespace attnlab
