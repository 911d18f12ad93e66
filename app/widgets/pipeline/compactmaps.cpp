// SPDX-License-Identifier: GPL-3.0-or-later
#include "compactmaps.h"

#include "heatmapview.h"

#include <QEvent>

#include <algorithm>

namespace attnlab {

CompactMaps::CompactMaps(const QList<HeatmapView*>& maps, QObject* parent) : QObject(parent), maps_(maps)
{
    for (HeatmapView* map : maps_) {
        map->installEventFilter(this);
        connect(map, &HeatmapView::shownBlockChanged, this, &CompactMaps::refit);
    }
}

bool CompactMaps::isCompact() const
{
    return !maps_.isEmpty() && maps_.front()->compactLayout() != CompactLayout::Off;
}

bool CompactMaps::allPrintNumbers() const
{
    return std::all_of(maps_.cbegin(), maps_.cend(),
                       [](const HeatmapView* map) { return map->cellTextVisible(); });
}

void CompactMaps::refit()
{
    refitQueued_ = false;
    for (HeatmapView* map : maps_)
        map->setCompactLayout(CompactLayout::Off);
    if (maps_.isEmpty() || allPrintNumbers())
        return;
    // Zoomed maps show blocks of their own; cells drawn as an image are far
    // too small for numbers in any layout.
    const int rows = maps_.front()->rowCount();
    for (const HeatmapView* map : maps_)
        if (map->isZoomed() || map->cellImageMode() || map->rowCount() != rows
            || map->height() != maps_.front()->height())
            return;
    for (HeatmapView* map : maps_)
        map->setCompactLayout(map == maps_.front() ? CompactLayout::WithRowLabels
                                                   : CompactLayout::WithoutRowLabels);
    if (!allPrintNumbers())
        for (HeatmapView* map : maps_)
            map->setCompactLayout(CompactLayout::Off);
}

bool CompactMaps::eventFilter(QObject* watched, QEvent* event)
{
    switch (event->type()) {
    case QEvent::Resize: refit(); break;
    case QEvent::FontChange:
        // The map takes its new font after this filter.
        if (!refitQueued_) {
            refitQueued_ = true;
            QMetaObject::invokeMethod(this, &CompactMaps::refit, Qt::QueuedConnection);
        }
        break;
    default: break;
    }
    return QObject::eventFilter(watched, event);
}

}  // namespace attnlab
