// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrixeditors.h"

#include "matrixmessagelabel.h"
#include "matrixtablemodel.h"
#include "numberdelegate.h"
#include "viewdemand.h"

#include <QEvent>
#include <QHeaderView>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

MatrixEditors::MatrixEditors(Session* session, QWidget* window) : QWidget(window), window_(window)
{
    auto* tabs = new QTabWidget;
    tabs->setObjectName(QStringLiteral("matrixTabs"));
    tabs->setAccessibleName(tr("Matrices"));
    const struct {
        MatrixId id;
        QString name;
        QString title;
        QString accessibleName;
        QString tip;
    } matrices[] = {
        {MatrixId::X, QStringLiteral("X"), tr("&X (embeddings)"), tr("Embeddings X"),
         tr("The embeddings: one row per token, d_model columns. Type a value to edit.")},
        {MatrixId::Wq, QStringLiteral("Wq"), tr("W_q"), tr("Query weights W_q"),
         tr("Query weights (d_model × d_k): Q = X W_q. Type a value to edit.")},
        {MatrixId::Wk, QStringLiteral("Wk"), tr("W_k"), tr("Key weights W_k"),
         tr("Key weights (d_model × d_k): K = X W_k. Type a value to edit.")},
        {MatrixId::Wv, QStringLiteral("Wv"), tr("W_v"), tr("Value weights W_v"),
         tr("Value weights (d_model × d_v): V = X W_v. Type a value to edit.")},
    };
    for (const auto& m : matrices) {
        auto* model = new MatrixTableModel(session, m.id, this);
        model->setObjectName(QStringLiteral("matrixModel") + m.name);
        models_.append(model);
        auto* view = new QTableView;
        view->setObjectName(QStringLiteral("matrixTable") + m.name);
        view->setAccessibleName(m.accessibleName);
        view->setModel(model);
        view->setItemDelegate(new NumberDelegate(view));
        view->installEventFilter(this);
        views_.append(view);
        view->setToolTip(m.tip);
        view->horizontalHeader()->setDefaultSectionSize(
            view->fontMetrics().horizontalAdvance(QStringLiteral("-0.00000")) + 12);
        view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
        view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                              | QAbstractItemView::AnyKeyPressed);
        // Tab leaves the table (thousands of cells would hold it); arrows move inside.
        view->setTabKeyNavigation(false);
        tabs->addTab(view, m.title);
    }
    // A refused edit's message stays under the tables until fixed.
    auto* message = new MatrixMessageLabel;
    for (MatrixTableModel* model : models_)
        message->watch(model);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(tabs, 1);
    layout->addWidget(message);
}

void MatrixEditors::updateLiveness()
{
    const bool windowShown = window_->isVisible();
    for (int i = 0; i < models_.size(); ++i)
        models_[i]->setLive(ViewDemand::matrixTableLive(windowShown, views_[i]->isVisible()));
}

bool MatrixEditors::eventFilter(QObject* watched, QEvent* event)
{
    // Compared as QObjects: `watched` may be any object this filter watches.
    if ((event->type() == QEvent::Show || event->type() == QEvent::Hide)
        && std::any_of(views_.cbegin(), views_.cend(),
                       [watched](const QObject* view) { return view == watched; }))
        updateLiveness();
    return QWidget::eventFilter(watched, event);
}

}  // namespace attnlab
