// SPDX-License-Identifier: GPL-3.0-or-later
#include "trainingplotter.h"

#include "scalinglabplots.h"
#include "trainingplots.h"
#include "trainingview.h"

#include <QWidget>

namespace attnlab {

TrainingLabPlotter trainingLabPlotter()
{
    return [](const attn::TrainingLab& lab, const QStringList& formats) {
        QWidget host;
        host.setPalette(ScalingLabPlots::exportPalette());
        TrainingPlots plots(&host);
        plots.setCurves(lab.curves(), lab.settings().steps, lab.settings().task.nKeys, lab.settings().dK);
        return plots.imageFiles(formats, TrainingView::defaultImageSize(), host.palette());
    };
}

}  // namespace attnlab
