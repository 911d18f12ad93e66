// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// RoPE made visible (issue 38), for the Model tab's RoPE page and its
// larger window: one head's raw scores without the rotation (q·k) and with
// it (q_rot·k_rot, the model's), side by side on one diverging scale, keys
// the pass hid in grey; and the rotation itself, the angle p·θ_i each pair
// of dimensions i is turned by at each position p, as a hue that goes
// round once per 2π (with a clock hand where the cells are large enough);
// under them the frequencies θ_i in one line. It draws what it is handed
// (an attn::RotaryHead computed by the core) and computes nothing else.

#include "decoder_config.h"
#include "heatmapstyle.h"
#include "rotary_head.h"

#include <QCoreApplication>
#include <QFont>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <optional>

class QPainter;

namespace attnlab {

class RotaryRenderer {
    Q_DECLARE_TR_FUNCTIONS(RotaryView)
public:
    enum class Panel { None = -1, Before = 0, After = 1, Angles = 2 };
    static constexpr int kPanels = 3;
    struct Layout {
        QRectF title;
        QRectF caption[kPanels];  // each panel's one-line caption
        QRectF cells[kPanels];    // each panel's grid of cells
        QRectF rowLabels;         // the tokens, left of the first grid (empty: too small)
        double rowHeight = 0;
        double scoreWidth = 0;  // a score cell's width (= rowHeight)
        double angleWidth = 0;  // an angle cell's width
        QRectF note;            // the line on distance
        QRectF legend;
        QRectF frequencies;
    };
    struct Hit {
        Panel panel = Panel::None;
        int row = -1;
        int col = -1;
    };

    // "layer 1 · head 2: RoPE turns each pair of dimensions (i, i + 4) ..."
    // and which heads share its K and V: the title setHead is given.
    static QString headTitle(const attn::DecoderConfig& config, const attn::RotaryHead& head);

    void setFont(const QFont& font) { font_ = font; }
    // The head to draw, its tokens' labels (n), its title and the
    // frequencies' line (rotaryFrequencyText).
    void setHead(attn::RotaryHead head, QStringList labels, QString title, QString frequencyText);
    // Nothing to draw: `message` in its place.
    void clear(const QString& message);
    const std::optional<attn::RotaryHead>& head() const { return head_; }
    const QString& message() const { return message_; }
    // max |score| over the visible entries of both maps: the colour scale's end.
    double scoreScale() const { return scale_; }

    Layout layout(const QSize& size) const;
    Hit hitTest(const QSize& size, const QPointF& pos) const;
    // "q·k[3, 1] = 0.52 · q_rot·k_rot = 0.61 · distance 2", "pair 2 at position 3: 1.73 rad (99°)".
    QString toolTip(const Hit& hit) const;
    void paint(QPainter& painter, const QSize& size, const HeatmapStyle& style) const;

private:
    QFont font_;
    std::optional<attn::RotaryHead> head_;
    QStringList labels_;
    QString title_;
    QString frequencies_;
    QString message_;
    double scale_ = 0.0;
};

}  // namespace attnlab
