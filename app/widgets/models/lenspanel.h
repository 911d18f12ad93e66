// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's "Lens" page (issue 39), over ModelReadings: a chooser
// between the logit lens, a table of layers (rows) x positions (columns)
// whose cell names the most likely next token after that layer at that
// position with its probability, on a background coloured by it (white 0,
// deep blue 1), the 5 most likely in its tooltip; and the attention
// rollout, an n x n map (rows the queries, keys the columns) on the
// weights' scale. A line above says which pass they read: the intact one
// or the ablated one, and the what-ifs it ran under. The page shows what
// ModelReadings computed and asks for readings only while shown.

#include <QWidget>

class QComboBox;
class QLabel;
class QStackedWidget;
class QTableWidget;

namespace attnlab {

class HeatmapView;
class ModelReadings;
class ModelSession;

class LensPanel : public QWidget {
    Q_OBJECT
public:
    LensPanel(ModelSession* session, ModelReadings* readings, QWidget* parent = nullptr);

    enum class Reading { LogitLens, Rollout };
    Reading reading() const;
    void setReading(Reading reading);

    QTableWidget* lensTable() const { return lens_; }
    HeatmapView* rolloutView() const { return rollout_; }
    QLabel* caption() const { return caption_; }

public slots:
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void showLens();
    void showRollout();

    ModelSession* session_;
    ModelReadings* readings_;
    QComboBox* chooser_;
    QLabel* caption_;
    QStackedWidget* stack_;
    QTableWidget* lens_;
    HeatmapView* rollout_;
};

}  // namespace attnlab
