// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head lab's "Lens" page (issue 39), over ModelReadings: a chooser
// between the logit lens, a table of layers (rows) x positions (columns)
// whose cell names the most likely next token after that layer at that
// position with its probability, on a background coloured by it (white 0,
// deep blue 1), the 5 most likely in its tooltip; and the attention
// rollout, an n x n map (rows the queries, keys the columns) on the
// weights' scale. A line above says which pass they read: the intact one
// or the ablated one, and the what-ifs it ran under. The third reading is
// the A/B difference (ModelComparison): B minus A of the selected head's
// weights or of the rollout on a diverging map (blue below 0, red above),
// for intact vs ablated, scaled vs unscaled, or this sentence vs another
// typed below of the same token count. The page shows what ModelReadings
// and ModelComparison computed and asks for them only while shown.

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QStackedWidget;
class QTableWidget;

namespace attnlab {

class HeatmapView;
class ModelComparison;
class ModelReadings;
class ModelSession;

class LensPanel : public QWidget {
    Q_OBJECT
public:
    LensPanel(ModelSession* session, ModelReadings* readings, ModelComparison* comparison,
              QWidget* parent = nullptr);

    enum class Reading { LogitLens, Rollout, Difference };
    Reading reading() const;
    void setReading(Reading reading);

    QTableWidget* lensTable() const { return lens_; }
    HeatmapView* rolloutView() const { return rollout_; }
    HeatmapView* differenceView() const { return difference_; }
    QLabel* caption() const { return caption_; }

public slots:
    void refresh();

protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    void showLens();
    void showRollout();
    void showDifference();
    void want();  // what is computed: the reading shown, while the page is

    ModelSession* session_;
    ModelReadings* readings_;
    ModelComparison* comparison_;
    QComboBox* chooser_;
    QLabel* caption_;
    QStackedWidget* stack_;
    QTableWidget* lens_;
    HeatmapView* rollout_;
    QWidget* differencePage_;
    QComboBox* compareKind_;
    QComboBox* compareMap_;
    QLineEdit* otherSentence_;
    HeatmapView* difference_;
    bool shown_ = false;
};

}  // namespace attnlab
