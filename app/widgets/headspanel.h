// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The multi-head panel: the head grid (with the choice of what its tiles
// show: weights, raw scores or scaled scores), and beside it the
// concatenation of the heads' contexts [Z_1 | … | Z_h] (n, h d_v) and the
// output projection concat · W_o (n, d_out) as maps of their own, the output
// hidden when the run has none. Handed the engine's result; reads no session.

#include "headgridrenderer.h"
#include "multihead.h"

#include <QStringList>
#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;

namespace attnlab {

class HeadGridView;
class HeatmapView;

class HeadsPanel : public QWidget {
    Q_OBJECT
public:
    explicit HeadsPanel(QWidget* parent = nullptr);

    // Null (a single head): the grid and the maps are emptied.
    void setResult(std::shared_ptr<const attn::MultiHeadResult> result, const QStringList& tokenLabels,
                   int selectedHead);
    std::shared_ptr<const attn::MultiHeadResult> result() const { return result_; }
    QStringList tokenLabels() const { return tokens_; }
    void setSelectedHead(int head);
    int selectedHead() const;
    void setKind(HeadMapKind kind);
    HeadMapKind kind() const;

    HeadGridView* grid() const { return grid_; }
    HeatmapView* concatView() const { return concat_; }
    HeatmapView* outputView() const { return output_; }

signals:
    // A head picked in the grid (0-based).
    void headActivated(int head);

private:
    void refreshMaps();

    std::shared_ptr<const attn::MultiHeadResult> result_;
    QStringList tokens_;
    QComboBox* kind_ = nullptr;
    QLabel* gridCaption_ = nullptr;
    HeadGridView* grid_ = nullptr;
    HeatmapView* concat_ = nullptr;
    QLabel* concatCaption_ = nullptr;
    HeatmapView* output_ = nullptr;
    QLabel* outputCaption_ = nullptr;
    QWidget* outputBox_ = nullptr;
};

}  // namespace attnlab
