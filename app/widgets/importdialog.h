// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Import one matrix (X, W_q, W_k or W_v) from a NumPy .npy file or a labelled
// CSV table (as the CSV export writes it: a header row and a label column).
// The matrix must have the shape in use: X (tokens, d_model), W_q and W_k
// (d_model, d_k), W_v (d_model, d_v). Weights saved from PyTorch as
// nn.Linear.weight are (d_out, d_in); "Transpose" turns them around first.
// A misfit is refused with the expected and the actual shape.

#include "expected.h"
#include "matrix.h"
#include "session.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;

namespace attnlab {

class ImportDialog : public QDialog {
    Q_OBJECT
public:
    explicit ImportDialog(const Session* session, QWidget* parent = nullptr);

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
    void setTranspose(bool transpose);

    // The checked matrix for the current choices (what OK imports).
    attn::Expected<attn::Matrix> matrix() const
    {
        return readMatrix(*session_, target(), path(), transpose());
    }
    QString message() const;  // what the dialog says about the choice

private:
    void browse();
    void check();

    const Session* session_;
    QComboBox* target_;
    QLineEdit* path_;
    QCheckBox* transpose_;
    QLabel* expected_;
    QLabel* message_;
    QDialogButtonBox* buttons_;
};

}  // namespace attnlab
