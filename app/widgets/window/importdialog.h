// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Import one matrix (X, W_q, W_k or W_v) from a NumPy .npy file or a labelled
// CSV table (as the CSV export writes it: a header row and a label column).
// The matrix must have the shape in use: X (tokens, d_model), W_q and W_k
// (d_model, d_k), W_v (d_model, d_v). Weights saved from PyTorch as
// nn.Linear.weight are (d_out, d_in); "Transpose" turns them around first.
// A misfit is refused with the expected and the actual shape.
//
// The file is read when its path stops changing (300 ms after the last
// keystroke, at once when set by Browse or setPath), and only a regular file
// is read on the GUI thread (bounded by the readers' caps). Anything else (a
// FIFO that may wait for its writer) is read on the dialog's reading lane (a
// Latest JobLane, scheduler.h) while the dialog says so, so no path can
// freeze the window. A newer path or the dialog's end sets the read's stop
// flag, which the read looks at while it waits for bytes, so the lane is
// joined with the dialog and never outlives it. The verdict (and what OK
// imports: matrix()) is the very check importMatrix applies.

#include "expected.h"
#include "matrix.h"
#include "session.h"

#include <QDialog>

#include <memory>
#include <optional>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QTimer;

namespace attnlab {

class JobLane;

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDialog(const Session* session, QWidget* parent = nullptr);
    ~ImportDialog() override;  // stops a read under way and joins its lane

    // The file read (by its suffix: .csv is a table, anything else .npy),
    // transposed if asked, and checked against the session's shapes.
    static attn::Expected<attn::Matrix> readMatrix(const Session& session, MatrixId which,
                                                   const QString& path, bool transpose);
    // "(6, 16), tokens × d_model" for the session's current shapes.
    static QString expectedShape(const Session& session, MatrixId which);

    MatrixId target() const;
    void setTarget(MatrixId which);
    QString path() const;
    void setPath(const QString& path);
    bool transpose() const;

    // The checked matrix for the current choices (what OK imports): the file
    // as last read, transposed if asked, checked against the shapes.
    attn::Expected<attn::Matrix> matrix() const;
    QString message() const;  // what the dialog says about the choice
    bool reading() const { return reading_; }

signals:
    // The verdict for the current path is ready (message() and OK updated).
    void verdictChanged();

private:
    void browse();
    void pathEdited();
    void readPath();
    void readFinished(quint64 generation, const attn::Expected<attn::Matrix>& read);
    void check();

    const Session* session_;
    QComboBox* target_;
    QLineEdit* path_;
    QCheckBox* transpose_;
    QLabel* expected_;
    QLabel* message_;
    QDialogButtonBox* buttons_;
    QTimer* settle_;                                    // the path's keystrokes settle
    std::optional<attn::Expected<attn::Matrix>> read_;  // the file at path() as read
    quint64 generation_ = 0;                            // of the read under way or done
    bool reading_ = false;
    // Made on the first path that is not a regular file. Last: joined first,
    // while the rest of the dialog is still whole.
    std::unique_ptr<JobLane> reader_;
};

}  // namespace attnlab
