// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The next-token panel: the most likely next tokens as horizontal bars,
// largest first, each with its token text (the caller's display text,
// "␣movie"), its probability in percent and its id and logit, under a
// caption that states the softmax and its temperature ("softmax(logits /
// T), T = 1.0"). A bar's length is its probability over the largest one's
// (proportional; the longest bar is the first token), so that the random
// tiny checkpoint's 0.01 % still shows. Serves the model view and the
// exported pictures alike.

#include "heatmapstyle.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QRect>
#include <QString>
#include <QStringList>

#include <vector>

class QPainter;

namespace attn {
struct TopToken;
}  // namespace attn

namespace attnlab {

class NextTokenRenderer {
    Q_DECLARE_TR_FUNCTIONS(NextTokenView)
public:
    struct Entry {
        int id = 0;
        QString text;  // display text
        double logit = 0.0;
        double probability = 0.0;
    };
    // How much of an entry the value column says: all of it where it fits,
    // else without the logit, else the percent alone (a tooltip or the
    // wider picture has the rest); the bars keep at least a quarter of the
    // width.
    enum class ValueDetail { Percent, PercentId, Full };
    // Where each part goes for one size.
    struct Layout {
        QSize size;
        QRect caption;
        bool captionShort = false;  // "Top 10: softmax(…)" where the whole caption does not fit
        ValueDetail detail = ValueDetail::Full;
        QRect note;               // the bars' scale, below the bars
        std::vector<QRect> rows;  // one per entry shown: all, or the first that get a line of text each
        std::vector<QRect> labels;
        std::vector<QRect> bars;    // the full length each bar could take
        std::vector<QRect> values;  // the percent, id and logit
    };

    void setFont(const QFont& font);
    const QFont& font() const { return font_; }
    // top: largest first (runGpt2's DecoderResult::top); labels[i] names top[i];
    // context: the last token's text for the caption (empty: none).
    void setPrediction(const std::vector<attn::TopToken>& top, const QStringList& labels, double temperature,
                       const QString& context = QString());
    void clear();
    const std::vector<Entry>& entries() const { return entries_; }
    double temperature() const { return temperature_; }

    // "softmax(logits / T), T = 1.0"
    static QString softmaxText(double temperature);
    // "12.3 %", "0.0412 %": three significant digits under 1 %.
    static QString percentText(double probability);
    // "12.3 % · id 3807 · logit 8.253"
    static QString valueText(const Entry& e);
    // "12.3 % · id 3807", "12.3 %" (Full: valueText(e)).
    static QString valueText(const Entry& e, ValueDetail detail);
    QString captionText() const;
    QString captionHead() const;       // "Next token after “␣new”, top 10"
    QString shortCaptionText() const;  // "Top 10: softmax(logits / T), T = 1.0"

    QString noteText(int shown) const;  // `shown` of the entries have rows

    const Layout& layout(const QSize& size) const;  // cached
    // The drawn bar of entry i (its length the probability over the first's).
    QRect barRect(const QSize& size, int i) const;
    int entryAt(const QSize& size, const QPoint& pos) const;  // -1: none

    void paint(QPainter& painter, const QSize& size, const HeatmapStyle& style, const QColor& bar) const;

private:
    QFont font_;
    std::vector<Entry> entries_;
    double temperature_ = 1.0;
    QString context_;
    mutable Layout layout_;
    mutable bool layoutValid_ = false;
};

}  // namespace attnlab
