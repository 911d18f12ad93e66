#include "exportdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace attnlab {

ExportDialog::ExportDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export a picture"));
    view_ = new QComboBox(this);
    view_->setObjectName(QStringLiteral("exportViewCombo"));
    view_->setAccessibleName(tr("View"));
    view_->setToolTip(tr("One heatmap, or the three score maps with the operations between them "
                         "as one figure with a title and the formula."));
    for (ExportView v : ViewExporter::views())
        view_->addItem(ViewExporter::viewName(v), int(v));
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
    scale_->setToolTip(tr("PNG only: pixels per layout pixel. 2 gives a sharp picture of the same "
                          "layout for print or high-density screens."));
    pixels_ = new QLabel(this);
    pixels_->setObjectName(QStringLiteral("exportPixelsLabel"));
    pixels_->setAccessibleName(tr("Picture size in pixels"));

    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(tr("×"), this));
    sizeRow->addWidget(height_);
    auto* form = new QFormLayout;
    form->addRow(tr("&View:"), view_);
    form->addRow(tr("&Format:"), format_);
    form->addRow(tr("&Size:"), sizeRow);
    form->addRow(tr("S&cale:"), scale_);
    form->addRow(QString(), pixels_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(buttons);

    connect(view_, &QComboBox::currentIndexChanged, this, [this] {
        setPictureSize(ViewExporter::defaultSize(view()));
    });
    for (QSpinBox* s : {width_, height_})
        connect(s, &QSpinBox::valueChanged, this, &ExportDialog::update);
    connect(format_, &QComboBox::currentIndexChanged, this, &ExportDialog::update);
    connect(scale_, &QDoubleSpinBox::valueChanged, this, &ExportDialog::update);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    setView(ExportView::Pipeline);
    setPictureSize(ViewExporter::defaultSize(ExportView::Pipeline));
}

ExportView ExportDialog::view() const
{
    return ExportView(view_->currentData().toInt());
}

void ExportDialog::setView(ExportView view)
{
    view_->setCurrentIndex(view_->findData(int(view)));
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

void ExportDialog::update()
{
    const bool png = format() == ImageFormat::Png;
    scale_->setEnabled(png);
    const QSize s = pictureSize();
    pixels_->setText(png ? tr("%1 × %2 pixels").arg(int(s.width() * scale())).arg(int(s.height() * scale()))
                         : tr("%1 × %2 pt page").arg(s.width() * 0.75).arg(s.height() * 0.75));
}

}  // namespace attnlab
