// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The next-token panel on screen: NextTokenRenderer's bars of the most
// likely next tokens, from the prediction it is handed (it computes
// nothing). A tooltip gives a bar's token, probability, id and logit.

#include "nexttokenrenderer.h"

#include <QWidget>

#include <vector>

namespace attnlab {

class NextTokenView : public QWidget {
    Q_OBJECT
public:
    explicit NextTokenView(QWidget* parent = nullptr);

    void setPrediction(const std::vector<attn::TopToken>& top, const QStringList& labels, double temperature,
                       const QString& context);
    void clear();
    const NextTokenRenderer& renderer() const { return renderer_; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;  // tooltips
    void changeEvent(QEvent* event) override;

private:
    NextTokenRenderer renderer_;
};

}  // namespace attnlab
