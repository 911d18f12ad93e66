// SPDX-License-Identifier: GPL-3.0-or-later
// .npy files: what writeNpy writes reads back bit for bit; files built here
// byte by byte after numpy's format description (every accepted dtype, byte
// order, memory order and version) read as the matrix they hold; every
// malformed file is refused with its message, from memory and from disk.

#include "npy.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>

Q_DECLARE_METATYPE(attn::Matrix)

namespace {

// The whole file: magic, version, header length, `header` (padded to a
// multiple of 64 bytes with blanks and "\n" unless `pad` is false), `data`.
QByteArray npyFile(int major, const QByteArray& header, const QByteArray& data, bool pad = true)
{
    QByteArray head = header;
    const int prefix = major == 1 ? 10 : 12;
    if (pad) {
        while ((prefix + head.size() + 1) % 64 != 0)
            head += ' ';
        head += '\n';
    }
    QByteArray file("\x93NUMPY", 6);
    file += char(major);
    file += char(0);
    uchar length[4];
    if (major == 1) {
        qToLittleEndian<quint16>(quint16(head.size()), length);
        file.append(reinterpret_cast<const char*>(length), 2);
    } else {
        qToLittleEndian<quint32>(quint32(head.size()), length);
        file.append(reinterpret_cast<const char*>(length), 4);
    }
    return file + head + data;
}

QByteArray dict(const QByteArray& descr, bool fortran, const QByteArray& shape)
{
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False")
           + ", 'shape': " + shape + ", }";
}

// The entries of `m` as `itemSize` bytes each, in the given order.
QByteArray entries(const attn::Matrix& m, int itemSize, bool bigEndian, bool fortran)
{
    QByteArray data;
    const auto put = [&](double v) {
        uchar bytes[8];
        if (itemSize == 8) {
            quint64 bits;
            std::memcpy(&bits, &v, 8);
            bigEndian ? qToBigEndian(bits, bytes) : qToLittleEndian(bits, bytes);
        } else {
            const float f = float(v);
            quint32 bits;
            std::memcpy(&bits, &f, 4);
            bigEndian ? qToBigEndian(bits, bytes) : qToLittleEndian(bits, bytes);
        }
        data.append(reinterpret_cast<const char*>(bytes), itemSize);
    };
    if (fortran) {
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            for (Eigen::Index i = 0; i < m.rows(); ++i)
                put(m(i, j));
    } else {
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            for (Eigen::Index j = 0; j < m.cols(); ++j)
                put(m(i, j));
    }
    return data;
}

// Not symmetric, not square, values that float32 rounds.
attn::Matrix sample()
{
    attn::Matrix m(2, 3);
    m << 1.0, -2.5, 0.1, 3e-5, 7.0, -0.0;
    return m;
}

bool sameBits(const attn::Matrix& a, const attn::Matrix& b)
{
    return a.rows() == b.rows() && a.cols() == b.cols()
           && std::memcmp(a.data(), b.data(), std::size_t(a.size()) * sizeof(double)) == 0;
}

std::string_view view(const QByteArray& bytes)
{
    return std::string_view(bytes.constData(), std::size_t(bytes.size()));
}

}  // namespace

class TestNpy : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data();
    void roundTrip();
    void writerLayout();
    void handMade_data();
    void handMade();
    void headerVariants_data();
    void headerVariants();
    void badFiles_data();
    void badFiles();
    void hugeShapeRefusedFromSize();
    void missingFile();
    void checkShapeMessages_data();
    void checkShapeMessages();
};

void TestNpy::roundTrip_data()
{
    QTest::addColumn<attn::Matrix>("m");
    attn::Matrix one(1, 1);
    one << 0.1;
    attn::Matrix extremes(2, 4);
    extremes << std::numeric_limits<double>::denorm_min(), -0.0, std::numeric_limits<double>::max(),
        std::numeric_limits<double>::lowest(), 1.0 / 3.0, -1e-310, 1e300, 2.0;
    attn::Matrix column(5, 1);
    column << 1, 2, 3, 4, 5;
    QTest::newRow("1 x 1") << one;
    QTest::newRow("extremes and negative zero") << extremes;
    QTest::newRow("one column") << column;
    QTest::newRow("6 x 16 random") << attn::Matrix(attn::Matrix::Random(6, 16));
    QTest::newRow("300 x 70 random") << attn::Matrix(attn::Matrix::Random(300, 70) * 1e6);
}

void TestNpy::roundTrip()
{
    QFETCH(attn::Matrix, m);
    const std::string bytes = attnlab::npyBytes(m);
    const auto back = attnlab::parseNpy(bytes, "m.npy");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(sameBits(back.value(), m));

    QTemporaryDir dir;
    const QString path = dir.filePath("m.npy");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(bytes.data(), qint64(bytes.size()));
    file.close();
    const auto fromDisk = attnlab::readNpyFile(path);
    QVERIFY(fromDisk.ok());
    QVERIFY(sameBits(fromDisk.value(), m));
}

// What numpy.save writes for a float64 array: version 1.0, the dict, data
// aligned to 64 bytes, little-endian doubles in C order.
void TestNpy::writerLayout()
{
    attn::Matrix m(2, 3);
    m << 1, 2, 3, 4, 5, 6.5;
    const std::string bytes = attnlab::npyBytes(m);
    QCOMPARE(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    const std::size_t headerLength = std::size_t(uchar(bytes[8])) | std::size_t(uchar(bytes[9])) << 8;
    QCOMPARE((10 + headerLength) % 64, std::size_t(0));
    const std::string header = bytes.substr(10, headerLength);
    QVERIFY(header.rfind("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 0) == 0);
    QCOMPARE(header.back(), '\n');
    QCOMPARE(bytes.size(), 10 + headerLength + 6 * 8);
    double last;
    std::memcpy(&last, bytes.data() + bytes.size() - 8, 8);
    QCOMPARE(last, 6.5);  // little-endian host
}

void TestNpy::handMade_data()
{
    QTest::addColumn<QByteArray>("descr");
    QTest::addColumn<bool>("fortran");
    QTest::addColumn<int>("version");
    for (const char* descr : {"<f4", ">f4", "<f8", ">f8"})
        for (const bool fortran : {false, true})
            for (const int version : {1, 2, 3})
                QTest::addRow("%s %s v%d", descr, fortran ? "Fortran" : "C", version)
                    << QByteArray(descr) << fortran << version;
}

void TestNpy::handMade()
{
    QFETCH(QByteArray, descr);
    QFETCH(bool, fortran);
    QFETCH(int, version);
    const attn::Matrix m = sample();
    const int itemSize = descr.endsWith('8') ? 8 : 4;
    const QByteArray file = npyFile(version, dict(descr, fortran, "(2, 3)"),
                                    entries(m, itemSize, descr.startsWith('>'), fortran));
    const auto read = attnlab::parseNpy(view(file), "m.npy");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    attn::Matrix expected = m;
    if (itemSize == 4)
        expected = m.cast<float>().cast<double>();
    QVERIFY(sameBits(read.value(), expected));
}

// Header spellings numpy has written or accepts.
void TestNpy::headerVariants_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<attn::Matrix>("expected");
    const attn::Matrix m = sample();
    const QByteArray data = entries(m, 8, false, false);
    attn::Matrix row(1, 3);
    row << 1.0, -2.5, 0.1;
    QTest::newRow("1-D is one row") << npyFile(1, dict("<f8", false, "(3,)"), entries(row, 8, false, false))
                                    << row;
    QTest::newRow("keys in another order")
        << npyFile(1, "{'shape': (2, 3), 'fortran_order': False, 'descr': '<f8'}", data) << m;
    QTest::newRow("double quotes, no trailing comma")
        << npyFile(1, "{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (2, 3)}", data) << m;
    QTest::newRow("Python 2 long integers") << npyFile(1, dict("<f8", false, "(2L, 3L)"), data) << m;
    QTest::newRow("no padding") << npyFile(1, dict("<f8", false, "(2, 3)"), data, false) << m;
    QTest::newRow("version 3") << npyFile(3, dict("<f8", false, "(2, 3)"), data) << m;
    QTest::newRow("header of 10000 characters")
        << npyFile(1, dict("<f8", false, "(2, 3)") + QByteArray(10000 - 60, ' ') + "\n", data, false) << m;
    // numpy 1.24, numpy.load of these very bytes: a key written twice keeps
    // its last value (literal_eval of a dict), so '<i8' then '<f8' is float64
    // data and shape (3, 2) then (2, 3) is (2, 3).
    QTest::newRow("descr twice: the last counts")
        << npyFile(1, "{'descr': '<i8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", data)
        << m;
    QTest::newRow("shape twice: the last counts")
        << npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), 'shape': (2, 3), }", data)
        << m;
    QTest::newRow("version 2 with Python 2 long integers")
        << npyFile(2, dict("<f8", false, "(2L, 3L)"), data) << m;
}

void TestNpy::headerVariants()
{
    QFETCH(QByteArray, file);
    QFETCH(attn::Matrix, expected);
    const auto read = attnlab::parseNpy(view(file), "m.npy");
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(sameBits(read.value(), expected));
}

void TestNpy::badFiles_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("message");
    const QByteArray data = entries(sample(), 8, false, false);
    const QByteArray good = npyFile(1, dict("<f8", false, "(2, 3)"), data);

    QTest::newRow("empty") << QByteArray() << "bad.npy: the file is empty";
    QTest::newRow("bad magic") << QByteArray("\x93NUMPZ\x01\x00", 8) + good.mid(8)
                               << "bad.npy: not a NumPy .npy file";
    QTest::newRow("a CSV file") << QByteArray("1,2,3\n4,5,6\n") << "not a NumPy .npy file";
    QTest::newRow("only the magic") << good.left(6) << "bad.npy: the file ends inside the .npy header";
    QTest::newRow("cut in the length") << good.left(9) << "the file ends inside the .npy header";
    QTest::newRow("cut in the header")
        << good.left(40) << "the file ends inside the .npy header (118 header bytes announced, 30 present)";
    QTest::newRow("version 4.0") << npyFile(
        4, dict("<f8", false, "(2, 3)"),
        data) << "bad.npy: .npy format version 4.0 is not supported (1.0, 2.0 and 3.0 are)";
    QTest::newRow("version 1.1") << [&] {
        QByteArray f = good;
        f[7] = 1;
        return f;
    }() << "version 1.1 is not supported";
    QTest::newRow("header not a dict")
        << npyFile(1, "hello", data) << "bad.npy: the .npy header is not a readable Python dict";
    QTest::newRow("unclosed dict") << npyFile(1, "{'descr': '<f8'", data) << "not a readable Python dict";
    QTest::newRow("no shape") << npyFile(1, "{'descr': '<f8', 'fortran_order': False}", data)
                              << "bad.npy: the .npy header lacks 'shape'";
    QTest::newRow("no descr") << npyFile(1, "{'fortran_order': False, 'shape': (2, 3)}", data)
                              << "lacks 'descr'";
    QTest::newRow("int32") << npyFile(1, dict("<i4", false, "(2, 3)"), data.left(24))
                           << "bad.npy: holds 32-bit integers (dtype '<i4'); only float32 or float64 "
                              "arrays can be read ('<f4', '>f4', '<f8', '>f8'); convert with "
                              "a.astype(numpy.float64)";
    QTest::newRow("int64") << npyFile(1, dict("<i8", false, "(2, 3)"), data)
                           << "holds 64-bit integers (dtype '<i8')";
    QTest::newRow("uint8") << npyFile(1, dict("|u1", false, "(2, 3)"), data.left(6))
                           << "holds 8-bit unsigned integers (dtype '|u1')";
    QTest::newRow("float16") << npyFile(1, dict("<f2", false, "(2, 3)"), data.left(12))
                             << "holds 16-bit floats (dtype '<f2')";
    QTest::newRow("complex") << npyFile(1, dict("<c16", false, "(2, 3)"), data + data)
                             << "holds 128-bit complex numbers (dtype '<c16')";
    QTest::newRow("bool") << npyFile(1, dict("|b1", false, "(2, 3)"), data.left(6))
                          << "holds booleans (dtype '|b1')";
    QTest::newRow("objects") << npyFile(1, dict("|O", false, "(2, 3)"), data)
                             << "bad.npy: holds Python objects (dtype '|O')";
    QTest::newRow("strings") << npyFile(1, dict("<U5", false, "(2, 3)"), data)
                             << "holds Unicode strings (dtype '<U5')";
    QTest::newRow("native order float") << npyFile(1, dict("=f8", false, "(2, 3)"), data) << "(dtype '=f8')";
    QTest::newRow("structured") << npyFile(
        1, "{'descr': [('a', '<f8'), ('b', '<f8')], 'fortran_order': False, 'shape': (3,), }", data)
                                << "bad.npy: holds a structured array (a dtype with fields)";
    QTest::newRow("fortran_order not a bool")
        << npyFile(1, "{'descr': '<f8', 'fortran_order': 'yes', 'shape': (2, 3)}", data)
        << "'fortran_order' is not True or False";
    QTest::newRow("shape a string") << npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': '2x3'}",
                                               data)
                                    << "'shape' is not a tuple";
    // Refused by numpy 1.24's numpy.load too (numpy.lib.format
    // _read_array_header): "Header does not contain the correct keys",
    // "shape is not valid: [2, 3]" and ": 6", "fortran_order is not a valid
    // bool: 0", and "Cannot parse header" for a "3L" in version 3.0.
    QTest::newRow("descr twice: the last is int64")
        << npyFile(1, "{'descr': '<f8', 'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", data)
        << "bad.npy: holds 64-bit integers (dtype '<i8')";
    QTest::newRow("an unknown key")
        << npyFile(1,
                   "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), "
                   "'extra': 1, }",
                   data)
        << "bad.npy: the .npy header has the key 'extra'; numpy allows only 'descr', "
           "'fortran_order' and 'shape'";
    QTest::newRow("version 3, an unknown key in UTF-8") << npyFile(
        3, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'note': '\xc3\xa9t\xc3\xa9', }", data)
                                                        << "has the key 'note'";
    QTest::newRow("shape a list") << npyFile(1, dict("<f8", false, "[2, 3]"), data)
                                  << "bad.npy: the .npy header's 'shape' is not a tuple";
    QTest::newRow("shape (6) is a number")
        << npyFile(1, dict("<f8", false, "(6)"), data) << "bad.npy: the .npy header's 'shape' is not a tuple";
    QTest::newRow("fortran_order 0") << npyFile(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 3)}",
                                                data)
                                     << "'fortran_order' is not True or False";
    QTest::newRow("version 3 with Python 2 long integers") << npyFile(
        3, dict("<f8", false, "(2L, 3L)"), data) << "bad.npy: the .npy header is not a readable Python dict";
    // numpy 1.24 loads a 10000-character header and refuses 10001: "Header
    // info length (10001) is large and may not be safe to load securely".
    QTest::newRow("header of 10001 characters")
        << npyFile(1, dict("<f8", false, "(2, 3)") + QByteArray(10001 - 60, ' ') + "\n", data, false)
        << "bad.npy: the .npy header has 10001 characters; numpy.load refuses more than 10000";
    QTest::newRow("shape of strings")
        << npyFile(1, dict("<f8", false, "('a', 3)"), data) << "holds something other than whole numbers";
    QTest::newRow("rank 3") << npyFile(
        1, dict("<f8", false, "(1, 2, 3)"),
        data) << "bad.npy: has 3 dimensions, shape (1, 2, 3); a matrix needs 2 (or 1 for a single row)";
    // A long shape is echoed cut, as every echoed value is: one short line.
    QByteArray ones = "(1";
    for (int i = 1; i < 3000; ++i)
        ones += ", 1";
    QTest::newRow("rank 3000") << npyFile(1, dict("<f8", false, ones + ")"), data)
                               << QString::fromUtf8(
                                      "bad.npy: has 3000 dimensions, shape (1, 1, 1, 1, 1, 1, 1, "
                                      "1, 1, 1, 1, 1, 1, \u2026) (3000 dimensions); a matrix needs "
                                      "2 (or 1 for a single row)");
    QTest::newRow("scalar") << npyFile(1, dict("<f8", false, "()"), data.left(8))
                            << "has 0 dimensions, shape ()";
    QTest::newRow("no rows") << npyFile(1, dict("<f8", false, "(0, 3)"), QByteArray())
                             << "bad.npy: is empty (shape (0, 3))";
    QTest::newRow("empty 1-D") << npyFile(1, dict("<f8", false, "(0,)"), QByteArray())
                               << "is empty (shape (0,))";
    QTest::newRow("absurd rows") << npyFile(
        1, dict("<f8", false, "(100000, 3)"),
        data) << "bad.npy: shape (100000, 3) is too large: each dimension may be at most 4096";
    QTest::newRow("beyond 64 bits") << npyFile(1, dict("<f8", false, "(99999999999999999999999, 3)"), data)
                                    << "shape (huge, 3) is too large";
    QTest::newRow("too many entries") << npyFile(1, dict("<f8", false, "(4096, 4096)"), data)
                                      << "shape (4096, 4096) is too large: at most 4194304 entries";
    QTest::newRow("lying header: more announced")
        << npyFile(1, dict("<f8", false, "(3, 3)"), data)
        << "bad.npy: the header's shape (3, 3) of <f8 needs 72 data bytes but the file has 48 "
           "(truncated or a wrong header)";
    QTest::newRow("data cut short") << good.left(good.size() - 3)
                                    << "needs 48 data bytes but the file has 45";
    QTest::newRow("lying header: fewer announced")
        << npyFile(1, dict("<f8", false, "(2, 2)"), data)
        << "needs 32 data bytes but the file has 48 (extra bytes after the data: a wrong header)";
    QTest::newRow("float32 header over float64 data")
        << npyFile(1, dict("<f4", false, "(2, 3)"), data) << "of <f4 needs 24 data bytes but the file has 48";

    attn::Matrix withNan = sample();
    withNan(1, 2) = std::nan("");
    QTest::newRow("NaN")
        << npyFile(1, dict("<f8", false, "(2, 3)"), entries(withNan, 8, false, false))
        << "bad.npy: entry [1, 2] (row 2, column 3) is NaN; every entry must be a finite number";
    attn::Matrix withInf = sample();
    withInf(0, 1) = -INFINITY;
    QTest::newRow("-inf in Fortran order")
        << npyFile(1, dict("<f8", true, "(2, 3)"), entries(withInf, 8, false, true))
        << "entry [0, 1] (row 1, column 2) is -inf";
    QTest::newRow("float32 overflow is inf")
        << npyFile(1, dict(">f4", false, "(1, 1)"), QByteArray("\x7f\x80\x00\x00", 4))
        << "entry [0, 0] (row 1, column 1) is inf";
}

void TestNpy::badFiles()
{
    QFETCH(QByteArray, file);
    QFETCH(QString, message);
    const auto read = attnlab::parseNpy(view(file), "bad.npy");
    QVERIFY(!read.ok());
    QVERIFY2(QString::fromStdString(read.error().message).contains(message), read.error().message.c_str());

    QTemporaryDir dir;
    const QString path = dir.filePath("bad.npy");
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(file);
    out.close();
    const auto fromDisk = attnlab::readNpyFile(path);
    QVERIFY(!fromDisk.ok());
    QCOMPARE(QString::fromStdString(fromDisk.error().message), QString::fromStdString(read.error().message));
}

// A header announcing the largest accepted array over a few bytes of data:
// refused by the size check, before the data is read.
void TestNpy::hugeShapeRefusedFromSize()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("X.npy");
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(npyFile(1, dict("<f8", false, "(4096, 1024)"), QByteArray(16, '\0')));
    out.close();
    const auto read = attnlab::readNpyFile(path);
    QVERIFY(!read.ok());
    QCOMPARE(QString::fromStdString(read.error().message),
             QString("X.npy: the header's shape (4096, 1024) of <f8 needs 33554432 data bytes but "
                     "the file has 16 (truncated or a wrong header)"));
}

void TestNpy::missingFile()
{
    QTemporaryDir dir;
    const auto read = attnlab::readNpyFile(dir.filePath("nowhere.npy"));
    QVERIFY(!read.ok());
    QVERIFY2(read.error().message.rfind("cannot open '", 0) == 0, read.error().message.c_str());
    QVERIFY(read.error().message.find("nowhere.npy") != std::string::npos);
}

void TestNpy::checkShapeMessages_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("expectedRows");
    QTest::addColumn<int>("expectedCols");
    QTest::addColumn<QString>("message");  // empty: accepted
    const QString hint = "use --transpose-weights for PyTorch's nn.Linear.weight (d_out x d_in)";
    QTest::newRow("fits") << 16 << 24 << 16 << 24 << "";
    QTest::newRow("any rows") << 7 << 16 << -1 << 16 << "";
    QTest::newRow("transposed: hint")
        << 24 << 16 << 16 << 24
        << "W_q.npy has shape (24, 16) but (16, 24) was expected (d_model x d_k); " + hint;
    QTest::newRow("wrong, transpose would not help")
        << 24 << 16 << 16 << 8 << "W_q.npy has shape (24, 16) but (16, 8) was expected (d_model x d_k)";
    QTest::newRow("any columns, wrong rows")
        << 5 << 7 << 16 << -1 << "W_q.npy has shape (5, 7) but (16, any) was expected (d_model x d_k)";
}

void TestNpy::checkShapeMessages()
{
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, expectedRows);
    QFETCH(int, expectedCols);
    QFETCH(QString, message);
    const attn::Status status = attnlab::checkShape(
        "W_q.npy", attn::Matrix::Zero(rows, cols), expectedRows, expectedCols, "d_model x d_k",
        "use --transpose-weights for PyTorch's nn.Linear.weight (d_out x d_in)");
    QCOMPARE(status.ok(), message.isEmpty());
    if (!status.ok())
        QCOMPARE(QString::fromStdString(status.error().message), message);
}

QTEST_APPLESS_MAIN(TestNpy)
#include "tst_npy.moc"
