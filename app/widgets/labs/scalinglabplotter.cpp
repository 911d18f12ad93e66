// SPDX-License-Identifier: GPL-3.0-or-later
#include "scalinglabplotter.h"

#include "scalinglabview.h"

namespace attnlab {

ScalingLabPlotter scalingLabPlotter()
{
    return [](const attn::ScalingLabCurves& curves, const QStringList& formats) {
        ScalingLabView view;
        view.setCurves(curves);
        return view.imageFiles(formats, ScalingLabView::defaultImageSize());
    };
}

}  // namespace attnlab
