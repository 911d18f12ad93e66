// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The head-type scores of core/head_scores.h written again from issue 39's
// definitions as plain loops over every (i, j) of a weight matrix, for the
// tests of the core's scores and of head_scores.json.

#include "head_scores.h"
#include "matrix.h"

#include <QString>
#include <QTest>

#include <cmath>
#include <optional>
#include <vector>

namespace plainheadscores {

using Scores = std::optional<double>;

// The definitions, written again as loops over every (i, j).
inline Scores plainPrevious(const attn::Matrix& a)
{
    const Eigen::Index n = a.rows();
    if (n < 2)
        return std::nullopt;
    double sum = 0;
    for (Eigen::Index i = 1; i < n; ++i)
        sum += a(i, i - 1);
    return sum / double(n - 1);
}

inline Scores plainFirst(const attn::Matrix& a)
{
    const Eigen::Index n = a.rows();
    if (n < 2)
        return std::nullopt;
    double sum = 0;
    for (Eigen::Index i = 1; i < n; ++i)
        sum += a(i, 0);
    return sum / double(n - 1);
}

inline Scores plainDuplicate(const attn::Matrix& a, const std::vector<int>& t)
{
    double total = 0;
    int rows = 0;
    for (int i = 0; i < int(t.size()); ++i) {
        bool any = false;
        double row = 0;
        for (int j = 0; j < i; ++j)
            if (t[std::size_t(j)] == t[std::size_t(i)]) {
                any = true;
                row += a(i, j);
            }
        if (any) {
            total += row;
            ++rows;
        }
    }
    return rows ? Scores(total / rows) : std::nullopt;
}

inline Scores plainInduction(const attn::Matrix& a, const std::vector<int>& t)
{
    double total = 0;
    int rows = 0;
    for (int i = 0; i < int(t.size()); ++i) {
        bool any = false;
        double row = 0;
        for (int j = 1; j <= i - 1; ++j)
            if (t[std::size_t(j) - 1] == t[std::size_t(i)]) {
                any = true;
                row += a(i, j);
            }
        if (any) {
            total += row;
            ++rows;
        }
    }
    return rows ? Scores(total / rows) : std::nullopt;
}

// Both undefined, or both defined within `tolerance`.
inline bool near(const Scores& a, const Scores& b, double tolerance)
{
    if (a.has_value() != b.has_value())
        return false;
    return !a || std::abs(*a - *b) <= tolerance;
}

inline void compareWithPlain(const attn::HeadTypeScores& s, const attn::Matrix& a, const std::vector<int>& t,
                             double tolerance, const QString& where)
{
    QVERIFY2(near(s.previousToken, plainPrevious(a), tolerance), qPrintable(where + ": previous_token"));
    QVERIFY2(near(s.duplicateToken, plainDuplicate(a, t), tolerance),
             qPrintable(where + ": duplicate_token"));
    QVERIFY2(near(s.induction, plainInduction(a, t), tolerance), qPrintable(where + ": induction"));
    QVERIFY2(near(s.firstToken, plainFirst(a), tolerance), qPrintable(where + ": first_token"));
}

}  // namespace plainheadscores
