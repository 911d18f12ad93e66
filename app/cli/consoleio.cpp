// SPDX-License-Identifier: GPL-3.0-or-later
#include "consoleio.h"

#include <QByteArray>
#include <QtGlobal>

namespace attnlab {

void printLine(std::FILE* stream, const QString& text)
{
    const QByteArray bytes = text.toLocal8Bit();
    std::fwrite(bytes.constData(), 1, std::size_t(bytes.size()), stream);
    std::fputc('\n', stream);
    std::fflush(stream);
}

// Exactly one line, whatever the message holds.
void printError(const QString& message)
{
    QString line = message;
    line.replace(QLatin1Char('\n'), QLatin1Char(' '));
    line.replace(QLatin1Char('\r'), QLatin1Char(' '));
    printLine(stderr, QStringLiteral("attention-lab: ") + line);
}

int fail(int code, const QString& message)
{
    printError(message);
    return code;
}

QString localPath(const std::string& path)
{
    return QString::fromLocal8Bit(path.c_str());
}

namespace {

void quietMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    const QLatin1String own("attention-lab: ");
    if (message.startsWith(own))
        printError(message.mid(own.size()));
    else if (type == QtFatalMsg)
        printError(QStringLiteral("Qt: ") + message);
}

}  // namespace

void quietQtMessages()
{
    qInstallMessageHandler(quietMessages);
}

}  // namespace attnlab
