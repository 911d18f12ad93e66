// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small streaming JSON writer whose numbers read back exactly.
//
// QJsonDocument formats doubles with a fixed precision of its own choosing;
// this writer uses formatRoundTrip (shortest round-trip form) instead. Non-finite
// numbers have no JSON spelling and are written as null. Objects and arrays
// are laid out one item per line unless opened Inline (a matrix row, a short
// record), which keeps an (n, d) matrix at n lines.
//
//   JsonWriter json(stream);
//   json.beginObject();
//   json.key("d_k"); json.value(24);
//   json.endObject();
//   json.finish();  // flushes; the stream's state then tells of write errors

#include "matrix.h"

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

class JsonWriter {
public:
    enum class Layout { Block, Inline };

    explicit JsonWriter(std::ostream& out);
    ~JsonWriter();
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;

    void beginObject(Layout layout = Layout::Block);
    void endObject();
    void beginArray(Layout layout = Layout::Block);
    void endArray();

    // Inside an object, each value follows its key.
    void key(std::string_view name);

    void value(double number);
    void value(int number);
    void value(std::int64_t number);
    void value(std::uint64_t number);
    void value(bool flag);
    void value(std::string_view text);  // UTF-8
    void value(const char* text) { value(std::string_view(text)); }
    void null();

    // Writes the buffered text to the stream and ends with a newline.
    void finish();

    // `text` as a quoted JSON string: quotes, backslashes and control
    // characters escaped, other UTF-8 passed through.
    static void appendQuoted(std::string& out, std::string_view text);

private:
    struct Level {
        Layout layout;
        bool empty = true;
    };

    void beforeValue();
    void open(char bracket, Layout layout);
    void close(char bracket);
    void newline(std::size_t depth);
    void flushIfLarge();

    std::ostream& out_;
    std::string buffer_;
    std::vector<Level> levels_;
    bool afterKey_ = false;
};

// (rows, cols) as an array of rows, one row per line; -inf becomes null.
void writeJsonMatrix(JsonWriter& json, const attn::Matrix& m);
// A flat array of numbers on one line (a bias, as PyTorch keeps it).
void writeJsonVector(JsonWriter& json, const attn::RowVector& v);

}  // namespace attnlab
