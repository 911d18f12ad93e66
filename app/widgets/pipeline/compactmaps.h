// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A row of maps side by side (the pipeline's raw scores, scaled scores and
// weights) laid out alike: the usual layout while every map prints its
// numbers there, else the compact one (HeatmapLayoutInput::compact) when
// that prints them all: the row labels once, left of the first map, whose
// rows the others share, and the colour bars under the cells. A projector
// in presentation mode (1280x720, larger labels) needs it. Decided again
// when a map is resized or zoomed and when refit() is called (new numbers).

#include <QList>
#include <QObject>

namespace attnlab {

class HeatmapView;

class CompactMaps : public QObject {
    Q_OBJECT
public:
    // `maps` from left to right, with the same rows.
    CompactMaps(const QList<HeatmapView*>& maps, QObject* parent);

    void refit();
    bool isCompact() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    bool allPrintNumbers() const;

    QList<HeatmapView*> maps_;
    bool refitQueued_ = false;
};

}  // namespace attnlab
