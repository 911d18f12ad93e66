// SPDX-License-Identifier: GPL-3.0-or-later
#include "matrixmessagelabel.h"

#include "matrixtablemodel.h"

#include <QPalette>

namespace attnlab {

MatrixMessageLabel::MatrixMessageLabel(QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("matrixMessageLabel"));
    setAccessibleName(tr("Matrix edit message"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    // A red that reads on light and dark window colours alike.
    QPalette p = palette();
    p.setColor(QPalette::WindowText, QColor(215, 50, 50));
    setPalette(p);
    hide();
}

void MatrixMessageLabel::watch(MatrixTableModel* model)
{
    models_.append(model);
    connect(model, &MatrixTableModel::refusalChanged, this, [this, model] { update(model); });
}

void MatrixMessageLabel::update(MatrixTableModel* changed)
{
    if (!changed->refusal().isEmpty()) {
        shown_ = changed;
    } else if (changed == shown_) {
        // Another matrix's refusal may still stand.
        shown_ = nullptr;
        for (MatrixTableModel* m : models_)
            if (!m->refusal().isEmpty())
                shown_ = m;
    }
    if (!shown_) {
        clear();
        hide();
        return;
    }
    setText(shown_->refusal());
    show();
}

}  // namespace attnlab
