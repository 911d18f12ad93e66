// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk F16 and BF16 conversions (floatconversion.h) against the
// entry-by-entry ones that tst_safetensors checks by hand: every one of the
// 65,536 bit patterns, from an unaligned buffer, bit for bit (NaN payloads
// included); shared among threads or not, the same bits; the memory they
// write into; and a BF16 tensor large enough to be shared read through
// SafetensorsFile::floats.

#include "floatconversion.h"
#include "safetensors.h"

#include <QtEndian>
#include <QtTest>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

quint32 bitsOf(float f)
{
    quint32 bits;
    std::memcpy(&bits, &f, 4);
    return bits;
}

// Every 16-bit pattern, little-endian, starting one byte into the buffer.
std::vector<unsigned char> everyPatternUnaligned()
{
    std::vector<unsigned char> bytes(1 + 2 * 65536);
    for (std::uint32_t p = 0; p < 65536; ++p)
        qToLittleEndian(quint16(p), bytes.data() + 1 + 2 * p);
    return bytes;
}

// `count` random 16-bit patterns, little-endian.
std::vector<unsigned char> randomPatterns(std::size_t count, unsigned seed)
{
    std::mt19937 gen(seed);
    std::vector<unsigned char> bytes(2 * count);
    for (std::size_t i = 0; i < count; ++i)
        qToLittleEndian(quint16(gen() & 0xFFFFu), bytes.data() + 2 * i);
    return bytes;
}

int firstDifference(const std::vector<float>& a, const std::vector<float>& b)
{
    if (a.size() != b.size())
        return 0;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (bitsOf(a[i]) != bitsOf(b[i]))
            return int(i);
    return -1;
}

}  // namespace

class TestFloatConversion : public QObject {
    Q_OBJECT

private slots:
    void float16EveryPattern()
    {
        const std::vector<unsigned char> bytes = everyPatternUnaligned();
        std::vector<float> out(65536);
        attnlab::float16ToFloats(bytes.data() + 1, out.size(), out.data());
        for (std::uint32_t p = 0; p < 65536; ++p)
            if (bitsOf(out[p]) != bitsOf(attnlab::float16ToFloat(quint16(p))))
                QFAIL(qPrintable(
                    QStringLiteral("pattern 0x%1: 0x%2, expected 0x%3")
                        .arg(p, 4, 16, QLatin1Char('0'))
                        .arg(bitsOf(out[p]), 8, 16, QLatin1Char('0'))
                        .arg(bitsOf(attnlab::float16ToFloat(quint16(p))), 8, 16, QLatin1Char('0'))));
        // A few worked by hand: 1, -2, the smallest subnormal 2^-24, the
        // largest 65504, -infinity, a NaN with its payload.
        QCOMPARE(bitsOf(out[0x3C00]), quint32(0x3F800000));
        QCOMPARE(bitsOf(out[0xC000]), quint32(0xC0000000));
        QCOMPARE(out[0x0001], 0x1p-24f);
        QCOMPARE(out[0x7BFF], 65504.0f);
        QCOMPARE(bitsOf(out[0xFC00]), quint32(0xFF800000));
        QCOMPARE(bitsOf(out[0x7E01]), quint32(0x7FC02000));
        QCOMPARE(bitsOf(out[0x8000]), quint32(0x80000000));
    }

    void bfloat16EveryPattern()
    {
        const std::vector<unsigned char> bytes = everyPatternUnaligned();
        std::vector<float> out(65536);
        attnlab::bfloat16ToFloats(bytes.data() + 1, out.size(), out.data());
        for (std::uint32_t p = 0; p < 65536; ++p) {
            if (bitsOf(out[p]) != p << 16 || bitsOf(out[p]) != bitsOf(attnlab::bfloat16ToFloat(quint16(p))))
                QFAIL(qPrintable(QStringLiteral("pattern 0x%1").arg(p, 4, 16, QLatin1Char('0'))));
        }
    }

    void sharedGivesTheSameBits_data()
    {
        QTest::addColumn<bool>("half");
        QTest::newRow("F16") << true;
        QTest::newRow("BF16") << false;
    }

    void sharedGivesTheSameBits()
    {
        QFETCH(bool, half);
        // Above two threads' minimum, odd, from an unaligned start.
        const std::size_t count = 3'000'001;
        std::vector<unsigned char> bytes = randomPatterns(count + 1, 7);
        const unsigned char* in = bytes.data() + 1;
        std::vector<float> one(count), two(count), expected(count);
        for (std::size_t i = 0; i < count; ++i) {
            const quint16 bits = qFromLittleEndian<quint16>(in + 2 * i);
            expected[i] = half ? attnlab::float16ToFloat(bits) : attnlab::bfloat16ToFloat(bits);
        }
        if (half) {
            attnlab::float16ToFloatsShared(in, count, one.data(), 1);
            attnlab::float16ToFloatsShared(in, count, two.data(), 2);
        } else {
            attnlab::bfloat16ToFloatsShared(in, count, one.data(), 1);
            attnlab::bfloat16ToFloatsShared(in, count, two.data(), 2);
        }
        QCOMPARE(firstDifference(one, expected), -1);
        QCOMPARE(firstDifference(two, expected), -1);
    }

    void floatBuffer()
    {
        // Small (the heap) and large (a mapping of its own): every entry
        // writable and read back; moving keeps the floats where they are.
        for (const std::size_t count : {std::size_t(5), std::size_t(3) << 20}) {
            attnlab::FloatBuffer buffer(count);
            QCOMPARE(buffer.size(), count);
            QVERIFY(buffer.data() != nullptr);
            for (std::size_t i = 0; i < count; ++i)
                buffer.data()[i] = float(i);
            float* where = buffer.data();
            attnlab::FloatBuffer moved(std::move(buffer));
            QVERIFY(buffer.empty());
            QCOMPARE(moved.data(), where);
            for (std::size_t i = 0; i < count; i += 4099)
                QCOMPARE(moved.data()[i], float(i));
            QCOMPARE(moved.data()[count - 1], float(count - 1));
            attnlab::FloatBuffer assigned;
            assigned = std::move(moved);
            QCOMPARE(assigned.data(), where);
            QVERIFY(moved.empty());
        }
        QVERIFY(attnlab::FloatBuffer(0).empty());
    }

    void largeBf16TensorRead()
    {
        // A BF16 tensor of 1024 x 2049 entries (shared among the threads),
        // from a file built here, against the entry-by-entry conversion.
        const int rows = 1024, cols = 2049;
        const std::size_t count = std::size_t(rows) * std::size_t(cols);
        const std::vector<unsigned char> data = randomPatterns(count, 11);
        const std::string header = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[" + std::to_string(rows) + ","
                                   + std::to_string(cols) + "],\"data_offsets\":[0,"
                                   + std::to_string(2 * count) + "]}}";
        QByteArray file(8, '\0');
        qToLittleEndian(quint64(header.size()), reinterpret_cast<uchar*>(file.data()));
        file += QByteArray::fromStdString(header);
        file += QByteArray(reinterpret_cast<const char*>(data.data()), qsizetype(data.size()));
        const auto parsed = attnlab::SafetensorsFile::parse(
            std::string_view(file.constData(), std::size_t(file.size())), "model.safetensors");
        QVERIFY(parsed.ok());
        attnlab::FloatBuffer owned;
        const auto values = parsed->floats(parsed->tensors().front(), owned);
        QVERIFY(values.ok());
        QCOMPARE(owned.size(), count);
        QCOMPARE(values.value(), static_cast<const float*>(owned.data()));
        for (std::size_t i = 0; i < count; ++i) {
            const quint16 bits = qFromLittleEndian<quint16>(data.data() + 2 * i);
            if (bitsOf(values.value()[i]) != quint32(bits) << 16)
                QFAIL(qPrintable(QStringLiteral("entry %1").arg(i)));
        }
    }
};

QTEST_APPLESS_MAIN(TestFloatConversion)
#include "tst_floatconversion.moc"
