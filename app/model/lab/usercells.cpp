// SPDX-License-Identifier: GPL-3.0-or-later
#include "usercells.h"

#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

attn::Matrix& matrixOf(attn::Model& m, int which)
{
    switch (which) {
    case 0: return m.X;
    case 1: return m.Wq;
    case 2: return m.Wk;
    default: return m.Wv;
    }
}

const attn::Matrix& matrixOf(const attn::Model& m, int which)
{
    return matrixOf(const_cast<attn::Model&>(m), which);
}

const char* const kNames[4] = {"X", "W_q", "W_k", "W_v"};

// For each token of `to`, the row of the same token (same occurrence) in
// `from`, or -1.
std::vector<int> tokenRows(const std::vector<std::string>& from, const std::vector<std::string>& to)
{
    std::map<std::pair<std::string, int>, int> rowOf;
    std::map<std::string, int> seen;
    for (int i = 0; i < int(from.size()); ++i)
        rowOf[{from[std::size_t(i)], seen[from[std::size_t(i)]]++}] = i;
    seen.clear();
    std::vector<int> rows;
    rows.reserve(to.size());
    for (const std::string& token : to) {
        const auto it = rowOf.find({token, seen[token]++});
        rows.push_back(it == rowOf.end() ? -1 : it->second);
    }
    return rows;
}

QString tr(const char* text)
{
    return QCoreApplication::translate("attnlab::UserCells", text);
}

}  // namespace

int UserCells::count(int which) const
{
    return int(mask[which].count());
}

int UserCells::count() const
{
    return count(0) + count(1) + count(2) + count(3);
}

UserCells UserCells::none(const attn::Model& model)
{
    UserCells cells;
    for (int k = 0; k < 4; ++k) {
        const attn::Matrix& m = matrixOf(model, k);
        cells.mask[k] = CellMask::Constant(m.rows(), m.cols(), false);
    }
    return cells;
}

UserCells UserCells::differences(const attn::Model& model, const attn::Model& drawn)
{
    UserCells cells;
    for (int k = 0; k < 4; ++k)
        cells.mask[k] = matrixOf(model, k).array() != matrixOf(drawn, k).array();
    return cells;
}

int KeptReport::dropped() const
{
    int d = 0;
    for (int k = 0; k < 4; ++k)
        d += before[k] - kept[k];
    return d;
}

UserCells keepUserCells(const attn::Model& from, const UserCells& cells, attn::Model* drawn,
                        KeptReport* report)
{
    UserCells out = UserCells::none(*drawn);
    KeptReport r;
    const std::vector<int> xRows = tokenRows(from.tokenization.tokens, drawn->tokenization.tokens);
    for (int k = 0; k < 4; ++k) {
        const attn::Matrix& old = matrixOf(from, k);
        const CellMask& mask = cells.mask[k];
        attn::Matrix& target = matrixOf(*drawn, k);
        r.before[k] = int(mask.count());
        if (r.before[k] == 0)
            continue;
        const Eigen::Index cols = std::min(old.cols(), target.cols());
        for (Eigen::Index i = 0; i < target.rows(); ++i) {
            const Eigen::Index source = k == 0 ? xRows[std::size_t(i)] : (i < old.rows() ? i : -1);
            if (source < 0)
                continue;
            for (Eigen::Index j = 0; j < cols; ++j) {
                if (!mask(source, j))
                    continue;
                target(i, j) = old(source, j);
                out.mask[k](i, j) = true;
            }
        }
        r.kept[k] = int(out.mask[k].count());
        // New rows or columns around the user's cells: the draw fills them.
        bool grew = target.cols() > old.cols();
        if (k == 0)
            grew = grew || std::count(xRows.begin(), xRows.end(), -1) > 0;
        else
            grew = grew || target.rows() > old.rows();
        r.grew[k] = grew;
    }
    *report = r;
    return out;
}

QString describeKept(const KeptReport& report, const attn::ModelConfig& before,
                     const attn::ModelConfig& after)
{
    if (!report.anyUserCells())
        return QString();
    QStringList what;
    if (before.sentence != after.sentence)
        what << tr("the sentence");
    if (before.tokenizer != after.tokenizer)
        what << tr("the tokenizer");
    if (before.seed != after.seed)
        what << tr("seed %1").arg(after.seed);
    if (before.init != after.init)
        what << tr("%1 initialisation").arg(QLatin1String(attn::initModeName(after.init)));
    if (before.dModel != after.dModel)
        what << tr("d_model %1 → %2").arg(before.dModel).arg(after.dModel);
    if (before.dK != after.dK)
        what << tr("d_k %1 → %2").arg(before.dK).arg(after.dK);
    if (before.dV != after.dV)
        what << tr("d_v %1 → %2").arg(before.dV).arg(after.dV);
    // Another draw around the user's cells is worth saying even when all stay.
    const bool redrawn =
        before.seed != after.seed || before.init != after.init || before.tokenizer != after.tokenizer;
    QStringList clauses;
    for (int k = 0; k < 4; ++k) {
        const int had = report.before[k];
        if (had == 0)
            continue;
        const int dropped = had - report.kept[k];
        const QString name = QLatin1String(kNames[k]);
        if (dropped > 0)
            clauses << tr("%1 keeps %2 of your %3 cells; %4 no longer fit and were dropped")
                           .arg(name)
                           .arg(report.kept[k])
                           .arg(had)
                           .arg(dropped);
        else if (report.grew[k])
            clauses << tr("%1 keeps your %2 cells; its new rows or columns are the seed's draw")
                           .arg(name)
                           .arg(had);
        else if (redrawn)
            clauses << tr("%1 keeps your %2 cells over the new draw").arg(name).arg(had);
    }
    if (clauses.isEmpty())
        return QString();
    QString text = what.join(QStringLiteral(", ")) + QStringLiteral(": ") + clauses.join(QStringLiteral("; "))
                   + QLatin1Char('.');
    if (report.dropped() > 0)
        text += QLatin1Char(' ') + tr("Undo (Ctrl+Z) brings them back.");
    else if (redrawn)
        text += QLatin1Char(' ') + tr("Edit > Regenerate from seed replaces them too.");
    return text;
}

}  // namespace attnlab
