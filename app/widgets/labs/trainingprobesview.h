// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The training lab's probes: for each run a small heatmap of the fixed probe
// examples' attention (one row per probe, one column per key, weight 0 to 1
// on the sequential map), the target key of each row outlined, under the
// run's name in its colour. Redrawn from each snapshot as the runs learn.

#include "matrix.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

namespace attnlab {

class TrainingProbesView : public QWidget {
    Q_OBJECT
public:
    struct Run {
        QString name;
        QColor colour;
        attn::Matrix attention;  // (probes, keys)
    };
    explicit TrainingProbesView(QWidget* parent = nullptr);

    void setRuns(std::vector<Run> runs, std::vector<int> targets, int steps);
    const std::vector<Run>& runs() const { return runs_; }
    const std::vector<int>& targets() const { return targets_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    std::vector<Run> runs_;
    std::vector<int> targets_;
    int steps_ = 0;
};

}  // namespace attnlab
