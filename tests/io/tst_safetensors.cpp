// SPDX-License-Identifier: GPL-3.0-or-later
// safetensors: the two reference checkpoints read with the values numpy
// reads from them; float16 and bfloat16 bit patterns converted as worked by
// hand; files built here byte by byte read as they say, and every malformed
// one refused with its message, from memory and from disk.

#include "safetensors.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

#include <cmath>
#include <cstring>

namespace {

const QString kData = QStringLiteral(ATTNLAB_SOURCE_DIR "/tests/data/gpt2/");

QByteArray le64(quint64 n)
{
    uchar bytes[8];
    qToLittleEndian(n, bytes);
    return QByteArray(reinterpret_cast<const char*>(bytes), 8);
}

// The header length, the header, the data.
QByteArray stFile(const QByteArray& header, const QByteArray& data)
{
    return le64(quint64(header.size())) + header + data;
}

QByteArray floatBytes(std::initializer_list<float> values)
{
    QByteArray out;
    for (const float v : values) {
        uchar bytes[4];
        quint32 bits;
        std::memcpy(&bits, &v, 4);
        qToLittleEndian(bits, bytes);
        out.append(reinterpret_cast<const char*>(bytes), 4);
    }
    return out;
}

quint32 bitsOf(float f)
{
    quint32 bits;
    std::memcpy(&bits, &f, 4);
    return bits;
}

attn::Expected<attnlab::SafetensorsFile> parse(const QByteArray& bytes)
{
    return attnlab::SafetensorsFile::parse(std::string_view(bytes.constData(), std::size_t(bytes.size())),
                                           "model.safetensors");
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT
private slots:
    void referenceF32();
    void referenceF16();
    void float16Bits_data();
    void float16Bits();
    void bfloat16Bits();
    void handMade();
    void unalignedF32IsCopied();
    void otherDtypesParseButGiveNoFloats();
    void refused_data();
    void refused();
    void truncatedReference();
    void missingFile();
};

void TestSafetensors::referenceF32()
{
    const auto file = attnlab::SafetensorsFile::open(kData + "tiny-gpt2/model.safetensors");
    QVERIFY2(file.ok(), file.ok() ? "" : file.error().message.c_str());
    // wte, wpe, 2 x 12 block tensors, 2 mask buffers, ln_f weight and bias.
    QCOMPARE(file->tensors().size(), std::size_t(30));
    QVERIFY(file->storage());
    const attnlab::SafetensorsTensor* w = file->find("h.1.attn.c_attn.weight");
    QVERIFY(w);
    QCOMPARE(w->dtype, std::string("F32"));
    QCOMPARE(w->shapeText(), std::string("[16, 48]"));
    QCOMPARE(w->begin, std::uint64_t(3250176));
    QCOMPARE(w->end, std::uint64_t(3253248));
    std::vector<float> owned;
    const auto values = file->floats(*w, owned);
    QVERIFY(values.ok());
    // In place: the pointer is the mapping's, nothing was copied.
    QVERIFY(owned.empty());
    QCOMPARE(static_cast<const void*>(values.value()), static_cast<const void*>(w->bytes));
    // Values read independently with numpy (python3: np.frombuffer of the
    // data_offsets slice as '<f4', reshaped to the shape):
    // h.1.attn.c_attn.weight[3, 47] = -0.5069785118103027.
    QCOMPARE(values.value()[3 * 48 + 47], -0.5069785118103027f);
    const attnlab::SafetensorsTensor* wte = file->find("wte.weight");
    QVERIFY(wte);
    const float* e = file->floats(*wte, owned).value();
    QCOMPARE(e[0], 0.17279209196567535f);               // wte[0, 0]
    QCOMPARE(e[464 * 16 + 7], -0.6866124272346497f);    // wte[464, 7]
    QCOMPARE(e[50256 * 16 + 15], 0.5780755877494812f);  // wte[50256, 15]
    const attnlab::SafetensorsTensor* mask = file->find("h.0.attn.bias");
    QVERIFY(mask);
    QCOMPARE(mask->shapeText(), std::string("[1, 1, 64, 64]"));
    const float* m = file->floats(*mask, owned).value();
    QCOMPARE(m[5 * 64 + 3], 1.0f);  // below the diagonal
    QCOMPARE(m[3 * 64 + 5], 0.0f);  // above it
}

void TestSafetensors::referenceF16()
{
    const auto file = attnlab::SafetensorsFile::open(kData + "tiny-gpt2-lmhead-f16/model.safetensors");
    QVERIFY2(file.ok(), file.ok() ? "" : file.error().message.c_str());
    QCOMPARE(file->tensors().size(), std::size_t(2 + 3 * 12 + 2));
    const attnlab::SafetensorsTensor* wte = file->find("transformer.wte.weight");
    QVERIFY(wte);
    QCOMPARE(wte->dtype, std::string("F16"));
    std::vector<float> owned;
    const auto values = file->floats(*wte, owned);
    QVERIFY(values.ok());
    QCOMPARE(owned.size(), std::size_t(50257 * 8));
    QCOMPARE(values.value(), owned.data());
    // numpy ('<f2' viewed as '<u2' for the bits): wte[0, 0] is 0x2e0d, by
    // hand (1 + 525/1024) x 2^(11 - 15) = 0.0945434570...
    QCOMPARE(owned[0], 1549.0f / 16384.0f);
    // wte[1316, 4] is 0x8207, a subnormal: -519 x 2^-24.
    QCOMPARE(owned[1316 * 8 + 4], -519.0f * std::ldexp(1.0f, -24));
    QCOMPARE(owned[50256 * 8 + 7], 0.0301361084f);  // 0x27b7, numpy's float32 of it
    const attnlab::SafetensorsTensor* bias = file->find("transformer.h.2.mlp.c_proj.bias");
    QVERIFY(bias);
    QCOMPARE(file->floats(*bias, owned).value()[7], -0.0339355469f);  // 0xa858
}

void TestSafetensors::float16Bits_data()
{
    QTest::addColumn<uint>("half");
    QTest::addColumn<uint>("single");
    // binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits; float32: 1,
    // 8 (bias 127), 23. A normal number keeps its mantissa shifted by 13 and
    // its exponent rebiased by +112; a subnormal m x 2^-24 is normalised.
    QTest::newRow("+0") << 0x0000u << 0x00000000u;
    QTest::newRow("-0") << 0x8000u << 0x80000000u;
    QTest::newRow("1") << 0x3C00u << 0x3F800000u;
    QTest::newRow("-2") << 0xC000u << 0xC0000000u;
    QTest::newRow("1/3 rounded") << 0x3555u << 0x3EAAA000u;     // 1365/4096
    QTest::newRow("largest, 65504") << 0x7BFFu << 0x477FE000u;  // 1.9990234375 x 2^15
    QTest::newRow("smallest normal, 2^-14") << 0x0400u << 0x38800000u;
    QTest::newRow("smallest subnormal, 2^-24") << 0x0001u << 0x33800000u;
    QTest::newRow("largest subnormal") << 0x03FFu << 0x387FC000u;  // 1023 x 2^-24
    QTest::newRow("-519 x 2^-24") << 0x8207u << 0xB801C000u;       // 519/512 x 2^-15
    QTest::newRow("+inf") << 0x7C00u << 0x7F800000u;
    QTest::newRow("-inf") << 0xFC00u << 0xFF800000u;
    QTest::newRow("quiet NaN") << 0x7E00u << 0x7FC00000u;
    QTest::newRow("NaN payload kept") << 0x7C01u << 0x7F802000u;
    QTest::newRow("negative NaN payload") << 0xFE01u << 0xFFC02000u;
}

void TestSafetensors::float16Bits()
{
    QFETCH(uint, half);
    QFETCH(uint, single);
    QCOMPARE(QString::number(bitsOf(attnlab::float16ToFloat(std::uint16_t(half))), 16),
             QString::number(single, 16));
}

void TestSafetensors::bfloat16Bits()
{
    // bfloat16 is the top half of a float32: 1 8 7.
    QCOMPARE(bitsOf(attnlab::bfloat16ToFloat(0x3F80)), 0x3F800000u);  // 1
    QCOMPARE(bitsOf(attnlab::bfloat16ToFloat(0xC049)), 0xC0490000u);  // -3.140625
    QCOMPARE(bitsOf(attnlab::bfloat16ToFloat(0x0001)), 0x00010000u);  // a float32 subnormal
    QCOMPARE(bitsOf(attnlab::bfloat16ToFloat(0xFF80)), 0xFF800000u);  // -inf
    QCOMPARE(bitsOf(attnlab::bfloat16ToFloat(0x7FC1)), 0x7FC10000u);  // NaN with payload
    QCOMPARE(attnlab::bfloat16ToFloat(0xC049), -3.140625f);
}

void TestSafetensors::handMade()
{
    // Two tensors listed out of order, metadata, a header padded with blanks
    // to 8 bytes as the Python writer pads it.
    QByteArray header =
        R"({"b":{"dtype":"BF16","shape":[3],"data_offsets":[8,14]},)"
        R"("__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}})";
    while (header.size() % 8 != 0)
        header += ' ';
    const QByteArray data = floatBytes({1.5f, -0.25f}) + QByteArray("\x80\x3F\x49\xC0\x80\x7F", 6);
    const QByteArray bytes = stFile(header, data);
    const auto file = parse(bytes);
    QVERIFY2(file.ok(), file.ok() ? "" : file.error().message.c_str());
    QCOMPARE(file->tensors().size(), std::size_t(2));
    QCOMPARE(file->tensors()[0].name, std::string("a"));  // sorted by offset
    QCOMPARE(file->tensors()[0].shapeText(), std::string("[1, 2]"));
    QCOMPARE(file->tensors()[1].entryCount(), std::uint64_t(3));
    std::vector<float> owned;
    const float* a = file->floats(*file->find("a"), owned).value();
    QCOMPARE(a[0], 1.5f);
    QCOMPARE(a[1], -0.25f);
    const float* b = file->floats(*file->find("b"), owned).value();
    QCOMPARE(b[0], 1.0f);
    QCOMPARE(b[1], -3.140625f);
    QVERIFY(std::isinf(b[2]) && b[2] > 0);
    QVERIFY(!file->find("c"));

    // No tensor at all is a valid (empty) file.
    const auto empty = parse(stFile("{}", {}));
    QVERIFY(empty.ok());
    QVERIFY(empty->tensors().empty());
}

void TestSafetensors::unalignedF32IsCopied()
{
    // A 3-byte header puts the data at byte 11: not 4-byte aligned.
    QByteArray bytes =
        stFile(R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", floatBytes({2.0f, -7.5f}));
    const QByteArray shifted = QByteArray(1, '\0') + bytes;  // the parsed bytes start at an odd address
    const auto file = attnlab::SafetensorsFile::parse(
        std::string_view(shifted.constData() + 1, std::size_t(bytes.size())), "model.safetensors");
    QVERIFY(file.ok());
    const attnlab::SafetensorsTensor& x = file->tensors()[0];
    std::vector<float> owned;
    const float* v = file->floats(x, owned).value();
    const bool aligned = reinterpret_cast<std::uintptr_t>(x.bytes) % 4 == 0;
    QCOMPARE(owned.empty(), aligned);
    QCOMPARE(v[0], 2.0f);
    QCOMPARE(v[1], -7.5f);
}

void TestSafetensors::otherDtypesParseButGiveNoFloats()
{
    const auto file = parse(stFile(R"({"h.0.attn.bias":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})",
                                   QByteArray(16, '\1')));
    QVERIFY2(file.ok(), file.ok() ? "" : file.error().message.c_str());
    std::vector<float> owned;
    const auto values = file->floats(file->tensors()[0], owned);
    QVERIFY(!values.ok());
    QCOMPARE(QString::fromStdString(values.error().message),
             "model.safetensors: tensor h.0.attn.bias: dtype I64 is not supported (F32, F16 and BF16 are)");
}

void TestSafetensors::refused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    const QString f = "model.safetensors: ";
    const QByteArray one = R"("dtype":"F32","shape":[2],"data_offsets":[0,8])";

    QTest::newRow("empty") << QByteArray()
                           << f + "truncated: 0 bytes, too short for the 8-byte header length";
    QTest::newRow("header length cut")
        << QByteArray("\x10\0\0", 3) << f + "truncated: 3 bytes, too short for the 8-byte header length";
    QTest::newRow("header length beyond the file")
        << le64(2528) + "{}" << f + "truncated: the header length says 2528 bytes but only 2 follow it";
    QTest::newRow("header length absurd")
        << le64(~0ull) + "{}"
        << f + "the header length 18446744073709551615 is over the 100000000-byte limit (not a safetensors file?)";
    QTest::newRow("header not an object")
        << stFile("[1]", {}) << f + "the header does not start with '{' (not a safetensors file?)";
    QTest::newRow("zero header length")
        << stFile("", {}) << f + "the header does not start with '{' (not a safetensors file?)";
    QTest::newRow("bad JSON") << stFile(R"({"a": )", {})
                              << f + "the header is not valid JSON: unterminated object at byte 14";
    QTest::newRow("metadata not strings")
        << stFile(R"({"__metadata__":{"n":1}})", {}) << f + "__metadata__ is not an object of strings";
    QTest::newRow("entry not an object, control bytes in its name") << stFile(
        "{\"a\\u0001b\":3}", {}) << f + "tensor a?b: not an object with dtype, shape and data_offsets";
    QTest::newRow("line break and emoji in a name")
        << stFile("{\"w\\n\xF0\x9F\x98\x80\":{\"dtype\":\"Q\\u20284\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                  QByteArray(8, 0))
        << f + QString::fromUtf8("tensor w?\xF0\x9F\x98\x80: dtype \"Q?4\" is not a safetensors dtype");
    QTest::newRow("no dtype") << stFile(R"({"w":{"shape":[2],"data_offsets":[0,8]}})", QByteArray(8, 0))
                              << f + "tensor w: no dtype";
    QTest::newRow("unknown dtype") << stFile(R"({"w":{"dtype":"Q4","shape":[2],"data_offsets":[0,8]}})",
                                             QByteArray(8, 0))
                                   << f + "tensor w: dtype \"Q4\" is not a safetensors dtype";
    QTest::newRow("no shape") << stFile(R"({"w":{"dtype":"F32","data_offsets":[0,8]}})", QByteArray(8, 0))
                              << f + "tensor w: no shape";
    QTest::newRow("negative dimension")
        << stFile(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", QByteArray(8, 0))
        << f + "tensor w: shape is not a list of non-negative integers";
    QTest::newRow("fractional dimension")
        << stFile(R"({"w":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", QByteArray(8, 0))
        << f + "tensor w: shape is not a list of non-negative integers";
    QTest::newRow("offsets not a pair")
        << stFile(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8]}})", QByteArray(8, 0))
        << f + "tensor w: data_offsets is not a pair of non-negative integers";
    QTest::newRow("offsets reversed")
        << stFile(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", QByteArray(8, 0))
        << f + "tensor w: data_offsets [8, 0] end before they begin";
    QTest::newRow("offsets past the end")
        << stFile(R"({"h.0.attn.c_attn.weight":{"dtype":"F32","shape":[300],"data_offsets":[0,1200]}})",
                  QByteArray(800, 0))
        << f + "tensor h.0.attn.c_attn.weight: data_offsets [0, 1200] exceed the 800 bytes of data (the file is "
                 "truncated: its header describes 1200)";
    QTest::newRow("shape product mismatching the bytes")
        << stFile(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", QByteArray(20, 0))
        << f + "tensor w: shape [2, 3] of F32 needs 24 bytes but data_offsets [0, 20] hold 20";
    // A shape of 100,000 dimensions is echoed cut, as names are: one short line.
    QByteArray ones = "1";
    for (int i = 1; i < 100000; ++i)
        ones += ",1";
    QTest::newRow("shape of 100000 dimensions")
        << stFile(R"({"w":{"dtype":"F32","shape":[)" + ones + R"(],"data_offsets":[0,8]}})", QByteArray(8, 0))
        << f
               + QString::fromUtf8(
                   "tensor w: shape [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, \u2026] (100000 "
                   "dimensions) of F32 needs 4 bytes but data_offsets [0, 8] hold 8");
    QTest::newRow("shape product overflowing 64 bits")
        << stFile(R"({"w":{"dtype":"F16","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
                  QByteArray(8, 0))
        << f + "tensor w: shape [4294967296, 4294967296] has more entries than any file holds";
    QTest::newRow("overlapping offsets") << stFile(
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
        QByteArray(12, 0)) << f + "tensor b: data_offsets [4, 12] overlap tensor a's [0, 8]";
    QTest::newRow("gap between tensors") << stFile(
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
        R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
        QByteArray(12, 0)) << f + "bytes [4, 8] of the data belong to no tensor";
    // QJsonDocument keeps the last of two equal keys: the first one's bytes
    // are then left over.
    QTest::newRow("a tensor named twice") << stFile(
        R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
        R"("a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
        QByteArray(8, 0)) << f + "bytes [0, 4] of the data belong to no tensor";
    QTest::newRow("bytes after the last tensor") << stFile("{\"w\":{" + one + "}}", QByteArray(11, 0))
                                                 << f + "bytes [8, 11] of the data belong to no tensor";
}

void TestSafetensors::refused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const auto file = parse(bytes);
    QVERIFY(!file.ok());
    QCOMPARE(QString::fromStdString(file.error().message), message);

    // The same from disk, read into memory.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("model.safetensors");
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(bytes), bytes.size());
    out.close();
    const auto fromDisk = attnlab::SafetensorsFile::open(path);
    QVERIFY(!fromDisk.ok());
    QCOMPARE(QString::fromStdString(fromDisk.error().message), message);
}

void TestSafetensors::truncatedReference()
{
    // The F32 reference cut inside its wte data, as an interrupted download.
    QFile in(kData + "tiny-gpt2/model.safetensors");
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QByteArray cut = in.read(3000);
    const auto file = parse(cut);
    QVERIFY(!file.ok());
    QCOMPARE(
        QString::fromStdString(file.error().message),
        "model.safetensors: tensor wte.weight: data_offsets [0, 3216448] exceed the 464 bytes of data (the "
        "file is truncated: its header describes 3279680)");
    const auto inHeader = parse(cut.left(1000));
    QCOMPARE(QString::fromStdString(inHeader.error().message),
             "model.safetensors: truncated: the header length says 2528 bytes but only 992 follow it");
}

void TestSafetensors::missingFile()
{
    QTemporaryDir dir;
    const auto none = attnlab::SafetensorsFile::open(dir.filePath("model.safetensors"));
    QVERIFY(!none.ok());
    QCOMPARE(QString::fromStdString(none.error().message),
             "cannot open '" + dir.filePath("model.safetensors") + "': no such file");
    const auto folder = attnlab::SafetensorsFile::open(dir.path());
    QVERIFY(!folder.ok());
    QCOMPARE(QString::fromStdString(folder.error().message),
             QDir(dir.path()).dirName() + ": a folder, not a file; only regular files and pipes can be read");
}

QTEST_APPLESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
