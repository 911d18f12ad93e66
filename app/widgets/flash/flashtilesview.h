// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Tiles tab (issue 40): the lab's shown head computed in
// FlashAttention's tiles of B_r x B_c and walked step by step. The walk
// (FlashWalk, app/model) holds every number; the picture is
// FlashTilesRenderer's; this view holds the controls and the lines of text
// and follows the session. It makes the walk again only while it is on
// screen (or when it comes on screen after a change).
//
// Keys on the picture: Right or Space step, Left back, Home first, End
// last, P play or pause.

#include <QWidget>

class QLabel;
class QPushButton;
class QSpinBox;

namespace attnlab {

class FlashWalk;
class Session;

class FlashTilesView : public QWidget {
    Q_OBJECT
public:
    explicit FlashTilesView(Session* session, QWidget* parent = nullptr);
    ~FlashTilesView() override;

    FlashWalk* walk() const { return walk_; }
    QWidget* canvas() const { return canvas_; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void follow();
    void showWalk();
    void showStep();

    Session* session_;
    FlashWalk* walk_;
    QSpinBox* rows_;
    QSpinBox* cols_;
    QPushButton* first_;
    QPushButton* back_;
    QPushButton* step_;
    QPushButton* last_;
    QPushButton* play_;
    QLabel* stepText_;
    QLabel* endText_;
    QLabel* memoryText_;
    QWidget* canvas_;
    QWidget* state_;
    bool stale_ = true;
};

}  // namespace attnlab
