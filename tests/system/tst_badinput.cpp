// SPDX-License-Identifier: GPL-3.0-or-later
// Bad input at every entry point, one table: the command line (the built
// executable run with QProcess), importing .npy/CSV matrices, opening saved
// labs, and edits in the window (the sentence field, matrix cells, the
// parameter setters), and exporting into places that cannot be written.
// Every row checks the message the user is shown, that nothing crashed, and
// that the lab on display is bit for bit what it was before (for the command
// line: nothing left in the export folder). A few rows are unusual but valid
// input (right-to-left text, denormal numbers) and check that it is accepted
// and computes without NaN.

#include "mainwindow.h"

#include "documentcontroller.h"
#include "exportactions.h"
#include "heatmapview.h"
#include "labdocument.h"
#include "labfile.h"
#include "matrixtablemodel.h"
#include "npy.h"
#include "size_limits.h"
#include "guitest.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>
#include <sstream>

using namespace attnlab;

namespace {

bool sameMatrix(const attn::Matrix& a, const attn::Matrix& b)
{
    if (a.rows() != b.rows() || a.cols() != b.cols())
        return false;
    // Bit for bit: NaN == NaN and -0.0 != 0.0 here.
    return a.size() == 0 || std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0;
}

// What the window shows: the session's matrices, parameters and result.
struct Shown {
    LabState state;
    attn::Matrix scores, scaled, weights, context;

    explicit Shown(const Session& s)
        : state(s.inputs().state()),
          scores(s.published()->shown()->scores),
          scaled(s.published()->shown()->scaledMatrix()),
          weights(s.published()->shown()->weightsMatrix()),
          context(s.published()->shown()->context)
    {
    }
};

bool sameConfig(const LabState& a, const LabState& b)
{
    return a.config.sentence == b.config.sentence && a.config.tokenizer == b.config.tokenizer
           && a.config.seed == b.config.seed && a.config.dModel == b.config.dModel
           && a.config.dK == b.config.dK && a.config.dV == b.config.dV && a.config.init == b.config.init
           && a.options.scale == b.options.scale && a.options.customDivisor == b.options.customDivisor
           && a.options.causal == b.options.causal;
}

// The matrices and the result (what the maps draw) are unchanged.
bool sameDisplay(const Shown& a, const Session& s)
{
    return sameMatrix(a.state.X, s.inputs().matrix(MatrixId::X))
           && sameMatrix(a.state.Wq, s.inputs().matrix(MatrixId::Wq))
           && sameMatrix(a.state.Wk, s.inputs().matrix(MatrixId::Wk))
           && sameMatrix(a.state.Wv, s.inputs().matrix(MatrixId::Wv))
           && sameMatrix(a.scores, s.published()->shown()->scores)
           && sameMatrix(a.scaled, s.published()->shown()->scaledMatrix())
           && sameMatrix(a.weights, s.published()->shown()->weightsMatrix())
           && sameMatrix(a.context, s.published()->shown()->context);
}

// The first map in the window holding NaN or +inf (-inf marks masked cells),
// or the session's result or statistics not finite; empty when all is well.
QString notFinite(const MainWindow& w)
{
    for (const HeatmapView* v : w.findChildren<HeatmapView*>()) {
        const attn::Matrix& m = v->values();
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            const double x = m.data()[i];
            if (std::isnan(x) || x == std::numeric_limits<double>::infinity())
                return QStringLiteral("view %1 shows %2").arg(v->objectName()).arg(x);
        }
    }
    const Session& s = *w.session();
    if (!s.published()->shown()->weightsMatrix().allFinite() || !s.published()->shown()->context.allFinite()
        || !s.published()->shown()->scores.allFinite())
        return QStringLiteral("session result");
    const attn::AttentionStats& st = s.published()->stats();
    for (double x : {st.rawMean, st.rawVariance, st.scaledMean, st.scaledVariance, st.meanMaxWeight,
                     st.meanEntropyNats, st.meanJacobianNorm})
        if (!std::isfinite(x))
            return QStringLiteral("session statistics");
    return {};
}

QByteArray npyWithHeader(const QByteArray& dict, const QByteArray& data)
{
    QByteArray header = dict;
    // Magic (6) + version (2) + length (2) + header, padded to 64 with "\n" last.
    while ((10 + header.size() + 1) % 64 != 0)
        header.append(' ');
    header.append('\n');
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out.append(char(header.size() & 0xff));
    out.append(char(header.size() >> 8));
    return out + header + data;
}

QByteArray npyOf(const attn::Matrix& m)
{
    const std::string b = npyBytes(m);
    return QByteArray(b.data(), qsizetype(b.size()));
}

attn::Matrix filled(int rows, int cols, double v = 0.25)
{
    return attn::Matrix::Constant(rows, cols, v);
}

QByteArray csvOf(int rows, int cols, const QByteArray& special = {})
{
    // A header row, then a label and the numbers on each row.
    QByteArray out("token");
    for (int c = 0; c < cols; ++c)
        out.append(',' + QByteArray::number(c));
    out.append('\n');
    for (int r = 0; r < rows; ++r) {
        out.append("t" + QByteArray::number(r));
        for (int c = 0; c < cols; ++c)
            out.append(',' + (r == 1 && c == 2 && !special.isEmpty() ? special : QByteArray("0.5")));
        out.append('\n');
    }
    return out;
}

// The article example as a saved lab, and edits of its JSON.
QByteArray baseLab()
{
    Session s;
    std::ostringstream out;
    writeLabJson(out, s.inputs().state());
    return QByteArray::fromStdString(out.str());
}

QByteArray editedLab(const std::function<void(QJsonObject&)>& edit)
{
    QJsonObject o = QJsonDocument::fromJson(baseLab()).object();
    edit(o);
    return QJsonDocument(o).toJson();
}

// The first entry of X replaced by `text`.
QByteArray labWithFirstX(const QByteArray& text)
{
    QByteArray lab = baseLab();
    const qsizetype start = lab.indexOf('[', lab.indexOf("\"X\"") + 5) + 1;
    return lab.replace(start, lab.indexOf(',', start) - start, text);
}

// Typed key by key, any script (QTest::keyClicks takes Latin-1 only).
void typeText(QWidget* widget, const QString& text)
{
    for (const QChar c : text) {
        QKeyEvent press(QEvent::KeyPress, Qt::Key_unknown, Qt::NoModifier, QString(c));
        QCoreApplication::sendEvent(widget, &press);
        QKeyEvent release(QEvent::KeyRelease, Qt::Key_unknown, Qt::NoModifier, QString(c));
        QCoreApplication::sendEvent(widget, &release);
    }
}

QString wordsText(int words)
{
    QStringList w;
    for (int i = 0; i < words; ++i)
        w.append(QStringLiteral("w%1").arg(i % 97));
    return w.join(QLatin1Char(' '));
}

QStringList entries(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

}  // namespace

class TestBadInput : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void badInput_data();
    void badInput();
    void startsDespiteTinyDivisorInSettings();

private:
    void runCommandLine();
    QTemporaryDir dir_;
};

void TestBadInput::initTestCase()
{
    QVERIFY(guitest::useTemporarySettings(dir_, QStringLiteral("Attention Lab bad input test")));
}

void TestBadInput::init()
{
    QSettings().clear();
}

// entry:   cli | cli-raw | import | open | sentence | type | paste | cell | setter | export
// target:  the matrix (X, Wq, ...), the setter, the export kind or the file suffix
// input:   file contents, the text typed, or the value given
// args:    command-line arguments; IN is a file holding `input`, OUT the
//          export folder, FILE a regular file
// message: a part of what the user is shown
// accepted: valid input (the row checks it is taken and computes)
// The settings of a run that chose a divisor no score survives (written by
// an older version, or by hand): the window starts with the default divisor
// instead of crashing at every start.
void TestBadInput::startsDespiteTinyDivisorInSettings()
{
    {
        QSettings s;
        s.setValue(QStringLiteral("firstRun"), false);
        s.setValue(QStringLiteral("parameters/scale"), QStringLiteral("custom"));
        s.setValue(QStringLiteral("parameters/customDivisor"), 1e-307);
    }
    MainWindow w;
    w.restoreSettings();
    QCOMPARE(w.session()->inputs().options.scale, attn::ScaleMode::Custom);
    QCOMPARE(w.session()->inputs().options.customDivisor, attn::AttentionOptions().customDivisor);
    QVERIFY(w.session()->problem().isEmpty());
    const attn::Matrix weights = w.session()->published()->shown()->weightsMatrix();
    QVERIFY(weights.allFinite());
    QCOMPARE(weights.row(0).sum(), 1.0);
}

void TestBadInput::badInput_data()
{
    QTest::addColumn<QString>("entry");
    QTest::addColumn<QString>("target");
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("accepted");

    const QByteArray none;
    const QStringList noArgs;
    const QStringList out{"--export-dir", "OUT"};
    auto cli = [&](const char* name, const QStringList& args, const QByteArray& input, const QString& target,
                   const QString& message, bool accepted = false) {
        QTest::newRow(name) << "cli" << target << input << args + out << message << accepted;
    };
    // The command line.
    cli("cli: empty sentence", {"--sentence", ""}, none, "", "--sentence is empty");
    cli("cli: whitespace-only sentence", {"--sentence", " \t  "}, none, "", "--sentence");
    cli("cli: 5000 words", {"--sentence", wordsText(5000)}, none, "", "4096");
    cli("cli: control characters", {"--sentence", QString::fromLatin1("a\x01\x02 b\x1b[31m")}, none, "",
        "control");
    cli("cli: d_k 0", {"--d-k", "0"}, none, "", "--d-k must be a whole number from 1 to 1024");
    cli("cli: d_model negative", {"--d-model", "-7"}, none, "", "--d-model must be");
    cli("cli: d_v huge", {"--d-v", "1000000"}, none, "", "--d-v must be");
    cli("cli: scale divisor 0", {"--scale", "0"}, none, "", "--scale must be");
    cli("cli: scale divisor 1e-307 (scores would overflow)", {"--scale", "1e-307"}, none, "",
        "--scale: The custom scale divisor must be a number from 0.001 to 1e+06; got 1e-307.");
    cli("cli: scale divisor 1e300", {"--scale", "1e300"}, none, "", "from 0.001 to 1e+06");
    cli("cli: X.npy with NaN", {"--x", "IN"}, npyOf(filled(6, 16, std::nan(""))), "npy", "NaN");
    cli("cli: truncated W_q.npy", {"--wq", "IN"}, npyOf(filled(16, 24)).left(200), "npy", "truncated");
    cli("cli: empty lab", {"--open", "IN"}, QByteArray(), "attnlab", "in.attnlab");
    cli("cli: lab with X rows != tokens", {"--open", "IN"}, editedLab([](QJsonObject& o) {
            QJsonArray x = o.value("X").toArray();
            x.removeLast();
            o.insert("X", x);
        }),
        "attnlab", "\"X\" is (5, 16) but must be (6, 16)");
    QTest::newRow("cli: export below a file")
        << "cli"
        << "" << none << QStringList{"--export-dir", "FILE/sub"} << "cannot create the directory" << false;
    QTest::newRow("cli: invalid UTF-8 sentence (raw bytes)")
        << "cli-raw"
        << "" << QByteArray("caf\xe9 au lait \xff\xfe") << out << "UTF-8" << false;
    cli("cli: right-to-left sentence", {"--sentence", QString::fromUtf8("الحياة قصيرة كل الحلوى أولا")}, none,
        "", "", true);
    cli("cli: lab of a future version", {"--open", "IN"},
        baseLab().replace("\"version\": 2", "\"version\": 7"), "attnlab",
        "the file is version 7, written by a newer Attention Lab");

    // Importing a matrix into the window (the article example: X (6, 16), W_q (16, 24)).
    auto import = [&](const char* name, const QString& which, const QByteArray& file, const QString& suffix,
                      const QString& message, bool accepted = false) {
        QTest::newRow(name) << "import" << which + "." + suffix << file << noArgs << message << accepted;
    };
    import("import: X.npy with NaN", "X", npyOf(filled(6, 16, std::nan(""))), "npy", "NaN");
    import("import: W_q.npy with Inf", "Wq", npyOf(filled(16, 24, std::numeric_limits<double>::infinity())),
           "npy", "inf");
    import("import: W_k.npy with 1e308", "Wk", npyOf(filled(16, 24, 1e308)), "npy", "too large");
    import("import: X.csv with abc", "X", csvOf(6, 16, "abc"), "csv", "abc");
    import("import: X.csv with nan", "X", csvOf(6, 16, "nan"), "csv", "nan");
    import("import: X.csv with a ragged row", "X", csvOf(6, 16) + "1,2\n", "csv", "row 8: 2 cells");
    import("import: truncated data", "X", npyOf(filled(6, 16)).chopped(9), "npy", "truncated");
    import("import: truncated header", "X", npyOf(filled(6, 16)).left(30), "npy",
           "ends inside the .npy header");
    import("import: lying header (shape larger than data)", "X",
           npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (60, 16), }",
                         npyOf(filled(6, 16)).mid(128)),
           "npy", "needs 7680 data bytes but the file has 768");
    import("import: int64 dtype", "X",
           npyWithHeader("{'descr': '<i8', 'fortran_order': False, 'shape': (6, 16), }",
                         QByteArray(6 * 16 * 8, '\0')),
           "npy", "<i8");
    import("import: rank 3", "X",
           npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (6, 4, 4), }",
                         QByteArray(6 * 16 * 8, '\0')),
           "npy", "has 3 dimensions");
    import("import: wrong shape", "X", npyOf(filled(5, 16)), "npy", "(5, 16)");
    import("import: header larger than memory", "X",
           npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (4096, 100000000), }",
                         QByteArray(64, '\0')),
           "npy", "(4096, 100000000) is too large");
    import("import: not a .npy file", "Wv", QByteArray("hello, world\n"), "npy", "not a NumPy .npy file");
    import("import: empty .npy file", "Wv", QByteArray(), "npy", "Wv.npy: the file is empty");
    import("import: empty .csv file", "Wv", QByteArray(), "csv", "Wv.csv: the CSV file is empty");
    import("import: X.csv with denormals", "X", csvOf(6, 16, "4.9e-324"), "csv", "", true);

    // Opening a saved lab in the window.
    auto open = [&](const char* name, const QByteArray& file, const QString& message, bool accepted = false) {
        QTest::newRow(name) << "open"
                            << "attnlab" << file << noArgs << message << accepted;
    };
    open("open: empty file", QByteArray(), "in.attnlab");
    open("open: truncated", baseLab().left(baseLab().size() / 2), "in.attnlab");
    open("open: binary garbage", QByteArray("\x89PNG\r\n\x1a\n\0\0\0", 11), "in.attnlab");
    open("open: d_k is a string", editedLab([](QJsonObject& o) { o.insert("d_k", QStringLiteral("24")); }),
         "d_k");
    open("open: X is an object", editedLab([](QJsonObject& o) { o.insert("X", QJsonObject()); }), "X");
    open("open: X rows != tokens", editedLab([](QJsonObject& o) {
             QJsonArray x = o.value("X").toArray();
             x.append(x.first());
             o.insert("X", x);
         }),
         "X");
    open("open: sentence changed, matrices not",
         editedLab([](QJsonObject& o) { o.insert("sentence", QStringLiteral("only three tokens")); }), "X");
    open("open: d_k 0", editedLab([](QJsonObject& o) { o.insert("d_k", 0); }), "d_k");
    open("open: missing W_v", editedLab([](QJsonObject& o) { o.remove("W_v"); }), "W_v");
    open("open: another format",
         editedLab([](QJsonObject& o) { o.insert("format", QStringLiteral("jupyter")); }), "format");
    open("open: divisor 1e-307", editedLab([](QJsonObject& o) {
             o.insert("scale_mode", QStringLiteral("custom"));
             o.insert("scale_divisor", 1e-307);
         }),
         "from 0.001 to 1e+06; got 1e-307");
    open("open: entry 1e999", labWithFirstX("1e999"), "1e999 is out of the range");
    open("open: entry a string", labWithFirstX("\"nan\""), "X");
    open("open: invalid UTF-8 in the sentence", baseLab().replace("Life is short", "Life \xff\xfe short"),
         "UTF-8");
    open("open: future version", baseLab().replace("\"version\": 2", "\"version\": 7"),
         "the file is version 7, written by a newer Attention Lab");

    // Edits in the window.
    auto edit = [&](const char* name, const QString& entry, const QString& target, const QByteArray& input,
                    const QString& message, bool accepted = false) {
        QTest::newRow(name) << entry << target << input << noArgs << message << accepted;
    };
    edit("sentence: empty", "sentence", "", "", "no tokens");
    edit("sentence: whitespace only", "sentence", "", " \t \n ", "no tokens");
    edit("type: erase everything", "type", "", "", "no tokens");
    edit("paste: 5000 words", "paste", "", wordsText(5000).toUtf8(), "4096");
    edit("paste: control characters", "paste", "", "bell\x07 escape\x1b[2J nul", "control");
    edit("type: right-to-left", "type", "", "שלום עולם יפה", "", true);
    edit("cell: nan", "cell", "X", "nan", "not a finite number");
    edit("cell: inf", "cell", "Wq", "inf", "not a finite number");
    edit("cell: -Infinity", "cell", "Wk", "-Infinity", "not a finite number");
    edit("cell: 1e308", "cell", "Wv", "1e308", "too large");
    edit("cell: text", "cell", "X", "abc", "\"abc\"");
    edit("cell: empty", "cell", "X", "", "\"\" is not a finite number");
    edit("cell: a list of numbers", "cell", "Wq", "1,2,3", "\"1,2,3\" is not");
    edit("cell: denormal", "cell", "X", "4.9e-324", "", true);
    edit("setter: d_k 0", "setter", "dk", "0", "d_k");
    edit("setter: d_k negative", "setter", "dk", "-3", "d_k");
    edit("setter: d_k huge", "setter", "dk", "100000", "d_k");
    edit("setter: d_model 0", "setter", "dmodel", "0", "d_model");
    edit("setter: d_model huge", "setter", "dmodel", "1073741824", "d_model");
    edit("setter: d_v negative", "setter", "dv", "-1", "d_v");
    edit("setter: divisor 0", "setter", "divisor", "0", "divisor");
    edit("setter: divisor NaN", "setter", "divisor", "nan", "divisor");
    edit("setter: divisor negative", "setter", "divisor", "-2", "divisor");
    edit("setter: divisor 1e-307", "setter", "divisor", "1e-307", "from 0.001 to 1e+06");

    // Exports into places that cannot be written.
    edit("export: all views below a file", "export", "all", "", "cannot create the directory");
    edit("export: one view below a file", "export", "view", "", "cannot write");
    edit("export: numbers below a file", "export", "numbers", "", "cannot create the directory");
}

void TestBadInput::runCommandLine()
{
    QFETCH(QString, entry);
    QFETCH(QString, target);
    QFETCH(QByteArray, input);
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QFETCH(bool, accepted);

    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString outDir = scratch.filePath("out");
    const QString file = scratch.filePath("file");
    const QString in = scratch.filePath("in." + (target.isEmpty() ? QString("txt") : target));
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a regular file\n");
        QFile i(in);
        QVERIFY(i.open(QIODevice::WriteOnly));
        i.write(input);
    }
    for (QString& a : args) {
        a.replace(QLatin1String("OUT"), outDir);
        a.replace(QLatin1String("FILE"), file);
        if (a == QLatin1String("IN"))
            a = in;
    }
    QProcess process;
    if (entry == QLatin1String("cli-raw")) {
        // The sentence's bytes exactly as in the file, not re-encoded by QProcess.
        process.start(QStringLiteral("/bin/sh"),
                      QStringList{"-c", "exec \"$0\" --sentence \"$(cat \"$1\")\" \"$2\" \"$3\"",
                                  QStringLiteral(ATTNLAB_EXE), in, args.at(0), args.at(1)});
    } else {
        process.start(QStringLiteral(ATTNLAB_EXE), args);
    }
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);  // no crash
    const QString err = QString::fromUtf8(process.readAllStandardError());
    qInfo("stderr: %s", qPrintable(err.trimmed()));
    if (accepted) {
        QCOMPARE(process.exitCode(), 0);
        QVERIFY2(!entries(outDir).isEmpty(), "nothing written");
        if (message.isEmpty())
            QVERIFY2(err.isEmpty(), qPrintable(err));
        else
            QVERIFY2(err.contains("attention-lab: warning: ") && err.contains(message), qPrintable(err));
        return;
    }
    QVERIFY2(process.exitCode() != 0, qPrintable(err));
    QVERIFY2(err.startsWith(QLatin1String("attention-lab: ")), qPrintable(err));
    QVERIFY2(err.contains(message, Qt::CaseInsensitive), qPrintable(err));
    QCOMPARE(err.count(QLatin1Char('\n')), 1);  // one line
    QVERIFY2(entries(outDir).isEmpty(), qPrintable(entries(outDir).join(' ')));
}

void TestBadInput::badInput()
{
    QFETCH(QString, entry);
    if (entry.startsWith(QLatin1String("cli"))) {
        runCommandLine();
        return;
    }
    QFETCH(QString, target);
    QFETCH(QByteArray, input);
    QFETCH(QString, message);
    QFETCH(bool, accepted);

    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString file = scratch.filePath("file");
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a regular file\n");
    }

    MainWindow w;
    w.documents()->document()->setUnsavedPrompt(
        [](const QString&) { return LabDocument::UnsavedAnswer::Discard; });
    w.documents()->document()->setRecoveryPrompt([](const QDateTime&) { return false; });
    w.documents()->document()->setSavePathPrompt([] { return QString(); });
    Session* s = w.session();
    if (target == QLatin1String("divisor"))
        s->setScaleMode(attn::ScaleMode::Custom);
    QVERIFY(s->problem().isEmpty());
    QVERIFY(notFinite(w).isEmpty());
    const Shown before(*s);
    QSignalSpy refused(s, &Session::editRefused);
    QStringList shown;  // every message the user could see
    auto statusOf = [&](const attn::Status& st) {
        if (!st)
            shown.append(QString::fromStdString(st.error().message));
        return st.ok();
    };
    bool ok = false;

    const auto matrixOf = [](const QString& name) {
        return name == "Wq"   ? MatrixId::Wq
               : name == "Wk" ? MatrixId::Wk
               : name == "Wv" ? MatrixId::Wv
                              : MatrixId::X;
    };
    QLineEdit* sentence = guitest::find<QLineEdit>(w, QStringLiteral("sentenceEdit"));
    if (entry == "import") {
        const QString which = target.section('.', 0, 0);
        const QString path = scratch.filePath(which + "." + target.section('.', 1));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(input);
        f.close();
        ok = statusOf(w.documents()->importMatrix(matrixOf(which), path, false));
    } else if (entry == "open") {
        const QString path = scratch.filePath("in.attnlab");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(input);
        f.close();
        ok = w.documents()->openLab(path);
    } else if (entry == "sentence") {
        s->setSentence(QString::fromUtf8(input));
        ok = s->problem().isEmpty();
    } else if (entry == "type" || entry == "paste") {
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        sentence->setFocus();
        sentence->selectAll();
        if (entry == "paste")
            sentence->insert(QString::fromUtf8(input));
        else if (input.isEmpty())
            QTest::keyClick(sentence, Qt::Key_Backspace);
        else
            typeText(sentence, QString::fromUtf8(input));
        QCOMPARE(s->inputs().config.sentence, input.toStdString());
        ok = s->problem().isEmpty();
    } else if (entry == "cell") {
        auto* m = guitest::find<MatrixTableModel>(w, QStringLiteral("matrixModel") + target);
        ok = m->setData(m->index(1, 2), QString::fromUtf8(input));
    } else if (entry == "setter") {
        const double v = QString::fromUtf8(input).toDouble();
        if (target == "dk") {
            s->setDK(int(v));
            // The widget cannot even be set there.
            QSpinBox* spin = guitest::find<QSpinBox>(w, QStringLiteral("dKSpin"));
            QVERIFY(spin->value() >= 1 && spin->value() <= attn::kMaxDHead);
        } else if (target == "dmodel") {
            s->setDModel(int(v));
        } else if (target == "dv") {
            s->setDV(int(v));
        } else {
            s->setCustomDivisor(input == "nan" ? std::nan("") : v);
        }
        ok = s->problem().isEmpty();
    } else if (entry == "export") {
        const QString below = file + "/sub";
        if (target == "all")
            ok = statusOf(w.exports()->exportAllViews(below));
        else if (target == "view")
            ok = statusOf(w.exports()->exportView(ExportView::Pipeline, below + "/p.png", QSize(400, 300)));
        else
            ok = statusOf(w.exports()->exportNumbers(below, ExportFormats()));
        QVERIFY(QFileInfo(file).isFile());
        QVERIFY(!QFileInfo::exists(below));
    } else {
        QFAIL("unknown entry");
    }
    s->waitForResult();  // large input may be on its way to the worker
    if (entry == "sentence" || entry == "type" || entry == "paste" || entry == "setter")
        ok = s->problem().isEmpty();

    if (!s->problem().isEmpty())
        shown.append(s->problem());
    for (const QList<QVariant>& r : refused)
        shown.append(r.at(0).toString());
    shown.append(w.statusBar()->currentMessage());
    auto* problemLabel = w.findChild<QLabel*>(QStringLiteral("problemLabel"));
    QVERIFY(problemLabel);
    if (!problemLabel->isHidden())
        shown.append(problemLabel->text());
    const QString all = shown.join(QLatin1String(" | "));
    qInfo("shown: %s", qPrintable(all));

    const QString bad = notFinite(w);  // no NaN shown, whatever happened
    QVERIFY2(bad.isEmpty(), qPrintable(bad));
    QCOMPARE(ok, accepted);
    QVERIFY2(all.contains(message, Qt::CaseInsensitive), qPrintable(all));
    if (accepted) {
        QVERIFY(s->problem().isEmpty());
        QVERIFY2(!sameDisplay(before, *s) || entry == "open", "accepted input changed nothing");
        if (input.contains("e-324"))  // the denormal is kept as it is, not flushed to 0
            QCOMPARE(s->inputs().matrix(MatrixId::X)(1, 2), 4.9e-324);
        if (entry == "type")
            QCOMPARE(s->published()->tokenCount(), 3);  // right to left, three words
        return;
    }
    // Refused: a message, and the maps show exactly what they showed.
    QVERIFY2(!all.trimmed().isEmpty(), "no message");
    QVERIFY(sameDisplay(before, *s));
    if (entry != "sentence" && entry != "type" && entry != "paste" && entry != "setter")
        QVERIFY(sameConfig(before.state, s->inputs().state()));
    else
        QVERIFY(!s->problem().isEmpty());  // the refused request is named until fixed
}

QTEST_MAIN(TestBadInput)
#include "tst_badinput.moc"
