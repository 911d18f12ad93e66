// SPDX-License-Identifier: GPL-3.0-or-later
#include "mhastate.h"

#include "npy.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include <utility>

namespace attnlab {

namespace {

struct MhaState {
    Q_DECLARE_TR_FUNCTIONS(MhaState)
};

QString shape(long long rows, long long cols)
{
    return QStringLiteral("(%1, %2)").arg(rows).arg(cols);
}

// One state_dict entry, (rows, cols) or a vector of `rows` (cols 0, read
// as one row).
attn::Expected<attn::Matrix> readEntry(const QString& dir, const char* file, long long rows, long long cols,
                                       const char* dims, int e)
{
    const QString path = QDir(dir).filePath(QLatin1String(file));
    const bool vector = cols == 0;
    const QString expected = vector ? QStringLiteral("(%1,)").arg(rows) : shape(rows, cols);
    const QString meaning = MhaState::tr("%1 = %2 for E = %3").arg(expected, QLatin1String(dims)).arg(e);
    // Missing only when nothing is there: a folder, a FIFO, a device or a
    // link loop in its place is read, and the reader (readInputFile) says
    // what it is.
    const QFileInfo info(path);
    if (!info.exists() && !info.isSymLink())
        return attn::Error{MhaState::tr("%1 is missing; expected shape %2")
                               .arg(QDir::toNativeSeparators(path), meaning)
                               .toStdString()};
    attn::Expected<attn::Matrix> m = readNpyFile(path);
    if (!m)
        return m.error();
    const bool fits =
        vector ? (m->rows() == 1 && m->cols() == rows) : (m->rows() == rows && m->cols() == cols);
    if (!fits)
        return attn::Error{MhaState::tr("%1 has shape %2 but %3 was expected")
                               .arg(QLatin1String(file),
                                    vector && m->rows() == 1 ? QStringLiteral("(%1,)").arg(m->cols())
                                                             : shape(m->rows(), m->cols()),
                                    meaning)
                               .toStdString()};
    return m;
}

}  // namespace

attn::Expected<attn::SplitHeads> readMhaState(const QString& dir, int embedDim, int heads)
{
    const int e = embedDim;
    if (!QFileInfo(dir).isDir())
        return attn::Error{
            MhaState::tr("'%1' is not a folder").arg(QDir::toNativeSeparators(dir)).toStdString()};
    if (heads < 1 || e < 1 || e % heads != 0)
        return attn::Error{
            MhaState::tr("%1 heads do not divide E = %2: nn.MultiheadAttention's head_dim is E / h")
                .arg(heads)
                .arg(e)
                .toStdString()};
    attn::Expected<attn::Matrix> inW = readEntry(dir, "in_proj_weight.npy", 3LL * e, e, "(3E, E)", e);
    if (!inW)
        return inW.error();
    attn::Expected<attn::Matrix> inB = readEntry(dir, "in_proj_bias.npy", 3LL * e, 0, "(3E,)", e);
    if (!inB)
        return inB.error();
    attn::Expected<attn::Matrix> outW = readEntry(dir, "out_proj.weight.npy", e, e, "(E, E)", e);
    if (!outW)
        return outW.error();
    attn::Expected<attn::Matrix> outB = readEntry(dir, "out_proj.bias.npy", e, 0, "(E,)", e);
    if (!outB)
        return outB.error();
    attn::SplitHeads p;
    p.heads = heads;
    p.inProjWeight = std::move(inW).value();
    p.inProjBias = inB->row(0);
    p.outProjWeight = std::move(outW).value();
    p.outProjBias = outB->row(0);
    return p;
}

}  // namespace attnlab
