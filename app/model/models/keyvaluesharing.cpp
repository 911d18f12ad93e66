// SPDX-License-Identifier: GPL-3.0-or-later
#include "keyvaluesharing.h"

#include <QCoreApplication>
#include <QStringList>

namespace attnlab {
namespace {

struct Text {
    Q_DECLARE_TR_FUNCTIONS(KeyValueSharing)
};

// Exact where it is whole, else to a tenth: "768 bytes", "3 KiB", "1.5 KiB".
QString bytesText(long long bytes)
{
    if (bytes < 1024)
        return Text::tr("%1 bytes").arg(bytes);
    const bool mib = bytes >= 1024 * 1024;
    const long long unit = mib ? 1024 * 1024 : 1024;
    const QString number = bytes % unit == 0 ? QString::number(bytes / unit)
                                             : QString::number(double(bytes) / double(unit), 'f', 1);
    return mib ? Text::tr("%1 MiB").arg(number) : Text::tr("%1 KiB").arg(number);
}

bool sharing(const attn::DecoderConfig& c)
{
    return c.kvHeads >= 1 && c.kvHeads < c.heads && c.heads % c.kvHeads == 0;
}

}  // namespace

int dtypeBytes(const std::string& dtype)
{
    if (dtype == "F32")
        return 4;
    if (dtype == "F16" || dtype == "BF16")
        return 2;
    return 0;
}

QString keyValueCacheText(const attn::DecoderConfig& config, const std::string& dtype)
{
    const int bytes = dtypeBytes(dtype);
    const auto size = [bytes](long long numbers) {
        return bytes > 0 ? bytesText(numbers * bytes) : Text::tr("%1 numbers").arg(numbers);
    };
    QString text = Text::tr("K/V cache %1 per token").arg(size(config.kvCacheNumbersPerToken()));
    if (sharing(config))
        text +=
            Text::tr(", %1 with one K/V per query head").arg(size(config.kvCacheNumbersPerTokenUnshared()));
    return text;
}

QString keyValueSharingText(const attn::DecoderConfig& config, int head)
{
    if (!sharing(config) || head < 0 || head >= config.heads)
        return QString();
    const int kv = config.kvHeadOf(head);
    if (config.kvHeads == 1)
        return Text::tr("reads K/V head 1 with every head");
    const int group = config.heads / config.kvHeads;
    QStringList others;
    for (int h = kv * group; h < (kv + 1) * group; ++h)
        if (h != head)
            others << QString::number(h + 1);
    const QString list = others.join(QStringLiteral(", "));
    return (others.size() == 1 ? Text::tr("reads K/V head %1 with head %2")
                               : Text::tr("reads K/V head %1 with heads %2"))
        .arg(kv + 1)
        .arg(list);
}

}  // namespace attnlab
