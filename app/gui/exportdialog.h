#pragma once
// The choices for one picture: which view, the format (PNG, SVG, PDF), the
// size in pixels (the layout) and, for PNG, the scale (the pixel density: 2
// doubles the pixels of the same layout for print). The window then asks
// where to save it, or copies it to the clipboard.

#include "attentionexport.h"
#include "viewexporter.h"

#include <QDialog>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace attnlab {

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ExportDialog(QWidget* parent = nullptr);

    ExportView view() const;
    void setView(ExportView view);
    ImageFormat format() const;
    void setFormat(ImageFormat format);
    QSize pictureSize() const;
    void setPictureSize(const QSize& size);
    qreal scale() const;
    void setScale(qreal scale);

private:
    void update();

    QComboBox* view_;
    QComboBox* format_;
    QSpinBox* width_;
    QSpinBox* height_;
    QDoubleSpinBox* scale_;
    QLabel* pixels_;
};

}  // namespace attnlab
