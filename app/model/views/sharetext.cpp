// SPDX-License-Identifier: GPL-3.0-or-later
#include "sharetext.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>

namespace attnlab {

namespace {
struct ShareText {
    Q_DECLARE_TR_FUNCTIONS(ShareText)
};
constexpr int kMaxDigits = 6;
}  // namespace

QString shareText(double share, int digits)
{
    const QLocale locale;
    for (int d = std::max(1, digits); d <= kMaxDigits; ++d) {
        const QString text = locale.toString(share, 'g', d);
        const double shown = locale.toDouble(text);
        // Honest: 1 only when it is 1, 0 only when it is 0.
        if ((shown == 1.0 && share != 1.0) || (shown == 0.0 && share != 0.0))
            continue;
        return text;
    }
    return share > 0.5 ? ShareText::tr("almost all") : ShareText::tr("almost none");
}

}  // namespace attnlab
