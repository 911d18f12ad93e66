// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The lab views' plots laid out in a grid of `columns` columns, row by row
// (the d_k lab's two or four, the training lab's two or three as the view's
// width allows), the columns in use sharing the width equally.

#include <QGridLayout>
#include <qcustomplot.h>

#include <array>
#include <cstddef>

namespace attnlab {

template <std::size_t N>
void placePlotsInGrid(QGridLayout* grid, const std::array<QCustomPlot*, N>& plots, int columns)
{
    for (QCustomPlot* p : plots)
        grid->removeWidget(p);
    for (int i = 0; i < int(N); ++i)
        grid->addWidget(plots[std::size_t(i)], i / columns, i % columns);
    for (int c = 0; c < int(N); ++c)
        grid->setColumnStretch(c, c < columns ? 1 : 0);
}

}  // namespace attnlab
