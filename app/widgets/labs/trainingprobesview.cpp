// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingprobesview.h"

#include "colormap.h"

#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

constexpr int kRowHeight = 13;
constexpr int kGap = 16;

}  // namespace

TrainingProbesView::TrainingProbesView(QWidget* parent) : QWidget(parent)
{
    setAccessibleName(tr("The probes' attention per run"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

void TrainingProbesView::setRuns(std::vector<Run> runs, std::vector<int> targets, int steps)
{
    const bool grew =
        runs.size() != runs_.size()
        || (!runs.empty() && !runs_.empty() && runs[0].attention.rows() != runs_[0].attention.rows());
    runs_ = std::move(runs);
    targets_ = std::move(targets);
    steps_ = steps;
    if (grew)
        updateGeometry();
    update();
}

QSize TrainingProbesView::sizeHint() const
{
    const int probes = runs_.empty() ? 4 : int(runs_[0].attention.rows());
    return QSize(600, fontMetrics().height() * 2 + 6 + probes * kRowHeight);
}

QSize TrainingProbesView::minimumSizeHint() const
{
    return QSize(240, sizeHint().height());
}

void TrainingProbesView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QPalette pal = palette();
    const QFontMetrics fm = fontMetrics();
    const int line = fm.height();
    painter.setPen(pal.color(QPalette::WindowText));
    painter.drawText(QRect(0, 0, width(), line), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("The probes' attention at step %1: one row per probe, one column per key, "
                        "the target key outlined; darker is more weight.")
                         .arg(steps_));
    if (runs_.empty())
        return;
    const int count = int(runs_.size());
    const int blockWidth = (width() - kGap * (count - 1)) / count;
    const int top = line + 2;
    for (int r = 0; r < count; ++r) {
        const Run& run = runs_[std::size_t(r)];
        const int left = r * (blockWidth + kGap);
        painter.setPen(run.colour);
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        painter.drawText(QRect(left, top, blockWidth, line), Qt::AlignLeft | Qt::AlignVCenter,
                         fm.elidedText(run.name, Qt::ElideRight, blockWidth));
        painter.setFont(font());
        const int keys = int(run.attention.cols());
        if (keys == 0)
            continue;
        const double cell = double(blockWidth) / keys;
        const int mapTop = top + line + 2;
        for (int p = 0; p < int(run.attention.rows()); ++p) {
            const int y = mapTop + p * kRowHeight;
            for (int j = 0; j < keys; ++j) {
                const int x0 = left + int(j * cell), x1 = left + int((j + 1) * cell);
                painter.fillRect(QRect(x0, y, std::max(1, x1 - x0), kRowHeight - 1),
                                 colormap::sequential(run.attention(p, j), 0.0, 1.0));
            }
            if (p < int(targets_.size()) && targets_[std::size_t(p)] >= 0
                && targets_[std::size_t(p)] < keys) {
                const int t = targets_[std::size_t(p)];
                const int x0 = left + int(t * cell), x1 = left + int((t + 1) * cell);
                painter.setPen(
                    QPen(colormap::contrastingText(colormap::sequential(run.attention(p, t), 0.0, 1.0)), 2));
                painter.setBrush(Qt::NoBrush);
                painter.drawRect(QRect(x0, y, std::max(2, x1 - x0), kRowHeight - 1));
            }
        }
    }
}

}  // namespace attnlab
