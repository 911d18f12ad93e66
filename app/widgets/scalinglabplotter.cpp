// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabplotter.h"

#include "scalinglabcommand.h"
#include "scalinglabview.h"

namespace attnlab {

void registerScalingLabPlotter()
{
    setScalingLabPlotter([](const attn::ScalingLabCurves& curves, const QStringList& formats) {
        ScalingLabView view;
        view.setCurves(curves);
        return view.imageFiles(formats, ScalingLabView::defaultImageSize());
    });
}

}  // namespace attnlab
