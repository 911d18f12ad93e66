// SPDX-License-Identifier: GPL-3.0-or-later
#include "safetensors.h"

#include "echoedvalue.h"
#include "inputfile.h"

#include <QByteArray>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QSysInfo>
#include <QtEndian>

#include <algorithm>
#include <cstring>
#include <limits>
#include <new>

namespace attnlab {

namespace {

// The Rust reader's MAX_HEADER_SIZE: a longer header is not parsed.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

struct Dtype {
    const char* name;
    int size;
};

// Every dtype of the format (safetensors 0.4) with its size in bytes.
constexpr Dtype kDtypes[] = {{"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
                             {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
                             {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8}};

int dtypeSize(const QString& dtype)
{
    for (const Dtype& d : kDtypes)
        if (dtype == QLatin1String(d.name))
            return d.size;
    return 0;
}

std::string offsetsText(std::uint64_t begin, std::uint64_t end)
{
    return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// A JSON number that is a whole number from 0 to 2^53 (every such value is
// exact in the double the parser keeps).
bool toCount(const QJsonValue& v, std::uint64_t& out)
{
    if (!v.isDouble())
        return false;
    const double d = v.toDouble();
    if (!(d >= 0 && d <= 9007199254740992.0) || d != double(std::int64_t(d)))
        return false;
    out = std::uint64_t(d);
    return true;
}

attn::Error fail(std::string_view file, const std::string& what)
{
    return attn::Error{std::string(file) + ": " + what};
}

attn::Error failTensor(std::string_view file, const std::string& tensor, const std::string& what)
{
    return fail(file, "tensor " + shownText(tensor) + ": " + what);
}

// One entry of the header, checked on its own (parse then checks the
// entries against each other and against the data).
attn::Expected<SafetensorsTensor> readEntry(std::string_view file, const QString& key,
                                            const QJsonValue& value)
{
    SafetensorsTensor t;
    t.name = key.toStdString();
    if (!value.isObject())
        return failTensor(file, t.name, "not an object with dtype, shape and data_offsets");
    const QJsonObject o = value.toObject();

    const QJsonValue dtype = o.value(QLatin1String("dtype"));
    if (!dtype.isString())
        return failTensor(file, t.name, "no dtype");
    t.dtype = dtype.toString().toStdString();
    t.itemSize = dtypeSize(dtype.toString());
    if (t.itemSize == 0)
        return failTensor(file, t.name, "dtype \"" + shownText(t.dtype) + "\" is not a safetensors dtype");

    const QJsonValue shape = o.value(QLatin1String("shape"));
    if (!shape.isArray())
        return failTensor(file, t.name, "no shape");
    for (const QJsonValue& dim : shape.toArray()) {
        std::uint64_t n = 0;
        if (!toCount(dim, n))
            return failTensor(file, t.name, "shape is not a list of non-negative integers");
        t.shape.push_back(std::int64_t(n));
    }

    const QJsonValue offsets = o.value(QLatin1String("data_offsets"));
    const QJsonArray pair = offsets.toArray();
    if (!offsets.isArray() || pair.size() != 2 || !toCount(pair[0], t.begin) || !toCount(pair[1], t.end))
        return failTensor(file, t.name, "data_offsets is not a pair of non-negative integers");
    const std::string where = "data_offsets " + offsetsText(t.begin, t.end);
    if (t.end < t.begin)
        return failTensor(file, t.name, where + " end before they begin");

    // product(shape) x itemSize, with a zero dimension making it 0 whatever
    // the others are, and any overflow of 64 bits caught.
    std::uint64_t bytes = std::uint64_t(t.itemSize);
    bool overflow = false;
    for (const std::int64_t dim : t.shape) {
        const std::uint64_t d = std::uint64_t(dim);
        if (d == 0) {
            bytes = 0;
            overflow = false;
            break;
        }
        if (bytes > std::numeric_limits<std::uint64_t>::max() / d)
            overflow = true;
        else
            bytes *= d;
    }
    if (overflow)
        return failTensor(file, t.name, "shape " + t.shapeText() + " has more entries than any file holds");
    if (bytes != t.byteSize())
        return failTensor(file, t.name,
                          "shape " + t.shapeText() + " of " + t.dtype + " needs " + std::to_string(bytes)
                              + " bytes but " + where + " hold " + std::to_string(t.byteSize()));
    return t;
}

}  // namespace

std::string shownText(std::string_view text)
{
    std::string out;
    int count = 0;
    for (const char32_t c : QString::fromUtf8(text.data(), qsizetype(text.size())).toUcs4()) {
        if (++count > 80)
            return out + "...";
        const QChar::Category category = QChar::category(c);
        const bool shown =
            QChar::isPrint(c) && category != QChar::Separator_Line && category != QChar::Separator_Paragraph;
        out += shown ? QString::fromUcs4(&c, 1).toStdString() : std::string("?");
    }
    return out;
}

std::string SafetensorsTensor::shapeText() const
{
    return echoedList(shape.size(), [this](std::size_t i) { return std::to_string(shape[i]); });
}

attn::Expected<SafetensorsFile> SafetensorsFile::open(const QString& path)
{
    const QFileInfo info(path);
    // A link that leads nowhere (a loop, a dangling link) is no missing
    // file: the reader below says what it is.
    if (!info.exists() && !info.isSymLink())
        return attn::Error{"cannot open '" + path.toStdString() + "': no such file"};
    // Read whole into memory, not mapped: a mapped file that another program
    // truncates or copies over while it is in use faults (SIGBUS) on the next
    // read of its pages, and no check made before the read can rule that out.
    // readInputFile also names what is not a regular file (a folder, a
    // device, a FIFO with no writer) and refuses a file over the cap unread.
    std::shared_ptr<QByteArray> bytes;
    try {
        attn::Expected<QByteArray> read = readInputFile(path, kMaxSafetensorsBytes, "safetensors file");
        if (!read)
            return read.error();
        bytes = std::make_shared<QByteArray>(std::move(read).value());
    } catch (const std::bad_alloc&) {
        return fail(info.fileName().toStdString(),
                    byteSizeText(info.size()) + " does not fit in this computer's free memory");
    }
    const std::string_view view(bytes->constData(), std::size_t(bytes->size()));
    return parse(view, info.fileName().toStdString(), std::shared_ptr<const void>(std::move(bytes)));
}

attn::Expected<SafetensorsFile> SafetensorsFile::parse(std::string_view bytes, std::string_view name,
                                                       std::shared_ptr<const void> storage)
{
    if (bytes.size() < 8)
        return fail(name, "truncated: " + std::to_string(bytes.size())
                              + " bytes, too short for the 8-byte header length");
    const std::uint64_t headerSize = qFromLittleEndian<quint64>(bytes.data());
    const std::uint64_t available = bytes.size() - 8;
    if (headerSize > kMaxHeaderBytes)
        return fail(name, "the header length " + std::to_string(headerSize) + " is over the "
                              + std::to_string(kMaxHeaderBytes) + "-byte limit (not a safetensors file?)");
    if (headerSize > available)
        return fail(name, "truncated: the header length says " + std::to_string(headerSize)
                              + " bytes but only " + std::to_string(available) + " follow it");
    const std::string_view header = bytes.substr(8, std::size_t(headerSize));
    if (header.empty() || header.front() != '{')
        return fail(name, "the header does not start with '{' (not a safetensors file?)");

    QJsonParseError error;
    const QJsonDocument doc =
        QJsonDocument::fromJson(QByteArray::fromRawData(header.data(), qsizetype(header.size())), &error);
    if (error.error != QJsonParseError::NoError)
        return fail(name, "the header is not valid JSON: " + error.errorString().toStdString() + " at byte "
                              + std::to_string(8 + error.offset));
    if (!doc.isObject())
        return fail(name, "the header is not a JSON object");

    SafetensorsFile out;
    out.name_ = std::string(name);
    out.storage_ = std::move(storage);
    const std::uint64_t dataSize = available - headerSize;
    const unsigned char* data = reinterpret_cast<const unsigned char*>(bytes.data()) + 8 + headerSize;
    const QJsonObject root = doc.object();
    for (auto it = root.begin(); it != root.end(); ++it) {
        if (it.key() == QLatin1String("__metadata__")) {
            const QJsonObject meta = it.value().toObject();
            const bool strings =
                std::all_of(meta.begin(), meta.end(), [](const QJsonValue& v) { return v.isString(); });
            if (!it.value().isObject() || !strings)
                return fail(name, "__metadata__ is not an object of strings");
            continue;
        }
        auto t = readEntry(name, it.key(), it.value());
        if (!t.ok())
            return t.error();
        out.tensors_.push_back(std::move(t.value()));
    }

    // The tensors in file order must tile the data exactly.
    std::sort(out.tensors_.begin(), out.tensors_.end(),
              [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
                  return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
              });
    std::uint64_t covered = 0;
    for (std::size_t i = 0; i < out.tensors_.size(); ++i) {
        const SafetensorsTensor& t = out.tensors_[i];
        if (t.begin < covered) {
            const SafetensorsTensor& before = out.tensors_[i - 1];
            return failTensor(name, t.name,
                              "data_offsets " + offsetsText(t.begin, t.end) + " overlap tensor "
                                  + shownText(before.name) + "'s " + offsetsText(before.begin, before.end));
        }
        if (t.begin > covered)
            return fail(name, "bytes " + offsetsText(covered, t.begin) + " of the data belong to no tensor");
        covered = t.end;
    }
    // The offsets are consistent with each other, so data that ends before
    // them is a file cut short (or a header that lies about the whole).
    for (const SafetensorsTensor& t : out.tensors_)
        if (t.end > dataSize)
            return failTensor(name, t.name,
                              "data_offsets " + offsetsText(t.begin, t.end) + " exceed the "
                                  + std::to_string(dataSize)
                                  + " bytes of data (the file is truncated: its header describes "
                                  + std::to_string(covered) + ")");
    if (covered != dataSize)
        return fail(name, "bytes " + offsetsText(covered, dataSize) + " of the data belong to no tensor");
    for (SafetensorsTensor& t : out.tensors_)
        t.bytes = data + t.begin;
    return out;
}

const SafetensorsTensor* SafetensorsFile::find(std::string_view tensorName) const
{
    for (const SafetensorsTensor& t : tensors_)
        if (t.name == tensorName)
            return &t;
    return nullptr;
}

namespace {

// The tensor's entries as float32 into `out` (entryCount of them).
void convertInto(const SafetensorsTensor& t, float* out)
{
    const std::size_t n = std::size_t(t.entryCount());
    if (t.dtype == "F32") {
        for (std::size_t i = 0; i < n; ++i) {
            const quint32 bits = qFromLittleEndian<quint32>(t.bytes + 4 * i);
            std::memcpy(out + i, &bits, 4);
        }
    } else if (t.dtype == "F16") {
        float16ToFloatsShared(t.bytes, n, out);
    } else {
        bfloat16ToFloatsShared(t.bytes, n, out);
    }
}

}  // namespace

attn::Expected<const float*> SafetensorsFile::floats(const SafetensorsTensor& t, FloatBuffer& owned) const
{
    if (t.dtype == "F32") {
        const bool aligned = reinterpret_cast<std::uintptr_t>(t.bytes) % alignof(float) == 0;
        if (QSysInfo::ByteOrder == QSysInfo::LittleEndian && aligned)
            return reinterpret_cast<const float*>(t.bytes);
    } else if (t.dtype != "F16" && t.dtype != "BF16") {
        return failTensor(name_, t.name, "dtype " + t.dtype + " is not supported (F32, F16 and BF16 are)");
    }
    owned = FloatBuffer(std::size_t(t.entryCount()));
    convertInto(t, owned.data());
    return static_cast<const float*>(owned.data());
}

attn::Expected<const float*> SafetensorsFile::floats(const SafetensorsTensor& t,
                                                     std::vector<float>& owned) const
{
    FloatBuffer converted;
    const attn::Expected<const float*> data = floats(t, converted);
    if (!data || converted.empty())
        return data;
    owned.assign(converted.data(), converted.data() + converted.size());
    return static_cast<const float*>(owned.data());
}

float float16ToFloat(std::uint16_t bits)
{
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
    const std::uint32_t mantissa = bits & 0x3FFu;
    std::uint32_t out;
    if (exponent == 0x1F) {
        out = sign | 0x7F800000u | (mantissa << 13);  // infinity, or NaN with its payload
    } else if (exponent != 0) {
        out = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    } else {
        // Zero or subnormal: mantissa x 2^-24, exact in float32.
        float magnitude = float(mantissa) * 0x1p-24f;
        std::memcpy(&out, &magnitude, 4);
        out |= sign;
    }
    float f;
    std::memcpy(&f, &out, 4);
    return f;
}

float bfloat16ToFloat(std::uint16_t bits)
{
    // bfloat16 is the upper half of a float32.
    const std::uint32_t out = std::uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &out, 4);
    return f;
}

}  // namespace attnlab
