// SPDX-License-Identifier: GPL-3.0-or-later
#include "npy.h"

#include "echoedvalue.h"
#include "inputfile.h"
#include "pyliteralparser.h"
#include "size_limits.h"

#include <QFileInfo>
#include <QtEndian>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

namespace attnlab {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
// The header length a file may announce (checked before the header is
// looked at); what is parsed is then held to numpy's own limit below.
constexpr std::size_t kMaxHeaderBytes = 1 << 16;
// numpy.load's default max_header_size (numpy 1.24): longer headers are
// refused as unsafe to parse.
constexpr std::size_t kNumpyMaxHeaderCharacters = 10000;
// The largest file that can hold an accepted array: the longest prefix and
// header, then kMaxMatrixEntries float64 entries.
constexpr long long kMaxNpyFileBytes =
    (long long)(kMagicSize + 2 + 4 + kMaxHeaderBytes) + 8 * attn::kMaxMatrixEntries;

struct NpyHeader {
    bool bigEndian = false;
    int itemSize = 8;  // 4 (float32) or 8 (float64)
    bool fortran = false;
    long long rows = 0;
    long long cols = 0;
    std::size_t dataOffset = 0;
    long long dataBytes() const { return rows * cols * itemSize; }
};

attn::Error fail(std::string_view name, const std::string& what)
{
    return attn::Error{std::string(name) + ": " + what};
}

// At most 40 characters of header text for a message, control bytes as '?'.
std::string printable(std::string_view text)
{
    std::string out;
    for (const char c : text.substr(0, 40))
        out += static_cast<unsigned char>(c) < 0x20 || c == 0x7F ? '?' : c;
    return text.size() > 40 ? out + "..." : out;
}

// "32-bit integers" for '<i4': what a refused dtype holds, in words.
std::string describeDtype(std::string_view descr)
{
    if (descr.size() < 2)
        return "values of an unknown type";
    const char kind = descr[1];
    const std::string_view size = descr.substr(2);
    const auto bits = [&size]() {
        int bytes = 0;
        for (const char c : size) {
            if (c < '0' || c > '9')
                return std::string("?");
            bytes = bytes * 10 + (c - '0');
            if (bytes > 1000)
                return std::string("?");
        }
        return std::to_string(bytes * 8);
    };
    switch (kind) {
    case 'i': return bits() + "-bit integers";
    case 'u': return bits() + "-bit unsigned integers";
    case 'f': return bits() + "-bit floats";
    case 'c': return bits() + "-bit complex numbers";
    case 'b': return "booleans";
    case 'O': return "Python objects";
    case 'U': return "Unicode strings";
    case 'S':
    case 'a': return "byte strings";
    case 'V': return "raw bytes";
    case 'M': return "dates";
    case 'm': return "time differences";
    default: return "values of an unknown type";
    }
}

std::string shapeText(const PyValue& shape)
{
    const auto item = [&shape](std::size_t i) {
        const PyValue& d = shape.items[i];
        return d.type != PyValue::Type::Integer ? std::string("?")
               : d.tooLarge                     ? std::string("huge")
                                                : std::to_string(d.integer);
    };
    return echoedList(shape.items.size(), item, "(", shape.items.size() == 1 ? ",)" : ")");
}

std::string shapeText(long long rows, long long cols)
{
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

const char* const kAccepted =
    "only float32 or float64 arrays can be read ('<f4', '>f4', '<f8', '>f8'); "
    "convert with a.astype(numpy.float64)";

// Magic, version, header dict. `bytes` may stop after the header.
attn::Expected<NpyHeader> parseHeader(std::string_view bytes, std::string_view name)
{
    if (bytes.size() < kMagicSize || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0) {
        if (bytes.empty())
            return fail(name, "the file is empty; expected a NumPy .npy file");
        return fail(name, "not a NumPy .npy file (it does not start with \"\\x93NUMPY\")");
    }
    if (bytes.size() < kMagicSize + 2)
        return fail(name, "the file ends inside the .npy header");
    const int major = static_cast<unsigned char>(bytes[6]);
    const int minor = static_cast<unsigned char>(bytes[7]);
    if (minor != 0 || major < 1 || major > 3)
        return fail(name, ".npy format version " + std::to_string(major) + "." + std::to_string(minor)
                              + " is not supported (1.0, 2.0 and 3.0 are)");
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    const std::size_t prefix = kMagicSize + 2 + lengthBytes;
    if (bytes.size() < prefix)
        return fail(name, "the file ends inside the .npy header");
    const auto* p = reinterpret_cast<const uchar*>(bytes.data()) + kMagicSize + 2;
    const std::size_t headerLength =
        major == 1 ? qFromLittleEndian<quint16>(p) : qFromLittleEndian<quint32>(p);
    if (headerLength > kMaxHeaderBytes)
        return fail(name, "the .npy header claims " + std::to_string(headerLength) + " bytes, more than the "
                              + std::to_string(kMaxHeaderBytes) + " allowed");
    if (bytes.size() < prefix + headerLength)
        return fail(name, "the file ends inside the .npy header (" + std::to_string(headerLength)
                              + " header bytes announced, " + std::to_string(bytes.size() - prefix)
                              + " present)");

    // numpy.load's max_header_size: the header in characters (UTF-8 in
    // version 3.0, one byte each before).
    const std::string_view text = bytes.substr(prefix, headerLength);
    const std::size_t characters =
        major < 3 ? text.size() : std::size_t(std::count_if(text.begin(), text.end(), [](char c) {
            return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
    if (characters > kNumpyMaxHeaderCharacters)
        return fail(name, "the .npy header has " + std::to_string(characters)
                              + " characters; numpy.load refuses more than "
                              + std::to_string(kNumpyMaxHeaderCharacters));
    // numpy.lib.format: literal_eval of the dict (a key written twice keeps
    // its last value), whose keys must be exactly these three.
    PyValue dict;
    PyLiteralParser parser(bytes.substr(prefix, headerLength), major <= 2);
    if (!parser.parse(&dict) || dict.type != PyValue::Type::Dict)
        return fail(name, "the .npy header is not a readable Python dict");
    for (const std::string& key : dict.keys)
        if (key != "descr" && key != "fortran_order" && key != "shape")
            return fail(name, "the .npy header has the key '" + printable(key)
                                  + "'; numpy allows only 'descr', 'fortran_order' and 'shape'");
    const PyValue* descr = findKey(dict, "descr");
    const PyValue* fortran = findKey(dict, "fortran_order");
    const PyValue* shape = findKey(dict, "shape");
    if (!descr || !fortran || !shape)
        return fail(name, std::string("the .npy header lacks '")
                              + (!descr     ? "descr"
                                 : !fortran ? "fortran_order"
                                            : "shape")
                              + "'");

    NpyHeader header;
    header.dataOffset = prefix + headerLength;
    if (descr->type != PyValue::Type::String)
        return fail(name, std::string("holds a structured array (a dtype with fields); ") + kAccepted);
    const std::string& d = descr->text;
    if (d == "<f8" || d == ">f8" || d == "<f4" || d == ">f4") {
        header.bigEndian = d[0] == '>';
        header.itemSize = d[2] - '0';
    } else {
        return fail(name, "holds " + describeDtype(d) + " (dtype '" + d + "'); " + kAccepted);
    }
    if (fortran->type != PyValue::Type::Boolean)
        return fail(name, "the .npy header's 'fortran_order' is not True or False");
    header.fortran = fortran->boolean;

    if (shape->type != PyValue::Type::Sequence || shape->list)
        return fail(name, "the .npy header's 'shape' is not a tuple");
    for (const PyValue& dim : shape->items)
        if (dim.type != PyValue::Type::Integer)
            return fail(name, "the .npy header's 'shape' " + shapeText(*shape)
                                  + " holds something other than whole numbers");
    const std::size_t rank = shape->items.size();
    if (rank == 0 || rank > 2)
        return fail(name, "has " + std::to_string(rank) + " dimension" + (rank == 1 ? "" : "s") + ", shape "
                              + shapeText(*shape) + "; a matrix needs 2 (or 1 for a single row)");
    const PyValue& r = shape->items.front();
    const PyValue& c = shape->items.back();
    constexpr long long limit = attn::kMaxTokens;
    const auto tooBig = [](const PyValue& v) { return v.tooLarge || v.integer > unsigned(limit); };
    if (tooBig(r) || tooBig(c))
        return fail(name, "shape " + shapeText(*shape) + " is too large: each dimension may be at most "
                              + std::to_string(limit));
    header.rows = rank == 1 ? 1 : (long long)r.integer;
    header.cols = (long long)c.integer;
    if (header.rows * header.cols > attn::kMaxMatrixEntries)
        return fail(name, "shape " + shapeText(*shape) + " is too large: at most "
                              + std::to_string(attn::kMaxMatrixEntries) + " entries");
    if (header.rows == 0 || header.cols == 0)
        return fail(name, "is empty (shape " + shapeText(*shape) + ")");
    return header;
}

attn::Status checkDataSize(const NpyHeader& header, long long available, std::string_view name)
{
    const long long needed = header.dataBytes();
    if (available == needed)
        return attn::okStatus();
    const std::string dtype =
        std::string(header.bigEndian ? ">" : "<") + "f" + std::to_string(header.itemSize);
    const std::string what = "the header's shape " + shapeText(header.rows, header.cols) + " of " + dtype
                             + " needs " + std::to_string(needed) + " data bytes but ";
    if (available < needed)
        return fail(name,
                    what + "the file has " + std::to_string(available) + " (truncated or a wrong header)");
    return fail(name, what + "the file has " + std::to_string(available)
                          + " (extra bytes after the data: a wrong header)");
}

double readEntry(const uchar* p, const NpyHeader& header)
{
    if (header.itemSize == 8) {
        const quint64 bits = header.bigEndian ? qFromBigEndian<quint64>(p) : qFromLittleEndian<quint64>(p);
        double value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    }
    const quint32 bits = header.bigEndian ? qFromBigEndian<quint32>(p) : qFromLittleEndian<quint32>(p);
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return double(value);
}

attn::Expected<attn::Matrix> decodeData(const NpyHeader& header, const char* data, std::string_view name)
{
    const auto* bytes = reinterpret_cast<const uchar*>(data);
    attn::Matrix m(header.rows, header.cols);
    for (long long i = 0; i < header.rows; ++i) {
        for (long long j = 0; j < header.cols; ++j) {
            const long long index = header.fortran ? j * header.rows + i : i * header.cols + j;
            const double value = readEntry(bytes + index * header.itemSize, header);
            if (!std::isfinite(value)) {
                return fail(name, "entry [" + std::to_string(i) + ", " + std::to_string(j) + "] (row "
                                      + std::to_string(i + 1) + ", column " + std::to_string(j + 1) + ") is "
                                      + (std::isnan(value) ? "NaN"
                                         : value > 0       ? "inf"
                                                           : "-inf")
                                      + "; every entry must be a finite number");
            }
            m(i, j) = value;
        }
    }
    return m;
}

}  // namespace

attn::Expected<attn::Matrix> parseNpy(std::string_view bytes, std::string_view name)
{
    const attn::Expected<NpyHeader> header = parseHeader(bytes, name);
    if (!header)
        return header.error();
    const long long available = (long long)(bytes.size() - header->dataOffset);
    const attn::Status size = checkDataSize(header.value(), available, name);
    if (!size)
        return size.error();
    return decodeData(header.value(), bytes.data() + header->dataOffset, name);
}

attn::Expected<attn::Matrix> readNpyFile(const QString& path, const std::atomic<bool>* stop)
{
    const attn::Expected<QByteArray> bytes = readInputFile(path, kMaxNpyFileBytes, ".npy matrix", stop);
    if (!bytes)
        return bytes.error();
    return parseNpy(std::string_view(bytes->constData(), std::size_t(bytes->size())),
                    QFileInfo(path).fileName().toStdString());
}

void writeNpy(std::ostream& out, const attn::Matrix& m)
{
    std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(m.rows()) + ", "
                       + std::to_string(m.cols()) + "), }";
    // Data starts at a multiple of 64 bytes, as numpy writes it.
    const bool version1 = dict.size() + 1 + kMagicSize + 2 + 2 <= 65535;
    const std::size_t prefix = kMagicSize + 2 + (version1 ? 2 : 4);
    const std::size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict += '\n';

    std::string head(kMagic, kMagicSize);
    head += char(version1 ? 1 : 2);
    head += char(0);
    uchar length[4];
    if (version1) {
        qToLittleEndian<quint16>(quint16(dict.size()), length);
        head.append(reinterpret_cast<const char*>(length), 2);
    } else {
        qToLittleEndian<quint32>(quint32(dict.size()), length);
        head.append(reinterpret_cast<const char*>(length), 4);
    }
    out.write(head.data(), std::streamsize(head.size()));
    out.write(dict.data(), std::streamsize(dict.size()));

    std::vector<uchar> row(std::size_t(m.cols()) * 8);
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            quint64 bits;
            const double value = m(i, j);
            std::memcpy(&bits, &value, sizeof bits);
            qToLittleEndian<quint64>(bits, row.data() + j * 8);
        }
        out.write(reinterpret_cast<const char*>(row.data()), std::streamsize(row.size()));
    }
}

std::string npyBytes(const attn::Matrix& m)
{
    std::ostringstream out;
    writeNpy(out, m);
    return out.str();
}

attn::Status checkShape(std::string_view name, const attn::Matrix& m, int expectedRows, int expectedCols,
                        std::string_view dims, std::string_view transposeHint)
{
    const bool rowsFit = expectedRows < 0 || m.rows() == expectedRows;
    const bool colsFit = expectedCols < 0 || m.cols() == expectedCols;
    if (rowsFit && colsFit)
        return attn::okStatus();
    const auto dim = [](int n) { return n < 0 ? std::string("any") : std::to_string(n); };
    std::string message = std::string(name) + " has shape " + shapeText(m.rows(), m.cols()) + " but ("
                          + dim(expectedRows) + ", " + dim(expectedCols) + ") was expected ("
                          + std::string(dims) + ")";
    const bool transposedFits =
        (expectedRows < 0 || m.cols() == expectedRows) && (expectedCols < 0 || m.rows() == expectedCols);
    if (transposedFits && !transposeHint.empty())
        message += "; " + std::string(transposeHint);
    return attn::Error{message};
}

}  // namespace attnlab
