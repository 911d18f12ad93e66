// SPDX-License-Identifier: GPL-3.0-or-later
#include "focusedqueryfigure.h"

#include "colormap.h"
#include "focusbars.h"
#include "picturestyle.h"
#include "presentation.h"
#include "sharetext.h"
#include "spacemark.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QLocale>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace attnlab {

namespace {

struct FocusedQueryText {
    Q_DECLARE_TR_FUNCTIONS(FocusedQueryFigure)
};

const QColor kMuted(0x55, 0x5b, 0x66);
const QColor kAxis(0x99, 0x99, 0x99);

QFont pixelFont(int px, bool bold = false)
{
    QFont font;
    font.setPixelSize(std::max(6, px));
    font.setBold(bold);
    return font;
}

QString divisorText(const AttentionSnapshot& s)
{
    switch (s.options.scale) {
    case attn::ScaleMode::SqrtDk: return QStringLiteral("√%1").arg(s.head().Q.cols());
    case attn::ScaleMode::None: return QStringLiteral("1");
    case attn::ScaleMode::Custom: return QLocale().toString(s.head().divisor, 'g', 6);
    }
    return {};
}

struct Panel {
    QString title;
    std::vector<double> values;
    double lo = 0.0;  // the axis from lo to hi (lo < 0 for scores about zero)
    double hi = 1.0;
    bool weights = false;
};

// One panel of bars in `area`, labels of the keys under it when `keyLabels`.
void paintPanel(QPainter& p, const QRect& area, const Panel& panel, const QStringList& keys, int px,
                bool keyLabels)
{
    const QFont titleFont = pixelFont(px, true);
    const QFont valueFont = pixelFont(px * 4 / 5);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics valueFm(valueFont);
    p.setFont(titleFont);
    p.setPen(picturestyle::kText);
    p.drawText(QRect(area.left(), area.top(), area.width(), titleFm.height()),
               Qt::AlignLeft | Qt::AlignVCenter,
               titleFm.elidedText(panel.title, Qt::ElideRight, area.width()));
    const int labelH = keyLabels ? valueFm.height() + px / 2 : 0;
    const QRect plot(area.left(), area.top() + titleFm.height() + valueFm.height() + px / 2, area.width(),
                     area.height() - titleFm.height() - 2 * valueFm.height() - px - labelH);
    if (plot.height() < 4 || panel.values.empty())
        return;
    const double span = panel.hi - panel.lo;
    const auto yOf = [&](double v) {
        return plot.bottom() - int(std::lround((v - panel.lo) / (span > 0 ? span : 1.0) * plot.height()));
    };
    const int zero = yOf(0.0);
    const int n = int(panel.values.size());
    const double slot = double(plot.width()) / n;
    const int barW = std::max(1, int(slot * 0.7));
    p.setPen(kAxis);
    p.drawLine(plot.left(), zero, plot.right(), zero);
    p.setFont(valueFont);
    for (int j = 0; j < n; ++j) {
        const double v = panel.values[std::size_t(j)];
        const int x = plot.left() + int(slot * j + (slot - barW) / 2);
        const int y = yOf(v);
        const QColor colour = panel.weights ? colormap::sequential(0.75, 0.0, 1.0)
                                            : colormap::diverging(v >= 0 ? 0.8 : -0.8, 1.0);
        p.fillRect(QRect(x, std::min(y, zero), barW, std::max(1, std::abs(zero - y))), colour);
        const QString text =
            panel.weights ? shareText(v, 2) : QLocale().toString(v, 'f', std::abs(v) < 10 ? 2 : 1);
        if (valueFm.horizontalAdvance(text) <= int(slot) - 2) {
            p.setPen(picturestyle::kText);
            const QRect box(int(plot.left() + slot * j), v >= 0 ? y - valueFm.height() : y, int(slot),
                            valueFm.height());
            p.drawText(box, Qt::AlignCenter, text);
        }
        if (keyLabels && j < keys.size()) {
            const QString key = valueFm.elidedText(keys[j], Qt::ElideMiddle, int(slot) - 2);
            if (key.size() > 1 || keys[j].size() == 1) {
                p.setPen(kMuted);
                drawTokenText(p,
                              QRect(int(plot.left() + slot * j), plot.bottom() + valueFm.height() + px / 4,
                                    int(slot), valueFm.height()),
                              Qt::AlignCenter, key);
            }
        }
    }
}

}  // namespace

void paintFocusedQueryFigure(QPainter& p, const QSize& size, const AttentionSnapshot& snapshot, int query)
{
    const attn::AttentionResult& r = snapshot.head();
    const int w = size.width();
    const int h = size.height();
    const int px = std::clamp(std::min(h / 36, w / 60), 10, 64);
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::TextAntialiasing);
    p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const int n = r.tokens();
    if (n == 0) {
        p.restore();
        return;
    }
    const int q = std::clamp(query, 0, n - 1);
    QStringList tokens;
    for (const std::string& t : snapshot.tokens.tokens)
        tokens << QString::fromStdString(t);
    tokens = positionedLabels(tokens);
    while (tokens.size() < n)
        tokens << QStringLiteral("t%1").arg(tokens.size());

    std::vector<double> scaled(std::size_t(n), 0.0);
    std::vector<double> weights(std::size_t(n), 0.0);
    r.scaledRow(q, scaled.data());
    r.weightsRow(q, weights.data());
    // The keys up to the last one the query sees; a hidden one among them
    // (outside a sliding window) has no bar.
    const int keys = r.visible(q).to;
    for (int j = 0; j < n; ++j)
        if (r.isMasked(q, j))
            scaled[std::size_t(j)] = 0.0;  // masked: no bar
    const FocusBars bars = focusBars(scaled.data(), weights.data(), keys);
    QStringList keyLabels;
    for (int b = 0; b < int(bars.keys.size()); ++b) {
        const int first = b * bars.group;
        const int last = std::min(keys, first + bars.group) - 1;
        keyLabels << (bars.group == 1 ? tokens[first] : QStringLiteral("%1–%2").arg(first + 1).arg(last + 1));
    }

    const int margin = px * 3 / 2;
    const QFont titleFont = pixelFont(px * 8 / 5, true);
    const QFont subtitleFont = pixelFont(px);
    const QFontMetrics titleFm(titleFont);
    const QFontMetrics subtitleFm(subtitleFont);
    int y = margin;
    p.setPen(picturestyle::kText);
    p.setFont(titleFont);
    const QString title =
        FocusedQueryText::tr("Query %1 “%2”: how it spreads its attention over %n key(s)", nullptr, keys)
            .arg(q + 1)
            .arg(tokens[q]);
    p.drawText(QRect(margin, y, w - 2 * margin, titleFm.height()), Qt::AlignCenter,
               titleFm.elidedText(title, Qt::ElideRight, w - 2 * margin));
    y += titleFm.height() + px / 3;
    p.setFont(subtitleFont);
    p.setPen(kMuted);
    const double weightSum = std::accumulate(weights.begin(), weights.begin() + keys, 0.0);
    const QString subtitle =
        FocusedQueryText::tr("d_k %1 · divided by %2 · its largest weight %3 · the weights sum to %4")
            .arg(r.Q.cols())
            .arg(divisorText(snapshot))
            .arg(shareText(*std::max_element(weights.begin(), weights.begin() + keys), 3))
            .arg(QLocale().toString(weightSum, 'g', 6));
    p.drawText(QRect(margin, y, w - 2 * margin, subtitleFm.height()), Qt::AlignCenter,
               subtitleFm.elidedText(subtitle, Qt::ElideRight, w - 2 * margin));
    y += subtitleFm.height() + px;

    Panel scores;
    scores.title = FocusedQueryText::tr("Scaled scores q · k_j ÷ %1").arg(divisorText(snapshot));
    scores.values = bars.scores;
    double m = 0.0;
    for (double v : bars.scores)
        m = std::max(m, std::abs(v));
    scores.lo = -(m > 0 ? m : 1.0);
    scores.hi = m > 0 ? m : 1.0;
    Panel weightPanel;
    weightPanel.title = FocusedQueryText::tr("Softmax weights a_j (the share of attention each key gets)");
    weightPanel.values = bars.weights;
    weightPanel.weights = true;

    const int bottom = h - margin;
    const int panelH = (bottom - y - px) / 2;
    paintPanel(p, QRect(margin, y, w - 2 * margin, panelH), scores, keyLabels, px, false);
    paintPanel(p, QRect(margin, y + panelH + px, w - 2 * margin, panelH), weightPanel, keyLabels, px, true);
    p.restore();
}

}  // namespace attnlab
