// SPDX-License-Identifier: GPL-3.0-or-later
#include "importdialog.h"

#include "matrixio.h"
#include "npy.h"
#include "scheduler.h"
#include "size_limits.h"
#include "lastfolder.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

namespace attnlab {

namespace {

struct Shape {
    int rows;
    int cols;
    const char* dims;
};

Shape shapeOf(const Session& session, MatrixId which)
{
    const attn::Matrix& m = session.inputs().matrix(which);
    switch (which) {
    case MatrixId::X: return {int(m.rows()), int(m.cols()), "tokens x d_model"};
    case MatrixId::Wq:
    case MatrixId::Wk: return {int(m.rows()), int(m.cols()), "d_model x d_k"};
    case MatrixId::Wv: return {int(m.rows()), int(m.cols()), "d_model x d_v"};
    }
    return {0, 0, ""};
}

// The dimension a matrix's width sets.
QString widthName(MatrixId which)
{
    return which == MatrixId::X    ? QStringLiteral("d_model")
           : which == MatrixId::Wv ? QStringLiteral("d_v")
                                   : QStringLiteral("d_k");
}

}  // namespace

ImportDialog::ImportDialog(const Session* session, QWidget* parent) : QDialog(parent), session_(session)
{
    setWindowTitle(tr("Import a matrix"));
    target_ = new QComboBox(this);
    target_->setObjectName(QStringLiteral("importTargetCombo"));
    target_->setAccessibleName(tr("Matrix"));
    target_->setToolTip(
        tr("The matrix the file replaces. Its rows must fit (X: one per token, W: one "
           "per dimension of X); another width sets d_model, d_k or d_v."));
    for (MatrixId id : {MatrixId::X, MatrixId::Wq, MatrixId::Wk, MatrixId::Wv})
        target_->addItem(matrixName(id), int(id));

    path_ = new QLineEdit(this);
    path_->setObjectName(QStringLiteral("importPathEdit"));
    path_->setAccessibleName(tr("File"));
    path_->setToolTip(
        tr("A NumPy .npy file (float32 or float64, 2-D or one row), a plain CSV of "
           "numbers (as numpy.savetxt(..., delimiter=\",\") writes), or a CSV table "
           "with a header row and a label column as Attention Lab exports it."));
    auto* browse = new QPushButton(tr("&Browse…"), this);
    browse->setObjectName(QStringLiteral("importBrowseButton"));
    browse->setAccessibleName(tr("Browse for the file"));
    browse->setToolTip(tr("Choose the file."));
    auto* fileRow = new QHBoxLayout;
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(browse);

    transpose_ = new QCheckBox(tr("&Transpose (PyTorch nn.Linear.weight is d_out × d_in)"), this);
    transpose_->setObjectName(QStringLiteral("importTransposeCheck"));
    transpose_->setAccessibleName(tr("Transpose"));
    transpose_->setToolTip(
        tr("Weights saved from torch.nn.Linear(d_in, d_out).weight have shape "
           "(d_out, d_in); here W has shape (d_in, d_out) so that Q = X W_q."));

    expected_ = new QLabel(this);
    expected_->setObjectName(QStringLiteral("importExpectedLabel"));
    expected_->setAccessibleName(tr("Expected shape"));
    message_ = new QLabel(this);
    message_->setObjectName(QStringLiteral("importMessageLabel"));
    message_->setAccessibleName(tr("Message"));
    message_->setWordWrap(true);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons_->button(QDialogButtonBox::Ok)->setText(tr("&Import"));

    auto* form = new QFormLayout;
    form->addRow(tr("&Matrix:"), target_);
    // A row of a layout gets no buddy from QFormLayout: the label is the
    // path's, so that its mnemonic (Alt+F) is one and not a literal "&".
    auto* fileLabel = new QLabel(tr("&File:"), this);
    fileLabel->setObjectName(QStringLiteral("importFileLabel"));
    fileLabel->setBuddy(path_);
    form->addRow(fileLabel, fileRow);
    form->addRow(QString(), transpose_);
    form->addRow(tr("Expected:"), expected_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(message_);
    layout->addStretch(1);
    layout->addWidget(buttons_);

    connect(browse, &QPushButton::clicked, this, &ImportDialog::browse);
    connect(target_, &QComboBox::currentIndexChanged, this, &ImportDialog::check);
    settle_ = new QTimer(this);
    settle_->setSingleShot(true);
    settle_->setInterval(300);
    connect(settle_, &QTimer::timeout, this, &ImportDialog::readPath);
    connect(path_, &QLineEdit::textChanged, this, &ImportDialog::pathEdited);
    connect(transpose_, &QCheckBox::toggled, this, &ImportDialog::check);
    connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
    check();
    resize(560, sizeHint().height());
}

ImportDialog::~ImportDialog() = default;

QString ImportDialog::expectedShape(const Session& session, MatrixId which)
{
    const Shape s = shapeOf(session, which);
    const QString dims = QString::fromLatin1(s.dims).replace(QLatin1String(" x "), QStringLiteral(" × "));
    return tr("(%1, %2), %3; another number of columns sets %4")
        .arg(s.rows)
        .arg(s.cols)
        .arg(dims, widthName(which));
}

namespace {

// `read` (the file as read) transposed if asked and checked against the
// session's shapes: what both the dialog's verdict and the import use.
attn::Expected<attn::Matrix> checkedMatrix(const Session& session, MatrixId which, const QString& path,
                                           attn::Expected<attn::Matrix> read, bool transpose)
{
    if (!read)
        return read.error();
    attn::Matrix m = transpose ? attn::Matrix(read.value().transpose()) : std::move(read.value());
    const Shape s = shapeOf(session, which);
    const std::string name = QFileInfo(path).fileName().toStdString() + (transpose ? " (transposed)" : "");
    const std::string hint =
        which == MatrixId::X
            ? std::string()
            : (transpose ? ImportDialog::tr("untick Transpose")
                         : ImportDialog::tr("tick Transpose for PyTorch's nn.Linear.weight (d_out x d_in)"))
                  .toStdString();
    // The rows are fixed by the tokens (X) or by d_model (W); the width is
    // free: the import sets d_model, d_k or d_v to it (Session::setMatrix).
    if (const attn::Status fits = checkShape(name, m, s.rows, -1, s.dims, hint); !fits)
        return fits.error();
    const int limit = which == MatrixId::X ? attn::kMaxDModel : attn::kMaxDHead;
    if (m.cols() > limit)
        return attn::Error{ImportDialog::tr("%1 has %2 columns, more than the %3 allowed for %4.")
                               .arg(QString::fromStdString(name))
                               .arg(m.cols())
                               .arg(limit)
                               .arg(widthName(which))
                               .toStdString()};
    return m;
}

}  // namespace

attn::Expected<attn::Matrix> ImportDialog::readMatrix(const Session& session, MatrixId which,
                                                      const QString& path, bool transpose)
{
    if (path.isEmpty())
        return attn::Error{tr("Choose a .npy or .csv file.").toStdString()};
    return checkedMatrix(session, which, path, readMatrixFile(path), transpose);
}

attn::Expected<attn::Matrix> ImportDialog::matrix() const
{
    if (path().isEmpty())
        return attn::Error{tr("Choose a .npy or .csv file.").toStdString()};
    if (!read_ || reading_ || settle_->isActive())
        return attn::Error{tr("Reading %1…").arg(QFileInfo(path()).fileName()).toStdString()};
    return checkedMatrix(*session_, target(), path(), *read_, transpose());
}

MatrixId ImportDialog::target() const
{
    return MatrixId(target_->currentData().toInt());
}

void ImportDialog::setTarget(MatrixId which)
{
    target_->setCurrentIndex(target_->findData(int(which)));
}

QString ImportDialog::path() const
{
    return path_->text();
}

void ImportDialog::setPath(const QString& path)
{
    // A whole path (Browse, a caller): read at once rather than after the pause.
    path_->setText(path);
    readPath();
}

bool ImportDialog::transpose() const
{
    return transpose_->isChecked();
}

QString ImportDialog::message() const
{
    return message_->text();
}

void ImportDialog::browse()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import %1").arg(matrixName(target())),
        path_->text().isEmpty() ? lastFolder(FolderUse::Open) : path_->text(),
        tr("Matrices (*.npy *.csv);;NumPy arrays (*.npy);;CSV tables (*.csv);;All files (*)"));
    rememberFile(FolderUse::Open, path);
    if (!path.isEmpty())
        setPath(path);
}

void ImportDialog::pathEdited()
{
    // Nothing is read while the path is being typed (a read per keystroke of
    // a long path, or one blocking on a FIFO); OK waits for the verdict.
    ++generation_;
    read_.reset();
    reading_ = false;
    settle_->start();
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(false);
}

void ImportDialog::readPath()
{
    settle_->stop();
    const quint64 generation = ++generation_;
    const QString path = path_->text();
    read_.reset();
    reading_ = false;
    const QFileInfo info(path);
    if (path.isEmpty() || info.isFile() || info.isDir() || !info.exists()) {
        // A regular file (or none): read here, bounded by the readers' caps.
        if (!path.isEmpty())
            read_ = readMatrixFile(path);
        check();
        return;
    }
    // A FIFO may wait for its writer: read on the dialog's lane. Posting
    // stops a read still waiting for an older path; the dialog's end stops
    // this one. The report is queued to the dialog, which is whole until the
    // lane is joined (a report queued then is dropped with the dialog).
    reading_ = true;
    check();
    if (!reader_)
        reader_ = std::make_unique<JobLane>(JobLane::Policy::Latest, "import-read");
    reader_->post([this, generation, path](const std::atomic<bool>& stop) {
        attn::Expected<attn::Matrix> read = readMatrixFile(path, &stop);
        if (stop.load())
            return;  // a newer path, or the dialog is closing: nobody waits for it
        QMetaObject::invokeMethod(
            this, [this, generation, read = std::move(read)] { readFinished(generation, read); },
            Qt::QueuedConnection);
    });
}

void ImportDialog::readFinished(quint64 generation, const attn::Expected<attn::Matrix>& read)
{
    if (generation != generation_)
        return;  // the path changed meanwhile
    reading_ = false;
    read_ = read;
    check();
}

void ImportDialog::check()
{
    transpose_->setEnabled(target() != MatrixId::X);
    if (target() == MatrixId::X && transpose_->isChecked())
        transpose_->setChecked(false);
    expected_->setText(expectedShape(*session_, target()));
    const attn::Expected<attn::Matrix> m = matrix();
    if (m) {
        QString text = tr("Fits: %1 × %2 entries replace %3.")
                           .arg(m.value().rows())
                           .arg(m.value().cols())
                           .arg(matrixName(target()));
        const int width = int(session_->inputs().matrix(target()).cols());
        if (m.value().cols() != width)
            text += QLatin1Char(' ')
                    + tr("%1 becomes %2 (now %3); your other matrices are kept where they fit.")
                          .arg(widthName(target()))
                          .arg(m.value().cols())
                          .arg(width);
        message_->setText(text);
    } else
        message_->setText(QString::fromStdString(m.error().message));
    buttons_->button(QDialogButtonBox::Ok)->setEnabled(bool(m));
    if (!reading_ && !settle_->isActive())
        emit verdictChanged();
}

}  // namespace attnlab
