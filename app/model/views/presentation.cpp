// SPDX-License-Identifier: GPL-3.0-or-later
#include "presentation.h"

#include "displaylabel.h"
#include "session.h"

#include <QCoreApplication>
#include <QHash>

#include <cmath>
#include <cstdlib>

namespace attnlab {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("attnlab::Presentation", text);
}

}  // namespace

double symmetricRange(const attn::Matrix& m)
{
    double largest = 0.0;
    for (Eigen::Index i = 0; i < m.size(); ++i) {
        const double v = m.data()[i];
        if (std::isfinite(v))
            largest = std::max(largest, std::abs(v));
    }
    return largest > 0.0 ? largest : 1.0;
}

double symmetricRange(const attn::Matrix& a, const attn::Matrix& b)
{
    return std::max(symmetricRange(a), symmetricRange(b));
}

double scoreRange(const attn::AttentionResult& r)
{
    return r.maxAbsScore > 0.0 ? r.maxAbsScore : 1.0;
}

double scaledScoreRange(const attn::AttentionResult& r)
{
    // Division rounds monotonically, so the largest |score| / divisor is the
    // largest of the |scaled scores|.
    const double m = r.maxAbsKeptScore / r.divisor;
    return m > 0.0 ? m : 1.0;
}

QStringList positionedLabels(const QStringList& tokens)
{
    // Counted as shown: two long words cut to the same label get positions.
    QStringList shown;
    shown.reserve(tokens.size());
    for (const QString& token : tokens)
        shown.append(displayLabel(token));
    QHash<QString, int> counts;
    counts.reserve(shown.size());
    for (const QString& label : shown)
        ++counts[label];
    QStringList labels;
    labels.reserve(shown.size());
    for (int i = 0; i < shown.size(); ++i)
        labels.append(counts.value(shown[i]) > 1 ? QStringLiteral("%1#%2").arg(shown[i]).arg(i + 1)
                                                 : shown[i]);
    return labels;
}

QStringList dimensionLabels(int count)
{
    QStringList labels;
    labels.reserve(count);
    for (int i = 1; i <= count; ++i)
        labels.append(QString::number(i));
    return labels;
}

int decimalsForRange(double range)
{
    if (range >= 100.0)
        return 0;
    if (range >= 10.0)
        return 1;
    return 2;
}

QString formatForDisplay(double value)
{
    if (std::isinf(value))
        return value < 0 ? QStringLiteral("−∞") : QStringLiteral("∞");
    const double magnitude = std::abs(value);
    if (magnitude != 0.0 && (magnitude < 1e-3 || magnitude >= 1e7))
        return QString::number(value, 'e', 3);
    return QString::number(value, 'f', 4);
}

QString divisorText(const Session& session)
{
    switch (session.inputs().options.scale) {
    case attn::ScaleMode::SqrtDk: return QStringLiteral("√%1").arg(session.published()->dK());
    case attn::ScaleMode::None: return QStringLiteral("1");
    case attn::ScaleMode::Custom: return QString::number(session.published()->shown()->divisor, 'g', 6);
    }
    return {};
}

QString scoreCellToolTip(const Session& session, int query, int key)
{
    const attn::AttentionResult& r = *session.published()->shown();
    QStringList tokens = session.published()->tokens();
    if (query < 0 || key < 0 || query >= r.tokens() || key >= r.tokens() || query >= tokens.size()
        || key >= tokens.size())
        return {};
    tokens[query] = displayLabel(tokens[query]);
    tokens[key] = displayLabel(tokens[key]);
    const QString head = tr("query \"%1\" (%2), key \"%3\" (%4)")
                             .arg(tokens[query])
                             .arg(query + 1)
                             .arg(tokens[key])
                             .arg(key + 1);
    const QString dot = QStringLiteral("q(%1) · k(%2) = %3")
                            .arg(tokens[query], tokens[key], formatForDisplay(r.scores(query, key)));
    if (r.isMasked(query, key))
        return head + QLatin1Char('\n') + dot + QLatin1Char('\n')
               + (key > query
                      ? tr("masked: the key comes after the query, so its score is −∞ and its weight %1")
                      : tr("masked: the key is outside the query's window (%1), so its score is −∞ "
                           "and its weight %2")
                            .arg(QString::fromStdString(r.mask.name())))
                     .arg(formatForDisplay(r.weights(query, key)));
    return head + QLatin1Char('\n') + dot
           + QStringLiteral(" ÷ %1 = %2 → %3 %4")
                 .arg(divisorText(session), formatForDisplay(r.scaled(query, key)), tr("softmax"),
                      formatForDisplay(r.weights(query, key)));
}

QString powerOfTenText(int exponent)
{
    if (exponent == 0)
        return QStringLiteral("1");
    static const char16_t digits[] = {u'\u2070', u'\u00b9', u'\u00b2', u'\u00b3', u'\u2074',
                                      u'\u2075', u'\u2076', u'\u2077', u'\u2078', u'\u2079'};
    QString text = QStringLiteral("10");
    if (exponent < 0)
        text += QChar(u'\u207b');
    for (const QChar ch : QString::number(std::abs(exponent)))
        text += QChar(digits[ch.digitValue()]);
    return text;
}

}  // namespace attnlab
