// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attnlab {

namespace {

QList<ExportDialog::Choice> exporterChoices()
{
    QList<ExportDialog::Choice> choices;
    for (ExportView v : ViewExporter::views())
        choices.append({v, ViewExporter::viewName(v), ViewExporter::defaultSize(v),
                        ViewExporter::showsFocus(v), ViewExporter::hasScoreRanges(v)});
    return choices;
}

QString sizeKey(ExportView view)
{
    return QStringLiteral("export/size/") + ViewExporter::fileStem(view);
}

}  // namespace

ExportDialog::ExportDialog(QWidget* parent) : ExportDialog(exporterChoices(), parent)
{
}

ExportDialog::ExportDialog(const QList<Choice>& choices, QWidget* parent) : QDialog(parent), choices_(choices)
{
    setWindowTitle(tr("Export a picture"));
    view_ = new QComboBox(this);
    view_->setObjectName(QStringLiteral("exportViewCombo"));
    view_->setAccessibleName(tr("View"));
    view_->setToolTip(
        tr("The view to draw: a map, a plot, or the three score maps with the "
           "operations between them as one figure."));
    for (const Choice& c : choices_)
        view_->addItem(c.name, int(c.view));
    format_ = new QComboBox(this);
    format_->setObjectName(QStringLiteral("exportFormatCombo"));
    format_->setAccessibleName(tr("Format"));
    format_->setToolTip(tr("PNG for slides; SVG and PDF are vectors with the text kept as text."));
    format_->addItem(tr("PNG image"), int(ImageFormat::Png));
    format_->addItem(tr("SVG vector drawing"), int(ImageFormat::Svg));
    format_->addItem(tr("PDF document"), int(ImageFormat::Pdf));

    width_ = new QSpinBox(this);
    height_ = new QSpinBox(this);
    width_->setObjectName(QStringLiteral("exportWidthSpin"));
    height_->setObjectName(QStringLiteral("exportHeightSpin"));
    width_->setAccessibleName(tr("Width"));
    height_->setAccessibleName(tr("Height"));
    for (QSpinBox* s : {width_, height_}) {
        s->setRange(100, 8000);
        s->setSuffix(tr(" px"));
        s->setToolTip(tr("The size the picture is laid out for; text grows with it."));
    }
    scale_ = new QDoubleSpinBox(this);
    scale_->setObjectName(QStringLiteral("exportScaleSpin"));
    scale_->setAccessibleName(tr("Scale"));
    scale_->setRange(0.25, 8.0);
    scale_->setSingleStep(0.5);
    scale_->setValue(1.0);
    scale_->setSuffix(tr(" ×"));
    scale_->setToolTip(
        tr("PNG only: pixels per layout pixel. 2 gives a sharp picture of the same "
           "layout for print or high-density screens."));
    pixels_ = new QLabel(this);
    pixels_->setObjectName(QStringLiteral("exportPixelsLabel"));
    pixels_->setAccessibleName(tr("Picture size in pixels"));

    focusBox_ = new QCheckBox(tr("Outline the focused &query"), this);
    focusBox_->setObjectName(QStringLiteral("exportFocusBoxCheck"));
    focusBox_->setAccessibleName(tr("Outline the focused query"));
    focusBox_->setToolTip(tr("Draw the box around the focused query's row, as on screen."));
    focusBox_->setChecked(true);
    ranges_ = new QComboBox(this);
    ranges_->setObjectName(QStringLiteral("exportRangesCombo"));
    ranges_->setAccessibleName(tr("Colour ranges"));
    ranges_->setToolTip(
        tr("Shared: raw and scaled scores use one colour range, so the "
           "shrinking by the divisor shows. Independent: each its own."));
    ranges_->addItem(tr("Shared by raw and scaled scores"), false);
    ranges_->addItem(tr("Independent for each map"), true);
    fontScale_ = new QDoubleSpinBox(this);
    fontScale_->setObjectName(QStringLiteral("exportFontScaleSpin"));
    fontScale_->setAccessibleName(tr("Font scale"));
    fontScale_->setRange(0.5, 4.0);
    fontScale_->setSingleStep(0.25);
    fontScale_->setValue(1.0);
    fontScale_->setSuffix(tr(" ×"));
    fontScale_->setToolTip(
        tr("Text and lines this many times larger in the same picture: 1.5 "
           "or 2 for slides seen from the back of a room."));

    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(tr("×"), this));
    sizeRow->addWidget(height_);
    auto* form = new QFormLayout;
    form->addRow(tr("&View:"), view_);
    form->addRow(tr("&Format:"), format_);
    // A row of two fields: the label's buddy is the width, else its '&' would
    // show as it is.
    auto* sizeLabel = new QLabel(tr("Si&ze:"), this);
    sizeLabel->setBuddy(width_);
    form->addRow(sizeLabel, sizeRow);
    form->addRow(tr("Sc&ale:"), scale_);
    form->addRow(QString(), pixels_);
    form->addRow(tr("Colour &ranges:"), ranges_);
    form->addRow(tr("Fon&t scale:"), fontScale_);
    form->addRow(QString(), focusBox_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(view_, &QComboBox::currentIndexChanged, this, [this] { setPictureSize(rememberedSize(view())); });
    for (QSpinBox* s : {width_, height_})
        connect(s, &QSpinBox::valueChanged, this, &ExportDialog::update);
    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::update);
    connect(view_, &QComboBox::currentIndexChanged, this, &ExportDialog::update);
    connect(scale_, &QDoubleSpinBox::valueChanged, this, &ExportDialog::update);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    const bool pipeline = view_->findData(int(ExportView::Pipeline)) >= 0;
    setView(pipeline ? ExportView::Pipeline
                     : (choices_.isEmpty() ? ExportView::Pipeline : choices_.first().view));
    setPictureSize(rememberedSize(view()));
    restoreChoices();
    update();
}

ExportView ExportDialog::view() const
{
    return ExportView(view_->currentData().toInt());
}

void ExportDialog::setView(ExportView view)
{
    const int index = view_->findData(int(view));
    if (index < 0)
        return;
    if (index == view_->currentIndex())
        setPictureSize(rememberedSize(view));
    view_->setCurrentIndex(index);
}

ImageFormat ExportDialog::format() const
{
    return ImageFormat(format_->currentData().toInt());
}

void ExportDialog::setFormat(ImageFormat format)
{
    format_->setCurrentIndex(format_->findData(int(format)));
}

QSize ExportDialog::pictureSize() const
{
    return {width_->value(), height_->value()};
}

void ExportDialog::setPictureSize(const QSize& size)
{
    width_->setValue(size.width());
    height_->setValue(size.height());
}

qreal ExportDialog::scale() const
{
    return format() == ImageFormat::Png ? scale_->value() : 1.0;
}

void ExportDialog::setScale(qreal scale)
{
    scale_->setValue(scale);
}

ExportOptions ExportDialog::options() const
{
    ExportOptions o;
    o.focusBox = focusBox_->isChecked();
    o.independentRanges = ranges_->currentData().toBool();
    o.fontScale = fontScale_->value();
    return o;
}

void ExportDialog::setOptions(const ExportOptions& options)
{
    focusBox_->setChecked(options.focusBox);
    ranges_->setCurrentIndex(options.independentRanges ? 1 : 0);
    fontScale_->setValue(options.fontScale);
}

void ExportDialog::accept()
{
    saveChoices();
    QDialog::accept();
}

QSize ExportDialog::rememberedSize(ExportView view) const
{
    QSize fallback = ViewExporter::defaultSize(view);
    for (const Choice& c : choices_)
        if (c.view == view)
            fallback = c.defaultSize;
    const QSize size = QSettings().value(sizeKey(view), fallback).toSize();
    return size.width() >= 100 && size.height() >= 100 ? size : fallback;
}

void ExportDialog::restoreChoices()
{
    QSettings settings;
    const int format = format_->findData(settings.value(QStringLiteral("export/format"), 0).toInt());
    if (format >= 0)
        format_->setCurrentIndex(format);
    scale_->setValue(settings.value(QStringLiteral("export/scale"), 1.0).toDouble());
    fontScale_->setValue(settings.value(QStringLiteral("export/fontScale"), 1.0).toDouble());
    focusBox_->setChecked(settings.value(QStringLiteral("export/focusBox"), true).toBool());
}

void ExportDialog::saveChoices() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("export/format"), int(format()));
    settings.setValue(sizeKey(view()), pictureSize());
    settings.setValue(QStringLiteral("export/scale"), scale_->value());
    settings.setValue(QStringLiteral("export/fontScale"), fontScale_->value());
    settings.setValue(QStringLiteral("export/focusBox"), focusBox_->isChecked());
}

void ExportDialog::update()
{
    const bool png = format() == ImageFormat::Png;
    scale_->setEnabled(png);
    bool focus = false;
    bool ranges = false;
    for (const Choice& c : choices_)
        if (c.view == view()) {
            focus = c.showsFocus;
            ranges = c.hasScoreRanges;
        }
    focusBox_->setEnabled(focus);
    ranges_->setEnabled(ranges);
    const QSize s = pictureSize();
    pixels_->setText(png ? tr("%1 × %2 pixels").arg(int(s.width() * scale())).arg(int(s.height() * scale()))
                         : tr("%1 × %2 pt page").arg(s.width() * 0.75).arg(s.height() * 0.75));
}

}  // namespace attnlab
