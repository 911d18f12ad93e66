// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head view of one GPT-2 layer on screen: HeadLinesRenderer's query and
// key columns with a line per weight, one colour per head, from the result
// it is handed (it computes nothing). Hovering a token shows only its lines;
// a click on a head's legend entry switches that head off or on.

#include "headlinesrenderer.h"

#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

namespace attnlab {

class HeadLinesView : public QWidget {
    Q_OBJECT
public:
    explicit HeadLinesView(QWidget* parent = nullptr);
    ~HeadLinesView() override;

    void setResult(std::shared_ptr<const attn::DecoderResult> result, const QStringList& tokenLabels);
    void setLayer(int layer);
    const HeadLinesRenderer& renderer() const { return renderer_; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    HeadLinesRenderer renderer_;
    std::vector<bool> shown_;  // per head; empty: every head
};

}  // namespace attnlab
