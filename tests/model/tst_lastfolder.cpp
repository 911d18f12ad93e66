// SPDX-License-Identifier: GPL-3.0-or-later
// Where file dialogs start: the folder last chosen for that use, while it
// exists; home before any choice; exports and opened files apart.

#include "lastfolder.h"
#include "guitest.h"

#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnlab;

class TestLastFolder : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(guitest::useTemporarySettings(settings_, QStringLiteral("LastFolderTest")));
    }
    void remembersEachUse();

private:
    QTemporaryDir settings_;
};

void TestLastFolder::remembersEachUse()
{
    QSettings().clear();
    QCOMPARE(lastFolder(FolderUse::Export), QDir::homePath());
    QCOMPARE(lastFolder(FolderUse::Open), QDir::homePath());

    QTemporaryDir scratch;
    const QString exports = scratch.filePath(QStringLiteral("exports"));
    const QString labs = scratch.filePath(QStringLiteral("labs"));
    QVERIFY(QDir().mkpath(exports) && QDir().mkpath(labs));
    rememberFile(FolderUse::Export, QDir(exports).filePath(QStringLiteral("weights.png")));
    rememberFolder(FolderUse::Open, labs);
    QCOMPARE(lastFolder(FolderUse::Export), exports);
    QCOMPARE(lastFolder(FolderUse::Open), labs);
    QCOMPARE(inLastFolder(FolderUse::Open, QStringLiteral("lab.attnlab")),
             QDir(labs).filePath("lab.attnlab"));
    // A cancelled dialog changes nothing.
    rememberFile(FolderUse::Export, QString());
    rememberFolder(FolderUse::Export, QString());
    QCOMPARE(lastFolder(FolderUse::Export), exports);
    // A folder since removed: home again.
    QVERIFY(QDir(exports).removeRecursively());
    QCOMPARE(lastFolder(FolderUse::Export), QDir::homePath());
}

QTEST_GUILESS_MAIN(TestLastFolder)
#include "tst_lastfolder.moc"
