// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tiny reference checkpoint (tests/data/gpt2/tiny-gpt2: 2 layers of 4
// heads, random weights) through runGpt2 on one reference case's token_ids,
// with the pieces' display text, for the render tests.

#include "gpt2.h"
#include "gpt2checkpoint.h"
#include "gpt2tokenizer.h"
#include "testdata.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace tinygpt2 {

inline QString folder()
{
    return QStringLiteral(ATTNLAB_TEST_DATA_DIR "/gpt2/tiny-gpt2");
}

struct Run {
    std::shared_ptr<const attn::Gpt2Result> result;
    QStringList tokens;     // display text: "␣cinema"
    QJsonObject reference;  // the case of reference.json
    attnlab::Gpt2Tokenizer tokenizer;
};

// Case `index` of reference.json (0: "Jane is going to the cinema to watch a new").
inline Run run(int index = 0, double temperature = 1.0)
{
    const auto checkpoint = attnlab::readGpt2Checkpoint(folder());
    if (!checkpoint.ok())
        qFatal("readGpt2Checkpoint: %s", checkpoint.error().message.c_str());
    auto tokenizer = attnlab::Gpt2Tokenizer::fromFolder(folder());
    if (!tokenizer.ok())
        qFatal("Gpt2Tokenizer: %s", tokenizer.error().message.c_str());
    Run r{nullptr,
          {},
          testdata::readJson(QStringLiteral("gpt2/tiny-gpt2/reference.json"))["cases"]
              .toArray()[index]
              .toObject(),
          std::move(tokenizer).value()};
    std::vector<int> ids;
    for (const QJsonValue& id : r.reference["token_ids"].toArray())
        ids.push_back(id.toInt());
    attn::Gpt2Options options;
    options.temperature = temperature;
    auto result = attn::runGpt2(checkpoint->weights, ids, options);
    if (!result.ok())
        qFatal("runGpt2: %s", result.error().message.c_str());
    r.result = std::make_shared<const attn::Gpt2Result>(std::move(result).value());
    for (const int id : ids)
        r.tokens << r.tokenizer.token(id).display;
    return r;
}

// The reference's weight of (layer, head) at (row, col).
inline double referenceWeight(const Run& r, int layer, int head, int row, int col)
{
    return r.reference["layers"][layer]["heads"][head]["weights"][row][col].toDouble();
}

}  // namespace tinygpt2
